"""Contract of releases listed beside a paper (tasks.increments.parts, via note_candidates):

- under a heading that names nothing, a top-level item that leads with a name, names no arXiv id
  and says the thing was released is a candidate of its own, though its entry is about a paper by
  its first item; its own lines, numbers and hedges are its, and its signals reach the threshold
  (a named version, a release, the project's README as a first-hand source);
- an item nested under the paper's item, any item of an entry headed by the paper, a sibling item
  that names no release, and an item naming an arXiv id are not.
"""

from __future__ import annotations

import datetime as dt

from tasks.config.judgment import default_judgment
from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import stored_outline
from tasks.increments.candidates import Judged, note_candidates
from tasks.increments.novelty import entry_signals, signal_score
from tasks.model.window_views import EntryView

J = default_judgment()
PAPER = "1) FooKV (arXiv:2611.20001): per-tenant KV cache placement across HBM and SSD.\n" \
        "   1) Reports 2x more tenants than the prefix cache.\n" \
        "      1) unverified: the 2x figure\n"
SKIFF = "2) Skiff v2.1, an open-source request router for disaggregated clusters, was released on 2026-11-10.\n" \
        "   1) Routes on KV cache locality; its README shows 1.4x goodput over round-robin on 16×H100.\n"


def _entries(text: str) -> list[EntryView]:
    when = dt.datetime(2026, 11, 12, 3, 30, tzinfo=dt.UTC)
    out = []
    for e in parse_note(text).entries:
        ids = tuple(dict.fromkeys(m.canonical for m in e.mentions if m.canonical))
        out.append(EntryView(1, "inbox/ann/2026-11-12T1130-ann-notes.md", "note", e.ordinal, e.label, e.heading or "",
                             e.title, e.text, tuple(e.hedges), tuple(e.numbers), when, ids,
                             outline=stored_outline(e.text, e.tree)))
    return out


def _titles(text: str) -> list[str]:
    papers = Judged(frozenset({"2611.20001"}), {"2611.20001": "FooKV"})
    return [c.title for c in note_candidates(_entries(text), papers, frozenset(), J)]


def test_a_release_beside_a_paper_is_a_candidate_of_its_own() -> None:
    text = f"Serving notes\n=============\n\nSystems\n-------\n\n{PAPER}{SKIFF}"
    cands = note_candidates(_entries(text), Judged(frozenset({"2611.20001"}), {}), frozenset(), J)
    assert [c.title for c in cands] == ["Skiff v2.1"]
    (part,) = cands[0].entries
    assert "FooKV" not in part.text and not part.hedges and [n["value"] for n in part.numbers] == ["1.4x"]
    signals = entry_signals(part, J, "inference", ("KV cache",))
    assert signal_score(signals) >= J.weight("eng_threshold"), signals


def test_what_is_the_papers_or_names_no_release_is_no_candidate() -> None:
    nested = PAPER + "   2) Skiff v2.1, a request router, was released on 2026-11-10.\n"
    assert _titles(f"Systems\n-------\n\n{nested}") == []
    headed = "### FooKV: per-tenant KV placement (arXiv:2611.20001)\n\n- 2x more tenants.\n" \
             "- Skiff v2.1, a request router, was released on 2026-11-10.\n"
    assert _titles(headed) == []
    remark = PAPER + "2) BarCache, for comparison, keeps one quota for all tenants.\n"
    assert _titles(f"Systems\n-------\n\n{remark}") == []
    with_id = PAPER + "2) Skiff v2.1 (arXiv:2611.20002) was released on 2026-11-10.\n"
    assert _titles(f"Systems\n-------\n\n{with_id}") == []
