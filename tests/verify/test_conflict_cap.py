"""Contract: the numbers check pairs each window source with at most `max_compared` other sources of
a (subject, unit) when one side holds several comparable readings (issue 23: linear, or capped and
said), and says so.

- Within the cap, `conflict_summaries` sums up exactly the pairs a plain pairing of the selected
  sources gives: every two simple sources (one reading of one metric, one of them in the window),
  and each window source with the first `max_compared` others that one side of the pair makes
  complex, the window's first, then the lookback's, in path order (sources with no reading of a
  metric take no place); the window sources cut are listed with how many they were compared with,
  of how many.
- With the cap fixed, the work grows linearly in the sources of one subject (counted in Python
  lines, tests/counting.py), where pairing every two grows with their square.
- A briefing names the cap on the source it cut, in its row of checked sources, and says the same
  when it is rendered again from the stored derivation (byte-identical output).
Runs without a database but the last."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.verify.conflicts import conflict_summaries
from tasks.verify.markers import markers_of
from tasks.verify.readings import Reading, conflicts
from tests.counting import assert_linear, count_lines
from tests.generate.window_sources import DAY, KNOWLEDGE, coined
from tests.helpers import ingest_all

M = markers_of(default_judgment())
CONTEXTS = ["TTFT 120 ms、TPOT 30 ms", "P99 延迟 80 ms", "吞吐 3k tok/s", "显存 −35%", "accuracy 92% | recall 88%",
            "提速 2×，显存 −20%", "nothing to measure 10", "见附表"]
VALUES = ["120 ms", "30 ms", "80 ms", "35%", "−35%", "92%", "88%", "2×", "1.8×", "3k", "~40%", "abc", "10+"]


def _simple(rs: list[Reading]) -> bool:
    measured = [r for r in rs if r.metrics]
    return len(measured) == 1 and len(measured[0].metrics) == 1 and measured[0].span is not None


def _plain(by_path: dict[str, list[Reading]], window: set[str], k: int) -> tuple[list[Any], set[str]]:
    """The selected pairs of every (subject, unit), paired plainly and summed up per (subject, unit,
    metric) in the order of each one's first pair; and the window paths the cap cut."""
    groups: dict[tuple[str, str], dict[str, list[Reading]]] = {}
    for path in by_path:
        for r in by_path[path]:
            groups.setdefault((r.subject, r.unit), {}).setdefault(path, []).append(r)
    pairs: set[tuple[str, str, str, str]] = set()
    cut: set[str] = set()
    for (subject, unit), group in groups.items():
        simple = {p for p, rs in group.items() if _simple(rs)}
        measured = {p for p, rs in group.items() if any(r.metrics for r in rs)}
        pairs |= {(subject, unit, a, b) for a, b in combinations(sorted(simple), 2) if a in window or b in window}
        order = sorted(measured, key=lambda p: (p not in window, p))
        for w in (p for p in order if p in window):
            others = [p for p in order if p != w and (w in measured - simple or p in measured - simple)]
            pairs |= {(subject, unit, min(w, p), max(w, p)) for p in others[:k]}
            if len(others) > k:
                cut.add(w)
    found: dict[tuple[str, str, str], list[tuple[Reading, Reading, tuple[str, str, int, int]]]] = {}
    for subject, unit, pa, pb in sorted(pairs, key=lambda q: (q[2], q[3], q[0], q[1])):
        ga, gb = groups[(subject, unit)][pa], groups[(subject, unit)][pb]
        for a, b in conflicts(ga, gb):
            at = (pa, pb, by_path[pa].index(a), by_path[pb].index(b))
            found.setdefault((subject, unit, sorted(a.metrics & b.metrics)[0]), []).append((a, b, at))
    out = []
    for query, listed in sorted(found.items(), key=lambda kv: min(x[2] for x in kv[1])):
        least = min(listed, key=lambda x: (x[0].path, x[1].path, x[0].value, x[1].value, x[2][2], x[2][3]))
        out.append((query, sorted({r.path for a, b, _ in listed for r in (a, b)}), id(least[0]), id(least[1])))
    return out, cut


