"""Contract of the briefing's text around the ids, on the sample dates and on generated digests:

- no title (increments, citable list, markdown headings) carries a note marker or a pictograph;
- 最高价值条目 is the top of the ranking with a one-line reason made of its status, its sources
  and its thesis or headline number, never just its first bullet; zh and en alike;
- key points keep the headline numbers, and a cut says how many points were left out;
- no key point is a queue cell (「承接」, 「沿用」) or a bare id;
- a digest note of 15 R-numbered lines is listed by its lines, not as 「无条目」 (a note with no entry
  says why), and a paper in one row of a 15-row digest table gets only its row's text (end to end,
  through the database);
- the ranking puts a paper the topic owns before one another topic owns, other things equal.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.judge.rank import highlight, rank_increments
from tasks.model.judged import Paper
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.window.titles import strip_markers, without_pictographs
from tests.helpers import SAMPLE_WORKSPACE, empty_tables, ingest_all
from tests.judge.digests import TARGET, TARGET_ID, digest, rows

DAYS = ["2026-10-07", "2026-10-09"]
MARKERS = ("NET-new", "承接级", "邻接", "🟢", "🟡", "🟠", "⭐", "待核实")


@pytest.fixture(scope="module")
def rendered(request: pytest.FixtureRequest, database_url: str,
             tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    empty_tables(request.getfixturevalue("engine"))
    settings = request.getfixturevalue("module_settings")
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    tmp = tmp_path_factory.mktemp("en")
    english = Settings(_env_file=None, home=tmp / "home", database_url=database_url,  # type: ignore[call-arg]
                       storage_url=(tmp / "published").as_uri(), lang="en")
    out = {}
    for day in DAYS:
        window = window_of(topic, dt.date.fromisoformat(day))
        for lang, s in (("zh", settings), ("en", english)):
            markdown, json_text = render_briefing(s, ref, topic, window)
            out[(day, lang)] = (markdown, json.loads(json_text))
    return out


@pytest.mark.parametrize("day", DAYS)
def test_no_title_carries_a_marker(rendered: dict[tuple[str, str], tuple[str, dict[str, Any]]], day: str) -> None:
    markdown, brief = rendered[(day, "zh")]
    titles = [i["title"] for i in brief["increments"]] + [c["title"] for c in brief["citations"]]
    for title in titles:
        assert strip_markers(title, default_judgment()) == title and without_pictographs(title) == title, title
        assert not title.startswith(MARKERS) and not any(f"· {m}" in title for m in MARKERS), title
    # The markdown heading is "增量 N · <tag> · <label>": after the tag comes the clean label.
    for line in re.findall(r"^### 增量 \d+ · .+$", markdown, re.M):
        label = line.split(" · ", 2)[2]
        assert not label.startswith(MARKERS), line


@pytest.mark.parametrize(("day", "top", "number"), [("2026-10-09", "2609.23130", "3×"), ("2026-10-07", "2610.04646", "2.81–3.10×")])
def test_highest_value_item_is_ranked_and_reasoned(rendered: dict[tuple[str, str], tuple[str, dict[str, Any]]],
                                                   day: str, top: str, number: str) -> None:
    markdown, brief = rendered[(day, "zh")]
    first = brief["increments"][0]
    assert first["arxiv_id"] == top
    (line,) = [x.removeprefix("- ") for x in markdown.splitlines() if x.startswith("- 最高价值条目：")]
    assert f"arXiv:{top}" in line and number in line
    assert f"{len(first['sources'])} 个来源（{first['independent_sources']} 个独立）" in line
    assert not line.endswith(first["key_points"][0])  # a reason, not the first bullet
    english, _ = rendered[(day, "en")]
    (line,) = [x.removeprefix("- ") for x in english.splitlines() if x.startswith("- Most valuable: ")]
    assert f"{len(first['sources'])} sources ({first['independent_sources']} independent)" in line and number in line


def test_key_points_keep_numbers_and_mark_the_cut(rendered: dict[tuple[str, str], tuple[str, dict[str, Any]]]) -> None:
    markdown, brief = rendered[("2026-10-09", "zh")]
    (survey,) = [i for i in brief["increments"] if i["arxiv_id"] == "2609.23130"]
    assert any("~3× 吞吐" in p for p in survey["key_points"])
    assert any(p.startswith("核心论点：") for p in survey["key_points"])  # the thesis, with its lead-in
    assert not any(p.startswith(("Orca", "1.")) for p in survey["key_points"])  # no item without its parent
    assert re.search(r"^- …（另 \d+ 条）$", markdown, re.M)
    english, _ = rendered[("2026-10-09", "en")]
    assert re.search(r"^- … \(\d+ more\)$", english, re.M)


@pytest.mark.parametrize("day", DAYS)
def test_no_key_point_is_a_cell_or_an_id(rendered: dict[tuple[str, str], tuple[str, dict[str, Any]]], day: str) -> None:
    _, brief = rendered[(day, "zh")]
    for item in brief["increments"]:
        for point in item["key_points"]:
            assert point not in ("承接", "沿用", "新卡") and not re.fullmatch(r"(?:arXiv:)?\d{4}\.\d{4,5}", point), point


def _paper(key: str, owner: str | None, **fields: Any) -> Paper:
    return Paper(arxiv_id=key, title=key, status="net_new", reason=(), sources=[f"{key}.md", "b.md"], entries=[],
                 independent=2, owner=owner, **fields)


def test_owner_ranks_first_and_the_reason_is_built_from_its_parts() -> None:
    papers = [_paper("neighbour", "llm-infra", votes=90, thesis="邻居的论点"),
              _paper("own", "inference", votes=1, thesis="推理问题已经演化为跨 fleet 协调。", headline="~3× 吞吐")]
    ranked = rank_increments(papers, "inference")
    assert [p.title for p in ranked] == ["own", "neighbour"]
    top = highlight(ranked)
    assert top is not None and (top.title, top.arxiv_id) == ("own", "own") and top.status == "net_new"
    assert (top.sources, top.independent, top.thesis, top.headline) == (2, 2, "推理问题已经演化为跨 fleet 协调", "~3× 吞吐")
    assert highlight([]) is None


KNOWLEDGE = """# inference · 知识活文档

