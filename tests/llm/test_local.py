"""The embedded model (0.5B: fast enough for CI): a real reply, streaming, prefix reuse,
and no silent truncation."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from patchwright.llm import ModelConfigError, ReplyComplete, make_model
from patchwright.llm.local import LocalModel, physical_cores
from patchwright.llm.types import Message

SMALL = "local:qwen2.5-coder-0.5b"


def test_physical_cores_is_positive_and_bounded() -> None:
    assert 1 <= physical_cores() <= (os.cpu_count() or 1)


def test_prompt_that_cannot_fit_is_refused_not_truncated() -> None:
    model = LocalModel("qwen2.5-coder-0.5b")
    with pytest.raises(ModelConfigError, match="exceed the model's 32768-token context"):
        model.complete([{"role": "user", "content": "hi"}], max_tokens=40000)


LONG_SYSTEM = "You are a terse Python expert. " + " ".join(
    f"Rule {n}: prefer clear names and small functions." for n in range(1, 80)
)


@pytest.mark.slow
def test_embedded_model_replies_streams_and_reuses_the_prefix() -> None:
    model = make_model(SMALL)
    convo: list[Message] = [
        {"role": "system", "content": LONG_SYSTEM},
        {"role": "user", "content": "Write a Python function add(a, b) returning a + b."},
    ]
    pieces: list[str] = []
    first = model.complete(convo, max_tokens=24, temperature=0.0, on_token=pieces.append)
    assert first.text.strip()
    assert "".join(pieces) == first.text
    assert first.usage.completion_tokens > 0
    assert first.cost == 0.0

    convo += [first.as_message(), {"role": "user", "content": "Now subtract instead."}]
    second = model.complete(convo, max_tokens=8, temperature=0.0)
    assert second.text.strip()
    # the first prompt's whole batches were already in the KV cache
    assert first.usage.prompt_tokens > 512
    assert second.usage.cached_tokens == 512 * (first.usage.prompt_tokens // 512)
    assert model.totals.calls == 2


@pytest.mark.slow
def test_a_reply_the_caller_calls_complete_stops_generating_there() -> None:
    pieces: list[str] = []

    def enough(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            raise ReplyComplete

    convo: list[Message] = [{"role": "user", "content": "Count from 1 to 50, one per line."}]
    reply = make_model(SMALL).complete(convo, max_tokens=200, temperature=0.0, on_token=enough)
    assert (reply.text, reply.finish_reason) == ("".join(pieces), "stop")
    assert reply.usage.completion_tokens < 20  # not the 200 it was allowed


@pytest.mark.slow
def test_a_reply_from_the_cache_is_the_reply_a_fresh_process_gives() -> None:
    # what makes a task's outcome the same in a chat session, a benchmark running task after
    # task, and a fresh `patchwright run`: the reused prefix leaves every later batch where
    # a fresh evaluation puts it
    from patchwright.llm import local

    ask: list[Message] = [
        {"role": "system", "content": LONG_SYSTEM},
        {"role": "user", "content": "Write is_even(n) in Python. Code only."},
    ]
    model = make_model(SMALL)
    other = model.complete([*ask[:1], {"role": "user", "content": "Name a sorting algorithm."}],
                           max_tokens=16, temperature=0.0)  # fmt: skip
    warm = model.complete(ask, max_tokens=48, temperature=0.0)
    assert warm.usage.cached_tokens > 0 and other.text
    local.clear_cache()
    fresh = make_model(SMALL).complete(ask, max_tokens=48, temperature=0.0)
    assert fresh.usage.cached_tokens == 0
    assert warm.text == fresh.text


@pytest.mark.slow
def test_a_call_sharing_no_real_prefix_answers_as_a_fresh_process_would() -> None:
    model = make_model(SMALL)
    ask: list[Message] = [{"role": "user", "content": "Name a Python keyword for loops."}]
    first = model.complete(ask, max_tokens=12, temperature=0.0)
    other: list[Message] = [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Say hello in French."},
    ]
    model.complete(other, max_tokens=8, temperature=0.0)
    again = model.complete(ask, max_tokens=12, temperature=0.0)
    assert again.usage.cached_tokens == 0  # the few shared template tokens are not reused
    assert again.text == first.text


@pytest.mark.slow
def test_embedded_model_uses_the_text_tool_protocol() -> None:
    model = make_model(SMALL)
    tools = [
        {
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ]
    convo: list[Message] = [
        {
            "role": "user",
            "content": "Call the read_file tool on setup.py. Reply only with the call.",
        }
    ]
    reply = model.complete(convo, tools=tools, max_tokens=40, temperature=0.0)
    assert [c.name for c in reply.tool_calls] == ["read_file"]
    assert "setup.py" in str(reply.tool_calls[0].arguments.get("path"))


def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """From a cold cache on, each model load: its ``n_ctx`` and the thread that loaded it."""
    import llama_cpp

    from patchwright.llm import local

    local.clear_cache()
    loads: list[tuple[int, str]] = []
    real = llama_cpp.Llama

    def counting(*args: object, **kwargs: object) -> object:
        loads.append((int(str(kwargs.get("n_ctx"))), threading.current_thread().name))
        return real(*args, **kwargs)

    monkeypatch.setattr(llama_cpp, "Llama", counting)
    return loads


@pytest.mark.slow
def test_calls_and_models_of_one_process_share_one_loaded_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what a chat session's second task relies on: no reload between tasks, nor for a new
    # model object naming the same weights (each `make_model` of a task)
    from patchwright.llm import local

    loads = count_loads(monkeypatch)
    short: list[Message] = [{"role": "user", "content": "Say yes."}]
    longer: list[Message] = [{"role": "user", "content": "Say no. " + "Really. " * 300}]
    make_model(SMALL).complete(short, max_tokens=4, temperature=0.0)
    make_model(SMALL).complete(longer, max_tokens=4, temperature=0.0)
    make_model(SMALL).complete(short, max_tokens=4, temperature=0.0)
    assert [n_ctx for n_ctx, _ in loads] == [local.MIN_CTX]


@pytest.mark.slow
def test_the_kept_prefix_leaves_the_next_logits_bit_for_bit_as_a_fresh_evaluation() -> None:
    import numpy as np

    from patchwright.llm import local

    model = LocalModel("qwen2.5-coder-0.5b")
    vocab = local._vocab(model.path())
    shared = vocab.tokenize(LONG_SYSTEM + " " + LONG_SYSTEM, special=False)[:700]
    prompt = [*shared, *vocab.tokenize(" Write is_even(n).", special=False)]
    other = [*shared, *vocab.tokenize(" Name a sorting algorithm.", special=False)]
    llm = local.get_llama(model.path(), 2048, vocab.n_ctx_train)

    def last_logits(tokens: list[int], keep: int) -> np.ndarray:
        if keep:
            llm.n_tokens = keep
        else:
            llm.reset()
        llm.eval(tokens[keep:])  # the last token's logits, as the sampler reads them
        return np.array(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)))

    fresh = last_logits(prompt, 0)
    last_logits(other, 0)
    setattr(llm, local._PREFILLED, len(other))
    keep = local._reusable(llm, prompt)
    assert keep == 512  # of the 700 shared tokens, the whole batches
    assert np.array_equal(last_logits(prompt, keep), fresh)
    last_logits(other, 0)
    unaligned = last_logits(prompt, 700)  # what reusing every shared token gave
    print(
        f"\nlargest logit difference with an unaligned prefix: {abs(unaligned - fresh).max():.2e}"
    )


@pytest.mark.slow
def test_warming_up_loads_the_model_the_first_call_then_uses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a run starts the load while its tests run; the first prompt finds the model loaded
    loads = count_loads(monkeypatch)
    model = make_model(SMALL)
    thread = model.warm_up()
    assert thread is not None
    thread.join(timeout=120)
    assert [thread for _, thread in loads] == ["patchwright-warm-up"]
    model.complete([{"role": "user", "content": "Say yes."}], max_tokens=4, temperature=0.0)
    assert [thread for _, thread in loads] == ["patchwright-warm-up"]


def test_a_model_that_does_not_load_has_nothing_to_warm_up(tmp_path: Path) -> None:
    script = tmp_path / "replies.jsonl"
    script.write_text('{"content": "done"}\n', encoding="utf-8")
    assert make_model(f"scripted:{script}").warm_up() is None
