"""Everything a window says about pending verifications, as observations ready to store or to merge."""

from __future__ import annotations

from collections.abc import Sequence

from tasks.common.limits import SourceBudgets
from tasks.config.topics import Topic
from tasks.model.judged import Paper
from tasks.model.window_views import WindowData
from tasks.verify.checks import observe_conflicts, observe_lookups, observe_promises
from tasks.verify.context import Context
from tasks.verify.hedges import observe_hedges, observe_settlements
from tasks.verify.status import Observation, Tracked, merge


def _drop_settled_echoes(ctx: Context, stored: set[str]) -> None:
    """An item only a restated briefing raised, and a source of the window settles, is not raised at all."""
    settled = {o.key for o in ctx.out if o.action == "resolved"}
    raisers: dict[str, list[Observation]] = {}
    for o in ctx.out:
        if o.action == "raised":
            raisers.setdefault(o.key, []).append(o)
    dropped = {key for key, obs in raisers.items()
               if key in settled and key not in stored and all(o.detail.get("echo") for o in obs)}
    ctx.out = [o for o in ctx.out if o.key not in dropped]


def observe_window(
    data: WindowData, papers: Sequence[Paper], topic: Topic, known: list[str], tracked: Sequence[Tracked],
    budgets: SourceBudgets | None = None,
) -> list[Observation]:
    """Raised and resolved observations of one window, deterministic and free of duplicates.

    `tracked` holds the topic's verifications as of the window's day (events dated <= it): named
    subjects reuse their keys across days, and open items can be resolved by this window.
    Each window entry a check reads is a unit of its source's budget (`budgets`): a source found
    spent is read no further, and what it raised before stays.
    """
    ctx = Context.build(data, papers, topic, known, tracked, budgets)
    prior = list(tracked)
    observe_hedges(ctx)
    observe_lookups(ctx, prior)
    observe_conflicts(ctx)
    observe_promises(ctx)
    observe_settlements(ctx, prior)
    _drop_settled_echoes(ctx, {t.key for t in prior})
    unique: dict[tuple[str, str, str, str], Observation] = {}
    for obs in ctx.out:
        unique.setdefault((obs.key, obs.action, obs.source_path, obs.day.isoformat()), obs)
    return [unique[k] for k in sorted(unique)]


def observed(
    data: WindowData, papers: Sequence[Paper], topic: Topic, known: list[str], tracked: Sequence[Tracked],
    budgets: SourceBudgets | None = None,
) -> list[Tracked]:
    """`tracked` with the window's own observations added: the state a briefing lists for a window
    the derivation does not store (not its topic's scheduled one: a `since` override)."""
    return merge(tracked, observe_window(data, papers, topic, known, tracked, budgets))
