"""Contract of arXiv id recognition (tasks.common.arxiv_ids).

- Every written form of a reference is found and canonicalised to the version-stripped,
  lower-case id, with the version kept separately: `arXiv:`, full-width `arXiv：`, abs/pdf URLs
  (with or without scheme and `.pdf`), bare new-style ids in prose, old-style `archive/YYMMNNN`
  ids (a subject class such as `math.AG` is dropped), and 2007–2014 four-digit ids.
- Something written as an explicit arXiv reference that is not a valid id is reported as
  malformed with its raw text (canonical None), never repaired into another id.
- Numbers that only look like ids (ratios, throughputs, versions, card file names, dates, a bare
  invalid number with no arXiv marker) are never reported at all.
- Every match's (start, end) slices the original text back to its raw form.
"""

from __future__ import annotations

import sys

import pytest

from tasks.common import arxiv_ids
from tasks.common.arxiv_ids import IdMatch, canonicalize, find_ids


def _only(text: str) -> IdMatch:
    matches = find_ids(text)
    assert len(matches) == 1, matches
    match = matches[0]
    assert text[match.start : match.end] == match.raw
    return match


@pytest.mark.parametrize(
    ("text", "raw", "canonical", "version"),
    [
        ("见 arXiv:2610.04646。", "arXiv:2610.04646", "2610.04646", None),
        ("确认性：arXiv：2511.02230v7（v7）", "arXiv：2511.02230v7", "2511.02230", 7),
        ("ARXIV: 2610.04646", "ARXIV: 2610.04646", "2610.04646", None),
        ("see https://arxiv.org/abs/2610.04646v2 for details", "https://arxiv.org/abs/2610.04646v2", "2610.04646", 2),
        ("pdf: arxiv.org/pdf/2610.04646v1.pdf", "arxiv.org/pdf/2610.04646v1.pdf", "2610.04646", 1),
        ("(https://export.arxiv.org/abs/hep-th/9901001v3)", "https://export.arxiv.org/abs/hep-th/9901001v3",
         "hep-th/9901001", 3),
        ("the SEIS paper 2610.04646 reports 2.81–3.10×", "2610.04646", "2610.04646", None),
        ("old one: quant-ph/0201082v1.", "quant-ph/0201082v1", "quant-ph/0201082", 1),
        ("hep-th/9901001", "hep-th/9901001", "hep-th/9901001", None),
        ("Kontsevich math.AG/0601001", "math.AG/0601001", "math/0601001", None),
        ("arXiv:math.AG/0601001", "arXiv:math.AG/0601001", "math/0601001", None),
        ("first new-style id 0704.0001", "0704.0001", "0704.0001", None),
        ("Adam is 1412.6980, this is 1412.7525", "1412.7525", "1412.7525", None),
        ("arXiv:0704.0001v2", "arXiv:0704.0001v2", "0704.0001", 2),
        ("first five-digit year: 1501.00001", "1501.00001", "1501.00001", None),
    ],
)
def test_every_written_form_is_found_and_canonicalised(
    text: str, raw: str, canonical: str, version: int | None
) -> None:
    matches = [m for m in find_ids(text) if m.raw == raw]
    assert len(matches) == 1, find_ids(text)
    match = matches[0]
    assert match.canonical == canonical
    assert match.version == version
    assert not match.malformed
    assert text[match.start : match.end] == raw


def test_canonical_form_is_lower_case_and_version_stripped() -> None:
    assert canonicalize("2610.04646v12") == ("2610.04646", 12)
    assert canonicalize("HEP-TH/9901001v2") == ("hep-th/9901001", 2)
    assert canonicalize("math.AG/0601001") == ("math/0601001", None)
    assert canonicalize("2610.04646.pdf") == ("2610.04646", None)


def test_same_paper_in_different_forms_has_one_canonical_id() -> None:
    text = "arXiv:2610.04646 / https://arxiv.org/abs/2610.04646v2 / arxiv.org/pdf/2610.04646v1.pdf / 2610.04646"
    matches = find_ids(text)
    assert [m.raw for m in matches] == [
        "arXiv:2610.04646", "https://arxiv.org/abs/2610.04646v2", "arxiv.org/pdf/2610.04646v1.pdf", "2610.04646",
    ]
    assert {m.canonical for m in matches} == {"2610.04646"}
    assert [m.version for m in matches] == [None, 2, 1, None]


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("CSDN 说 DSpark 见 arXiv:160622148，85%", "arXiv:160622148"),  # digits run together
        ("ICML 那篇 arXiv:2610.0998 不是本主题", "arXiv:2610.0998"),  # 4 digits after 2015
        ("arXiv:2613.01234", "arXiv:2613.01234"),  # month 13
        ("arXiv:1501.1234", "arXiv:1501.1234"),  # 4 digits in 2015
        ("arXiv:1412.12345", "arXiv:1412.12345"),  # 5 digits before 2015
        ("arXiv:0703.1234", "arXiv:0703.1234"),  # before new-style ids existed
        ("https://arxiv.org/abs/2610.0998v2", "https://arxiv.org/abs/2610.0998v2"),
        ("arXiv:abc/1234567", "arXiv:abc/1234567"),  # unknown old-style archive
    ],
)
def test_malformed_explicit_references_are_reported_raw_and_not_repaired(text: str, raw: str) -> None:
    match = _only(text)
    assert match.raw == raw
    assert match.malformed
    assert match.canonical is None
    assert match.version is None


