"""Words of names, compared the way a person reads them: ``Checkout`` ~ ``checkout``,
``totals`` ~ ``total``, ``CheckoutTotal`` ~ ``checkout_total`` ~ ``test_checkout_totals``.

A name is split at underscores, digits and CamelCase humps; each word is lower-cased and
reduced to a rough stem (plural ``-s``/``-es``/``-ies``, ``-ing``, ``-ed``, a final ``-e``).
The stems are only ever compared with each other, so they need to be consistent, not real
words: ``prices`` and ``pricing`` both become ``pric``.
"""

from __future__ import annotations

import re

__all__ = ["contains", "parts", "stem"]

_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SIBILANT = ("sses", "xes", "zes", "ches", "shes")


def stem(word: str) -> str:
    """``Totals`` → ``total``; ``entries``/``entry`` → ``entry``; ``pricing``/``price`` → ``pric``."""
    w = word.lower()
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(_SIBILANT):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    elif len(w) > 5 and w.endswith("ing"):
        w = _undouble(w[:-3])
    elif len(w) > 4 and w.endswith("ed"):
        w = _undouble(w[:-2])
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    """``runn`` → ``run``, ``stopp`` → ``stop``; ``bill`` and ``pass`` stay."""
    return w[:-1] if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz" else w


def parts(name: str) -> tuple[str, ...]:
    """The stemmed words of an identifier or phrase, in order: ``HTTPServerError`` →
    ``("http", "server", "error")``; ``test_checkout_totals`` → ``("test", "checkout",
    "total")``."""
    return tuple(stem(w) for w in _HUMPS.findall(name))


def contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """True when ``needle`` is a run of consecutive words of ``haystack``."""
    n = len(needle)
    return n > 0 and any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))
