"""Tolerant YAML front-matter splitter for workspace markdown files.

Only the flat subset people actually write is understood: `key: value`, quoted strings,
`[a, b]` inline lists and `- item` block lists. Keys are lower-cased. Values stay strings
(dates and numbers are the caller's business). It never raises: text without a closed
`---` block comes back unchanged with an empty dict.
"""

from __future__ import annotations

import re

FrontMatterValue = str | list[str]

_KEY = re.compile(r"^(?P<key>[^\W\d][\w-]*)\s*[:：]\s*(?P<value>.*)$")  # keys in any script (日期)
_BLOCK_ITEM = re.compile(r"^\s+-\s+(?P<item>.*)$|^-\s+(?P<top>.*)$")


def unquote(value: str) -> str:
    """Strip one pair of matching surrounding quotes and surrounding whitespace."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    return value


def _strip_comment(value: str) -> str:
    # YAML comments need a space before '#'; ids and titles like "C#" must survive.
    if value.startswith(("'", '"')):
        return value
    return re.split(r"\s+#", value, maxsplit=1)[0]


def _parse_inline_list(value: str) -> list[str]:
    inner = value.strip()[1:-1]
    items: list[str] = []
    # Split on commas outside quotes so a quoted "a, b" stays one item.
    for m in re.finditer(r"\s*(\"[^\"]*\"|'[^']*'|[^,]*)\s*(?:,|$)", inner):
        item = unquote(m.group(1))
        if item:
            items.append(item)
    return items


def _parse_value(raw: str) -> FrontMatterValue:
    value = _strip_comment(raw).strip()
    if value.startswith("[") and value.endswith("]"):
        return _parse_inline_list(value)
    return unquote(value)


def split_front_matter(text: str) -> tuple[dict[str, FrontMatterValue], str]:
    """Return (fields, body); ({}, text) when the text has no closed `---` front-matter block."""
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or lines[start].strip() != "---":
        return {}, text
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].strip() in ("---", "...")),
        None,
    )
    if end is None:
        # An unclosed block is more likely a horizontal rule than front matter.
        return {}, text
    fields: dict[str, FrontMatterValue] = {}
    current: str | None = None
    for line in lines[start + 1 : end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _BLOCK_ITEM.match(line)
        if item and current is not None:
            entry = unquote(_strip_comment(item.group("item") or item.group("top") or ""))
            existing = fields.get(current)
            if isinstance(existing, list):
                existing.append(entry)
            else:
                fields[current] = [entry] if not existing else [existing, entry]
            continue
        m = _KEY.match(line.strip())
        if m is None:
            continue  # unreadable line: skip it rather than lose the rest of the block
        current = m.group("key").lower()
        fields[current] = _parse_value(m.group("value"))
    body = "\n".join(lines[end + 1 :])
    return fields, body
