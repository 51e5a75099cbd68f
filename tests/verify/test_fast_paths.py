"""Contract of the linear forms of the checks' inner loops: each gives what the plain scan gives.

- `FirstMatch.resolve` == the first match in a list of names that only grows (names that match
  nothing, or not even themselves, are appended again);
- `Keyer.key` == scanning every (kind, subject, key) tracked or handed out so far;
- `conflict_summaries` sums up the pairs `conflicts` gives for every two paths in
  `combinations(sorted(paths), 2)` with one of them in the window: per (subject, unit, metric), in
  the order of each one's first pair, its paths and its least pair (ties: the first in that order);
- a Reading's precomputed metrics and interval are those of its context and value.
Runs without a database."""

from __future__ import annotations

import datetime as dt
import random
from itertools import combinations

from tasks.config.judgment import default_judgment
from tasks.verify.checks import FirstMatch
from tasks.verify.conflicts import conflict_summaries
from tasks.verify.context import Keyer, text_ids
from tasks.verify.markers import markers_of
from tasks.verify.names import names_of, normalise
from tasks.verify.readings import (
    Reading,
    conflicts,
    interval,
    metrics_of,
    segment,
)
from tasks.verify.status import Event, Tracked

M = markers_of(default_judgment())
N = names_of(default_judgment())

NAMES = [
    "FooKernel", "fookernel", "FooKernel v2", "Foo Kernel", "BarQuant", "BarQuant：低比特", "1", "##", "—", "",
    "Acadify H100 benchmark", "Acadify：H100 推理引擎 benchmark（1024 并发）", "Llama3", "Llama 3", "vLLM",
    "vLLM Production Stack", "vllm-project/production-stack", "推理调度", "推理调度器", "QuokkaServe 调度器",
    "QuokkaServe 调度器（复测）", "benchmark", "2610.01234", "KV cache", "kv-cache", "SnapKV", "snapkv 复测",
]


def _plain_resolve(names: list[str], name: str) -> str:
    subject = next((n for n in names if N.names_match(n, name)), name)
    if subject == name:
        names.append(name)
    return subject


def test_first_match_is_the_plain_scan() -> None:
    rng = random.Random(3)
    for _ in range(300):
        plain: list[str] = []
        fast = FirstMatch(N)
        for _ in range(rng.randrange(1, 40)):
            name = rng.choice(NAMES)
            assert fast.resolve(name) == _plain_resolve(plain, name)
        assert fast.distinct == list(dict.fromkeys(plain))


class PlainKeyer:
    def __init__(self, tracked: list[Tracked]) -> None:
        self.named = sorted((t.kind, t.subject, t.key) for t in tracked if not text_ids(t.subject))

    def key(self, kind: str, subject: str, suffix: str = "") -> tuple[str, str]:
        if text_ids(subject) == [subject]:
            return f"{kind}:{subject}{suffix}", subject
        for k, s, key in self.named:
            if k == kind and N.names_match(s, subject) and key.endswith(suffix):
                return key, s
        key = f"{kind}:{normalise(subject)}{suffix}"
        self.named.append((kind, subject, key))
        return key, subject


def test_keyer_gives_the_keys_of_the_plain_scan() -> None:
    rng = random.Random(5)
    kinds = ["hedge", "conflict", "promise"]
    suffixes = ["", "|%|memory", "|ms|latency", "|2026-09-30"]
    event = Event(dt.date(2026, 10, 1), "raised", "a.md")
    for _ in range(200):
        tracked = [Tracked(f"{k}:{normalise(s)}{x}", k, s, (event,))
                   for k, s, x in ((rng.choice(kinds), rng.choice(NAMES), rng.choice(suffixes)) for _ in range(5))]
        fast, plain = Keyer(tracked, N), PlainKeyer(tracked)
        for _ in range(rng.randrange(1, 40)):
            args = (rng.choice(kinds), rng.choice(NAMES), rng.choice(suffixes))
            assert fast.key(*args) == plain.key(*args)
        assert fast.named == plain.named


