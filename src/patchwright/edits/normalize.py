"""Line normalisations used by the relaxed matching strategies.

Each function maps a line to a comparison key; two lines "match" under a strategy
when their keys are equal. Keys never leave the matcher: the file's own text is
what ends up in the result.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_PUNCT = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2007": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u202f": " ",
        "\u3000": " ",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
    }
)
_FANCY = re.compile(
    "[\u2018-\u201f\u2032\u2033\u00ab\u00bb\u2010-\u2015\u2212\u00a0\u2002-\u200d\u202f\u2060\u3000\ufeff\u2026]"
)
_WS_RUN = re.compile(r"\s+")
_WS_ANY = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def unicode_key(line: str) -> str:
    """Strip, NFC-normalise, straighten quotes/dashes/spaces and collapse whitespace runs."""
    text = unicodedata.normalize("NFC", line).translate(_PUNCT).replace("\u2026", "...")
    return _WS_RUN.sub(" ", text).strip()


@lru_cache(maxsize=65536)
def nospace_key(line: str) -> str:
    """The unicode key with every whitespace character removed (``a*(1+b)`` == ``a * (1 + b)``)."""
    return _WS_ANY.sub("", unicode_key(line))


def has_fancy_punctuation(text: str) -> bool:
    """True when ``text`` holds curly quotes, typographic dashes or special spaces."""
    return _FANCY.search(text) is not None


def ascii_punctuation(line: str) -> str:
    """Replace typographic punctuation by its ASCII form (keeps indentation and the rest)."""
    return line.translate(_PUNCT).replace("\u2026", "...")


def leading_ws(line: str) -> str:
    """The indentation of ``line`` (its leading spaces and tabs)."""
    return line[: len(line) - len(line.lstrip(" \t"))]
