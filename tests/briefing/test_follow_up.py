"""Contract of 下次跟进重点 (section 五, `tasks.render.twin.follow_up` and its markdown line):

- it lists the open items' own 建议, newest first (last seen, then raised), this window's items as
  "T<n>" and earlier ones as 此前/earlier; a resolved item's advice is not listed;
- an open item whose sources give no advice is counted, never given invented advice;
- with no open item it says so in words; with open items but no advice it says that the open
  items state no advice (never a bare 「无」/"none");
- the markdown line and the JSON twin list the same advice in the same order, in zh and en.
"""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.model.judged import BriefingContent, StatusAsOf
from tasks.render.labels import LABELS
from tasks.render.markdown import render_markdown
from tasks.render.twin import render_json

DAY = dt.date(2026, 11, 20)
TZ = "Asia/Shanghai"


def _item(k: int, raised: int, seen: int, status: str, advice: str, window: bool) -> StatusAsOf:
    return StatusAsOf(key=f"hedge:item{k}", kind="hedge", subject=f"Item{k}", title=f"Item{k} claim", claim=f"claim {k}",
                      marker="待核实", sources=(f"inbox/a/2026-11-{10 + k:02d}-a-note.md",),
                      raised_on=DAY - dt.timedelta(days=raised), last_seen=DAY - dt.timedelta(days=seen), status=status,
                      age_days=raised, resolved_on=DAY if status == "resolved" else None,
                      evidence="seen" if status == "resolved" else None, resolved_by=None, advice=advice,
                      seen_in_window=window)


def _content(window: list[StatusAsOf], earlier: list[StatusAsOf]) -> BriefingContent:
    cutoff = dt.datetime(2026, 11, 20, 14, 20, tzinfo=dt.UTC)
    return BriefingContent(topic="inference", date=DAY, window_start=cutoff - dt.timedelta(days=1), cutoff=cutoff,
                           timezone=TZ, knowledge_path=None, knowledge_version=None, knowledge_updated=None,
                           knowledge_citations=None, density="low", sources=[], papers=[], verifications=window,
                           earlier_verifications=earlier, malformed=[], increments=[], report=None)


def _next_line(markdown: str, lang: str) -> str:
    head = LABELS[lang]["sum_next"].split("{")[0]
    lines = (line.removeprefix("- ") for line in markdown.splitlines())  # section 五 is a list
    return next(line for line in lines if line.startswith(head))[len(head):]


ITEMS = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.sampled_from(["pending", "stale", "resolved"]),
                           st.booleans(), st.booleans()), max_size=7)


@settings(max_examples=60, deadline=None)
@given(ITEMS, st.sampled_from(["zh", "en"]))
def test_open_items_advice_newest_first(specs: list[tuple[int, int, str, bool, bool]], lang: str) -> None:
    window, earlier = [], []
    for k, (raised, back, status, advised, in_window) in enumerate(specs):
        seen = min(raised, back) if in_window else raised  # last seen never before raised
        advice = f"在找到官方 benchmark 之前不引用 Item{k}。" if advised and lang == "zh" else (
            f"Wait for the official numbers of Item{k}." if advised else "")
        item = _item(k, raised, seen, status if in_window else ("stale" if status == "stale" else "pending"),
                     advice, in_window)
        (window if in_window else earlier).append(item)
    content = _content(window, earlier)
    doc = json.loads(render_json(content, lang))
    line = _next_line(render_markdown(content, lang), lang)
    open_items = [v for v in window + earlier if v.status != "resolved"]
    advised = [v for v in open_items if v.advice]
    got = doc["follow_up"]
    assert got["open"] == len(open_items) and got["without_advice"] == len(open_items) - len(advised)
    order = [(-dt.date.fromisoformat(i["last_seen"]).toordinal()) for i in got["items"]]
    assert order == sorted(order)  # newest first
    assert sorted(i["advice"] for i in got["items"]) == sorted(v.advice for v in advised)
    L = LABELS[lang]
    if not open_items:
        assert line == L["follow_none"]
    elif not advised:
        assert line == L["follow_no_advice"].format(n=len(open_items))
    else:
        positions = [line.index(i["advice"]) for i in got["items"][:6]]
        assert positions == sorted(positions)  # the markdown in the JSON's order
        assert (L["follow_unadvised"].format(n=len(open_items) - len(advised)) in line) == (len(advised) < len(open_items))
    assert line not in (L["none"], "")


def test_wording_of_an_evening_with_open_items_and_no_advice() -> None:
    content = _content([_item(1, 2, 0, "pending", "", True)], [_item(2, 5, 5, "stale", "", False)])
    assert _next_line(render_markdown(content, "zh"), "zh") == "2 个未决项的来源均未给出建议"
    assert _next_line(render_markdown(content, "en"), "en") == "the sources of the 2 open items state no advice"
    none = _content([_item(1, 2, 0, "resolved", "跟踪官方仓库。", True)], [])
    assert _next_line(render_markdown(none, "zh"), "zh") == "无未决的待核实项"


def test_newer_item_first_and_earlier_items_marked() -> None:
    old = _item(1, 6, 6, "pending", "跟踪 Item1 的官方仓库。", False)
    new = _item(2, 1, 0, "pending", "先不要把 Item2 写进文档。", True)
    older_in_window = _item(3, 4, 0, "pending", "Item3 needs a re-check.", True)
    line = _next_line(render_markdown(_content([older_in_window, new], [old]), "zh"), "zh")
    assert line == ("T2 Item2 claim：先不要把 Item2 写进文档。 T1 Item3 claim：Item3 needs a re-check. "
                    "此前 Item1 claim：跟踪 Item1 的官方仓库。")