def test_malformed_reference_does_not_also_yield_a_valid_id_from_its_digits() -> None:
    # "2610.0998" + trailing digits must not be read as some other paper such as 2610.09981.
    for text in ("arXiv:2610.0998", "arXiv:160622148", "arXiv:2613.01234"):
        assert all(m.malformed for m in find_ids(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "吞吐提升 2.81–3.10×",
        "峰值 16,200 tok/s",
        "NVIDIA Dynamo v1.5.0 Feature Matrix",
        "organized/paper_cards/1689-2610-06479.md",
        "card 1689-2610-06479",
        "ICML 那篇编号写成 2610.0998（没有 arXiv 前缀，只是个数字）",
        "计划 2026.10 上线",
        "发布于 2026.10.07",
        "v2610.04646",
        "12610.04646",
        "2610.046461",
        "2610.04646.5",
        "ratio 1.5/0201082",
        "arXiv: see below",
        "",
    ],
)
def test_non_ids_are_never_matched(text: str) -> None:
    assert find_ids(text) == []


def test_bare_invalid_number_is_not_reported_even_next_to_real_ids() -> None:
    text = "arXiv:2610.04646 对比 2610.0998 和 2613.01234"
    matches = find_ids(text)
    assert [(m.raw, m.canonical) for m in matches] == [("arXiv:2610.04646", "2610.04646")]


def test_explicit_reference_wins_over_bare_id_at_the_same_place() -> None:
    text = "arXiv:2610.04646v2"
    matches = find_ids(text)
    assert len(matches) == 1
    assert matches[0].raw == "arXiv:2610.04646v2"


def test_positions_slice_back_to_raw_in_mixed_text() -> None:
    text = (
        "## 条目#1 · SEIS（arXiv:2610.04646）\n"
        "- 另见 https://arxiv.org/abs/2609.12551v3，和 arXiv：2511.02230v7；\n"
        "- 老文献 hep-th/9901001 与 math.AG/0601001，坏编号 arXiv:160622148，"
        "裸编号 2610.03430 与 1412.7525。\n"
        "- 吞吐 16,200 tok/s，2.81–3.10×，Dynamo v1.5.0，卡片 1689-2610-06479。"
    )
    matches = find_ids(text)
    assert [m.raw for m in matches] == [
        "arXiv:2610.04646",
        "https://arxiv.org/abs/2609.12551v3",
        "arXiv：2511.02230v7",
        "hep-th/9901001",
        "math.AG/0601001",
        "arXiv:160622148",
        "2610.03430",
        "1412.7525",
    ]
    assert [m.start for m in matches] == sorted(m.start for m in matches)
    for m in matches:
        assert text[m.start : m.end] == m.raw
    assert [m.canonical for m in matches] == [
        "2610.04646", "2609.12551", "2511.02230", "hep-th/9901001", "math/0601001", None, "2610.03430", "1412.7525",
    ]


def test_trailing_punctuation_is_not_part_of_the_raw_form() -> None:
    for text, raw in [
        ("(arXiv:2610.04646)", "arXiv:2610.04646"),
        ("arXiv:2610.04646.", "arXiv:2610.04646"),
        ("arXiv:2610.04646，下午细读", "arXiv:2610.04646"),
        ("arxiv.org/abs/2610.04646/", "arxiv.org/abs/2610.04646"),
    ]:
        match = _only(text)
        assert match.raw == raw
        assert match.canonical == "2610.04646"


def test_the_utf8_check_finds_exactly_the_characters_translated() -> None:
    """Whether a text needs translating is asked of its UTF-8 bytes (a trie of the sequences): for
    every code point it answers as the translating pattern does."""
    wide = arxiv_ids._wide()
    for c in range(0x80, sys.maxunicode + 1):
        if not 0xD800 <= c <= 0xDFFF:
            assert arxiv_ids._has_wide(f"a{chr(c)}b") == bool(wide.search(chr(c))), hex(c)
    assert arxiv_ids._wide_codes() == sorted(
        c for c in range(0x80, sys.maxunicode + 1)
        if chr(c).isdecimal() or 0xFF01 <= c <= 0xFF5E and chr(c - 0xFEE0) in arxiv_ids._READ_CHARS)
