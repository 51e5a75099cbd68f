"""Turn the raw bytes of a workspace file into text, or say clearly why that is impossible.

Handles UTF-8 (with or without BOM), UTF-16/UTF-32 with a BOM, BOM-less UTF-16 recognised by its
NUL-byte pattern, and GB18030 (notes saved by Windows Notepad on Chinese systems). Line endings are
normalised to LF. Binary files (`.DS_Store`, images) raise `UndecodableError`. No third-party
detector: the candidate encodings are few and each is tried strictly, so a wrong guess fails loudly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class UndecodableError(ValueError):
    """The bytes are binary, or text in none of the supported encodings."""


class EmptySourceError(ValueError):
    """The file has no bytes at all."""


@dataclass(frozen=True)
class Decoded:
    """Decoded text (LF line endings, no BOM) and the Python codec that decodes the original bytes."""

    text: str
    encoding: str  # "utf-8", "utf-8-sig", "utf-16" / "utf-32" (with BOM), "utf-16-le", "utf-16-be", "gb18030"


# Order matters: the UTF-32 LE BOM starts with the UTF-16 LE BOM.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
# C0/C1 controls other than tab, LF, VT, FF, CR; plus private-use code points, which is what
# binary data tends to become when a permissive multi-byte codec such as GB18030 accepts it.
_SUSPICIOUS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ue000-\uf8ff\U000f0000-\U0010ffff]")
# A real text file has essentially none; binary data that survives strict decoding has ~10%.
_MAX_SUSPICIOUS_RATIO = 0.05
# BOM-less UTF-16: one byte of each pair is NUL for ASCII-range characters. The other byte is NUL
# only for U+xx00 code points, which are rare, so the two positions must look very different.
_UTF16_MIN_NUL_SHARE = 0.10
_UTF16_MAX_OTHER_NUL_SHARE = 0.02


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _check_textual(text: str, encoding: str) -> None:
    if "\x00" in text:
        raise UndecodableError(f"binary data: NUL characters after decoding as {encoding}")
    bad = len(_SUSPICIOUS.findall(text))
    if bad and bad > max(1, int(len(text) * _MAX_SUSPICIOUS_RATIO)):
        share = 100 * bad / max(1, len(text))
        raise UndecodableError(
            f"binary data: {bad} control/private-use characters ({share:.1f}%) after decoding as {encoding}"
        )


def _bomless_utf16(data: bytes) -> str | None:
    """Return "utf-16-le"/"utf-16-be" when the NUL bytes follow a UTF-16 pattern, else None."""
    if len(data) % 2:
        return None
    pairs = len(data) // 2
    even_nuls = data[0::2].count(0)
    odd_nuls = data[1::2].count(0)
    if odd_nuls >= _UTF16_MIN_NUL_SHARE * pairs and even_nuls <= _UTF16_MAX_OTHER_NUL_SHARE * pairs:
        return "utf-16-le"  # ASCII "A" is 41 00
    if even_nuls >= _UTF16_MIN_NUL_SHARE * pairs and odd_nuls <= _UTF16_MAX_OTHER_NUL_SHARE * pairs:
        return "utf-16-be"  # ASCII "A" is 00 41
    return None


def _strict(data: bytes, encoding: str) -> Decoded:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise UndecodableError(f"not valid {encoding}: {exc.reason} at byte {exc.start}") from exc
    text = text.lstrip("\ufeff") if encoding.startswith("utf") else text
    _check_textual(text, encoding)
    return Decoded(_normalise(text), encoding)


def decode_bytes(data: bytes) -> Decoded:
    """Decode a workspace file; raises EmptySourceError for 0 bytes, UndecodableError for binary/unknown."""
    if not data:
        raise EmptySourceError("empty file (0 bytes)")
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _strict(data, encoding)
    if 0 in data:
        utf16 = _bomless_utf16(data)
        if utf16 is None:
            nuls = data.count(0)
            raise UndecodableError(f"binary data: {nuls} NUL bytes in {len(data)} bytes, not a UTF-16 pattern")
        return _strict(data, utf16)
    try:
        return _strict(data, "utf-8")
    except UndecodableError as utf8_error:
        try:
            return _strict(data, "gb18030")
        except UndecodableError as gb_error:
            raise UndecodableError(
                f"undecodable text: tried utf-8 ({utf8_error}) and gb18030 ({gb_error})"
            ) from gb_error
