"""``patchwright apply``: a model reply applied to a real repository, all or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "notes.txt").write_text("alpha\nbeta\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def invoke(repo: Path, reply: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["apply", "--repo", str(repo), *args, "-"], input=reply)
    return result.exit_code, result.output


def test_applies_and_prints_a_diff(repo: Path) -> None:
    code, out = invoke(repo, sr("pkg/calc.py", "    return a - b\n", "    return a + b\n"))
    assert code == 0, out
    assert "+    return a + b" in out and "-    return a - b" in out
    assert (repo / "pkg/calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_json_output_shape(repo: Path) -> None:
    reply = sr("calc.py", "    return a - b\n", "    return a + b\n")
    code, out = invoke(repo, reply, "--json")
    assert code == 0
    assert json.loads(out) == {
        "ok": True,
        "message": None,
        "files_changed": ["pkg/calc.py"],
        "blocks": [
            {"path": "pkg/calc.py", "status": "applied", "strategy": "exact", "message": None}
        ],
    }


def test_one_failing_block_writes_nothing(repo: Path) -> None:
    reply = sr("notes.txt", "alpha\n", "ALPHA\n") + sr("pkg/calc.py", "nope\n", "x\n")
    code, out = invoke(repo, reply, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["files_changed"] == []
    assert [b["status"] for b in data["blocks"]] == ["applied", "failed"]
    assert (repo / "notes.txt").read_text() == "alpha\nbeta\n"


def test_dry_run_writes_nothing(repo: Path) -> None:
    code, out = invoke(repo, sr("notes.txt", "beta\n", "gamma\n"), "--dry-run")
    assert code == 0 and "+gamma" in out and "would change 1 file" in out
    assert (repo / "notes.txt").read_text() == "alpha\nbeta\n"


def test_crlf_bom_and_latin1_are_preserved(repo: Path) -> None:
    (repo / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    (repo / "old.txt").write_bytes("caf\xe9\nna\xefve\n".encode("latin-1"))
    reply = sr("win.txt", "two\n", "two\nthree\n") + sr(
        "old.txt", "na\u00efve\n", "r\u00e9sum\u00e9\n"
    )
    code, out = invoke(repo, reply)
    assert code == 0, out
    assert (repo / "win.txt").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n"
    assert (repo / "old.txt").read_bytes() == "caf\xe9\nr\xe9sum\xe9\n".encode("latin-1")


@pytest.mark.parametrize("path", ["../evil.py", "/tmp/patchwright-evil.py", "link/evil.py"])
def test_paths_leaving_the_repo_are_refused(repo: Path, tmp_path: Path, path: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")
    code, out = invoke(repo, sr(path, "", "X = 1\n"), "--json")
    assert code == 2  # a bad path is a usage error; nothing is written
    block = json.loads(out)["blocks"][0]
    assert block["status"] == "failed" and block["message"]
    assert not (tmp_path / "evil.py").exists() and not (outside / "evil.py").exists()
    assert not Path("/tmp/patchwright-evil.py").exists()


def test_directory_and_binary_targets_fail(repo: Path) -> None:
    (repo / "img.bin").write_bytes(bytes(range(256)) * 4)
    (repo / "conf.d").mkdir()
    code, out = invoke(repo, sr("conf.d", "", "x\n") + sr("img.bin", "a\n", "b\n"), "--json")
    messages = [b["message"] for b in json.loads(out)["blocks"]]
    assert code == 1
    assert "directory" in messages[0] and "binary" in messages[1]


def test_create_and_delete(repo: Path) -> None:
    reply = sr("pkg/new.py", "", "VALUE = 1\n") + "DELETE FILE: notes.txt\n"
    code, out = invoke(repo, reply)
    assert code == 0, out
    assert (repo / "pkg/new.py").read_text() == "VALUE = 1\n"
    assert not (repo / "notes.txt").exists()


def test_reply_without_edits_fails_and_says_why(repo: Path) -> None:
    code, out = invoke(repo, "Looks good to me!", "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["blocks"] == []
    assert data["message"].startswith("the reply contains no edits: it is prose only")


def test_failure_explains_closest_lines(repo: Path) -> None:
    code, out = invoke(repo, sr("pkg/calc.py", "def add(x, y):\n    return x - y\n", "z\n"))
    assert code == 1
    assert "1 | def add(a, b):" in out and "Resend ONLY the failed" in out


def test_usage_errors_exit_2(repo: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["apply", "--repo", str(repo), str(tmp_path / "missing.txt")])
    assert result.exit_code == 2
    result = CliRunner().invoke(app, ["apply", "--repo", str(tmp_path / "nope"), "-"], input="")
    assert result.exit_code == 2


def test_real_process_reads_reply_file(repo: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(sr("notes.txt", "alpha\n", "omega\n"))
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "apply", "--json", str(reply)],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files_changed"] == ["notes.txt"]
    assert (repo / "notes.txt").read_text() == "omega\nbeta\n"


def test_ambiguous_basename_is_settled_by_where_the_search_text_is(repo: Path) -> None:
    (repo / "a").mkdir()
    (repo / "b").mkdir()
    (repo / "a" / "util.py").write_text("def one():\n    return 1\n")
    (repo / "b" / "util.py").write_text("def two():\n    return 2\n")
    code, out = invoke(repo, sr("util.py", "    return 2\n", "    return 22\n"), "--json")
    assert code == 0, out
    assert json.loads(out)["files_changed"] == ["b/util.py"]
    code, out = invoke(repo, sr("util.py", "def\n", "x\n"), "--json")
    assert code == 1 and "a/util.py" in json.loads(out)["blocks"][0]["message"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "it is empty"),
        ("Looks good to me!\nNothing to change.", "it is prose only (2 line(s))"),
        ("\x00\x01\x02\xff\xfe" * 40, "it is not text"),
        ("Try this:\n```python\nprint(1)\n```\n", "its 1 code block(s) name no file"),
    ],
    ids=["empty", "prose", "binary", "unnamed-code"],
)
def test_a_reply_without_edits_says_why_in_json_and_on_stderr(
    repo: Path, reply: str, why: str
) -> None:
    runner = CliRunner()
    as_json = runner.invoke(app, ["apply", "--repo", str(repo), "--json", "-"], input=reply)
    assert as_json.exit_code == 1
    message = json.loads(as_json.stdout)["message"]
    assert message.startswith(f"the reply contains no edits: {why}"), message
    plain = runner.invoke(app, ["apply", "--repo", str(repo), "-"], input=reply)
    assert plain.exit_code == 1 and f"the reply contains no edits: {why}" in plain.stderr


def test_a_reply_file_starting_with_a_bom_applies(repo: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_bytes(b"\xef\xbb\xbf" + sr("notes.txt", "alpha\n", "omega\n").encode())
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "apply", "--json", str(reply)],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "notes.txt").read_text() == "omega\nbeta\n"


def test_a_replace_holding_a_marker_line_is_written_whole(repo: Path) -> None:
    new = 'HELP = """\nclose a block with\n>>>>>>> REPLACE\n"""\n'
    code, out = invoke(repo, sr("pkg/calc.py", "def add(a, b):\n", new + "def add(a, b):\n"))
    assert code == 0, out
    assert (repo / "pkg/calc.py").read_text() == new + "def add(a, b):\n    return a - b\n"


def test_a_last_line_without_a_newline_is_marked_in_the_diff_and_stays_so(repo: Path) -> None:
    (repo / "notes.txt").write_text("alpha\nbeta")
    code, out = invoke(repo, sr("notes.txt", "beta\n", "gamma\n"), "--dry-run")
    assert code == 0, out
    assert "-beta\n\\ No newline at end of file\n+gamma\n\\ No newline at end of file" in out
    code, out = invoke(repo, sr("notes.txt", "beta\n", "gamma\n"))
    assert code == 0 and (repo / "notes.txt").read_text() == "alpha\ngamma"
