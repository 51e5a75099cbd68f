"""Contract: a pending claim's subject is found by climbing its note's tree, never from a sibling
(tests/generate/siblings.py).

- A bullet that names another system as a contrast ("not to be confused with X"), a comparison
  baseline ("compares with X's setup"), in passing, or as the lead-in label of the bullet before,
  never names the claim beside it: the claim is listed under its entry's own thing.
- A heading's label is stripped by its shape ("Hand-off H1 -", "Hand-off H2 ·"), not a word list.
- A claim under a label heading (「1.3 口径问题（重要）」) is about the thing the section above names.
- A claim is its own list item, continuation lines included: never the bullet before it.
- A bullet that points back (「就是上面待核实的那一点」) raises no item of its own.
- The parts: list items with their nesting (tasks.inbox.document, stored with the outline), lettered labels by run
  (tasks.inbox.segment.lettered_runs), comparison context (tasks.verify.markers.without_context).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.inbox.outline_reader import stored_outline
from tasks.inbox.segment import lettered_runs
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify.markers import markers_of, without_context
from tests.generate.siblings import DAY, SIBLINGS, SUBJECTS, TOPIC, write_workspace
from tests.helpers import empty_tables, ingest_all

M = markers_of(default_judgment())


def test_list_items_keep_their_continuation_lines_and_nesting() -> None:
    text = "- a claim\n  wrapped on\n  - nested **x**\n    - deeper\n- sibling\n\npara"
    outline = stored_outline(text)
    assert outline.tree == ((0, 4, 2, -1), (2, 4, 3, 0), (3, 4, 4, 1), (4, 5, 5, -1))
    assert outline.enclosing(text, 3) == ["    - deeper", "  - nested **x**", "- a claim\n  wrapped on"]
    assert outline.enclosing(text, 1) == ["- a claim\n  wrapped on"]
    assert outline.enclosing(text, 6) == []  # a paragraph is in no item
    assert outline.item_block(text, 1) == "- a claim\n  wrapped on\n  - nested **x**\n    - deeper"


@pytest.mark.parametrize(("headings", "labels"), [
    (["Hand-off H1 - Zephyr: x", "Hand-off H2 · Marlin", "Summary"], {0: "Hand-off H1", 1: "Hand-off H2"}),
    (["C1: Forms", "C2: Continnum"], {0: "C1", 1: "C2"}),
    (["Kimi K3: day-0 support", "Summary"], {}),  # a lone lettered number is a name
    (["Hand-off H1 - A", "Carry-over C1 - B"], {0: "Hand-off H1", 1: "Carry-over C1"}),  # each abbreviates its word
    (["Carry-over C1 - Kestrel 2.0", "Summary"], {0: "Carry-over C1"}),  # alone, by its shape
    (["Qwen-Max M2: launch notes", "Summary"], {}),  # a compound name and its model letter: a name
])
def test_lettered_labels_are_found_by_their_run(headings: list[str], labels: dict[int, str]) -> None:
    assert {k: label for k, (label, _) in lettered_runs(headings).items()} == labels


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ("Not to be confused with Zephyrus (the warning in §4.1).", "warning", "Zephyrus"),
    ("how it compares with Tortuga's setup (A100) is open", "setup", "Tortuga"),
    ("与 SGLang 相比，TTFT 低 20%", "TTFT", "SGLang"),
    ("不同于 Orthrus 的有损投机解码", "有损", "Orthrus"),
    # A name's id bracketed right after it goes with it; "than X" and 「比 X」 compare, too.
    ("2.2x, compared with Medusa (arXiv:2611.70001) at 1.8x", "1.8x", "2611.70001"),
    ("40% less memory than SnapKV (arXiv:2611.70002) at equal accuracy", "equal", "2611.70002"),
    ("比 SnapKV（arXiv:2611.70002）省 40% 显存", "显存", "2611.70002"),
])
def test_a_compared_or_contrasted_name_is_context(text: str, kept: str, gone: str) -> None:
    out = without_context(M, text)
    assert kept in out and gone not in out


@pytest.fixture(scope="module", params=["-", "·", ":"])
def brief(request: pytest.FixtureRequest, engine: Engine, module_settings: Settings,
          tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    empty_tables(engine)
    root = tmp_path_factory.mktemp("siblings")
    write_workspace(root, request.param)
    ref = ingest_all(module_settings, root)
    (topic,) = topics_for(module_settings, root, [TOPIC])
    window = window_of(topic, DAY)
    derive_verifications(module_settings, ref, topic, window.date)
    return dict(json.loads(render_briefing(module_settings, ref, topic, window)[1]))


def _named(v: dict[str, Any]) -> str:
    return f"{v['subject']} {v['title']}"


def test_each_claim_is_listed_under_its_own_entrys_thing(brief: dict[str, Any]) -> None:
    listed = [(_named(v), v["claim"]) for v in brief["verifications"]]
    for name, word in SUBJECTS.items():
        assert [n for n, claim in listed if word in claim and name in n], (name, listed)


def test_no_item_is_named_after_a_sibling(brief: dict[str, Any]) -> None:
    for v in brief["verifications"]:
        assert not any(s.lower() in _named(v).lower() for s in SIBLINGS), _named(v)


def test_a_claim_is_its_own_item_never_a_siblings_text(brief: dict[str, Any]) -> None:
    # The bullet before a claim (a contrast, or a wrapped line naming the baselines) is not the claim.
    claims = {word: v["claim"] for v in brief["verifications"] for word in SUBJECTS.values() if word in v["claim"]}
    assert "Zephyrus" not in claims["benchmark numbers"] and "DFlash2" not in claims["computable form"]
    assert "MLPerf" not in claims["分母不一致"]


def test_a_line_pointing_back_raises_nothing_of_its_own(brief: dict[str, Any]) -> None:
    assert not [v for v in brief["verifications"] if "可选值" in v["claim"]]
    assert len(brief["verifications"]) == len(SUBJECTS)


CALLOUT = {
    "mei": "# 周报\n\n## 这周有哪些新论文值得读？\n\n"
           "+ FooPrefix（arXiv:2611.00041）：请求之间共享前缀的流式 prefill，TTFT 降低 42%。\n"
           "    * 与 SGLang 的 RadixAttention 不同，FooPrefix 在 prefill 进行中就开始共享前缀。\n\n"
           "    > **待核实**：42% 只在共享 system prompt 的负载下测得。\n\n"
           "* ChunkRAG（arXiv:2611.00042）：检索增强生成里的自适应切块，归属 rag，不进 inference。\n",
    "raj": "# Reading\n\n## FooPrefix (arXiv:2611.00041)\n\n- Streaming prefill with prefix sharing in vLLM; TTFT and throughput on H100.\n",
}


def test_a_callout_continuing_an_item_is_about_that_items_paper(clean_db: Engine, settings: Settings,
                                                                 tmp_path: Path) -> None:
    """A `> **待核实**` block after an item's nested list climbs to that item's paper; a sibling item
    handing another paper to rag ("不进 inference") does not make the claim another topic's."""
    doc = tmp_path / "organized" / "knowledge" / f"{TOPIC}.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(f"# {TOPIC}\n\nversion: v1\n", encoding="utf-8")
    for who, text in CALLOUT.items():
        note = tmp_path / "inbox" / who / f"{DAY.isoformat()}T1100-{who}-notes.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(text, encoding="utf-8")
    ref = ingest_all(settings, tmp_path)
    (topic,) = topics_for(settings, tmp_path, [TOPIC])
    window = window_of(topic, DAY)
    derive_verifications(settings, ref, topic, window.date)
    brief = json.loads(render_briefing(settings, ref, topic, window)[1])
    hedged = [v for v in brief["verifications"] if v["kind"] == "hedge"]
    assert [v["subject"] for v in hedged] == ["2611.00041"], hedged
