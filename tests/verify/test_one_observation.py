"""Contract: a window's pending verifications are observed once, and its briefing reads them back.

- Rendering the briefing of a topic's scheduled window derives its verifications (one observation
  of the window, from everything it judged: papers and engineering increments) and lists what
  was stored; rendering it again observes nothing and gives the same bytes.
- A window the derivation does not store (its start moved by `since`) is observed once, for its
  briefing alone, and nothing is stored for it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from db.engine import get_engine, session_scope
from db.models import VerificationWindow
from tasks.config.settings import Settings
from tasks.stages import derive
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify import observe
from tests.helpers import ingest_all

DAY = dt.date(2026, 10, 9)
KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
NOTE = "inbox/amy/2026-10-09-1000-amy-sched.md"
IDS = ("2610.90001", "2610.90002")


def _workspace(root: Path) -> Path:
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "organized" / "knowledge" / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    (root / NOTE).parent.mkdir(parents=True)
    (root / NOTE).write_text("\n".join(
        f"## {n}. Amysched {n}: a KV cache scheduler for vLLM inference serving (arXiv:{i})\n\n"
        f"- throughput {n + 1}.5× on H100 for LLM inference\n- 待核实：{n + 1}.5× 只在单卡上测过，多卡 serving 未验证\n"
        for n, i in enumerate(IDS, 1)), encoding="utf-8")
    return root


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, calls: list[str]) -> None:
    original: Callable[..., Any] = module.observe_window

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(module.__name__)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "observe_window", counted)


def _stored_windows(settings: Settings) -> int:
    with session_scope(get_engine(settings)) as session:
        return session.execute(select(func.count()).select_from(VerificationWindow)).scalar_one()


def test_a_scheduled_window_is_observed_once_and_its_briefing_reads_what_was_stored(
    tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = ingest_all(settings, _workspace(tmp_path / "ws"))
    (topic,) = topics_for(settings, tmp_path / "ws", ["inference"])
    calls: list[str] = []
    _counting(monkeypatch, derive, calls)
    _counting(monkeypatch, observe, calls)

    first = render_briefing(settings, ref, topic, window_of(topic, DAY))
    assert calls == [derive.__name__]
    assert all(i in first[0] and "待核实" in first[0] for i in IDS)
    again = render_briefing(settings, ref, topic, window_of(topic, DAY))
    assert calls == [derive.__name__] and again == first


def test_a_window_the_derivation_does_not_store_is_observed_once_for_its_briefing(
    tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = ingest_all(settings, _workspace(tmp_path / "ws"))
    (topic,) = topics_for(settings, tmp_path / "ws", ["inference"])
    scheduled = window_of(topic, DAY)
    derive_verifications(settings, ref, topic, DAY)
    stored = _stored_windows(settings)
    calls: list[str] = []
    _counting(monkeypatch, derive, calls)
    _counting(monkeypatch, observe, calls)

    window = window_of(topic, DAY, since=scheduled.start - dt.timedelta(hours=1))
    assert window != scheduled
    markdown, _ = render_briefing(settings, ref, topic, window)
    assert calls == [observe.__name__]
    assert all(i in markdown for i in IDS) and "待核实" in markdown
    assert _stored_windows(settings) == stored
