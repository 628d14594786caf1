"""Text files as patchwright sees them: decoded text with ``"\\n"`` newlines, plus the
encoding, byte-order mark and newline style needed to write them back unchanged.

Detection, in order:

1. a byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE) decides the encoding;
2. a NUL byte in the first 8000 bytes (git's own rule) means binary;
3. strict UTF-8 (which covers ASCII);
4. charset-normalizer's best guess (cp1252 preferred when rated nearly as well), kept only
   if it round-trips byte-for-byte;
5. **fallback: latin-1**, which decodes any byte sequence and round-trips exactly —
   unless more than 30% of the sample is control characters, which means binary.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from patchwright.workspace.errors import BinaryFileError, TextEncodingError

__all__ = [
    "FALLBACK_ENCODING",
    "BinaryFileError",
    "TextEncodingError",
    "TextFile",
    "decode_bytes",
    "detect_newline",
    "encode_text",
    "looks_binary",
    "read_text_file",
]

FALLBACK_ENCODING = "latin-1"
"""Used when neither UTF-8 nor charset-normalizer yields a lossless decoding."""

_SNIFF_BYTES = 8000
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b\x0b")
_WESTERN_MARGIN = 0.1


@dataclass(frozen=True)
class TextFile:
    """Decoded text (``"\\n"`` newlines) and what is needed to encode it back as it was."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"


def _bom_encoding(data: bytes) -> tuple[str, bytes] | None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, bom
    return None


def looks_binary(data: bytes) -> bool:
    """True when ``data`` is binary: a NUL byte early on (and no UTF-16/32 byte-order mark)."""
    found = _bom_encoding(data)
    if found is not None and found[0] != "utf-8":
        return False
    return b"\x00" in data[:_SNIFF_BYTES]


def _mostly_control(data: bytes) -> bool:
    sample = data[:_SNIFF_BYTES]
    if not sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS)
    return controls / len(sample) > 0.30


def detect_newline(text: str) -> str:
    """The dominant newline style of ``text``: ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``
    (``"\\n"`` when there is no newline at all; ties go to ``"\\n"``, then ``"\\r\\n"``)."""
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    best = max(lf, crlf, cr)
    if best == 0 or lf == best:
        return "\n"
    return "\r\n" if crlf == best else "\r"


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _round_trips(data: bytes, name: str) -> bool:
    try:
        return data.decode(name).encode(name) == data
    except (UnicodeError, LookupError):
        return False


def _guess_encoding(data: bytes) -> str | None:
    """charset-normalizer's guess, kept only when it decodes and re-encodes losslessly.

    Short texts often score several single-byte code pages alike; source code in a legacy
    encoding is overwhelmingly Western European, so cp1252 (or latin-1) is preferred when
    charset-normalizer rates it within ``_WESTERN_MARGIN`` chaos of its best guess."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    best = matches[0]
    for match in matches:
        western = {"cp1252", "latin_1"} & set(match.could_be_from_charset)
        if western and match.chaos <= best.chaos + _WESTERN_MARGIN:
            for name in ("cp1252", "latin-1"):
                if _round_trips(data, name):
                    return name
    name = codecs.lookup(best.encoding).name
    return name if _round_trips(data, name) else None


def _pick_encoding(data: bytes) -> tuple[str, bool, bytes]:
    """Return (encoding, has_bom, payload without BOM); raise BinaryFileError for binary."""
    found = _bom_encoding(data)
    if found is not None:
        name, bom = found
        return name, True, data[len(bom) :]
    if looks_binary(data):
        raise BinaryFileError("the data contains NUL bytes: it is binary, not text")
    try:
        data.decode("utf-8")
        return "utf-8", False, data
    except UnicodeDecodeError:
        pass
    guessed = _guess_encoding(data)
    if guessed is not None:
        return guessed, False, data
    if _mostly_control(data):
        raise BinaryFileError("the data is mostly control characters: it is binary, not text")
    return FALLBACK_ENCODING, False, data


def decode_bytes(data: bytes) -> TextFile:
    """Decode raw file bytes into a :class:`TextFile`.

    Raises :class:`BinaryFileError` when the data is binary. Newlines are normalised to
    ``"\\n"`` and the dominant original style is remembered in ``newline``.
    """
    encoding, bom, payload = _pick_encoding(data)
    try:
        raw = payload.decode(encoding)
    except UnicodeDecodeError as exc:  # a BOM followed by invalid data
        raise BinaryFileError(
            f"the data has a {encoding} byte-order mark but does not decode: {exc}"
        ) from exc
    return TextFile(text=_normalise(raw), encoding=encoding, bom=bom, newline=detect_newline(raw))


def _bom_bytes(encoding: str) -> bytes:
    for bom, name in _BOMS:
        if name == encoding:
            return bom
    raise TextEncodingError(f"no byte-order mark is defined for encoding {encoding!r}")


def encode_text(text: str, like: TextFile | None = None) -> bytes:
    """Encode ``text`` (``"\\n"`` newlines) the way ``like`` was stored: same encoding,
    byte-order mark and newline style. ``like=None`` means UTF-8, no BOM, ``"\\n"``.

    Raises :class:`TextEncodingError` when ``text`` holds characters the encoding cannot
    represent (nothing is written; convert the file to UTF-8 first, or avoid the character).
    """
    if like is None:
        like = TextFile(text="")
    body = _normalise(text)
    if like.newline != "\n":
        body = body.replace("\n", like.newline)
    try:
        encoded = body.encode(like.encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise TextEncodingError(
            f"the file is stored as {like.encoding} and cannot hold {bad!r} "
            f"(position {exc.start}); convert the file to UTF-8 or avoid that character"
        ) from exc
    except LookupError as exc:
        raise TextEncodingError(f"unknown encoding {like.encoding!r}") from exc
    return (_bom_bytes(like.encoding) if like.bom else b"") + encoded


def read_text_file(path: Path) -> TextFile:
    """Read and decode a file; raises :class:`BinaryFileError` (naming the file) for binary data."""
    data = Path(path).read_bytes()
    try:
        return decode_bytes(data)
    except BinaryFileError as exc:
        raise BinaryFileError(f"{path}: {exc}") from exc
