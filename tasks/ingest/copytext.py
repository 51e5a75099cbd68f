"""Values in PostgreSQL's COPY text format, so rows can be built in bulk (and in worker processes).

Writing rows one `Copy.write_row` call at a time had psycopg adapt every value through its dumper
machinery: that was most of the time spent copying. Here a row is one `str`: fields joined by tabs,
NULL as `\\N`, backslash, tab, newline and carriage return escaped with a backslash (the only
characters COPY's text format treats specially inside a field). Values are written as psycopg's
text dumpers write them (`str()` of dates and datetimes, `t`/`f`), so the server stores the same
values. JSON goes out compact and without `\\uXXXX` escapes: jsonb keeps the parsed value, not the
text, so the stored value is the same as from `json.dumps` with its defaults (what psycopg's Jsonb
sends).
"""

from __future__ import annotations

import datetime as dt
import json
import json.encoder
from collections.abc import Callable, Iterable
from typing import Any

NULL = "\\N"
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _json_encoder() -> Callable[[Any], str]:
    """`_JSON.encode`, without the C encoder being built anew for every value (as `encode` does:
    that was half the cost of a short list). Falls back to `encode` where there is no C encoder."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return _JSON.encode
    # No circular-reference markers: parsed rows are trees.
    encoder = make(None, _JSON.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    return lambda value: "".join(encoder(value, 0))


_encode_json = _json_encoder()


def escape(value: str) -> str:
    """A text value as a COPY field."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def field(value: Any) -> str:
    """A scalar (str, int, bool, date, datetime, or None) as a COPY field."""
    if value is None:
        return NULL
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int | dt.date):  # datetime is a date: str() gives ISO 8601 with the offset
        return str(value)
    raise TypeError(f"no COPY text form for {type(value).__name__}")


def json_field(value: Any) -> str:
    """A JSON value (for a jsonb column) as a COPY field."""
    if isinstance(value, list) and not value:
        return "[]"  # most lists of an entry are empty: skip the encoder
    # JSON text holds no raw tab, newline or carriage return (the encoder writes them as \t, \n,
    # \r): of what COPY escapes, only its backslashes are left to double.
    return _encode_json(value).replace("\\", "\\\\")


def line(fields: Iterable[str]) -> str:
    """Fields already in COPY form as one row, without its line end."""
    return "\t".join(fields)


_ID_PLACEHOLDERS = ("\n", "\t%d\n", "\t%d\t%d\n")


def template(fields: Iterable[str], ids: int) -> str:
    """A row as a `%` template: its fields (in COPY form, `%` doubled), then `ids` placeholders for
    the id columns that come last, which the writer fills in with one `bytes % tuple` per table
    and file, and the line end."""
    return "\t".join(fields).replace("%", "%%") + _ID_PLACEHOLDERS[ids]
