"""How far a backend's token estimate falls short of what its server counts.

A backend with no local tokenizer estimates ~3.5 characters a token; Qwen's tokenizer on a
list of card names or digits gives under 2, and a repair conversation estimated to fit a
llama.cpp server's 8,192-token window was 8,720 tokens there, which the server refused
mid-stream. Each reply's ``prompt_tokens`` is the server's own count of what was sent: the
router learns the largest shortfall seen and scales later estimates by it, so what is fitted
to the window afterwards fits.
"""

from __future__ import annotations

import math


class TokenCalibration:
    """The factor a tokenizer-free estimate is multiplied by (never below 1)."""

    def __init__(self) -> None:
        self.scale = 1.0

    def learn(self, estimated: int, counted: int) -> None:
        """A call estimated at ``estimated`` prompt tokens that the server counted as
        ``counted``; a count below the estimate (a cache that excludes what it read, a
        tokenizer that packs better) teaches nothing."""
        if estimated > 0 and counted > estimated:
            self.scale = max(self.scale, counted / estimated)

    def apply(self, tokens: int) -> int:
        return math.ceil(tokens * self.scale) if self.scale > 1.0 else tokens
