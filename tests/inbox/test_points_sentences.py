"""Contract of key points as the source's own sentences (tasks.inbox.outline_reader, tasks.inbox.claims) on
notes the test writes itself (zh, en, mixed; bullets, numbered items, wrapped lines, paragraphs,
tables):

- a wrapped item or paragraph is one point, its pieces joined back (no space between two CJK
  characters); a hedge is read in its sentence within its row, "TL;DR" whole (tasks.verify.passage
  then joins a wrapped sentence back: tests/verify/test_passage_sentences.py);
- no point is stitched with a "；"/"; " the source did not write: every "；" or ";" in a point is the
  source's own (each sentence of a point, whitespace aside, is in the source), and tokens such as
  "TL;DR", "v0.6.3", a URL stay whole;
- a row's cells are joined by " · ", never by a "；" of our own;
- a long point is cut at a sentence end and marked "…".
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.common.sentences import sentences
from tasks.inbox.claims import hedges, note_hedges
from tasks.inbox.outline_reader import MAX_POINT_CHARS, Point, parse_outline, points_of, row_point

PIECES = {
    "zh": ["FooServe 在 H100 上吞吐 2.1×。", "卡片的 TL;DR 没有给出基线。", "版本 v0.6.3 修了调度器。",
           "我没有读原文。", "见 https://example.org/a.b?c=1;d=2 的说明。"],
    "en": ["FooServe reports 2.1× on H100.", "The card's TL;DR gives no baseline.", "Version v0.6.3 fixes the scheduler.",
           "I have not read the paper.", "See https://example.org/a.b?c=1;d=2 for details."],
}


def outline(text: str, join_below: int = 60) -> tuple[Point, ...]:
    """The points of a text, as judging reads them from the outline ingest stores."""
    return points_of(parse_outline(text), join_below)



def _squash(text: str) -> str:
    return "".join(text.replace("**", "").split())


@st.composite
def items(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    """A list of items, each one or more sentences, some wrapped over two lines; (text, sentences per item)."""
    lang = draw(st.sampled_from(["zh", "en", "mixed"]))
    pool = PIECES["zh"] + PIECES["en"] if lang == "mixed" else PIECES[lang]
    groups = draw(st.lists(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True), min_size=1, max_size=5))
    marker = draw(st.sampled_from(["-", "*", "1."]))
    lines = []
    for group in groups:
        text = " ".join(group)
        if draw(st.booleans()) and " " in text:  # wrapped at a space
            at = draw(st.sampled_from([k for k, c in enumerate(text) if c == " "]))
            lines += [f"{marker} {text[:at]}", f"   {text[at + 1:]}"]
        else:
            lines.append(f"{marker} {text}")
    return "\n".join(lines) + "\n", groups


@settings(max_examples=120, deadline=None)
@given(items())
def test_points_are_whole_items_never_stitched(case: tuple[str, list[list[str]]]) -> None:
    text, groups = case
    points = [p.text for p in outline(text)]
    assert len(points) == len(groups)
    for point, group in zip(points, groups, strict=True):
        assert _squash(point) == _squash(" ".join(group))  # the item whole, its wrap joined back
        for sentence in sentences(point):
            assert _squash(sentence) in _squash(text)
        for token in ("TL;DR", "v0.6.3", "https://example.org/a.b?c=1;d=2"):
            assert any(token in s for s in group) == (token in point)
    heads = [i.head for i in parse_outline(text).items]
    assert [_squash(p) for p in heads] == [_squash(" ".join(g)) for g in groups]


def test_wrapped_cjk_line_is_joined_without_a_space() -> None:
    text = "- 这组数字来自生产报告，\n  不是受控实验。\n"
    assert [p.text for p in outline(text)] == ["这组数字来自生产报告，不是受控实验。"]
    assert [i.head for i in parse_outline(text).items] == ["这组数字来自生产报告，不是受控实验。"]
    para = "The card TL;DR gives no benchmark numbers and\nthe repo has no scripts, unverified. Next we rerun it.\n"
    rows = para.split("\n")
    found = hedges(para, rows, [False] * len(rows), note_hedges())
    assert found[0]["text"] == "the repo has no scripts, unverified."  # its sentence within the line, TL;DR whole


def test_nested_items_and_fragments_keep_the_sources_marks() -> None:
    nested = "- Measured 2.1× on H100.\n  - Only one GPU.\n  - No trace published\n"
    assert [p.text for p in outline(nested)] == ["Measured 2.1× on H100. Only one GPU. No trace published"]
    fragments = "**Path**\n- Orca\n- vLLM\n- SGLang\n"
    assert [p.text for p in outline(fragments)] == ["Path: Orca, vLLM, SGLang"]
    zh = "**演化路径**\n1. Orca 迭代级调度；\n2. vLLM；\n3. 长上下文执行。\n"
    assert [p.text for p in outline(zh)] == ["演化路径：Orca 迭代级调度；vLLM；长上下文执行。"]
    for point in (p.text for p in outline(nested + "\n" + fragments)):
        assert "；" not in point and "; " not in point


def test_row_cells_joined_without_a_semicolon_of_our_own() -> None:
    row = "| 3 | 2611.00001 | FooServe | 2.1× on H100 | the card TL;DR has no baseline |"
    assert row_point(row, ("2611.00001", "FooServe")) == "2.1× on H100 · the card TL;DR has no baseline"


def test_long_point_cut_at_a_sentence_end() -> None:
    text = "- " + " ".join(f"Run {k} measured {k}.5× on H100 with the default scheduler." for k in range(40)) + "\n"
    (point,) = outline(text)
    assert len(point.text) <= MAX_POINT_CHARS and point.text.endswith("scheduler.…")
