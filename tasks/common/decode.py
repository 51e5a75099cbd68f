"""Turn the raw bytes of a workspace file into text, or say clearly why that is impossible.

Handles UTF-8 (with or without BOM), UTF-16/UTF-32 with a BOM, BOM-less UTF-16 recognised by its
NUL-byte pattern, and, when the bytes are not UTF-8, the legacy encodings a team's notes come in
(GB18030 from Windows Notepad on Chinese systems, Big5, cp1252/Latin-1), chosen by
charset-normalizer among those candidates (GB18030 wins a tie). Every Unicode line break (CRLF,
CR, NEL, VT, FF, U+2028, U+2029, the file/group/record separators) becomes LF. Text that can only
be decoded with losses (UTF-8 cut mid-character at the end of the file, stray bytes) is decoded
with U+FFFD in their place and a warning, not refused. Binary files (`.DS_Store`, images) raise
`UndecodableError`. A file predigest writes back (the knowledge document a merge rewrites) is read
with the same detection by `decode_exact`, which keeps every character, and written with
`encode_exact` in the encoding it was read in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from charset_normalizer import from_bytes


class UndecodableError(ValueError):
    """The bytes are binary, or text in none of the supported encodings."""


class EmptySourceError(ValueError):
    """The file has no bytes at all."""


@dataclass(frozen=True)
class Decoded:
    """Decoded text (LF line endings, no BOM) and the Python codec that decodes the original bytes."""

    text: str
    encoding: str  # "utf-8", "utf-8-sig", "utf-16" / "utf-32" (with BOM), "utf-16-le", "utf-16-be", "gb18030", ...
    warnings: tuple[str, ...] = ()  # lossy or guessed decoding: the source keeps a warning


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


# Legacy encodings tried (by charset-normalizer) when the bytes are not UTF-8; the first wins a tie.
LEGACY_ENCODINGS = ("gb18030", "big5", "cp1252", "latin_1")
# Every character str.splitlines() breaks at, besides LF: one line break each, like LF.
_LINE_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# What each of them starts with: one class scans a text faster than the alternation, and most
# texts hold no break but LF.
_LINE_BREAK_START = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# A lossy decode with more replacement characters than this share is binary, not damaged text.
_MAX_REPLACED_RATIO = 0.05


def normalise_newlines(text: str) -> str:
    """Every Unicode line break (CRLF, CR, NEL, VT, FF, U+2028, U+2029, FS/GS/RS) as LF."""
    return _LINE_BREAKS.sub("\n", text) if _LINE_BREAK_START.search(text) else text


def _normalise(text: str) -> str:
    return normalise_newlines(text)


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
    text = _normalise(text.lstrip("\ufeff") if encoding.startswith("utf") else text)
    _check_textual(text, encoding)  # after the line breaks are LF: NEL, FS, GS, RS are line breaks
    return Decoded(text, encoding)


def decode_bytes(data: bytes) -> Decoded:
    """Decode a workspace file; raises EmptySourceError for 0 bytes, UndecodableError for binary/unknown."""
    if not data:
        raise EmptySourceError("empty file (0 bytes)")
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return _strict(data, encoding)
            except UndecodableError as exc:
                if "NUL" in str(exc) or "binary" in str(exc):
                    raise
                return _lossy(data, encoding, str(exc))
    if 0 in data:
        utf16 = _bomless_utf16(data)
        if utf16 is None:
            nuls = data.count(0)
            raise UndecodableError(f"binary data: {nuls} NUL bytes in {len(data)} bytes, not a UTF-16 pattern")
        return _strict(data, utf16)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            return _lossy(data, "utf-8", "UTF-8 cut off mid-character at the end of the file")
    else:
        text = _normalise(text)
        _check_textual(text, "utf-8")
        return Decoded(text, "utf-8")
    return _legacy(data)


def _legacy(data: bytes) -> Decoded:
    """Bytes that are not UTF-8: the legacy candidate charset-normalizer finds least chaotic."""
    matches = list(from_bytes(data, cp_isolation=list(LEGACY_ENCODINGS)))
    order = {name: i for i, name in enumerate(LEGACY_ENCODINGS)}
    matches.sort(key=lambda m: (round(m.chaos, 3), order.get(m.encoding, len(order))))
    # The detector's choices first; then (texts too short for it to judge) each candidate in order.
    candidates = list(dict.fromkeys([m.encoding for m in matches] + list(LEGACY_ENCODINGS)))
    for encoding in candidates:
        try:
            decoded = _strict(data, encoding)
        except UndecodableError:
            continue
        if encoding == "gb18030":
            return decoded  # the workspace's own legacy encoding: no warning, as before
        how = "detected" if any(m.encoding == encoding for m in matches) else "the first candidate that fits"
        return Decoded(decoded.text, decoded.encoding, (f"not UTF-8: decoded as {encoding} ({how})",))
    return _lossy(data, "utf-8", "not valid UTF-8 nor any of " + ", ".join(LEGACY_ENCODINGS))


def _lossy(data: bytes, encoding: str, why: str) -> Decoded:
    """Decode with U+FFFD for what cannot be read, and say so; mostly unreadable bytes are binary."""
    text = _normalise(data.decode(encoding, errors="replace"))
    text = text.lstrip("\ufeff") if encoding.startswith("utf") else text
    replaced = text.count("\ufffd")
    if replaced > max(1, int(len(text) * _MAX_REPLACED_RATIO)):
        raise UndecodableError(f"binary data: {replaced} undecodable sequences in {len(data)} bytes ({why})")
    _check_textual(text, encoding)
    return Decoded(text, encoding,
                   (f"lossy decoding as {encoding}: {replaced} undecodable sequence(s) replaced by U+FFFD ({why})",))


# The codec that reads a BOM as U+FEFF (not as a mark to drop) and writes it back as the same bytes.
_KEEP_BOM = {b"\xff\xfe\x00\x00": "utf-32-le", b"\x00\x00\xfe\xff": "utf-32-be", b"\xef\xbb\xbf": "utf-8",
             b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def decode_exact(data: bytes) -> Decoded:
    """The text of a file predigest writes back (the knowledge document a merge rewrites): the
    encoding `decode_bytes` finds, every character kept (a BOM as U+FEFF, line endings as they are),
    so that `encode_exact(text, encoding)` gives `data` again. UndecodableError (and EmptySourceError)
    as `decode_bytes`, and also when only a lossy decoding reads it or it would not encode back to the
    same bytes: a writer could not keep its other bytes."""
    found = decode_bytes(data)
    if any(w.startswith("lossy") for w in found.warnings):
        raise UndecodableError(f"not valid {found.encoding}: only a lossy decoding reads it ({found.warnings[0]})")
    codec = next((c for bom, c in _KEEP_BOM.items() if data.startswith(bom)), found.encoding)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        raise UndecodableError(f"not valid {codec}: {exc.reason} at byte {exc.start}") from exc
    if text.encode(codec) != data:
        raise UndecodableError(f"decoded as {codec}, it does not encode back to the same bytes")
    return Decoded(text, codec, found.warnings)


class UnencodableError(ValueError):
    """The text has characters the encoding it must be written in cannot hold."""


def encode_exact(text: str, encoding: str) -> bytes:
    """`text` in `encoding` (a codec `decode_exact` returned); UnencodableError, one line, naming the
    first character it cannot hold."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise UnencodableError(f"{encoding} cannot hold {text[exc.start:exc.end]!r} (line {line})") from exc
