"""`tasks.common.jsontext.json_text` is `json.dumps(v, ensure_ascii=False, sort_keys=True, indent=2)`.

Contract: for any JSON-like value (text over all of Unicode, lone surrogates and control
characters included; integers of any size; floats of any magnitude, NaN and infinities; nested
lists, tuples and dicts with text keys; and keys that are not text) it returns exactly the
standard library's text, or raises what the standard library raises.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.common.jsontext import json_text, json_value

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)
_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | _TEXT
_VALUES = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, max_size=5) | st.tuples(children, children)
    | st.dictionaries(_TEXT, children, max_size=5),
    max_leaves=40,
)


def _stdlib(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_same_text_as_the_standard_library(value: Any) -> None:
    assert json_text(value) == _stdlib(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float(value: float) -> None:
    assert json_text({"x": [value]}) == _stdlib({"x": [value]})


def test_a_briefing_like_document() -> None:
    doc = {"topic": "inference", "density": {"score": 2.5, "level": "中"}, "papers": [
        {"id": "2610.01234", "title": "Ünïcode “quotes” \\ \n\t\u2028 \x7f \x00", "weight": -12.0, "n": 2**63 - 1}],
        "empty": {}, "none": [], "nested": [[], [{}]]}
    assert json_text(doc) == _stdlib(doc)


def test_what_orjson_cannot_write_goes_to_the_standard_library() -> None:
    for value in ({"big": 2**70}, {"s": "\ud800"}, {1: "int key"}, {"f": 1e-7}, {"f": 1e20}, {"f": float("nan")}):
        assert json_text(value) == _stdlib(value)


def test_errors_are_the_standard_librarys() -> None:
    import pytest

    for value in ({1: "a", "b": 2}, {"x": object()}):
        with pytest.raises(TypeError):
            _stdlib(value)
        with pytest.raises(TypeError):
            json_text(value)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_read_back_as_the_standard_library(value: Any) -> None:
    written = _stdlib(value).encode("utf-8", "surrogatepass")
    try:
        expected: Any = json.loads(written.decode("utf-8"))
    except ValueError as exc:  # a lone surrogate written as itself is not UTF-8
        import pytest

        with pytest.raises(type(exc)):
            json_value(written)
        return
    assert _stdlib(json_value(written)) == _stdlib(expected)


def test_what_orjson_cannot_read_goes_to_the_standard_library() -> None:
    for text in ('{"n": NaN}', '{"big": 1180591620717411303424}', '{"s": "\\ud800"}', '[1e400]', '{"a": 1, "a": 2}'):
        assert _stdlib(json_value(text.encode())) == _stdlib(json.loads(text))


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
def test_every_number_read_back(value: float | int) -> None:
    read = json_value(json_text({"x": [value]}).encode())["x"][0]
    assert type(read) is type(value) and read == value
