"""What makes `predigest score` fail: thresholds given on the command line, and a committed baseline.

A baseline is JSON: `{"evenings": {"<topic>/<date>": {"<category>.<precision|recall>": value}}}`.
Every figure it names must be met again (a figure may only rise); a labelled evening or category it
names that was not scored fails too, so a gate cannot pass by scoring less.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tasks.score.compare import CATEGORIES, EveningScore

METRICS = ("precision", "recall")
# Figures are compared after rounding, so that a baseline written from a run is met by the same run.
PLACES = 4


@dataclass(frozen=True)
class Shortfall:
    evening: str
    figure: str
    value: float | None
    floor: float

    def line(self) -> str:
        got = "not scored" if self.value is None else f"{self.value:.2f}"
        return f"{self.evening}  {self.figure} {got} < {self.floor:.2f}"


def parse_minimums(text: str) -> dict[str, float]:
    """`net_new=1.0,pending.recall=0.9`: a category alone means the lower of its two figures."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        category, _, metric = name.strip().partition(".")
        if not sep or category not in CATEGORIES or (metric and metric not in METRICS):
            raise ValueError(f"--min takes CATEGORY[.precision|.recall]=VALUE, with a category of "
                             f"{', '.join(CATEGORIES)}: {part!r}")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--min: {value!r} is not a number") from None
    return out


def below_minimums(scores: list[EveningScore], minimums: dict[str, float]) -> list[Shortfall]:
    out = []
    for score in scores:
        for name, floor in minimums.items():
            if name.partition(".")[0] in score.figures and round(score.value(name), PLACES) < floor:
                out.append(Shortfall(score.key, name, score.value(name), floor))
    return out


def figures_of(scores: list[EveningScore]) -> dict[str, dict[str, float]]:
    return {s.key: {f"{c}.{m}": round(float(getattr(f, m)), PLACES) for c, f in s.figures.items() for m in METRICS}
            for s in scores}


def baseline_text(scores: list[EveningScore]) -> str:
    return json.dumps({"evenings": figures_of(scores)}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def read_baseline(path: Path) -> dict[str, dict[str, float]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        evenings = raw["evenings"]
        return {str(k): {str(n): float(v) for n, v in figs.items()} for k, figs in evenings.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: not a score baseline ({{\"evenings\": {{...}}}}): {exc}") from exc


def below_baseline(scores: list[EveningScore], baseline: dict[str, dict[str, float]]) -> list[Shortfall]:
    now = figures_of(scores)
    out = []
    for evening, floors in sorted(baseline.items()):
        for name, floor in sorted(floors.items()):
            value = now.get(evening, {}).get(name)
            if value is None or value < floor:
                out.append(Shortfall(evening, name, value, floor))
    return out
