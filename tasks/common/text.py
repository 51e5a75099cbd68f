"""Strings that are safe to store and serialise: no NUL, no lone surrogate, bounded length.

Workspace file names come from the OS as `str` with surrogate escapes for bytes that are not
UTF-8, feed JSON can carry `\\u0000` and lone `\\ud800` escapes: PostgreSQL refuses NUL in text,
psycopg and `json.dumps(ensure_ascii=False)` refuse lone surrogates. `clean_text` is applied where
such strings enter the system (scan, feed parsers), so nothing downstream meets them.
"""

from __future__ import annotations

import os
import re

# The CJK ideographs (Extension A and the Unified block) that a name or a run of Chinese text is
# made of, as a character-class range for the patterns that need one.
CJK_RANGE = "\u3400-\u9fff"
_BAD = re.compile(r"[\x00\ud800-\udfff]")
# C0 and C1 controls and the Unicode line/paragraph separators: what would break a line of output.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def has_bad_chars(value: str) -> bool:
    """Whether `value` holds a NUL or a lone surrogate (what PostgreSQL, psycopg or JSON refuse)."""
    return _BAD.search(value) is not None


def clean_text(value: str, limit: int | None = None) -> str:
    """`value` with NUL removed, lone surrogates as U+FFFD, cut to `limit` characters (with "…")."""
    if _BAD.search(value):
        value = _BAD.sub(lambda m: "" if m.group(0) == "\x00" else "\ufffd", value)
    if limit is not None and len(value) > limit:
        value = value[: max(0, limit - 1)] + "…"
    return value


def display_name(name: str) -> str:
    """A file-name component as the OS gave it (surrogate escapes for non-UTF-8 bytes), as text
    that round-trips nowhere but is stable and safe: undecodable bytes become `\\xNN`, control
    characters (newline, tab, ...) become `\\n`-style escapes."""
    if _BAD.search(name):
        name = os.fsencode(name).decode("utf-8", "backslashreplace").replace("\x00", "\\x00")
    if _CONTROL.search(name):
        name = _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), name)
    return name


def clamp_text(value: str | None, limit: int) -> str | None:
    """A value for a VARCHAR(limit) column: cleaned and cut to fit (None stays None)."""
    return None if value is None else clean_text(value, limit)


def word_alternation(words: tuple[str, ...]) -> str:
    """`words` as one regex alternation, longest first, a space matching any run of spaces. Blank
    words are left out, and a list with none left matches nothing: a bare "" would match everywhere,
    so a workspace override that empties a list would turn its marker on for every text."""
    unique = {w for w in words if w.strip()}
    if not unique:
        return "(?!)"
    return "|".join(re.escape(w).replace(r"\ ", r"\s*") for w in sorted(unique, key=lambda w: (-len(w), w)))
