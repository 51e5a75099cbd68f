"""One note's content written in each heading style the parser must read alike (a test helper).

A `Note` is a title, a preamble, numbered entries (a title, the heading's tail such as an arXiv
reference, body lines), an optional unnumbered closing section right after them ("给 Tom") and an
optional summary after a `---` break. `render(note, style)` writes it with the entries headed in
`style`; the closing section and the summary are headed the way that style's notes head an
unnumbered section (`###` in `#` styles, bold elsewhere). `expected(note)` is what every style
must parse to: (title, body, arXiv ids, depth of its heading path) per entry, the preamble first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CN = "一二三四五六七八九十"


@dataclass(frozen=True)
class Item:
    title: str
    body: tuple[str, ...]
    tail: str = ""  # written after the title in the heading, never part of it ("（arXiv:2610.04646）")
    ids: tuple[str, ...] = ()  # canonical ids the heading and body name


@dataclass(frozen=True)
class Note:
    title: str
    preamble: tuple[str, ...]
    items: tuple[Item, ...]
    summary: Item | None = None
    closing: Item | None = None


def _cn(n: int) -> str:
    return CN[n - 1] if n <= 10 else "十" + CN[n - 11]


STYLES: dict[str, Callable[[int, str], str]] = {
    "h2": lambda n, t: f"## {t}",
    "h3": lambda n, t: f"### {t}",
    "h4": lambda n, t: f"#### {t}",
    "bold": lambda n, t: f"**{t}**",
    "bold_colon_inside": lambda n, t: f"**{t}:**",
    "bold_colon_after": lambda n, t: f"**{t}**：",
    "numbered_dot": lambda n, t: f"{n}. {t}",
    "numbered_paren": lambda n, t: f"{n}) {t}",
    "numbered_bracket": lambda n, t: f"({n}) {t}",
    "zh_chapter": lambda n, t: f"{_cn(n)}、{t}",
    "zh_sub_chapter": lambda n, t: f"（{_cn(n)}）{t}",
    "zh_sub_chapter_entry_mark": lambda n, t: f"（{_cn(n)}）条目#{n} {t}",  # labels stacked before the name
    "entry_mark": lambda n, t: f"条目#{n} · {t}",
    "increment_mark": lambda n, t: f"Increment {n} - {t}",
    "bold_entry_mark": lambda n, t: f"**条目#{n} · {t}**",
    "bold_numbered": lambda n, t: f"**{n}. {t}**",
}
NUMBERED_STYLES = frozenset(s for s in STYLES if not s.startswith(("h", "bold")) or s in ("bold_entry_mark", "bold_numbered"))


def _heading(style: str, n: int, item: Item) -> str:
    text = f"{item.title}{item.tail}"
    if style.startswith("bold") and item.tail:
        # A bracket after the bold name, as notes write a paper's id: "**Foo**（arXiv:…）".
        return STYLES[style](n, item.title).rstrip("：:") + item.tail
    return STYLES[style](n, text)


def render(note: Note, style: str) -> str:
    out = [f"# {note.title}", "", *note.preamble, ""]
    for n, item in enumerate(note.items, 1):
        out += [_heading(style, n, item), *item.body, ""]
    for item, rule in ((note.closing, []), (note.summary, ["---", ""])):
        if item is not None:
            # A `#` note heads an unnumbered section at its entries' level.
            head = STYLES[style](0, item.title) if style.startswith("h") else f"**{item.title}**"
            out += [*rule, head, *item.body, ""]
    return "\n".join(out)


def expected(note: Note) -> list[tuple[str | None, str, list[str], int]]:
    rows: list[tuple[str | None, str, list[str], int]] = []
    if note.preamble:
        rows.append((None, "\n".join(note.preamble).strip(), [], 0))
    for item in (*note.items, *(x for x in (note.closing, note.summary) if x)):
        rows.append((item.title, "\n".join(item.body).strip(), list(item.ids), 0))
    return rows
