"""A paper's title: from the best source that gives one, cleaned of the notes' markers.

Order: its paper card, the arXiv metadata looked up by the cutoff, a feed entry, the work queue
(its title column, or else the row's first cell that is not a rank, an id or a category),
then the cleaned heading of an entry headed by it (the fullest of those that name it alike), the
knowledge document's bold name, an entry about it alone, and last the bare id.

Cleaning: pictographs (emoji, ⭐, 🟢) go; a leading or trailing segment (split at "·", "|", a
spaced dash, a colon) or bracket that holds nothing but `[titles] markers` words ("NET-new arXiv",
"承接级", "邻接", …) goes; then the note's own trailing comments ("… — 找到了", "Foo 承接"). The
words are the run's judgment's (`[titles] markers`, `[markers] trailing_progress`), passed in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from tasks.common.arxiv_ids import find_ids
from tasks.config.judgment import Judgment
from tasks.judge.statements import word_pattern
from tasks.model.window_views import AnchorView, MentionView, WindowData
from tasks.verify.markers import markers_of
from tasks.verify.names import names_of
from tasks.verify.subjects import entry_heading, heading_thing

_BOLD = re.compile(r"\*\*([^*]{2,80})\*\*")
_REF_TITLE = re.compile(r"—\s*(.+?)\s*[（(]cited", re.I)
_ID_BRACKET = re.compile(r"\s*[（(]([^（()）]{1,60})[)）]")
_COMMENT = re.compile(r"\s+—{1,2}\s+.*$|\s*——.*$")
# Separators a note puts between its markers and the name; the colon only when it ends a segment.
_SEP = re.compile(r"\s*[·|｜]\s*|\s+[—–-]{1,2}\s+|\s*[:：]\s*")
_LEAD_BRACKET = re.compile(r"^[\[【(（〔「]([^\]】)）〕」]{1,60})[\]】)）〕」]")
_TAIL_BRACKET = re.compile(r"[\[【(（〔「]([^\[【(（〔「]{1,60})[\]】)）〕」]$")
_JOINERS = "\u200d\ufe0e\ufe0f\u20e3"  # zero-width joiner, variation selectors, keycap


def without_pictographs(text: str) -> str:
    """The text without emoji and other pictographic symbols (Unicode category So)."""
    kept = "".join(c for c in text if c not in _JOINERS and unicodedata.category(c) != "So")
    return " ".join(kept.split())


@lru_cache(maxsize=8)
def _title_markers(j: Judgment) -> re.Pattern[str]:
    return word_pattern(j.words("titles", "markers"))


@lru_cache(maxsize=8)
def _trailing_progress(j: Judgment) -> re.Pattern[str]:
    return re.compile(rf"\s+(?:{markers_of(j).trailing_progress})$")


def _only_markers(segment: str, markers: re.Pattern[str]) -> bool:
    if not any(c.isalnum() for c in segment):
        return False
    return not any(c.isalnum() for c in markers.sub("", segment))


@lru_cache(maxsize=4096)
def strip_markers(title: str, j: Judgment) -> str:
    """The title without pictographs and without edge segments or brackets made only of markers."""
    markers = _title_markers(j)
    t = without_pictographs(title).strip(" ·|—–-:：,，")
    while True:
        before = t
        lead, tail = _LEAD_BRACKET.match(t), _TAIL_BRACKET.search(t)
        seps = list(_SEP.finditer(t))
        if lead and _only_markers(lead.group(1), markers):
            t = t[lead.end():]
        elif tail and _only_markers(tail.group(1), markers):
            t = t[: tail.start()]
        elif seps and seps[0].start() > 0 and _only_markers(t[: seps[0].start()], markers):
            t = t[seps[0].end():]
        elif seps and seps[-1].end() < len(t) and _only_markers(t[seps[-1].end():], markers):
            t = t[: seps[-1].start()]
        t = t.strip(" ·|—–-:：,，")
        if t == before:
            break
    return t if any(c.isalnum() for c in t) else without_pictographs(title)


# Merging engineering candidates compares every pair's names: the same headings are cleaned again and again.
@lru_cache(maxsize=65536)
def clean_title(title: str, j: Judgment) -> str:
    """A heading without markers, entry markers ("条目#2 ·", "[Sep 10]", "附：", `subjects.entry_heading`)
    and trailing commentary ("… — 找到了", "foo-kv —— 已锚入…", "Foo Attack 承接")."""
    t = _COMMENT.sub("", strip_markers(entry_heading(markers_of(j), title) or title, j)).strip()
    if re.search(r"[A-Za-z]", t):
        t = _trailing_progress(j).sub("", t)
    return t.strip(" ·:：—-") or strip_markers(title, j) or title


def _latin_weight(title: str) -> int:
    return len(re.findall(r"[A-Za-z][A-Za-z0-9-]*", title))


def best_title(titles: Sequence[str], j: Judgment) -> str | None:
    cleaned = [clean_title(t, j) for t in titles if t]
    return max(cleaned, key=lambda t: (_latin_weight(t), -cleaned.index(t))) if cleaned else None


def _given(values: Sequence[str | None], j: Judgment) -> str | None:
    for value in values:
        if value and clean_title(value, j).strip():
            return clean_title(value, j)
    return None


def _row_title(m: MentionView, categories: set[str]) -> str | None:
    """A queue row's title when its columns were not recognised: the first of its cells that can
    name the paper (not empty, a rank or an id: stored at ingest) that is not a category of it."""
    return next((cell for cell in m.cells or () if cell.lower() not in categories), None)


def title_for(arxiv_id: str, mentions: Sequence[MentionView], data: WindowData,
              per_item: dict[tuple[int, int], set[str]], j: Judgment, use_lookup: bool = True) -> str:
    """The paper's name, from the best source that gives one (see the module docstring).

    `use_lookup=False`: the name the workspace gives, without arXiv's (what a title check compares)."""
    lookup = data.lookups.get(arxiv_id) if use_lookup else None
    feeds = [m for m in mentions if m.path.startswith(("http://", "https://"))]
    notes = [m for m in mentions if m.kind not in ("work_queue", "paper_card") and m not in feeds
             and m.label != "preamble" and m.title]
    # A question naming no thing ("哪些数字对不上？") heads a part of the note, not its paper (a paper's
    # own title may ask: "Is Memorization Context-Sensitive?").
    alone = [m.title or "" for m in notes if per_item.get((m.source_id, m.item_ordinal)) == {arxiv_id}
             and not ((m.title or "").rstrip().endswith(("?", "？")) and heading_thing(markers_of(j), m.title) is None)]
    headed = [m.title or "" for m in notes if m.raw in m.heading]
    card = _given([c.title for c in data.cards.get(arxiv_id, [])], j)
    if card:
        return card
    categories = {c.lower() for pair in data.queue_categories.get(arxiv_id, []) for c in pair if c}
    given = _given([lookup.title if lookup is not None and lookup.status == "found" else None,
                    *(m.title for m in feeds),
                    *(m.title or _row_title(m, categories) for m in mentions if m.kind == "work_queue")], j)
    if given:
        # A queue or feed may give only a short name that a heading spells out in full.
        fuller = [clean_title(h, j) for h in headed if names_of(j).names_match(clean_title(h, j), given)]
        return max([given, *fuller], key=len)
    # An entry about it alone that names it like a headed one may carry the fuller title.
    best = best_title(headed + [t for t in alone if any(names_of(j).names_match(clean_title(t, j), clean_title(h, j)) for h in headed)], j)
    if best:
        return best
    if data.knowledge:
        for anchor in data.knowledge.anchors:
            if anchor.arxiv_id == arxiv_id:
                name = anchor_name(anchor, j)
                if name:
                    return name
    return best_title(alone, j) or arxiv_id


