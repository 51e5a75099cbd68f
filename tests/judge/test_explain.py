"""Contract of `predigest explain`: on the sample's 2026-10-09 it prints, for every NET-new and every
off-topic paper of the hand-written expectation, its verdict and the evidence that decided it (at
least one row naming a window source, its kind and weight), and the JSON twin carries the same
evidence per paper. Its last table says, per increment, where the noon merge proposal puts it
(NET-new into a body section, adjacent into References) and what the proposal does with it now.
The CLI registers the command.
"""

from __future__ import annotations

import datetime as dt
import json
import re

from sqlalchemy import Engine

from predigest.cli import build_parser
from predigest.explain import explain
from predigest.settings import Settings
from tasks import run
from tests.helpers import SAMPLE_WORKSPACE, expected

DAY = "2026-10-09"


def _blocks(text: str) -> dict[str, tuple[str, list[list[str]]]]:
    out = {}
    for block in text.split("\n## ")[1:]:
        head, *lines = block.split("\n")
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines
                if line.startswith("| ") and not line.startswith("| source")]
        out[head.split(" · ")[0]] = (head, rows)
    return out


def test_explain_prints_the_deciding_evidence(clean_db: Engine, settings: Settings) -> None:
    text = explain(settings, SAMPLE_WORKSPACE, "inference", dt.date.fromisoformat(DAY), [])
    blocks = _blocks(text)
    exp = expected(DAY)
    (merge_head,) = [k for k in blocks if k.startswith("noon merge")]
    placed = {row[0]: row for row in blocks[merge_head][1] if row[0] not in ("increment", "---")}
    assert set(placed) == set(exp["net_new"]) | set(exp["adjacent_pending"])
    for arxiv_id in exp["net_new"]:
        assert placed[arxiv_id][1] == "body" and placed[arxiv_id][2].startswith("§")
        assert placed[arxiv_id][5].startswith("entry:")
    for arxiv_id in exp["adjacent_pending"]:
        assert placed[arxiv_id][1:3] == ["references", "References"]
    for status, ids in (("net_new", exp["net_new"]), ("off_topic", exp["off_topic_ids"])):
        for arxiv_id in ids:
            head, rows = blocks[arxiv_id]
            assert f"· {status} ·" in head, head
            assert rows, arxiv_id
            for path, kind, topic, weight, _ in rows:
                assert path and kind and topic and re.fullmatch(r"-?\d+(\.\d+)?", weight), (arxiv_id, path, kind)
    # The reverse case of the sample: cards of another primary with inference as secondary.
    for arxiv_id in ("2609.23130", "2610.07219"):
        assert any(r[1] == "card_secondary" and r[2] == "inference" for r in blocks[arxiv_id][1])
    # Asking for ids narrows the table; an id outside the window is named as such.
    narrowed = explain(settings, SAMPLE_WORKSPACE, "inference", dt.date.fromisoformat(DAY),
                       ["arXiv:2609.39334v2", "2501.00001"])
    narrowed_blocks = _blocks(narrowed)
    assert set(narrowed_blocks) == {"2609.39334", "noon merge"} and "not in this window: 2501.00001" in narrowed
    assert [row[0] for row in narrowed_blocks["noon merge"][1][1:]] == ["2609.39334"]


def test_json_twin_carries_the_evidence(clean_db: Engine, settings: Settings) -> None:
    from tests.helpers import ingest_all

    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = run.topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    brief = json.loads(run.render_briefing(settings, ref, topic, run.window_of(topic, dt.date.fromisoformat(DAY)))[1])
    for paper in brief["increments"] + brief["off_topic"] + brief["citations"]:
        if paper.get("arxiv_id"):
            assert paper["evidence"] and {"path", "kind", "topic", "weight", "detail"} <= set(paper["evidence"][0])


def test_cli_registers_explain() -> None:
    args = build_parser().parse_args(["explain", "--workspace", "w", "--date", DAY, "--topic", "inference", "2609.39334"])
    assert args.ids == ["2609.39334"] and args.topic == "inference" and args.date == dt.date(2026, 10, 9)
