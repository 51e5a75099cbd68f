"""Contract of the linear forms of the checks' inner loops: each gives what the plain scan gives.

- `FirstMatch.resolve` == the first match in a list of names that only grows (names that match
  nothing, or not even themselves, are appended again);
- `Keyer.key` == scanning every (kind, subject, key) tracked or handed out so far;
- `window_conflicts` == `conflicts` of every two paths in `combinations(sorted(paths), 2)` with one
  of them in the window, pairs and order;
- a Reading's precomputed metrics and interval are those of its context and value.
Runs without a database."""

from __future__ import annotations

import datetime as dt
import random
from itertools import combinations

from tasks.config.judgment import default_judgment
from tasks.verify.checks import FirstMatch
from tasks.verify.context import Keyer, text_ids
from tasks.verify.markers import markers_of
from tasks.verify.names import names_of, normalise
from tasks.verify.numbers import (
    Reading,
    conflicts,
    interval,
    metrics_of,
    segment,
    window_conflicts,
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


def test_window_conflicts_are_the_plain_conflicts_of_every_pair_of_paths() -> None:
    rng = random.Random(13)
    seen = 0
    for _ in range(300):
        by_path = {f"p{k:02d}.md": _readings(rng, f"p{k:02d}.md", rng.randrange(0, 6), k < 3)
                   for k in range(rng.randrange(1, 12))}
        readings = [r for k in rng.sample(sorted(by_path), len(by_path)) for r in by_path[k]]  # any path order
        window = {r.path for r in readings if r.in_window}
        plain = [pair for a, b in combinations(sorted(by_path), 2) if a in window or b in window
                 for pair in conflicts(by_path[a], by_path[b])]
        found = window_conflicts(readings, window)
        assert [(id(a), id(b)) for a, b in found] == [(id(a), id(b)) for a, b in plain]
        seen += bool(found)
    assert seen > 50
