"""Numbers as intervals, the metric a number measures, and whether two readings contradict.

Two readings contradict when they are about the same subject, carry the same unit, measure the
same metric (a shared metric word in the number's own clause segment) under the same conditions
(`conditions`: neither states one the other does not), their intervals do not overlap, and
neither value has an agreeing counterpart in the other source. A point value gets a
tolerance of 5 % (10 % when written as approximate: ~, ≈, 约); "<x" and "x+" are open intervals.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from tasks.common.working_set import per_window_item
from tasks.verify.markers import Markers

_VALUE = re.compile(
    r"^\s*(?P<pre>[~≈<>≤≥±]|约)?\s*[+\-−]?\s*(?P<a>\d[\d,]*(?:\.\d+)?)(?P<sa>[kKM](?![A-Za-z]))?"
    r"(?:\s*[–—~-]\s*(?P<b>\d[\d,]*(?:\.\d+)?)(?P<sb>[kKM](?![A-Za-z]))?)?(?P<plus>\+)?"
)
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6}
_SEGMENT = re.compile(r"[、，,；;。|]|\s+vs\.?\s+")
EXACT_SLACK, APPROX_SLACK = 0.05, 0.10


@dataclass(frozen=True)
class Reading:
    """One number with a unit, about a subject, in one source."""

    subject: str
    value: str
    unit: str
    context: str
    path: str
    in_window: bool
    # The judgment's metric classes (`[metrics_regex]`): a number's context must name one to be compared at all.
    markers: Markers = field(repr=False, compare=False)
    # Where its conditions are read: the line (list item, table row) holding it; its context if empty.
    scope: str = field(default="", repr=False, compare=False)
    # What the number measures, read from its own clause segment only. Worked out once here: the
    # comparison of two sources reads it for every pair of readings.
    metrics: frozenset[str] = field(init=False, repr=False, compare=False)
    span: tuple[float, float] | None = field(init=False, repr=False, compare=False)  # interval(value)
    conditions: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", _metrics(self.markers, self.context, self.value))
        object.__setattr__(self, "span", interval(self.value))
        object.__setattr__(self, "conditions", conditions(self.markers, self.scope or self.context))


# A system or hardware name: a token with an inner capital, a run of capitals, or letters with a digit
# ("vLLM", "SGLang", "LMDeploy", "H100", "FP8", "Qwen3.8-27B").
_NAMED = re.compile(r"(?<![\w./-])(?:[A-Za-z]*[a-z][A-Z][\w.-]*|[A-Z]{2,}[\w.-]*|[A-Za-z]+\d[\w.-]*)")


@per_window_item(32768)
def conditions(m: Markers, scope: str) -> frozenset[str]:
    """What a number was measured under, as its line states it: the systems and hardware it names
    (metric words aside) and the `[markers] setup` words it uses, folded."""
    named = {t.rstrip(".-").casefold() for t in _NAMED.findall(scope)
             if not any(p.fullmatch(t) for p in m.metrics.values())}
    return frozenset(named | {w.group(0).casefold() for w in m.setup.finditer(scope)})


def differ(a: Reading, b: Reading) -> bool:
    """Whether two readings were taken under different conditions: each states one the other does
    not (a reading that only leaves a condition unsaid is about the same measurement)."""
    return bool(a.conditions - b.conditions) and bool(b.conditions - a.conditions)


# The same numbers are read by every window of the lookback (and twice per date): both are pure.
@per_window_item(32768)
def _metrics(m: Markers, context: str, value: str) -> frozenset[str]:
    return metrics_of(m, segment(context, value.replace("▲", "").strip()))


def segment(context: str, value: str) -> str:
    """The piece of a clause (split at 、，；| and "vs") that holds `value`."""
    at = context.find(value) if value else -1
    if at < 0:
        return context
    cuts = [m for m in _SEGMENT.finditer(context)]
    lo = max((m.end() for m in cuts if m.end() <= at), default=0)
    hi = min((m.start() for m in cuts if m.start() >= at + len(value)), default=len(context))
    return context[lo:hi]


def metrics_of(m: Markers, context: str) -> frozenset[str]:
    """The metric classes a context names."""
    return frozenset(name for name, pattern in m.metrics.items() if pattern.search(context))


@lru_cache(maxsize=32768)
def interval(value: str) -> tuple[float, float] | None:
    """The interval a written value stands for; None when it cannot be read."""
    m = _VALUE.match(value.replace("▲", ""))
    if m is None:
        return None
    a = float(m.group("a").replace(",", "")) * _SCALE.get(m.group("sa") or "", 1.0)
    b = float(m.group("b").replace(",", "")) * _SCALE.get(m.group("sb") or m.group("sa") or "", 1.0) if m.group("b") else a
    lo, hi = min(a, b), max(a, b)
    pre = m.group("pre") or ""
    if pre in ("<", "≤"):
        return 0.0, hi
    if pre in (">", "≥") or m.group("plus"):
        return lo, math.inf
    slack = APPROX_SLACK if pre in ("~", "≈", "约") else EXACT_SLACK
    return lo * (1 - slack), hi * (1 + slack)


def _overlap(a: Reading, b: Reading) -> bool:
    ia, ib = a.span, b.span
    return ia is None or ib is None or not (ia[1] < ib[0] or ib[1] < ia[0])


def conflicts(ours: list[Reading], theirs: list[Reading]) -> list[tuple[Reading, Reading]]:
    """Pairs (a, b) from two sources on the same subject and unit that share a metric and disagree,
    where neither value has an agreeing counterpart in the other source (so quoting both numbers of
    one comparison is not a contradiction)."""
    def alone(r: Reading, others: list[Reading]) -> bool:
        comparable = [o for o in others if o.unit == r.unit and o.subject == r.subject and r.metrics & o.metrics
                      and not differ(r, o)]
        return bool(comparable) and not any(_overlap(r, o) for o in comparable)

    out = []
    for a in ours:
        if not a.metrics or not alone(a, theirs):
            continue
        for b in theirs:
            if (b.unit == a.unit and b.subject == a.subject and a.metrics & b.metrics and not _overlap(a, b)
                    and not differ(a, b) and alone(b, ours)):
                out.append((a, b))
    return out
