"""``solve(session, request)`` as a specification: the request built from settings and
overrides, the strategy chosen from the model's catalog entry, each setting honoured by each
strategy or refused before anything runs — on real git repositories, with the scripted model
(its replies, or tool calls), no CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from patchwright.agent.record import RunRecord
from patchwright.agent.request import Overrides, RunError, TaskRequest, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import check_fits, choose_strategy, solve
from patchwright.agent.solve_types import Person, StrategyResult, Wired
from patchwright.agent.task.pipeline_strategy import build_pipeline
from patchwright.agent.task.prepare import Groundwork, prepare
from patchwright.agent.task.repo import TaskRepo
from patchwright.config import Settings
from patchwright.events import EventBus
from patchwright.llm import ModelInfo, OnToken

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)
COMMENT = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n"
    '"""Prices and discounts."""\n=======\n"""Prices and discounts (checked)."""\n'
    ">>>>>>> REPLACE\n```\n"
)
TOOL_MODEL = {"tools": True, "small": False, "context_window": 32768}
WINDOW = 2600  # a context window the shop's repairs outgrow by the fourth request


def reply(content: str) -> dict[str, Any]:
    return {"content": content}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "content": "",
        "tool_calls": [{"id": f"c_{name}", "name": name, "arguments": arguments}],
    }


APPROVE = call("approve", commit_message="fix(pricing): take the discount off the price")


def settings_for(tmp_path: Path, replies: list[dict[str, Any]], **sections: Any) -> Settings:
    """Settings whose model is a script of ``replies``; ``tools=True`` makes its catalog
    entry a capable tool-calling model (so ``auto`` picks the agent)."""
    path = tmp_path / "script.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    spec = f"scripted:{path}"
    model: dict[str, Any] = {"name": spec}
    if sections.pop("tools", False):
        model["catalog"] = {spec: TOOL_MODEL}
    return Settings.model_validate({"model": model, **sections})


def events_of(bus: EventBus) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    bus.subscribe(lambda e: seen.append((e.kind, e.payload())))
    return seen


def trajectory(repo: Path, run_id: str) -> list[dict[str, Any]]:
    data = json.loads((repo / ".patchwright" / "runs" / run_id / "trajectory.json").read_text())
    return list(data["messages"])


# -- the request: settings, then the overrides, in one place -----------------------------


def test_a_request_takes_the_settings_and_the_overrides_win() -> None:
    settings = Settings.model_validate(
        {"run": {"max_iter": 6, "edit_format": "whole", "test_timeout": 30},
         "agent": {"strategy": "agent", "plan": False, "max_rejections": 5}}
    )  # fmt: skip
    request = build_request("fix it", settings)
    assert (request.limits.max_iter, request.edit_format, request.strategy) == (6, "whole", "agent")
    assert (request.limits.plan, request.limits.max_rejections) == (False, 5)
    assert request.limits.test_timeout == 30 and request.limits.candidates is None
    over = build_request("fix it", settings, Overrides(max_iter=2, edit_format="diff", plan=True))
    assert (over.limits.max_iter, over.edit_format, over.limits.plan) == (2, "diff", True)


def test_the_defaults_are_the_settings_defaults() -> None:
    request = build_request("fix it", Settings())
    assert request.limits.max_iter == Settings().run.max_iter == 4
    assert request.git.commit and request.git.use_git and not request.approval.yes


def test_handing_the_change_back_turns_the_commit_off() -> None:
    request = build_request("fix it", Settings(), Overrides(no_git=True), hand_back=True)
    assert request.hand_back and not request.git.commit and not request.git.use_git


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (Overrides(strategy="fast"), "--strategy fast: use one of auto, pipeline, agent"),
        (Overrides(edit_format="patch"), "--edit-format patch: use one of"),
        (Overrides(candidates=0), "--candidates 0: give a positive number"),
        (Overrides(max_iter=0), "--max-iter 0: give a positive number"),
        (Overrides(test_timeout=0), "--test-timeout 0: give a positive number"),
    ],
)
def test_a_value_no_strategy_could_use_is_refused(overrides: Overrides, message: str) -> None:
    with pytest.raises(RunError, match=message):
        build_request("fix it", Settings(), overrides)


# -- the strategy, from the catalog entry ------------------------------------------------


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (ModelInfo("anthropic:claude-sonnet-4-5", tools=True), "agent"),
        (ModelInfo("openai:gpt-4o-mini", tools=True, small=True), "pipeline"),
        (ModelInfo("local:qwen2.5-coder-1.5b", small=True), "pipeline"),
        (ModelInfo("ollama:qwen2.5-coder", tools=False), "pipeline"),
    ],
)
def test_auto_picks_the_agent_for_capable_tool_calling_models(
    info: ModelInfo, expected: str
) -> None:
    assert choose_strategy("auto", info) == expected
    assert choose_strategy("pipeline", info) == "pipeline"  # asked for: as asked


def request_with(**overrides: Any) -> TaskRequest:
    return build_request("fix it", Settings(), Overrides(**overrides))


def test_candidates_above_one_are_refused_for_the_agent_naming_both() -> None:
    big = ModelInfo("anthropic:claude-sonnet-4-5", tools=True)
    with pytest.raises(RunError, match=r"--candidates 3 .* agent strategy \(--strategy agent\)"):
        check_fits(request_with(candidates=3, strategy="agent"), "agent", big)
    with pytest.raises(RunError, match="auto chose it for anthropic:claude-sonnet-4-5"):
        check_fits(request_with(candidates=3), "agent", big)
    check_fits(request_with(candidates=1, strategy="agent"), "agent", big)
    check_fits(request_with(candidates=3), "pipeline", big)


def test_a_refused_combination_changes_nothing_and_spends_no_call(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    settings = settings_for(tmp_path, [reply(FIX)], tools=True)
    session = Session(settings, shop_repo)
    request = build_request(TASK, settings, Overrides(candidates=2, yes=True))
    before = shop.fingerprint(shop_repo)
    with pytest.raises(RunError, match="--candidates 2"):
        solve(session, request)
    assert session.usage.calls == 0 and shop.fingerprint(shop_repo) == before


def test_without_yes_or_a_person_nobody_can_approve(shop_repo: Path, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, [reply(FIX)])
    with pytest.raises(RunError, match="nobody can approve"):
        solve(Session(settings, shop_repo), build_request(TASK, settings))


# -- the pipeline ------------------------------------------------------------------------


def test_the_pipeline_solves_a_small_repo_and_commits(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    settings = settings_for(tmp_path, [reply(FIX), reply("fix(pricing): discount")])
    session = Session(settings, shop_repo)
    result = solve(session, build_request(TASK, settings, Overrides(yes=True)))
    assert (result.outcome, result.strategy, result.first_try) == ("solved", "pipeline", True)
    assert result.commit and result.files_changed == ["shop/pricing.py"]
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == "fix(pricing): discount"
    assert result.edit_format == "whole"  # auto, for a small model and small files


def test_the_pipeline_stops_at_max_iter_with_the_repository_as_it_was(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    settings = settings_for(tmp_path, [reply(COMMENT)] * 3)
    before = shop.fingerprint(shop_repo)
    request = build_request(TASK, settings, Overrides(max_iter=1, yes=True))
    result = solve(Session(settings, shop_repo), request)
    assert (result.outcome, result.iterations, result.calls) == ("failed", 1, 1)
    assert shop.fingerprint(shop_repo) == before


def test_the_pipeline_samples_candidates_and_shows_included_files_first(
    shop_repo: Path, tmp_path: Path
) -> None:
    (shop_repo / "NOTES.md").write_text("Discounts are percentages of the price.\n")
    settings = settings_for(tmp_path, [reply(COMMENT), reply(FIX), reply("fix: d")])
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(candidates=2, include=["NOTES.md"], yes=True))
    result = solve(Session(settings, shop_repo, bus=bus), request)
    assert (result.outcome, result.candidates) == ("solved", 2)
    assert [d["files"][0] for k, d in seen if k == "context.built"] == ["NOTES.md"]
    assert [k for k, _ in seen].count("candidate.start") == 1  # the second sample


def test_the_pipeline_asks_for_the_edit_format_given(shop_repo: Path, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, [reply(FIX), reply("fix: d")], run={"edit_format": "udiff"})
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, Overrides(yes=True)))
    assert (result.outcome, result.edit_format) == ("solved", "udiff")
    system = trajectory(shop_repo, result.run_id)[0]["content"]
    assert "unified diff" in system


FUNCTION_FIX = (
    "The discount is returned instead of the price after it.\n```python\n"
    "def apply_discount(price: float, percent: float) -> float:\n"
    '    """Return the price after taking ``percent`` (0-100) off it."""\n'
    "    return price * (1 - percent / 100)\n```\n"
)


def test_after_a_failed_whole_file_attempt_a_small_model_is_asked_for_the_convicted_function(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    settings = settings_for(tmp_path, [reply(COMMENT), reply(FUNCTION_FIX), reply("fix: d")])
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(max_iter=2, yes=True))
    session = Session(settings, shop_repo, bus=bus)
    result = solve(session, request)

    assert (result.outcome, result.iterations) == ("solved", 2)
    assert [c.temperature for c in session.model.calls] == [0.0, 0.0, 0.0]  # a fresh conversation
    assert shop.git(shop_repo, "show", "HEAD:shop/pricing.py") == shop.FIXED  # docstring kept
    [refocus] = [d for k, d in seen if k == "edit.refocus"]
    assert (refocus["iteration"], refocus["definition"], refocus["path"]) == (
        2, "apply_discount", "shop/pricing.py")  # fmt: skip
    messages = trajectory(shop_repo, result.run_id)
    systems = [m["content"] for m in messages if m["role"] == "system"]
    assert len(systems) == 2 and "COMPLETE new content" in systems[0]  # the first conversation
    assert systems[1] == "You are a careful senior software engineer.\n"  # kept in the record
    asked = messages[messages.index({"role": "system", "content": systems[1]}) + 1]["content"]
    assert "The bug is in the function `apply_discount` of shop/pricing.py" in asked
    assert "def test_quarter_off() -> None:" in asked and "assert 50.0 == 150.0" in asked
    assert f"The task: {TASK}" in asked


def test_when_the_corrected_function_fails_too_it_is_asked_for_anew_without_its_body(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    """The third way in: shown a wrong body, a small model keeps its shape; shown the
    docstring, the signature and the failing test, it writes the function from them."""
    wrong = FUNCTION_FIX.replace("(1 - percent / 100)", "percent / 10")
    settings = settings_for(tmp_path, [reply(COMMENT), reply(wrong), reply(FUNCTION_FIX),
                                       reply("fix: d")])  # fmt: skip
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(max_iter=3, yes=True))
    result = solve(Session(settings, shop_repo, bus=bus), request)

    assert (result.outcome, result.iterations) == ("solved", 3)
    assert shop.git(shop_repo, "show", "HEAD:shop/pricing.py") == shop.FIXED
    ways = [(d["iteration"], d["way"]) for k, d in seen if k == "edit.refocus"]
    assert ways == [(2, "fix"), (3, "rewrite")]
    asked = trajectory(shop_repo, result.run_id)[-2]["content"]  # the request the fix answered
    assert "Earlier attempts to find the wrong line failed, so its body is not shown" in asked
    assert '    """Return the price after taking ``percent`` (0-100) off it."""\n' in asked
    assert "    ...  # the body: to write\n" in asked and "percent / 100" not in asked
    assert "def test_quarter_off() -> None:" in asked and "assert 50.0 == 150.0" in asked
    assert "its docstring, its signature unchanged, and a new body" in asked


def test_when_the_tests_time_out_the_retry_asks_for_the_function_the_task_names(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    looping = shop.BUGGY.replace(
        "    return price * percent / 100", "    while True:\n        pass"
    )
    (shop_repo / "shop" / "pricing.py").write_text(looping)
    shop.git(shop_repo, "commit", "-qam", "loop")
    task = "Fix `apply_discount()` in shop/pricing.py: it never returns."
    settings = settings_for(tmp_path, [reply(COMMENT), reply(FUNCTION_FIX), reply("fix: d")])
    bus = EventBus()
    seen = events_of(bus)
    test_cmd = f"{sys.executable} -m pytest -q"
    overrides = Overrides(max_iter=2, yes=True, test_timeout=8, test_cmd=test_cmd)
    result = solve(Session(settings, shop_repo, bus=bus), build_request(task, settings, overrides))

    assert (result.outcome, result.iterations) == ("solved", 2)
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert [d["definition"] for k, d in seen if k == "edit.refocus"] == ["apply_discount"]
    asked = trajectory(shop_repo, result.run_id)[-2]["content"]  # the request the fix answered
    assert "The tests fail. The bug is in the function `apply_discount` of shop/pricing.py" in asked
    assert "timed out" in asked


@pytest.mark.parametrize(
    "body",
    ["    pass", "    ...", "    raise NotImplementedError", "    raise NotImplementedError()"],
)
def test_an_exercise_to_implement_is_repaired_in_the_conversation_that_wrote_it(
    shop_repo: Path, tmp_path: Path, shop: Any, body: str
) -> None:
    stub = shop.BUGGY.replace("    return price * percent / 100", body)
    (shop_repo / "shop" / "pricing.py").write_text(stub)
    shop.git(shop_repo, "commit", "-qam", "stub")
    close = f"shop/pricing.py\n```python\n{shop.BUGGY}```\n"  # runs, still wrong
    right = f"shop/pricing.py\n```python\n{shop.FIXED}```\n"
    settings = settings_for(tmp_path, [reply(close), reply(right), reply("feat: discount")])
    bus = EventBus()
    seen = events_of(bus)
    task = "Implement apply_discount in shop/pricing.py (replace the stub)."
    request = build_request(task, settings, Overrides(max_iter=2, yes=True))
    result = solve(Session(settings, shop_repo, bus=bus), request)

    assert (result.outcome, result.iterations) == ("solved", 2)
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert "edit.refocus" not in [k for k, _ in seen]  # no "find the wrong line" of a stub
    messages = trajectory(shop_repo, result.run_id)
    assert [m["role"] for m in messages].count("system") == 1
    asked = messages[-2]["content"]  # the request the fix answered: its own attempt's failure
    assert messages[-3]["content"] == close and "test_quarter_off" in asked


def test_a_reply_that_goes_on_to_copy_the_read_only_tests_is_cut_where_the_copy_begins(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    tests = (shop_repo / "tests" / "test_pricing.py").read_text()
    fix = f"shop/pricing.py\n```python\n{shop.FIXED}```\n\n"
    settings = settings_for(tmp_path, [reply(fix + f"tests/test_pricing.py\n```python\n{tests}```\n"),
                                       reply("fix: d")])  # fmt: skip
    request = build_request(TASK, settings, Overrides(yes=True, edit_format="whole"))
    result = solve(Session(settings, shop_repo), request)

    assert (result.outcome, result.files_changed) == ("solved", ["shop/pricing.py"])
    said = [m["content"] for m in trajectory(shop_repo, result.run_id) if m["role"] == "assistant"]
    assert said[0] == fix.rstrip() + "\n"  # the copy of the tests never reached the record


def test_a_first_attempt_is_greedy_and_a_repair_in_its_conversation_samples_a_little(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    wrong = shop.BUGGY.replace("price * percent / 100", "price - percent")
    replies = [reply(f"shop/pricing.py\n```python\n{text}```\n") for text in (wrong, shop.FIXED)]
    settings = settings_for(tmp_path, [*replies, reply("fix: d")])
    session = Session(settings, shop_repo)
    request = build_request(TASK, settings, Overrides(max_iter=2, yes=True, edit_format="whole"))
    result = solve(session, request)

    assert (result.outcome, result.iterations) == ("solved", 2)
    # greedy, the repair would rewrite the change that just failed; the commit message is greedy
    assert [c.temperature for c in session.model.calls] == [0.0, 0.4, 0.0]


def test_repairs_that_outgrow_the_context_window_send_the_latest_exchanges_only(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    wrong = [shop.BUGGY.replace("percent / 100", f"percent / 100 + {n}") for n in (1, 2, 3)]
    whole = [reply(f"shop/pricing.py\n```python\n{text}```\n") for text in (*wrong, shop.FIXED)]
    settings = settings_for(tmp_path, [*whole, reply("fix: d")])
    settings.model.catalog[settings.model.name] = {"context_window": WINDOW, "small": True}
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    result = solve(Session(settings, shop_repo, bus=bus), request)

    assert (result.outcome, result.iterations) == ("solved", 4)
    sent = [d["messages"] for k, d in seen if k == "model.request" and d["phase"] == "edit"]
    assert sent[:2] == [2, 4] and sent[-1] < 8  # system, task, then the latest exchanges
    said = [m for m in trajectory(shop_repo, result.run_id) if m["role"] == "assistant"]
    assert len(said) == 4  # the record keeps every attempt


def test_a_model_that_keeps_repeating_a_failed_change_is_stopped_after_three_copies(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    wrong = shop.BUGGY.replace("price * percent / 100", "price - percent")
    echo = reply(f"shop/pricing.py\n```python\n{wrong}```\n")
    settings = settings_for(
        tmp_path, [echo] * 6 + [reply(f"shop/pricing.py\n```python\n{shop.FIXED}```\n")]
    )
    before = shop.fingerprint(shop_repo)
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    result = solve(Session(settings, shop_repo), request)

    assert (result.outcome, result.iterations, result.calls) == ("failed", 2, 4)  # not 4 and 7
    assert result.reason.startswith("stopped at iteration 2: the model proposed a change that "
                                    "had already failed 3 times in a row; no change made")  # fmt: skip
    assert shop.fingerprint(shop_repo) == before


@pytest.mark.parametrize("run", [{"edit_format": "whole"}, {"edit_format": "diff"}])
def test_a_chosen_edit_format_is_kept_on_every_attempt(
    shop_repo: Path, tmp_path: Path, run: dict[str, str]
) -> None:
    settings = settings_for(tmp_path, [reply(COMMENT), reply(FIX), reply("fix: d")], run=run)
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(max_iter=2, yes=True))
    result = solve(Session(settings, shop_repo, bus=bus), request)
    assert (result.outcome, result.iterations) == ("solved", 2)
    assert "edit.refocus" not in [k for k, _ in seen]


def test_after_a_repeated_failed_change_the_retry_starts_afresh_without_that_change(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    """The conversation that holds a failed change draws it again; the retry after a repeat
    is a new conversation: the first request and what failed, not the change."""
    wrong = shop.BUGGY.replace("price * percent / 100", "price - percent")
    echo = reply(f"shop/pricing.py\n```python\n{wrong}```\n")
    fixed = reply(f"shop/pricing.py\n```python\n{shop.FIXED}```\n")
    settings = settings_for(tmp_path, [echo, echo, fixed, reply("fix: d")])
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    session = Session(settings, shop_repo)
    result = solve(session, request)

    assert (result.outcome, result.iterations, result.calls) == ("solved", 2, 4)
    messages = trajectory(shop_repo, result.run_id)
    first, *_, fresh = (i for i, m in enumerate(messages) if m["role"] == "system")
    assert messages[fresh : fresh + 2][0] == messages[first]  # the same system prompt
    asked = messages[fresh + 1]["content"]
    assert asked.startswith(messages[first + 1]["content"])  # the first request, then
    assert (
        "An earlier answer to this was tried and failed:" in asked
        and "price - percent" not in asked
    )
    assert "test_pricing.py" in asked  # what failed
    assert [c.temperature for c in session.model.calls][:3] == [0.0, 0.4, 0.7]


def test_once_a_repair_repeated_a_failed_change_each_later_repair_starts_afresh(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    """A conversation whose repair repeated a failed change is not asked to repair again: the
    next iteration is a new conversation (sampled) restating the first request once, with the
    latest failure, and none of the failed changes."""
    wrong = shop.BUGGY.replace("price * percent / 100", "price - percent")
    other = shop.BUGGY.replace("price * percent / 100", "price + percent")
    fixed = reply(f"shop/pricing.py\n```python\n{shop.FIXED}```\n")
    echo = reply(f"shop/pricing.py\n```python\n{wrong}```\n")
    settings = settings_for(
        tmp_path,
        [echo, echo, reply(f"shop/pricing.py\n```python\n{other}```\n"), fixed, reply("fix: d")],
    )
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    session = Session(settings, shop_repo)
    result = solve(session, request)

    assert (result.outcome, result.iterations, result.calls) == ("solved", 3, 5)
    assert [c.temperature for c in session.model.calls][:4] == [0.0, 0.4, 0.7, 0.7]
    messages = trajectory(shop_repo, result.run_id)
    first, *_, last = (i for i, m in enumerate(messages) if m["role"] == "system")
    assert len([m for m in messages if m["role"] == "system"]) == 3  # three conversations
    asked = messages[last + 1]["content"]
    assert asked.startswith(messages[first + 1]["content"])
    assert asked.count("An earlier answer to this was tried and failed:") == 1
    assert "price - percent" not in asked and "price + percent" not in asked
    assert "test_pricing.py" in asked


def test_a_reply_that_begins_by_rewriting_the_tests_is_stopped_there_and_told_why(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    tests = (shop_repo / "tests" / "test_pricing.py").read_text()
    copy = f"tests/test_pricing.py\n```python\n{tests}```\n\n"
    fixed = f"shop/pricing.py\n```python\n{shop.FIXED}```\n"
    settings = settings_for(tmp_path, [reply(copy + fixed), reply(fixed), reply("fix: d")])
    request = build_request(TASK, settings, Overrides(max_iter=2, yes=True, edit_format="whole"))
    bus = EventBus()
    seen = events_of(bus)
    result = solve(Session(settings, shop_repo, bus=bus), request)

    assert (result.outcome, result.iterations, result.calls) == ("solved", 1, 3)
    said = [d["completion_tokens"] for k, d in seen if k == "model.reply"]
    assert said[0] < 20 < said[1]  # the first stopped at the copy's fence
    messages = trajectory(shop_repo, result.run_id)
    assert not any("def test_" in m["content"] for m in messages if m["role"] == "assistant")
    asked = [m["content"] for m in messages if m["role"] == "user"][-1]
    assert asked.endswith(
        "Your last reply (not kept here) began to rewrite tests/test_pricing.py and was stopped there: it holds the "
        "tests the task must make pass and cannot be edited. Change the code in shop/pricing.py "
        "or shop/__init__.py instead."
    )


def test_a_repair_repeats_a_long_tasks_first_paragraph_and_points_back_to_the_whole(
    shop_repo: Path, tmp_path: Path
) -> None:
    """An issue or exercise pasted in whole is sent once, in the first request; each repair
    restates its first paragraph (a short task is restated whole)."""
    notes = " ".join(f"Background note {i} on how prices were computed before." for i in range(30))
    task = f"{TASK}\n\n{notes}"
    settings = settings_for(tmp_path, [reply(COMMENT), reply(FIX), reply("fix: d")],
                            run={"edit_format": "diff"})  # fmt: skip
    result = solve(Session(settings, shop_repo), build_request(task, settings, Overrides(yes=True)))
    assert result.outcome == "solved"
    first, repair = (
        m["content"] for m in trajectory(shop_repo, result.run_id) if m["role"] == "user"
    )
    assert notes in first and notes[:40] not in repair
    assert (
        f"The goal is unchanged: {TASK}\n(the whole task is in the first request above)" in repair
    )


# -- the agent ---------------------------------------------------------------------------


AGENT_FIX = [call("edit", edits=FIX), call("finish", summary="price minus the discount"), APPROVE]


def test_the_agent_solves_a_small_repo_with_the_reviewers_message(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    plan = call("submit_plan", steps=["fix apply_discount"], files=["shop/pricing.py"])
    settings = settings_for(tmp_path, [plan, *AGENT_FIX], tools=True)
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, Overrides(yes=True)))
    assert (result.outcome, result.strategy, result.steps) == ("solved", "agent", 4)
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == (
        "fix(pricing): take the discount off the price"
    )


def test_the_agent_skips_the_planner_when_the_settings_say_so(
    shop_repo: Path, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path, AGENT_FIX, tools=True, agent={"plan": False})
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, Overrides(yes=True)))
    assert result.outcome == "solved" and set(result.role_usage) == {"coder", "reviewer"}


def test_the_agent_stops_at_max_iter_coder_rounds(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    finish = call("finish", summary="documented it")
    settings = settings_for(tmp_path, [call("edit", edits=COMMENT), finish, finish, finish])
    before = shop.fingerprint(shop_repo)
    request = build_request(TASK, settings,
                            Overrides(strategy="agent", plan=False, max_iter=1, yes=True))  # fmt: skip
    result = solve(Session(settings, shop_repo), request)
    assert result.outcome == "failed" and result.iterations == 1
    assert result.reason.startswith("no change was kept within --max-iter 1 round(s)")
    assert shop.fingerprint(shop_repo) == before


def test_the_agent_gives_up_after_max_rejections_send_backs(
    shop_repo: Path, tmp_path: Path
) -> None:
    finish = call("finish", summary="documented it")
    settings = settings_for(tmp_path, [call("edit", edits=COMMENT), finish, finish, finish])
    overrides = Overrides(strategy="agent", plan=False, max_rejections=1, yes=True)
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, overrides))
    assert (result.outcome, result.reason) == ("failed", "the change was sent back 2 times")


def test_the_agent_sees_the_included_files_and_asks_for_the_edit_format(
    shop_repo: Path, tmp_path: Path
) -> None:
    (shop_repo / "NOTES.md").write_text("Discounts are percentages of the price.\n")
    settings = settings_for(tmp_path, AGENT_FIX, tools=True, agent={"plan": False})
    overrides = Overrides(include=["NOTES.md"], edit_format="whole", yes=True)
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, overrides))
    assert (result.outcome, result.edit_format) == ("solved", "whole")
    system, first = trajectory(shop_repo, result.run_id)[:2]
    assert system["agent_role"] == "coder" and "COMPLETE new content" in system["content"]
    assert "Discounts are percentages of the price." in first["content"]


def test_a_handed_back_change_leaves_the_repository_as_it_was(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    settings = settings_for(tmp_path, AGENT_FIX, tools=True, agent={"plan": False})
    before, head = shop.fingerprint(shop_repo), shop.git(shop_repo, "rev-parse", "HEAD")
    request = build_request(TASK, settings, Overrides(yes=True), hand_back=True)
    result = solve(Session(settings, shop_repo), request)
    assert (result.outcome, result.commit) == ("solved", None)
    assert b"(1 - percent / 100)" in (result.changes["shop/pricing.py"] or b"")
    assert "+    return price * (1 - percent / 100)" in result.diff
    assert shop.fingerprint(shop_repo) == before
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head
    assert not (shop_repo / ".patchwright" / "undo").exists() or not any(
        (shop_repo / ".patchwright" / "undo").iterdir()
    )


# -- a caller's own plan: the review's proposals -----------------------------------------


class CountingPlan:
    """The default groundwork and the pipeline, noting what ``solve`` asks of it; with
    ``stop``, the strategy's run raises it."""

    def __init__(self, stop: BaseException | None = None) -> None:
        self.asked: list[str] = []
        self.stop = stop

    def ground(self, session: Session, repo: TaskRepo, request: TaskRequest) -> Groundwork:
        self.asked.append("ground")
        return prepare(session, repo, request)

    def build(
        self, session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
        record: RunRecord, person: Person, on_token: OnToken | None,
    ) -> Wired:  # fmt: skip
        self.asked.append("build")
        wired = build_pipeline(session, repo, request, ground, record, person, on_token)
        stop = self.stop
        if stop is None:
            return wired

        def run() -> StrategyResult:
            raise stop

        return Wired("pipeline", run)


