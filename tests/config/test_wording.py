"""Contract: the sentences judging and verification write (`[wording.<lang>]`) are in the run's language.

Every language the label tables hold has every sentence the default language has, with the same
placeholders; the run's judgment (`judgment_for`) carries the run's `lang`, and a judgment's
sentences are that language's (a language without its own table falls back to zh).
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import DEFAULT_LANG, default_judgment, make_judgment
from tasks.config.settings import Settings
from tasks.config.topics import judgment_for
from tasks.render.labels import LABELS
from tests.config.test_judgment_override import _brief


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", sorted(LABELS))
def test_every_language_has_every_sentence_with_its_placeholders(lang: str) -> None:
    tables = default_judgment().config["wording"]
    assert set(tables[lang]) == set(tables[DEFAULT_LANG])
    for name, text in tables[DEFAULT_LANG].items():
        assert _placeholders(tables[lang][name]) == _placeholders(text), name


def test_the_runs_judgment_writes_in_the_runs_language(settings: Settings, tmp_path: Path) -> None:
    zh = judgment_for(settings, tmp_path)
    en = judgment_for(settings.model_copy(update={"lang": "en"}), tmp_path)
    assert zh.lang == "zh" and en.lang == "en" and zh != en
    assert zh.wording("unknown_id_marker") == "arXiv 查无此号"
    assert en.wording("unknown_id_text", when="2026-11-10", arxiv_id="2611.99999") == \
        "arXiv API (2026-11-10) has no 2611.99999"
    assert not any("\u4e00" <= c <= "\u9fff" for name in en.config["wording"]["en"] for c in en.wording(
        name, **dict.fromkeys(_placeholders(en.config["wording"]["en"][name]), "x")))


def test_a_language_without_a_table_falls_back_to_the_default() -> None:
    other = make_judgment(default_judgment().config, (), "ja")
    assert other.wording("conflict_marker") == default_judgment().wording("conflict_marker")


@pytest.mark.parametrize(("lang", "marker", "advice"), [
    ("zh", "承诺日期已过", "查官方发布页或仓库是否已兑现"),
    ("en", "promised date has passed", "check the official release page or the repository for whether it shipped"),
])
def test_a_briefing_words_what_verify_raises_in_its_language(lang: str, marker: str, advice: str, settings: Settings,
                                                             clean_db: Engine, tmp_path: Path) -> None:
    note = ("# Inference notes\n\n## QuillServe 2.0 open-source plan\n\n"
            "- QuillServe 2.0, inference serving on vLLM: the open-source release is planned for 2026-11-05.\n")
    data, markdown = _brief(settings.model_copy(update={"lang": lang}), tmp_path, note, None)
    (promise,) = [v for v in data["verifications"] if v["kind"] == "promise"]
    assert promise["marker"] == marker and promise["advice"] == advice
    assert advice in markdown
