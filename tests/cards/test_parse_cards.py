"""Tests for tasks.cards.parse.

Contract: `parse_card(text)` returns a frozen `ParsedCard` with the canonical arXiv id (from the
`arxiv` field in any written form, else the first valid id in the body), lower-cased categories,
`secondary` as a tuple whatever its written form, `created` as a date, optional `votes`, and the
TL;DR paragraph. It never raises on drift (problems go to `warnings`); it raises `ParseError`
only for text with no front matter and no arXiv id at all.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tasks.cards.parse import ParseError, card_words, parse_card, split_categories
from tasks.common.frontmatter import split_front_matter

CARDS = Path(__file__).resolve().parents[2] / "examples" / "workspace" / "organized" / "paper_cards"


def card(prefix: str) -> str:
    (path,) = CARDS.glob(f"{prefix}-*.md")
    return path.read_text(encoding="utf-8")


def test_every_sample_card_parses_to_the_id_in_its_file_name() -> None:
    paths = sorted(CARDS.glob("*.md"))
    assert len(paths) == 30
    for path in paths:
        parsed = parse_card(path.read_text(encoding="utf-8"))
        _, yymm, number = path.stem.split("-")
        assert parsed.arxiv_id == f"{yymm}.{number}", path.name
        assert parsed.title and parsed.primary and parsed.created and parsed.tldr, path.name
        assert parsed.warnings == (), path.name


def test_arxiv_prefix_in_front_matter_is_normalised() -> None:
    parsed = parse_card(card("1697"))
    assert parsed.arxiv_id == "2610.04631"
    assert parsed.raw_arxiv == "arXiv:2610.04631"


def test_quoted_id_and_list_secondary() -> None:
    parsed = parse_card(card("1502"))
    assert parsed.arxiv_id == "2609.12551"
    assert parsed.secondary == ("inference", "ai-for-systems")
    assert parsed.created == date(2026, 9, 25)
    assert parsed.votes == 41


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("1685", ("evaluation",)),
        ("1690", ("architecture", "long-context")),
        ("1709", ("embodied", "navigation")),
    ],
)
def test_comma_string_secondary_becomes_a_tuple(prefix: str, expected: tuple[str, ...]) -> None:
    assert parse_card(card(prefix)).secondary == expected


def test_missing_secondary_is_empty_and_missing_votes_is_none() -> None:
    assert parse_card(card("1695")).secondary == ()
    no_votes = parse_card(card("1689"))
    assert no_votes.votes is None
    assert no_votes.warnings == ()  # votes are optional, so their absence is not a problem


def test_adjacent_card_secondary_contains_inference() -> None:
    parsed = parse_card(card("1705"))
    assert parsed.primary == "engineering"
    assert "inference" in parsed.secondary


def test_three_tldr_styles() -> None:
    bold = parse_card(card("1689")).tldr
    colon = parse_card(card("1685")).tldr
    heading = parse_card(card("1695")).tldr
    assert bold is not None and bold.startswith("免训练 KV Cache 驱逐") and "**" not in bold
    assert colon is not None and colon.startswith("训练一个轻量检索门控分类器") and "TL;DR" not in colon
    assert heading == "Muon 优化器在 100B 规模预训练的稳定性分析，给出学习率与权重衰减的缩放规则。"


def test_categories_are_lowercased_and_split_on_cjk_separators() -> None:
    text = (
        "---\narxiv: 2610.04646v2\nprimary: ' Inference '\nsecondary: KV-Cache、Serving；edge\n---\nBody.\n"
    )
    parsed = parse_card(text)
    assert parsed.arxiv_id == "2610.04646"
    assert parsed.primary == "inference"
    assert parsed.secondary == ("kv-cache", "serving", "edge")
    assert split_categories(["A, b", "—", "a"], card_words()) == ("a", "b")


def test_front_matter_without_arxiv_falls_back_to_first_valid_body_id() -> None:
    text = (
        "---\ntitle: X\nprimary: rag\ncreated: 2026-10-07\n---\n\n"
        "See arXiv:160622148 and https://arxiv.org/abs/2610.07219v3 then 2610.11959.\n"
    )
    parsed = parse_card(text)
    assert parsed.arxiv_id == "2610.07219"
    assert parsed.raw_arxiv == "https://arxiv.org/abs/2610.07219v3"
    assert any("taken from the body" in w for w in parsed.warnings)
    assert parsed.tldr is not None and parsed.tldr.startswith("See arXiv")  # first paragraph fallback


def test_bad_fields_become_warnings_not_errors() -> None:
    text = "---\narxiv: arXiv:2610.0998\ntitle: T\nprimary: rag\ncreated: 2026-13-45\nvotes: many\n---\n"
    parsed = parse_card(text)
    assert parsed.arxiv_id is None
    assert parsed.created is None and parsed.votes is None
    joined = " | ".join(parsed.warnings)
    assert "arxiv" in joined and "created" in joined and "votes" in joined


def test_card_without_front_matter_but_with_an_id_still_parses() -> None:
    parsed = parse_card("# Some Paper\n\nTL;DR: short.\n\nhttps://arxiv.org/abs/2610.12312\n")
    assert parsed.arxiv_id == "2610.12312"
    assert parsed.title == "Some Paper"
    assert parsed.tldr == "short."


@pytest.mark.parametrize("text", ["", "just some garbage\nwith no id 2.81–3.10×", "\x00\x01binary"])
def test_not_a_card_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_card(text)
    assert issubclass(ParseError, ValueError)


def test_front_matter_splitter_is_tolerant() -> None:
    fields, body = split_front_matter(
        '---\nTitle: "A, B"\ntags: [\'x, y\', z]\nlist:\n  - one\n  - "two"\nbroken line\n---\nrest'
    )
    assert fields == {"title": "A, B", "tags": ["x, y", "z"], "list": ["one", "two"]}
    assert body == "rest"
    assert split_front_matter("---\nunclosed: yes\n") == ({}, "---\nunclosed: yes\n")
    assert split_front_matter("no front matter") == ({}, "no front matter")
