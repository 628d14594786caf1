"""``patchwright ask``: one streamed reply; clear errors and exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))  # the loopback protocol server
from llm_fakeserver import FakeServer


@pytest.fixture()
def lmstudio(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    with FakeServer() as server:
        monkeypatch.setenv("PATCHWRIGHT_LMSTUDIO_BASE_URL", server.url)
        yield server


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PATCHWRIGHT_MODEL", raising=False)


def script(tmp_path: Path, *contents: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"content": c}) + "\n" for c in contents))
    return path


def test_json_output_has_exactly_the_documented_shape(tmp_path: Path) -> None:
    path = script(tmp_path, "def add(a, b):\n    return a + b\n")
    result = CliRunner().invoke(app, ["ask", "--model", f"scripted:{path}", "--json", "add?"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"content", "model", "usage", "cost", "seconds"}
    assert payload["content"] == "def add(a, b):\n    return a + b\n"
    assert payload["model"] == f"scripted:{path}"
    assert set(payload["usage"]) == {"prompt_tokens", "completion_tokens", "cached_tokens"}
    assert all(isinstance(v, int) for v in payload["usage"].values())
    assert isinstance(payload["cost"], float) and isinstance(payload["seconds"], float)


def test_streams_the_reply_to_stdout(tmp_path: Path) -> None:
    path = script(tmp_path, "hello there, friend")
    result = CliRunner().invoke(app, ["ask", "-m", f"scripted:{path}", "hi"])
    assert result.exit_code == 0
    assert result.stdout == "hello there, friend\n"


def test_record_then_replay(tmp_path: Path) -> None:
    path = script(tmp_path, "recorded answer")
    rec = tmp_path / "rec.jsonl"
    CliRunner().invoke(app, ["ask", "-m", f"scripted:{path}", "--record", str(rec), "hi"])
    replay = CliRunner().invoke(app, ["ask", "-m", f"scripted:{rec}", "--json", "hi"])
    assert json.loads(replay.stdout)["content"] == "recorded answer"


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("olama:qwen2.5-coder", "Did you mean 'ollama:qwen2.5-coder'"),
        ("openai:gpt-4o", "set OPENAI_API_KEY"),
        (
            "openai-compat:http://127.0.0.1:9/v1#qwen",
            "nothing is listening at http://127.0.0.1:9/v1",
        ),
        ("local:/nonexistent/model.gguf", "/nonexistent/model.gguf does not exist"),
    ],
)
def test_bad_input_is_explained_with_exit_2(model: str, expected: str) -> None:
    result = CliRunner().invoke(app, ["ask", "--model", model, "hi"])
    assert result.exit_code == 2
    assert expected in result.stderr
    assert "Traceback" not in result.output


def test_model_missing_on_the_server_is_bad_input(lmstudio: FakeServer) -> None:
    lmstudio.plan("404")
    result = CliRunner().invoke(app, ["ask", "--model", "lmstudio:qwen-coder", "hi"])
    assert result.exit_code == 2
    assert "HTTP 404" in result.stderr and "lms server start" in result.stderr


def test_retries_are_announced_on_stderr_and_json_stays_clean(lmstudio: FakeServer) -> None:
    lmstudio.plan("500")
    result = CliRunner().invoke(app, ["ask", "-m", "lmstudio:qwen-coder", "--json", "hi"])
    assert result.exit_code == 0, result.output
    assert "retrying lmstudio:qwen-coder" in result.stderr
    assert json.loads(result.stdout)["content"] == "Hello from the fake server. "
    assert [e.behaviour for e in lmstudio.log] == ["500", "ok"]


def test_empty_prompt_is_bad_input() -> None:
    result = CliRunner().invoke(app, ["ask", "  "])
    assert result.exit_code == 2
    assert "prompt is empty" in result.stderr


def test_max_tokens_must_be_positive(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ask", "--max-tokens", "0", "hi"])
    assert result.exit_code == 2


@pytest.mark.slow
def test_embedded_model_answers_through_the_real_cli(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "patchwright",
            "ask",
            "--model",
            "local:qwen2.5-coder-0.5b",
            "--max-tokens",
            "12",
            "--json",
            "Say hello.",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["content"].strip()
    assert payload["model"] == "local:qwen2.5-coder-0.5b"
    assert 0 < payload["usage"]["completion_tokens"] <= 12
    assert payload["cost"] == 0.0
