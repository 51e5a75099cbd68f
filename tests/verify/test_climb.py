"""Contract of `tasks.verify.climb.sideways`: the one paper an entry names is a hedge's subject only
when the hedged item, an item it is nested in, the entry's heading or its text outside any list
names it; a paper named only in a sibling item (a comparison baseline) is context, in Chinese and
English notes alike, and a paper named only in a table's other rows is context for a row. Of `row_key_ids`: a hedged table row is about the paper of its key cells, not
a baseline its claim cell names. Of `_pointed_back`: a block naming nothing that restates a figure
of the block just before it (a quoted claim) is about what that block names.
"""

from __future__ import annotations

import pytest

from tasks.config.judgment import default_judgment
from tasks.inbox.outline_reader import stored_outline
from tasks.model.window_views import EntryView
from tasks.verify.climb import _pointed_back, row_key_ids, sideways
from tasks.verify.markers import markers_of

M = markers_of(default_judgment())
BASE = "2503.01840"


def _entry(heading: str, text: str) -> EntryView:
    return EntryView(1, "inbox/x/n.md", "note", 1, None, heading, heading, text, (), outline=stored_outline(text))


@pytest.mark.parametrize(("heading", "text", "hedge", "aside"), [
    # a sibling bullet names the baseline: not the claim's subject
    ("QuickSpec", f"- 1.9x, where EAGLE-3 (arXiv:{BASE}) gets 1.6x.\n- TODO verify: rates from a blog.\n",
     "TODO verify: rates from a blog.", True),
    ("PipeServe", f"- 对比：\n  - 不同于 DistServe（arXiv:{BASE}）。\n  - 实验：8×H100。\n    - ⚠ 待核实：只测了 2K。\n",
     "⚠ 待核实：只测了 2K。", True),
    # the item the hedge is nested in names it: climbing reaches it
    ("Notes", f"- EAGLE-3 (arXiv:{BASE}) reproduced:\n  - TODO verify: 1.6x on our setup.\n",
     "TODO verify: 1.6x on our setup.", False),
    # the heading or the entry's text outside its list names it
    (f"EAGLE-3 (arXiv:{BASE})", "- 1.6x.\n- TODO verify: rates from a blog.\n", "TODO verify: rates from a blog.", False),
    ("Notes", f"About arXiv:{BASE}.\n\n- 1.6x.\n- TODO verify: rates from a blog.\n", "TODO verify: rates from a blog.", False),
])
def test_a_paper_named_only_by_a_sibling_item_is_aside(heading: str, text: str, hedge: str, aside: bool) -> None:
    assert sideways(M, _entry(heading, text), BASE, hedge, None) is aside


OWN = "2611.10345"
TABLE = ("| Paper | arXiv | Claim | Status |\n|---|---|---|---|\n"
         f"| LookaheadKV | {OWN} | 40% less memory than SnapKV (arXiv:{BASE}) | 待核实：只在 LongBench 上测过 |\n"
         f"| TurboDraft (arXiv:2611.10456) | — | 2.2x, compared with SnapKV (arXiv:{BASE}) | unverified: the 2x |\n")


@pytest.mark.parametrize(("hedge", "line", "ids"), [
    ("待核实：只在 LongBench 上测过", 2, [OWN]),  # the key cell's paper, not the baseline in the claim cell
    ("unverified: the 2x", 3, ["2611.10456"]),  # the key is the first cell naming a paper
    ("待核实：只在 LongBench 上测过", None, [OWN]),  # the row found by its text
])
def test_a_table_row_is_about_its_key_cells_paper(hedge: str, line: int | None, ids: list[str]) -> None:
    assert row_key_ids(M, _entry("Papers", TABLE), hedge, line) == ids


ROWS = (f"FooServe (arXiv:{OWN}) results:\n\n| System | Setup | Value | Note |\n|---|---|---|---|\n"
        "| BarServe v2.1 | FP8, batch 32 | 2,950 tok/s | ours |\n"
        f"| QuuxKV (arXiv:{BASE}) | 2-bit KV | 1.8x | 存疑 |\n")


@pytest.mark.parametrize(("arxiv_id", "line", "aside"), [
    (BASE, 4, True),  # only the next row names it: a sibling's paper, not BarServe's row's subject
    (BASE, 5, False),  # its own row
    (OWN, 4, False),  # the paragraph above the table names it: climbing reaches it
])
def test_a_paper_named_only_by_another_table_row_is_aside(arxiv_id: str, line: int, aside: bool) -> None:
    entry = _entry("Numbers", ROWS)
    assert sideways(M, entry, arxiv_id, ROWS.split("\n")[line], line) is aside


def test_a_line_outside_any_table_has_no_row_key() -> None:
    text = f"- LookaheadKV ({OWN}) | vs SnapKV\n- 待核实：LongBench only\n"
    assert row_key_ids(M, _entry("Papers", text), "待核实：LongBench only", 1) == []


QUOTE = "Part 2\n\n> 有人转述：FooServe v2.1 的命中率能到 90%。\n\n我不太信：这个 90% 待核实。\n\n另一段：这个 80% 待核实。\n"


@pytest.mark.parametrize(("line", "name"), [
    (4, "FooServe v2.1"),  # restates the quote's 90%: the quote's subject
    (6, None),  # a figure the block before does not hold: it points nowhere
    (2, None),  # the quote itself, after a block naming nothing
])
def test_a_block_restating_the_figure_before_it_points_back(line: int, name: str | None) -> None:
    assert _pointed_back(M, _entry("", QUOTE), line, frozenset()) == name


def test_an_entry_is_read_for_its_ids_once_however_many_claims_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting, not timing: the lines outside the entry's items are read for ids once, so asking for
    each of many numbers costs a few reads each (the enclosing items), not one per line of the entry."""
    import tasks.verify.climb as climb

    calls = {"n": 0}
    real = climb.text_ids

    def counted(text: str) -> list[str]:
        calls["n"] += 1
        return real(text)

    monkeypatch.setattr(climb, "text_ids", counted)
    lines = "\n".join(f"Context line {k} of the setup." for k in range(300))
    text = f"{lines}\n\n- 1.9x where EAGLE-3 (arXiv:{BASE}) gets 1.6x.\n- TODO verify: rates from a blog.\n"

    def asked(times: int) -> int:
        if hasattr(climb, "_ids_outside_items"):
            climb._ids_outside_items.cache_clear()
        calls["n"] = 0
        entry = _entry("QuickSpec", text)
        for _ in range(times):
            assert sideways(M, entry, BASE, "TODO verify: rates from a blog.", None)
        return calls["n"]

    once, many = asked(1), asked(100)
    assert once >= 300 and many <= once + 100 * 3
