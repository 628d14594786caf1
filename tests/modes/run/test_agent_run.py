"""``patchwright run --strategy agent``: planner → coder → reviewer with real tools, on real
git repositories, the scripted model calling the tools by their contract names."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

Script = Callable[[list[dict[str, Any]]], Path]
CORE = "def total(items):\n    return sum(items) - 1\n"
TEST = "from app.core import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n"
TASK = "The order total comes out one short. Fix it."
FIX = "app/core.py\n<<<<<<< SEARCH\n    return sum(items) - 1\n=======\n    return sum(items)\n>>>>>>> REPLACE\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "content": "",
        "tool_calls": [{"id": f"c_{name}", "name": name, "arguments": arguments}],
    }


PLAN = call("submit_plan", steps=["find the total", "fix the off-by-one"], files=["app/core.py"])
APPROVE = call("approve", commit_message="fix(core): count every item in the total")


@pytest.fixture
def repo(tmp_path: Path, shop: Any) -> Path:
    root = tmp_path / "orders"
    (root / "app").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(CORE)
    (root / "tests" / "test_core.py").write_text(TEST)
    (root / "conftest.py").write_text("")
    shop.git(root, "init", "-q", "-b", "main")
    shop.git(root, "add", "-A")
    shop.git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def steps(tmp_path: Path) -> Script:
    def write(entries: list[dict[str, Any]]) -> Path:
        path = tmp_path / "trajectory.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
        return path

    return write


def run(repo: Path, script: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(repo), "--task", TASK, "--model", f"scripted:{script}",
         "--strategy", "agent", "--yes", "--json", *extra],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


def events(repo: Path) -> list[dict[str, Any]]:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    return [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]


def test_a_bug_the_task_does_not_locate_is_found_fixed_reviewed_and_committed(
    repo: Path, steps: Script, shop: Any
) -> None:
    script = steps([
        PLAN,
        call("search", query="def total"),
        call("read_file", path="app/core.py"),
        call("edit", edits=FIX),
        call("run_tests"),
        call("finish", summary="total no longer drops the last unit"),
        call("read_file", path="app/core.py", start=1, end=2),
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script)
    assert (code, out["outcome"], out["strategy"]) == (0, "solved", "agent"), out
    assert (repo / "app" / "core.py").read_text() == "def total(items):\n    return sum(items)\n"
    assert shop.git(repo, "log", "-1", "--format=%s").strip() == (
        "fix(core): count every item in the total"
    )
    assert out["steps"] == 8
    assert set(out["role_usage"]) == {"planner", "coder", "reviewer"}
    calls = [(e["role"], e["tool"]) for e in events(repo) if e["kind"] == "tool.call"]
    assert calls[:3] == [("planner", "submit_plan"), ("coder", "search"), ("coder", "read_file")]
    search = next(e for e in events(repo) if e["kind"] == "tool.call" and e["tool"] == "search")
    assert "app/core.py:1" in search["observation"]
    tests = next(e for e in events(repo) if e["kind"] == "tool.call" and e["tool"] == "run_tests")
    assert tests["ok"] and "task's check passes" in tests["observation"]
    log = CliRunner().invoke(app, ["log", "--repo", str(repo)]).output
    assert "tool.call" in log and "submit_plan" in log


def test_a_reviewer_rejection_sends_the_coder_back_and_then_succeeds(
    repo: Path, steps: Script
) -> None:
    half = "app/core.py\n<<<<<<< SEARCH\n    return sum(items) - 1\n=======\n    return sum(items) - 1 + 1\n>>>>>>> REPLACE\n"
    tidy = "app/core.py\n<<<<<<< SEARCH\n    return sum(items) - 1 + 1\n=======\n    return sum(items)\n>>>>>>> REPLACE\n"
    script = steps([
        call("edit", edits=half),
        call("finish", summary="fixed"),
        call("reject", reasons="`- 1 + 1` hides the bug; return the plain sum"),
        call("edit", edits=tidy),
        call("finish", summary="plain sum"),
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"], out["iterations"]) == (0, "solved", 2), out
    assert (repo / "app" / "core.py").read_text().endswith("return sum(items)\n")
    rejected = next(e for e in events(repo) if e["kind"] == "agent.rejected")
    assert "hides the bug" in rejected["reasons"]


def test_a_call_outside_the_roles_tools_is_refused(repo: Path, steps: Script) -> None:
    script = steps([
        call("edit", edits=FIX),
        call("finish", summary="done"),
        call("edit", edits=FIX),  # the reviewer may not edit
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (0, "solved"), out
    refused = next(e for e in events(repo) if e["kind"] == "tool.refused")
    assert refused["role"] == "reviewer" and refused["tool"] == "edit"
    assert "approve" in refused["allowed"]
    jailed = next(e for e in events(repo) if e["kind"] == "tool.call" and e["role"] == "reviewer")
    assert not jailed["ok"] and "not available" in jailed["observation"]


def test_a_loop_is_stopped_with_outcome_failed_and_the_repo_restored(
    repo: Path, steps: Script, shop: Any
) -> None:
    before = shop.fingerprint(repo)
    script = steps([call("edit", edits=FIX)] + [call("read_file", path="app/core.py")] * 8)
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["reason"].startswith("stopped: the same read_file call")
    actions = [e["action"] for e in events(repo) if e["kind"] == "agent.loop"]
    assert actions == ["intervene", "stop"]
    assert shop.fingerprint(repo) == before  # the edit written to disk was rolled back


def test_empty_replies_are_a_loop_stopped_after_one_intervention(
    repo: Path, steps: Script, shop: Any
) -> None:
    before = shop.fingerprint(repo)
    script = steps([{"content": ""}] * 6 + [call("finish", summary="never reached")])
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["reason"] == "stopped: empty replies 4 times in a row"
    log = events(repo)
    assert [e["action"] for e in log if e["kind"] == "agent.loop"] == ["intervene", "stop"]
    assert sum(1 for e in log if e["kind"] == "model.reply") == 4  # the first after the nudge
    assert shop.fingerprint(repo) == before


def test_the_same_prose_reply_again_and_again_is_a_loop(repo: Path, steps: Script) -> None:
    prose = {"content": "First find the function, then fix it, then run the tests."}
    script = steps([call("read_file", path="app/core.py")] + [prose] * 6)
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["reason"] == "stopped: the same reply without a tool call 4 times in a row"


def test_gate_failures_go_straight_back_to_the_coder(repo: Path, steps: Script) -> None:
    broken = "app/core.py\n<<<<<<< SEARCH\n    return sum(items) - 1\n=======\n    return sum(items\n>>>>>>> REPLACE\n"
    mend = "app/core.py\n<<<<<<< SEARCH\n    return sum(items\n=======\n    return sum(items)\n>>>>>>> REPLACE\n"
    script = steps([
        call("edit", edits=broken),
        call("finish", summary="fixed"),
        call("edit", edits=mend),
        call("finish", summary="fixed the syntax"),
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"], out["iterations"]) == (0, "solved", 2), out
    assert "reviewer-1" not in json.dumps(events(repo))  # no reviewer call for a broken change


def test_commands_forbidden_are_never_run_and_ask_commands_need_approval(
    repo: Path, steps: Script, tmp_path: Path
) -> None:
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    script = steps([
        call("run", command=f"rm -rf {decoy}"),
        call("run", command="pip install requests"),
        call("run", command="python3 -c 'print(6 * 7)'"),
        call("edit", edits=FIX),
        call("finish", summary="fixed"),
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (0, "solved"), out
    assert decoy.is_dir()
    observed = [
        e["observation"] for e in events(repo) if e["kind"] == "tool.call" and e["tool"] == "run"
    ]
    assert observed[0].startswith("refused by policy")
    assert observed[1].startswith("not run:") and "approval" in observed[1]
    assert "42" in observed[2]


def test_an_mcp_tool_is_called_on_a_real_stdio_server(
    repo: Path, steps: Script, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = Path(__file__).parent / "mcp_notes_server.py"
    config = tmp_path / "xdg" / "patchwright"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f'[mcp.servers.notes]\ncommand = "{sys.executable}"\nargs = ["{server}"]\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    script = steps([
        call("notes__shout", text="totals"),
        call("edit", edits=FIX),
        call("finish", summary="fixed"),
        APPROVE,
    ])  # fmt: skip
    code, out = run(repo, script, "--no-plan")
    assert (code, out["outcome"]) == (0, "solved"), out
    shout = next(
        e for e in events(repo) if e["kind"] == "tool.call" and e["tool"] == "notes__shout"
    )
    assert shout["ok"] and shout["observation"] == "TOTALS!"
    listed = CliRunner().invoke(app, ["mcp", "list", "--json", "--repo", str(repo)])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["tools"][0] == {
        "name": "notes.shout", "description": "Shout the text back.", "roles": ["coder"]
    }  # fmt: skip


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_a_go_change_is_laid_out_by_gofmt_before_the_gates_as_in_the_pipeline(
    tmp_path: Path, steps: Script, shop: Any
) -> None:
    root = tmp_path / "calc"
    root.mkdir()
    calc = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
    test = (
        'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n'
        '\tif Add(2, 3) != 5 {\n\t\tt.Fatal("Add(2, 3) != 5")\n\t}\n}\n'
    )
    files = {"go.mod": "module example.com/calc\n\ngo 1.19\n", "calc.go": calc,
             "calc_test.go": test}  # fmt: skip
    repo = shop.make_repo(root, files)
    spaced = "calc.go\n<<<<<<< SEARCH\n\treturn a - b\n=======\n    return a+b\n>>>>>>> REPLACE\n"
    script = steps([call("edit", edits=spaced), call("finish", summary="adds"), APPROVE])
    code, out = run(repo, script, "--no-plan", "--test-cmd", "go test ./...")
    assert (code, out["outcome"]) == (0, "solved"), out
    assert (repo / "calc.go").read_text() == calc.replace("\treturn a - b", "\treturn a + b")
