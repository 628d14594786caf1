"""Text files: encodings, byte-order marks, newline styles and binary detection."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patchwright.workspace.textfile import (
    FALLBACK_ENCODING,
    BinaryFileError,
    TextEncodingError,
    TextFile,
    decode_bytes,
    detect_newline,
    encode_text,
    looks_binary,
    read_text_file,
)


def test_plain_utf8_with_lf_round_trips() -> None:
    data = "héllo\nwörld\n".encode()
    tf = decode_bytes(data)
    assert tf == TextFile(text="héllo\nwörld\n", encoding="utf-8", bom=False, newline="\n")
    assert encode_text(tf.text, tf) == data


def test_utf8_bom_is_detected_stripped_and_restored() -> None:
    data = codecs.BOM_UTF8 + b"x = 1\r\ny = 2\r\n"
    tf = decode_bytes(data)
    assert tf.bom and tf.encoding == "utf-8" and tf.newline == "\r\n"
    assert tf.text == "x = 1\ny = 2\n"
    assert encode_text(tf.text, tf) == data
    assert encode_text("x = 3\n", tf) == codecs.BOM_UTF8 + b"x = 3\r\n"


def test_crlf_text_is_normalised_and_new_lines_get_crlf() -> None:
    tf = decode_bytes(b"a\r\nb\r\n")
    assert tf.text == "a\nb\n" and tf.newline == "\r\n"
    assert encode_text("a\nnew\nb\n", tf) == b"a\r\nnew\r\nb\r\n"


def test_old_mac_cr_newlines() -> None:
    tf = decode_bytes(b"a\rb\rc")
    assert tf.text == "a\nb\nc" and tf.newline == "\r"
    assert encode_text(tf.text, tf) == b"a\rb\rc"


def test_latin1_file_is_decoded_losslessly_and_written_back_in_latin1() -> None:
    text = "# Café crème brûlée, naïve façade; garçon à la carte\nprint('déjà vu')\n"
    data = text.encode("latin-1")
    tf = decode_bytes(data)
    assert tf.text == text
    assert tf.encoding != "utf-8"
    assert encode_text(tf.text, tf) == data
    edited = encode_text(tf.text.replace("déjà", "voilà"), tf)
    assert edited == text.replace("déjà", "voilà").encode("latin-1")


def test_short_non_utf8_bytes_decode_as_western_and_round_trip() -> None:
    tf = decode_bytes(b"\xe9t\xe9")
    assert tf.text == "été"
    assert tf.encoding in {FALLBACK_ENCODING, "cp1252"}
    assert encode_text(tf.text, tf) == b"\xe9t\xe9"


def test_character_not_representable_in_original_encoding_is_a_clear_error() -> None:
    tf = TextFile(text="", encoding="latin-1")
    with pytest.raises(TextEncodingError, match="latin-1"):
        encode_text("arrow → here\n", tf)


def test_utf16_with_bom_is_text_not_binary() -> None:
    data = codecs.BOM_UTF16_LE + "hi\nthere\n".encode("utf-16-le")
    assert not looks_binary(data)
    tf = decode_bytes(data)
    assert tf.text == "hi\nthere\n" and tf.bom and tf.encoding == "utf-16-le"
    assert encode_text(tf.text, tf) == data


def test_nul_bytes_mean_binary() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert looks_binary(png)
    with pytest.raises(BinaryFileError):
        decode_bytes(png)


def test_mostly_control_bytes_without_nul_are_binary() -> None:
    with pytest.raises(BinaryFileError):
        decode_bytes(bytes(range(1, 8)) * 200 + b"\xff\xfe\x81")


def test_read_text_file_names_the_binary_file(tmp_path: Path) -> None:
    blob = tmp_path / "image.bin"
    blob.write_bytes(b"\x00\x01\x02abc")
    with pytest.raises(BinaryFileError, match=r"image\.bin"):
        read_text_file(blob)


def test_empty_file_is_empty_utf8_text() -> None:
    assert decode_bytes(b"") == TextFile(text="")
    assert encode_text("", None) == b""


def test_dominant_newline_wins_in_mixed_files() -> None:
    assert detect_newline("a\r\nb\r\nc\n") == "\r\n"
    assert detect_newline("a\nb\nc\r\n") == "\n"
    assert detect_newline("no newline") == "\n"


def test_encode_without_like_is_utf8_lf() -> None:
    assert encode_text("ä\r\nb\n") == "ä\nb\n".encode()


def test_cyrillic_cp1251_is_not_mistaken_for_western() -> None:
    text = "Привет мир, это тест кодировки файла с комментариями\n"
    tf = decode_bytes(text.encode("cp1251"))
    assert tf.text == text
    assert encode_text(tf.text, tf) == text.encode("cp1251")


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    bom=st.booleans(),
)
def test_encode_then_decode_gives_back_the_normalised_text(
    text: str, newline: str, bom: bool
) -> None:
    like = TextFile(text="", encoding="utf-8", bom=bom, newline=newline)
    data = encode_text(text, like)
    if "\x00" in text and not bom:
        return  # NUL bytes make it binary by design
    decoded = decode_bytes(data)
    if text.startswith("\ufeff") and not bom:
        # A leading U+FEFF encodes to the very bytes of a UTF-8 BOM, so it reads
        # back as one; what must hold is that the bytes survive a second trip.
        assert decoded.bom
        assert encode_text(decoded.text, decoded) == data
        return
    assert decoded.text == text.replace("\r\n", "\n").replace("\r", "\n")
    assert decoded.bom == bom
    if "\n" in decoded.text and "\r" not in text:
        assert decoded.newline == newline