def anchor_name(anchor: AnchorView, j: Judgment) -> str | None:
    """The name the knowledge document gives an anchored paper: a bold name written with its id
    (inside the bold, or in a bracket right after it: "**FlashDecode-3 (arXiv:…)**",
    "**GoodServe**（arXiv:…）"), else the title of its References line. A bold name whose id stands
    elsewhere in the entry names the entry ("**DeepSeek 开源组件链**：… DeepSeek-V3（arXiv:…）"), not
    the paper: None. The id is left out of the name (it is shown beside it)."""
    for bold in _BOLD.finditer(anchor.entry):
        after = _ID_BRACKET.match(anchor.entry, bold.end())
        if anchor.arxiv_id in _ids(bold.group(1)) or (after and _only_ids(after.group(1))
                                                       and anchor.arxiv_id in _ids(after.group(1))):
            name = _ID_BRACKET.sub(lambda b: " " if _only_ids(b.group(1)) else b.group(0), bold.group(1))
            return clean_title(" ".join(name.split()), j) or None
    ref = _REF_TITLE.search(anchor.entry)
    return clean_title(ref.group(1).strip(), j) if ref else None


def _ids(text: str) -> set[str | None]:
    return {found.canonical for found in find_ids(text)}


def _only_ids(text: str) -> bool:
    """Whether `text` holds arXiv references and nothing else but their prefixes and separators."""
    rest, ids = text, find_ids(text)
    for found in reversed(ids):
        rest = rest[: found.start] + rest[found.end:]
    return bool(ids) and not re.sub(r"(?i)arxiv|[\s:：,，;；/]", "", rest)