def _by_path(rng: random.Random, n: int, window_share: float) -> dict[str, list[Reading]]:
    by_path = {}
    for j in range(n):
        path = f"p{rng.randrange(1000):03d}-{j}.md"
        in_window = rng.random() < window_share
        by_path[path] = [Reading(rng.choice(["2610.00001", "FooKernel"]), rng.choice(VALUES), rng.choice(["ms", "%", "×"]),
                                 rng.choice(CONTEXTS), path, in_window, M) for _ in range(rng.randrange(0, 4))]
    return by_path


def test_the_capped_pairing_is_the_plain_pairing_of_the_selected_sources() -> None:
    rng = random.Random(29)
    cut_seen = found_seen = 0
    for _ in range(300):
        by_path = _by_path(rng, rng.randrange(1, 20), 0.4)
        window = {p for p, rs in by_path.items() if rs and rs[0].in_window}
        readings = [r for p in rng.sample(sorted(by_path), len(by_path)) for r in by_path[p]]
        k = rng.randrange(1, 4)
        summed = conflict_summaries(readings, window, k)
        plain, cut = _plain(by_path, window, k)
        got = [((s.subject, s.unit, s.metric), sorted(s.paths), id(s.pair[0]), id(s.pair[1]))  # type: ignore[index]
               for s in summed.summaries]
        assert got == plain
        assert {c.path for c in summed.capped} == cut
        assert all(c.compared == k < c.of for c in summed.capped)
        cut_seen += bool(cut)
        found_seen += bool(plain)
    assert cut_seen > 50 and found_seen > 50  # both the cap and conflicts were met


def _one_subject(n: int) -> tuple[list[Reading], set[str]]:
    """n sources on one paper, a tenth of them in the window, each with two latency readings (so every
    pair of them is paired with `conflicts`), which disagree from source to source."""
    readings = []
    for j in range(n):
        path = f"inbox/amy/{j:05d}.md"
        for value in (f"{100 + j % 97} ms", f"{900 + j % 89} ms"):
            readings.append(Reading("2610.00001", value, "ms", f"TTFT {value}", path, j % 10 == 0, M))
    return readings, {r.path for r in readings if r.in_window}


def test_the_capped_pairing_grows_linearly_in_the_sources_of_one_subject() -> None:
    conflict_summaries(*_one_subject(10), 8)  # warm
    counts = {n: count_lines(conflict_summaries, *_one_subject(n), 8) for n in (100, 1000, 10000)}
    assert_linear(counts, "conflict_summaries, capped at 8")
    # Without the cap the same inputs cost the square of the window's share (the test can fail).
    plain = {n: count_lines(conflict_summaries, *_one_subject(n), n) for n in (100, 300, 1000)}
    with pytest.raises(AssertionError):
        assert_linear(plain, "conflict_summaries, uncapped")


def _note(k: int) -> str:
    return (f"# 推理筛选 {k}\n\n## {coined(k)}Serve：前缀感知的 KV cache 调度（arXiv:2609.10001）\n\n"
            f"- 在 H100 上 TTFT {100 + 40 * k} ms，P99 延迟 {900 + 300 * k} ms。\n")


def test_a_briefing_names_the_cap_and_says_it_again_when_rendered_again(
        tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tasks.verify.checks.MAX_COMPARED_SOURCES", 2)
    (tmp_path / "organized" / "knowledge").mkdir(parents=True)
    (tmp_path / "organized" / "knowledge" / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    notes = {f"inbox/amy/{DAY}-{9 + k:02d}00-amy-inference-{k}.md": _note(k) for k in range(1, 5)}
    for rel, text in notes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    ref = ingest_all(settings, tmp_path)
    (topic,) = topics_for(settings, tmp_path, ["inference"])
    first = render_briefing(settings, ref, topic, window_of(topic, DAY))
    again = render_briefing(settings, ref, topic, window_of(topic, DAY))  # from the stored derivation
    assert again == first
    markdown, json_text = first
    for path in notes:  # each window source had 3 others to be compared with, and 2 were
        row = next(line for line in markdown.splitlines() if Path(path).name in line and line.startswith("|"))
        assert "capped: its numbers about 2609.10001 (ms) were compared with those of 2 of 3 other sources" in row
    assert json_text.count("capped: its numbers about") >= len(notes)
    twin = json.loads(json_text)
    assert any(v["kind"] == "conflict" for v in twin["verifications"])  # the pairs compared still disagree
