"""The text `predigest score` prints: a table per evening, then every difference, with the
briefing's own evidence beside each wrongly placed paper."""

from __future__ import annotations

from typing import Any

from tasks.score.compare import CATEGORIES, EveningScore

EVIDENCE_SHOWN = 6  # the strongest pieces of evidence printed beside a wrong paper


def _cell(value: float) -> str:
    return f"{value:.2f}"


def evening_lines(score: EveningScore) -> list[str]:
    out = [f"== {score.key}", f"  {'category':<20} {'precision':>9} {'recall':>7}"]
    for name in CATEGORIES:
        if name in score.figures:
            f = score.figures[name]
            out.append(f"  {name:<20} {_cell(f.precision):>9} {_cell(f.recall):>7}")
    for name, figure in sorted(score.figures.items(), key=lambda kv: CATEGORIES.index(kv[0])):
        out += [f"  - {name}: missing {item}" for item in figure.missing]
        out += [f"  - {name}: extra {item}" for item in figure.extra]
    for arxiv_id, paper in score.papers.items():
        out.append(f"  {arxiv_id}: reported {paper['status']}; decision {paper.get('decision')}; "
                   f"{paper.get('reason') or ''}".rstrip("; "))
        out += [f"      {_evidence(e)}" for e in _strongest(paper.get("evidence") or [])]
    return out


def _strongest(evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(evidence, key=lambda e: (-abs(float(e.get("weight") or 0)), str(e.get("path"))))[:EVIDENCE_SHOWN]


def _evidence(e: dict[str, Any]) -> str:
    detail = str(e.get("detail") or "")[:60]
    return f"{float(e.get('weight') or 0):+5.1f} {e.get('topic')}: {e.get('kind')} ({e.get('path')}) {detail}".rstrip()


def summary_lines(scores: list[EveningScore]) -> list[str]:
    """One row per category: the lowest precision and recall over the evenings that score it."""
    out = [f"== all {len(scores)} evenings (lowest figure)", f"  {'category':<20} {'precision':>9} {'recall':>7}"]
    for name in CATEGORIES:
        figs = [s.figures[name] for s in scores if name in s.figures]
        if figs:
            out.append(f"  {name:<20} {_cell(min(f.precision for f in figs)):>9} {_cell(min(f.recall for f in figs)):>7}")
    return out