version: v1 · updated: 2026-11-03 12:00 · citations: 1

## §1 现状

### §1.1 框架格局

- **vLLM**（arXiv:2309.06180）：PagedAttention，serving 事实标准。[anchored 2026-07-14]
"""


@pytest.mark.parametrize(("style", "heading"), [("table", "section"), ("r_lines", "none"), ("bullets", "title")])
def test_digest_end_to_end(clean_db: Engine, settings: Settings, tmp_path: Path, style: str, heading: str) -> None:
    files = {"organized/knowledge/inference.md": KNOWLEDGE,
             "inbox/tom/2026-11-03-inference-e1prep.md": digest(style, heading, "zh", 6),
             "inbox/lena/2026-11-03T1200-lena-musings.md": "# Musings\n\nvLLM felt faster today; no numbers yet.\n"}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    ref = ingest_all(settings, tmp_path)
    (topic,) = topics_for(settings, tmp_path, ["inference"])
    markdown, json_text = render_briefing(settings, ref, topic, window_of(topic, dt.date(2026, 11, 3)))
    brief = json.loads(json_text)
    (paper,) = [i for i in brief["increments"] if i["arxiv_id"] == TARGET_ID]
    text = "\n".join(paper["key_points"] + paper["relation"])
    assert TARGET["zh"][1] in text
    for arxiv, name, desc, _ in rows("zh", 6):
        if arxiv != TARGET_ID:
            assert name not in text and desc not in text
    summaries = {s["path"]: s["summary"] for s in brief["sources"]}
    assert "无条目" not in summaries["inbox/tom/2026-11-03-inference-e1prep.md"]
    assert summaries["inbox/lena/2026-11-03T1200-lena-musings.md"].startswith("无条目（正文没有标题")  # and says why
