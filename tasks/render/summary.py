"""Section 五's lines (the count, the ids, 最高价值条目, the new nodes, 矛盾/待核实, 下次跟进重点), worded
once from the briefing's view (`render_json.briefing_view`): the markdown writes them as list
items, the page as list items with inline markup, so both say the same thing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks.render.labels import short_title
from tasks.render.twin import FOLLOW_UP_SHOWN


def _line(text: str | None) -> str:
    """A source's text on one line."""
    return " ".join((text or "").split())


def summary_lines(view: Mapping[str, Any], L: Mapping[str, str]) -> list[str]:
    """Section 五's lines before its merge line, in the view's language `L`."""
    count = view.get("counts") or {}
    increments = view.get("increments") or []
    ids = sum(count.get(s, 0) for s in ("net_new", "adjacent", "already_anchored", "reference_list_only"))
    out = [L["sum_count"].format(n=len(increments), net_new=count.get("net_new", 0),
                                 engineering=count.get("engineering", 0), adjacent=count.get("adjacent", 0)),
           L["sum_ids"].format(n=ids, net_new=count.get("net_new", 0), adjacent=count.get("adjacent", 0),
                               anchored=count.get("already_anchored", 0), refs=count.get("reference_list_only", 0))]
    if increments:
        if (h := view.get("highlight")) is not None:
            thesis = L["sep"].join(x for x in (h["thesis"], h["headline"]) if x)
            why = L["sum_top_why"].format(tag=L[f"tag_{h['status']}"], n=h["sources"], k=h["independent"],
                                          thesis=_line(thesis))
            label = L["paper_label"].format(title=h["title"], arxiv_id=h["arxiv_id"]) if h["arxiv_id"] else h["title"]
            out.append(L["sum_top"].format(label=label, why=why))
        nodes = list(dict.fromkeys(f"{short_title(p['title'])} → {p['suggested_section']}" for p in increments
                                   if p["status"] != "adjacent" and p.get("suggested_section")))
        out.append(L["sum_nodes"].format(nodes=L["sep"].join(nodes) or L["none"]))
    items = [L["v_item"].format(i=i, title=short_title(v["title"]), status=L[f"vs_{v['status']}"])
             for i, v in enumerate(view.get("verifications") or [], 1)]
    out.append(L["sum_checks"].format(items=L["sep"].join(items) or L["none"]))
    out.append(L["sum_next"].format(items=follow_up_text(view.get("follow_up") or {}, L)))
    return out


def follow_up_text(follow: Mapping[str, Any], L: Mapping[str, str]) -> str:
    """下次跟进重点 in words: each open item's own advice, newest first, one after another (each is a
    source's whole sentences, so no separator is written into them); else why there is none."""
    if not follow.get("open"):
        return L["follow_none"]
    items = follow.get("items") or []
    if not items:
        return L["follow_no_advice"].format(n=follow["open"])
    shown = items[:FOLLOW_UP_SHOWN]
    lines = [L["follow"].format(ref=item["ref"] or L["follow_earlier"], title=short_title(item["title"]),
                                advice=_line(item["advice"])) for item in shown]
    more = len(items) - len(shown)
    lines += [L["follow_more"].format(n=more)] if more else []
    lines += [L["follow_unadvised"].format(n=follow["without_advice"])] if follow.get("without_advice") else []
    return " ".join(lines)


def merge_line(view: Mapping[str, Any], L: Mapping[str, str]) -> str:
    """Section 五's line on the noon merge proposal: where it is, that there is none, or why this run
    could not make it (then nothing is linked)."""
    merge = view.get("knowledge_merge") or {}
    if merge.get("failed"):
        command = f"predigest merge --topic {view['topic']} --date {view['date']}"  # a command: no label's words
        return L["sum_merge_failed"].format(reason=_line(merge["failed"]), command=command)
    if merge.get("diff") is None:
        return L["sum_merge_none"]
    return L["sum_merge"].format(at=merge["merge_at"][:16].replace("T", " "), n=merge["increments"],
                                 body=merge["into_body"], refs=merge["into_references"], diff=merge["diff"],
                                 document=merge["document"])