def test_a_callers_plan_grounds_and_wires_the_task_and_its_record_nests_in_the_callers(
    shop_repo: Path, tmp_path: Path
) -> None:
    settings = settings_for(tmp_path, [reply(FIX), reply("fix(pricing): discount")])
    parent, plan = RunRecord(shop_repo), CountingPlan()
    request = build_request(TASK, settings, Overrides(yes=True))
    result = solve(Session(settings, shop_repo), request, plan=plan, parent=parent)
    assert plan.asked == ["ground", "build"]
    assert (result.outcome, result.stop) == ("solved", None)
    nested = parent.dir / "tasks" / result.run_id
    assert json.loads((nested / "summary.json").read_text())["outcome"] == "solved"
    start = json.loads((nested / "events.jsonl").read_text().splitlines()[0])
    assert (start["kind"], start["parent"]) == ("run.start", parent.run_id)
    assert not (shop_repo / ".patchwright" / "runs" / result.run_id).exists()


@pytest.mark.parametrize(
    ("stop", "outcome"),
    [(KeyboardInterrupt("SIGTERM"), "interrupted"), (RuntimeError("boom"), "error")],
)
def test_what_ends_a_task_early_comes_back_in_the_result_for_a_caller_to_raise(
    shop_repo: Path, tmp_path: Path, shop: Any, stop: BaseException, outcome: str
) -> None:
    settings = settings_for(tmp_path, [reply(FIX)])
    before = shop.fingerprint(shop_repo)
    request = build_request(TASK, settings, Overrides(yes=True))
    result = solve(Session(settings, shop_repo), request, plan=CountingPlan(stop))
    assert (result.outcome, result.stop) == (outcome, stop)
    assert shop.fingerprint(shop_repo) == before
    summary = json.loads(
        (shop_repo / ".patchwright" / "runs" / result.run_id / "summary.json").read_text()
    )
    assert summary["outcome"] == outcome and "stop" not in summary
