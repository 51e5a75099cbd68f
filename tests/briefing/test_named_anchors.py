"""Contract of anchored papers named by name only (tasks.window.named):

- an entry of a note whose heading names a paper the knowledge document anchors by that name, and
  for which the window gives no id, cites that paper (one mention of its id, from that entry);
- not when the paper is anchored after the cutoff, only in References, given by id somewhere in
  the window, named only inside the entry's text, or named by a pasted briefing (an echo);
- the document names a paper by a bold name written with its id (a bold name whose id stands
  elsewhere in the entry names the entry), and that name does not repeat the id.
"""

from __future__ import annotations

import datetime as dt

from tasks.config.judgment import default_judgment
from tasks.knowledge.parse import anchor_status_as_of
from tasks.model.window_views import AnchorView, EntryView, KnowledgeView, WindowData
from tasks.model.windows import window_for
from tasks.window.named import named_anchored
from tasks.window.titles import anchor_name

J = default_judgment()
DAY = dt.date(2026, 11, 6)
NOTE = "inbox/ann/2026-11-06T1015-ann-followups.md"
FLASH = AnchorView("2611.01234", "§2 Kernels", dt.date(2026, 11, 6), None, False,
                   "**KernelFuse-3 (arXiv:2611.01234)**: split-K decoding, 2.4x at 128K. [anchored 2026-11-06]")
LATER = AnchorView("2611.02345", "§2 Kernels", dt.date(2026, 11, 7), None, False,
                   "**DraftTree (arXiv:2611.02345)**: tree-free draft heads. [anchored 2026-11-07]")
GROUP = AnchorView("2412.19437", "§1 Engines", dt.date(2026, 8, 26), None, False,
                   "**Open kernel chain**: MLA decode kernel, EP comms; BaseModel-V3 (arXiv:2412.19437) is the source.")
CITED = AnchorView("2406.11931", None, None, dt.date(2026, 10, 1), True,
                   "arXiv:2406.11931 — OffloadStudy: a CPU-offload study (cited 2026-10-01)")


def _entry(title: str, text: str = "- a measurement.", path: str = NOTE, ordinal: int = 1) -> EntryView:
    when = dt.datetime(2026, 11, 6, 2, 15, tzinfo=dt.UTC)
    return EntryView(1, path, "note", ordinal, None, title, title, text, (), item_time=when)


def _data(*entries: EntryView) -> WindowData:
    data = WindowData(window=window_for(DAY, "20 22 * * *", "Asia/Shanghai"), entries=list(entries))
    data.knowledge = KnowledgeView("organized/knowledge/inference.md", "inference", "v1", None, None, (),
                                   (FLASH, LATER, GROUP, CITED), ())
    return data


def _named(data: WindowData, skip: tuple[str, ...] = (), echoes: tuple[str, ...] = ()) -> dict[str, list[str]]:
    anchors = anchor_status_as_of(data.knowledge.anchors if data.knowledge else (), DAY)
    found = named_anchored(data, anchors, skip, echoes, J)
    return {i: [f"{m.path}#{m.item_ordinal}" for m in ms] for i, ms in found.items()}


def test_a_heading_naming_an_anchored_paper_cites_it() -> None:
    data = _data(_entry("KernelFuse-3 at larger batches"), _entry("Open items", ordinal=2))
    assert _named(data) == {"2611.01234": [f"{NOTE}#1"]}


def test_a_paper_anchored_after_the_cutoff_or_only_cited_is_not_named() -> None:
    assert _named(_data(_entry("DraftTree acceptance rates"), _entry("OffloadStudy on Grace"))) == {}


def test_an_id_in_the_window_or_a_pasted_briefing_names_nothing_by_name() -> None:
    data = _data(_entry("KernelFuse-3 at larger batches"))
    assert _named(data, skip=("2611.01234",)) == {}
    assert _named(data, echoes=(NOTE,)) == {}


def test_a_bold_name_without_the_id_beside_it_names_the_entry_not_the_paper() -> None:
    assert anchor_name(GROUP, J) is None
    assert _named(_data(_entry("Open kernel chain updates"))) == {}


def test_a_name_inside_the_text_is_context() -> None:
    data = _data(_entry("PrefillPack serving", "- 3x over vLLM; like KernelFuse-3 it splits K."))
    assert _named(data) == {}


def test_the_documents_name_leaves_out_the_id() -> None:
    assert anchor_name(FLASH, J) == "KernelFuse-3"
    assert anchor_name(CITED, J) == "OffloadStudy: a CPU-offload study"
