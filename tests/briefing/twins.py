"""The markdown and the JSON twin of one briefing must carry the same items, ids and counts.

`assert_twins(markdown, doc)` reads the markdown through the label tables of the JSON's language
(section headings, table heads, the summary's count lines), never through the sample's wording,
so it holds for any workspace and either language. Used by the golden and the variant tests.
"""

from __future__ import annotations

import re
from typing import Any

from tasks.render.labels import LABELS

_PIPE = re.compile(r"(?<!\\)\|")


def _compact_start(template: str) -> str:
    """A regex of the labels' v_compact line up to its kind ("- {icon} 此前 · "), any icon."""
    return re.escape(template.split("{kind}", 1)[0]).replace(re.escape("{icon}"), r"\S+")


_COMPACT = re.compile("^(?:" + "|".join(_compact_start(L["v_compact"]) for L in LABELS.values()) + ")")


def _prefix(template: str) -> str:
    """The fixed start of a label, up to its first placeholder."""
    return template.split("{", 1)[0]


def _sections(markdown: str, L: dict[str, str]) -> dict[str, list[str]]:
    keys = ("s1", "s2", "s3", "s4", "s5", "s6")
    out: dict[str, list[str]] = {k: [] for k in keys}
    current: str | None = None
    for line in markdown.split("\n"):
        heading = next((k for k in keys if line.startswith("## ") and line.startswith(_prefix(L[k]))), None)
        if heading is not None:
            current = heading
        if current is not None:
            out[current].append(line)
    return out


def _rows(lines: list[str]) -> list[list[str]]:
    """Body rows of the first table in `lines` (header and rule skipped), cells unescaped."""
    rows = [line for line in lines if line.startswith("| ")]
    return [[c.strip().replace("\\|", "|") for c in _PIPE.split(r.strip())[1:-1]] for r in rows[1:]]


def _count(heading: str) -> int:
    numbers = re.findall(r"\d+", heading)
    assert numbers, heading
    return int(numbers[-1])


def assert_twins(markdown: str, doc: dict[str, Any]) -> None:
    """Same sources (and their credibility), increments, verifications, citable ids, counts, malformed ids."""
    L = LABELS[doc.get("lang", "zh")]
    sections = _sections(markdown, L)
    assert all(sections.values()), [k for k, v in sections.items() if not v]
    paths = [s["path"] for s in doc["sources"]]
    s1 = _rows(sections["s1"])
    assert [r[0] for r in s1] == paths
    assert [r[2] for r in s1] == [" ".join(s["credibility"].split()) for s in doc["sources"]]
    assert [r[0] for r in _rows(sections["s6"])] == paths
    assert _count(sections["s2"][0]) == len(doc["increments"])
    heads = [line for line in sections["s2"] if line.startswith("### ")]
    assert len(heads) == len(doc["increments"])
    for head, item in zip(heads, doc["increments"], strict=True):
        assert (item["arxiv_id"] or " ".join(item["title"].split())) in head, (head, item["arxiv_id"])
    assert _count(sections["s3"][0]) == len(doc["verifications"])
    # Items this window raised, saw or resolved are headed and counted; items raised earlier and not
    # seen since are one line each, after them and not counted.
    full = [line for line in sections["s3"] if line.startswith("### ")]
    compact = [line for line in sections["s3"] if _COMPACT.match(line)]
    assert len(full) == len(doc["verifications"])
    assert all(v["seen_in_window"] for v in doc["verifications"])
    assert len(compact) == len(doc.get("earlier_verifications", []))
    assert not any(v["seen_in_window"] for v in doc.get("earlier_verifications", []))
    assert [r[0] for r in _rows(sections["s4"])] == [c["arxiv_id"] for c in doc["citations"]]
    counts = doc["counts"]
    summary = [line.removeprefix("- ") for line in sections["s5"]]  # section 五 is a list
    ids_line = next(line for line in summary if line.startswith(_prefix(L["sum_ids"])))
    n, net_new, adjacent, anchored, refs = (int(x) for x in re.findall(r"\d+", ids_line.removeprefix(
        _prefix(L["sum_ids"])))[:5])
    assert (net_new, adjacent, anchored, refs) == (counts["net_new"], counts["adjacent"], counts["already_anchored"],
                                                   counts["reference_list_only"])
    assert n == len(doc["citations"])
    count_line = next(line for line in summary if line.startswith(_prefix(L["sum_count"])))
    assert int(re.findall(r"\d+", count_line.removeprefix(_prefix(L["sum_count"])))[0]) == len(doc["increments"])
    malformed_line = next((line for line in summary if line.startswith(_prefix(L["malformed"]))), "")
    assert re.findall(r"`([^`]*)`", malformed_line) == [m["raw"] for m in doc["malformed"]]