CONTEXTS = ["显存 −35%", "吞吐 1.8× vs 基线", "TTFT 120 ms、TPOT 30 ms", "延迟 P99 80ms；吞吐 3k tok/s",
            "accuracy 92% | recall 88%", "成本 $0.5", "提速 2×，显存 −20%", "nothing to measure 10"]
VALUES = ["35%", "−35%", "1.8×", "2×", "120 ms", "30 ms", "80ms", "3k", "92%", "88%", "$0.5", "~40%", "<10 ms",
          "10+", "−20%", "10", "abc", "1,200", "1.2k–1.5k"]


def _readings(rng: random.Random, path: str, n: int, in_window: bool) -> list[Reading]:
    return [Reading(rng.choice(["2610.00001", "2610.00002", "FooKernel"]), rng.choice(VALUES),
                    rng.choice(["%", "×", "ms", "tok/s"]), rng.choice(CONTEXTS), path, in_window, M)
            for _ in range(n)]


def test_readings_precompute_their_metrics_and_interval() -> None:
    rng = random.Random(9)
    for r in _readings(rng, "a.md", 200, True):
        assert r.metrics == metrics_of(M, segment(r.context, r.value.replace("▲", "").strip()))
        assert r.span == interval(r.value)
    r = Reading("x", "35%", "%", "显存 −35%", "a.md", True, M)
    assert r == Reading("x", "35%", "%", "显存 −35%", "a.md", True, M) and "metrics" not in repr(r)


def _plain_summaries(by_path: dict[str, list[Reading]], window: set[str]) -> list[tuple[object, ...]]:
    """Every conflicting pair in order, then summed up per (subject, unit, metric) as the check was."""
    pairs = [pair for a, b in combinations(sorted(by_path), 2) if a in window or b in window
             for pair in conflicts(by_path[a], by_path[b])]
    found: dict[tuple[str, str, str], list[tuple[Reading, Reading]]] = {}
    for a, b in pairs:
        found.setdefault((a.subject, a.unit, sorted(a.metrics & b.metrics)[0]), []).append((a, b))
    out = []
    for query, listed in found.items():  # dicts keep the order of each query's first pair
        least = min(listed, key=lambda p: (p[0].path, p[1].path, p[0].value, p[1].value))
        out.append((query, sorted({r.path for pair in listed for r in pair}), id(least[0]), id(least[1])))
    return out


def _summed(by_path: dict[str, list[Reading]], window: set[str], rng: random.Random) -> list[tuple[object, ...]]:
    readings = [r for k in rng.sample(sorted(by_path), len(by_path)) for r in by_path[k]]  # any path order
    return [((s.subject, s.unit, s.metric), sorted(s.paths), id(s.pair[0]), id(s.pair[1]))  # type: ignore[index]
            for s in conflict_summaries(readings, window, len(by_path)).summaries]


def test_conflict_summaries_sum_up_the_plain_conflicts_of_every_pair_of_paths() -> None:
    rng = random.Random(13)
    seen = 0
    for _ in range(300):
        by_path = {f"p{k:02d}.md": _readings(rng, f"p{k:02d}.md", rng.randrange(0, 6), k < 3)
                   for k in range(rng.randrange(1, 12))}
        window = {r.path for rs in by_path.values() for r in rs if r.in_window}
        plain = _plain_summaries(by_path, window)
        assert _summed(by_path, window, rng) == plain
        seen += bool(plain)
    assert seen > 50


def test_conflict_summaries_of_many_sources_with_one_reading_each() -> None:
    """The sorted path of one reading per source (a paper many notes give one number), with a few
    sources holding more, mixed in."""
    rng = random.Random(17)
    for _ in range(150):
        n = rng.randrange(2, 40)
        by_path = {}
        for k in range(n):
            path = f"p{rng.randrange(1000):03d}-{k}.md"
            count = 1 if rng.random() < 0.85 else rng.randrange(0, 4)
            by_path[path] = [Reading("2610.00001", rng.choice(VALUES), "%", rng.choice(CONTEXTS[:1] * 6 + CONTEXTS),
                                     path, k < 5, M) for _ in range(count)]
        window = {p for p, rs in by_path.items() if rs and rs[0].in_window}
        assert _summed(by_path, window, rng) == _plain_summaries(by_path, window)
