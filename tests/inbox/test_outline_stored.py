"""The outline ingest stores (`items.outline`) gives judging the points it would parse from the text.

`tasks.inbox.outline_reader.stored_outline` is parsed once at ingest and read back from JSON by judging
(`tasks.judge.points`): for every entry of the sample workspace's notes and of hand-written texts,
the stored outline turned into points equals `outline` over the text, for any `join_below`, and its
`dedented` part equals `outline` over the dedented text.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import Point, parse_outline, points_of, stored_outline
from tasks.model.outline import Outline

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "",
    "一段话，没有列表。\n\n第二段。",
    "**核心观点：**\n- Orca\n- vLLM\n- SGLang。\n\n后记。",
    "  R3 FooServe（arXiv:2610.01234）— 2.1× on H100\n    - 子项一\n    - 子项二",
    "- 顶层\n  继续一行\n    - 嵌套\n- 第二项：\n```\n- 代码里\n```\n| a | b |\n|---|---|",
    "R1 第一\nR2 第二\n\n#### 小标题\n- 甲\n- 乙",
]


def outline(text: str, join_below: int = 60) -> tuple[Point, ...]:
    """The points of a text, as judging reads them from the outline ingest stores."""
    return points_of(parse_outline(text), join_below)



def _entries() -> list[str]:
    notes = sorted((ROOT / "examples" / "workspace").rglob("inbox/**/*.md"))
    return [e.text for p in notes for e in parse_note(p.read_text(encoding="utf-8", errors="replace")).entries]


@pytest.mark.parametrize("join_below", [0, 60, 400])
def test_the_stored_outline_gives_the_points_of_the_text(join_below: int) -> None:
    texts = TEXTS + _entries()
    assert len(texts) > len(TEXTS)
    for text in texts:
        stored = Outline.from_json(json.loads(json.dumps(stored_outline(text).to_json(), ensure_ascii=False)))
        assert points_of(stored, join_below) == outline(text, join_below), text
        lines = [x for x in text.split("\n") if x.strip()]
        if lines and all(x[:1].isspace() for x in lines):
            assert stored.dedented is not None
            assert points_of(stored.dedented, join_below) == outline(textwrap.dedent(text), join_below), text
        else:
            assert stored.dedented is None
