"""Contract: a paper can be several topics'; each topic decides from its own evidence and what the
sources say about it.

On generated two-topic workspaces (tests/generate/shared_papers.py), each carrying the answers it
was generated from, varied in language, heading style, the form of an entry about several papers
(table, list, prose) and entry order:
- for both topics' briefings, NET-new precision and recall are 1.0 against the answers, in the
  day's window and in a 48-hour `--since` window; a shared paper is NET-new in both briefings;
- every answered paper has its answered status (anchored, adjacent, off-topic);
- `predigest explain` gives every paper of the window the status the briefing's JSON twin gives
  it, in both windows.
The generator's vocabulary words are the topics' own (tasks/config/topics.toml), so a change there
that would make the answers wrong fails here first.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from predigest.explain import explanations
from tasks.config.settings import Settings
from tasks.model.windows import window_for
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.generate import shared_papers as gen
from tests.helpers import ingest_all

SPECS = gen.specs(6)


def twin_statuses(brief: dict[str, Any]) -> dict[str, str]:
    """Every paper of a briefing's JSON twin and its status (citations, increments and off-topic)."""
    out = {c["arxiv_id"]: c["status"] for c in brief["citations"] if c.get("arxiv_id")}
    out.update({i["arxiv_id"]: i["status"] for i in brief["increments"] if i.get("arxiv_id")})
    out.update({o["arxiv_id"]: "off_topic" for o in brief["off_topic"]})
    return out


def assert_explain_equals_twin(settings: Settings, root: Path, topic: str, day: dt.date,
                               since: dt.datetime | None, brief: dict[str, Any]) -> None:
    (explained,) = explanations(settings, root, [topic], day, since, [])
    assert explained["window"]["start"] == brief["window"]["start"], (explained["window"], brief["window"])
    said = {p["arxiv_id"]: p["status"] for p in explained["papers"]}
    assert said == twin_statuses(brief), {k: (said.get(k), v) for k, v in twin_statuses(brief).items()
                                         if said.get(k) != v}


def test_the_generator_speaks_each_topics_vocabulary(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "organized" / "knowledge").mkdir(parents=True)
    for name, words in gen.VOCABULARY.items():
        (topic,) = topics_for(settings, tmp_path, [name])
        others = {t.lower() for other in gen.VOCABULARY if other != name
                  for t in topics_for(settings, tmp_path, [other])[0].terms}
        assert {w.lower() for w in words} <= {t.lower() for t in topic.terms} and not {w.lower() for w in words} & others


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{'-'.join(s.pair)}-{s.lang}-{s.heading}-{s.form}")
def test_net_new_precision_and_recall_for_both_topics(spec: gen.Spec, clean_db: Engine, settings: Settings,
                                                      tmp_path: Path) -> None:
    root = tmp_path / "ws"
    answers = gen.make_workspace(root, spec)
    assert json.loads((root / "answers.json").read_text(encoding="utf-8"))["day"] == answers.day
    ref = ingest_all(settings, root)
    day_net_new: dict[str, set[str]] = {}
    for topic in topics_for(settings, root, list(spec.pair)):
        start = window_for(gen.BEFORE, topic.schedule, topic.timezone).start
        for window, since in (("day", None), ("since", start)):
            table = answers.day if window == "day" else answers.since
            brief = json.loads(render_briefing(settings, ref, topic, window_of(topic, gen.DAY, since))[1])
            net_new = {i["arxiv_id"] for i in brief["increments"] if i["status"] == "net_new"}
            wanted = answers.net_new(topic.name, window)
            found = net_new & wanted
            precision = len(found) / len(net_new) if net_new else 1.0
            recall = len(found) / len(wanted) if wanted else 1.0
            assert (precision, recall) == (1.0, 1.0), (topic.name, window, net_new ^ wanted)
            if window == "day":
                day_net_new[topic.name] = net_new
            statuses = twin_statuses(brief)
            wrong = {i: (statuses.get(i), want) for i, want in table[topic.name].items() if statuses.get(i) != want}
            assert not wrong, (topic.name, window, wrong)
            assert_explain_equals_twin(settings, root, topic.name, gen.DAY, since, brief)
    # The shared papers are NET-new in both topics' briefings of the same evening.
    shared = {gen.IDS["shared_card"], gen.IDS["shared_handoff"]}
    assert all(shared <= day_net_new[t] for t in spec.pair), day_net_new
