"""`predigest explain KEY`: a pending item or an engineering increment of a briefing, by its key.

Read from the briefing's JSON twin as the run renders it: the reader's verdict on the item (who,
when, what, why, and its line in the feedback file) comes first, above the rest of what the
briefing holds about it: a pending item's claim and sources, an increment's evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _verdicts(twin: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(n["item"]): n for n in twin.get("reader_verdicts") or []}


def _listed(twin: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(what it is, its record) of every keyed item the twin holds."""
    out = [("pending", v) for v in (*(twin.get("verifications") or []), *(twin.get("earlier_verifications") or []))]
    out += [("engineering", i) for i in twin.get("increments") or [] if not i.get("arxiv_id")]
    return out + [("engineering", i) for i in twin.get("confirmatory") or []]


def item_records(twin: dict[str, Any], keys: Sequence[str]) -> list[dict[str, Any]]:
    """One record per asked key the twin holds or a reader's verdict names, in the order asked."""
    verdicts, listed = _verdicts(twin), {str(r.get("item_key")): (what, r) for what, r in _listed(twin)}
    out = []
    for key in keys:
        if key not in listed and key not in verdicts:
            continue
        what, r = listed.get(key, ("dropped", {}))
        said = verdicts.get(key)
        title = r.get("title") or (said or {}).get("title") or key
        if what == "pending":
            rest = [f"claim: {r.get('claim') or ''}", *(f"source: {p}" for p in r.get("sources") or [])]
        else:
            rest = [f"{e['kind']} · {e['topic']} · {e['weight']:g} · {e['path']} · {e.get('detail') or ''}"
                    for e in r.get("evidence") or [] if e.get("kind") != "reader_verdict"]
        out.append({"item_key": key, "what": what, "title": title, "status": r.get("status") or "dropped",
                    "verdict": said, "rest": rest})
    return out


def items_text(records: Sequence[dict[str, Any]]) -> list[str]:
    """The records as text: the verdict's line first, then the rest of the evidence."""
    out: list[str] = []
    for r in records:
        out.append(f"## {r['item_key']} · {r['what']} · {r['status']} · {r['title']}")
        v = r["verdict"]
        if v:
            where = f"{v['path']}:{v['line']}" if v.get("line") else v["path"]
            out.append(f"- reader verdict: {v['verdict']} · by {v['by']} · at {v['at']} · {where}"
                       + (f" · 「{v['reason']}」" if v.get("reason") else ""))
        out += [f"- {line}" for line in r["rest"]]
        out.append("")
    return out
