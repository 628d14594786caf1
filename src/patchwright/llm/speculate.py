"""Prompt-lookup speculative decoding for the embedded model.

An edit reply copies most of what the prompt shows it (a whole file, a function, the
SEARCH side of a block). :class:`NgramDrafter` guesses the next tokens by finding the
latest earlier place where the last few tokens occurred and proposing what followed
there; llama.cpp then evaluates the guess in one batch and keeps the tokens it would
have chosen itself. On two CPU cores a batch of eleven tokens costs about twice one
token, so the drafter sizes each guess by how the last ones fared: a guess taken whole
doubles the next one (up to :data:`MAX_DRAFT`), a rejected one shrinks it, and after
:data:`MISSES_TO_PAUSE` rejections in a row it stays quiet for :data:`PAUSE` tokens.
Measured in ``benchmarks/llm/speculation.py``.

llama-cpp-python asks a draft model for tokens between evaluations, and with one it
computes and copies the logits of every token it evaluates, the prompt's included.
:func:`enable` binds an ``eval`` that asks llama.cpp for every token's logits only in a
batch that checks a guess and keeps none in Python (sampling happens inside llama.cpp;
patchwright never asks for log-probabilities), so the prompt costs what it costs
without speculation. It leans on llama-cpp-python 0.3.36's attributes (the version is
pinned exactly).

The tokens chosen are the greedy ones, but a token evaluated inside a batch gets
slightly different numbers than one evaluated alone, so a near-tie can go the other
way: a reply with speculation can differ from one without. Either is reproducible:
the same prompt gives the same reply.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

MIN_NGRAM = 2
MAX_NGRAM = 4
FIRST_DRAFT = 8
MAX_DRAFT = 16
MISSES_TO_PAUSE = 3
PAUSE = 16
_VERIFY = "_patchwright_verify"  # on a Llama: the next eval checks a guess
_DRAFTER = "_patchwright_drafter"  # on a Llama: its NgramDrafter, on or off


class NgramDrafter:
    """Proposes the tokens that followed the latest earlier occurrence of the last
    ``MAX_NGRAM``..``MIN_NGRAM`` tokens, sized by how the previous guesses fared."""

    def __init__(self) -> None:
        self.llm: Any = None
        self.start()

    def start(self) -> None:
        """A new reply: counts at zero, the first guess full size."""
        self.proposed = 0
        self.accepted = 0
        self._size = FIRST_DRAFT
        self._misses = 0
        self._quiet = 0
        self._last_len = -1
        self._last_draft = 0

    def __call__(self, input_ids: npt.NDArray[np.intc], /, **_: Any) -> npt.NDArray[np.intc]:
        self._learn(len(input_ids))
        draft = self._guess(input_ids) if self._quiet == 0 else _EMPTY
        self._quiet = max(0, self._quiet - 1)
        self._last_len, self._last_draft = len(input_ids), len(draft)
        self.proposed += len(draft)
        if self.llm is not None:
            setattr(self.llm, _VERIFY, len(draft) > 0)
        return draft

    def _learn(self, length: int) -> None:
        """Size the next guess from how much of the last one was kept: the sequence
        grew by the kept tokens plus the one llama.cpp chose after them."""
        if not self._last_draft or length <= self._last_len:
            return
        kept = min(self._last_draft, length - self._last_len - 1)
        self.accepted += kept
        if kept == self._last_draft:
            self._size, self._misses = min(MAX_DRAFT, self._size * 2), 0
            return
        self._size = max(1, kept + 1 if kept else self._size // 2)
        self._misses = 0 if kept else self._misses + 1
        if self._misses >= MISSES_TO_PAUSE:
            self._quiet, self._misses = PAUSE, 0

    def _guess(self, ids: npt.NDArray[np.intc]) -> npt.NDArray[np.intc]:
        for n in range(min(MAX_NGRAM, len(ids) - 1), MIN_NGRAM - 1, -1):
            start = _latest_match(ids, n)
            if start >= 0:
                return ids[start + n : start + n + self._size]
        return _EMPTY


_EMPTY: npt.NDArray[np.intc] = np.array([], dtype=np.intc)


def _latest_match(ids: npt.NDArray[np.intc], n: int) -> int:
    """Where the last ``n`` tokens occurred before, latest first; -1 if nowhere."""
    windows = np.lib.stride_tricks.sliding_window_view(ids[:-1], n)
    hits = np.flatnonzero((windows == ids[-n:]).all(axis=1))
    return int(hits[-1]) if len(hits) else -1


def enable(llm: Any) -> None:
    """Let ``llm`` (built with ``draft_model=NgramDrafter()``) speculate without paying
    for every prompt token's logits."""
    drafter = llm.draft_model
    assert isinstance(drafter, NgramDrafter)
    drafter.llm = llm
    setattr(llm, _DRAFTER, drafter)
    setattr(llm, _VERIFY, False)
    llm.eval = types.MethodType(_eval, llm)


def start_reply(llm: Any, *, speculate: bool) -> NgramDrafter | None:
    """Before a reply (whose first evaluation is the prompt, not a guess): speculate in
    it or not; the drafter, with its counts at zero, when it does."""
    setattr(llm, _VERIFY, False)
    drafter: NgramDrafter | None = getattr(llm, _DRAFTER, None) if speculate else None
    llm.draft_model = drafter
    if drafter is not None:
        drafter.start()
    return drafter


def _eval(self: Any, tokens: Sequence[int]) -> None:
    """``Llama.eval`` that asks for all logits only in a batch checking a guess, and
    keeps no logits in Python."""
    every = bool(getattr(self, _VERIFY, False))
    setattr(self, _VERIFY, False)
    self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
    for i in range(0, len(tokens), self.n_batch):
        batch = tokens[i : i + self.n_batch]
        n_past = self.n_tokens
        self._batch.set_batch(batch=batch, n_past=n_past, logits_all=every)
        self._ctx.decode(self._batch)
        self.input_ids[n_past : n_past + len(batch)] = batch
        self.n_tokens += len(batch)
        self._requires_eval = False
