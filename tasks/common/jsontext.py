"""Deterministic JSON text: `json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)`, byte
for byte, in a tenth of the time.

With `indent`, the standard library encodes in pure Python (its C encoder is used only without
one), and a backfill writes a JSON twin, index.json and site.json on every date. orjson (already installed
with Prefect) writes the same text for what a briefing holds: dicts with text keys, lists and
tuples, text, booleans, None, integers of 64 bits and finite floats written without an exponent.
Anything else (an exponent in a float's repr, NaN, a larger integer, a lone surrogate, a key that
is not text) goes to `json.dumps` itself, so the output, and any error, is always the standard
library's. tests/common/test_jsontext.py holds the two equal on generated documents.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
# repr() of a float writes an exponent outside [1e-4, 1e16); orjson's exponents are written otherwise.
_PLAIN_FLOATS = (1e-4, 1e16)
# Long enough to be an integer orjson reads as a float (2**63 has 19 digits).
_LONG_DIGITS = re.compile(rb"[0-9]{19}")


def _orjson_agrees(value: Any) -> bool:
    """Whether orjson writes `value` as `json.dumps` does. A twin is thousands of values: the plain
    containers and texts are walked without a call each (a recursive walk showed in backfill profiles),
    anything else goes to `_leaf_agrees`."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict:
            if not all(type(k) is str for k in item):
                return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif not _leaf_agrees(item):
            return False
    return True


def _leaf_agrees(value: Any) -> bool:
    """`_orjson_agrees` of a number, or of a subclass of a text or container (walked the same way)."""
    if isinstance(value, (str, bool)) or value is None:
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**64
    if isinstance(value, float):
        return math.isfinite(value) and (value == 0.0 or _PLAIN_FLOATS[0] <= abs(value) < _PLAIN_FLOATS[1])
    if isinstance(value, dict):
        return all(type(k) is str for k in value) and all(_orjson_agrees(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_orjson_agrees(v) for v in value)
    return False


def json_text(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)` (no trailing newline)."""
    if _orjson_agrees(value):
        try:
            return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
        except orjson.JSONEncodeError:  # e.g. a lone surrogate in a string
            pass
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)


def json_value(raw: bytes) -> Any:
    """`json.loads(raw.decode("utf-8"))`, parsed by orjson when it can (a tenth of the time: a
    backfill's site refresh reads a year of JSON twins back). orjson parses strict JSON to the
    same values, but reads an integer past 64 bits as a float: text with a run of 19 digits or more,
    and what orjson refuses (NaN, lone surrogates, bytes that are not UTF-8), go to the standard
    library, so the value, and any error, is always the standard library's."""
    if not _LONG_DIGITS.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw.decode("utf-8"))
