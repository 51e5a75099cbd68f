"""Contract of `tasks.common.text.word_alternation`, the one way a word list of the judgment becomes
a regex alternation (the note segmenter's heading words, verify's markers): every word matches
itself, a space in a word matches any run of spaces, a longer word wins over its prefix, and a list
with no word left (empty, or blank words only) matches nothing at all."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tasks.common.text import word_alternation

WORD = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(str.strip)


@given(st.lists(WORD, min_size=1, max_size=8))
def test_every_word_matches_itself(words: list[str]) -> None:
    pattern = re.compile(f"(?:{word_alternation(tuple(words))})")
    assert all(pattern.fullmatch(w) for w in words)


def test_spaces_stretch_and_longer_words_win() -> None:
    pattern = re.compile(word_alternation(("key point", "key", "key points")))
    assert pattern.fullmatch("key    point")
    assert pattern.match("key points here").group(0) == "key points"


@given(st.lists(st.sampled_from(["", " ", "\t", "  \n"]), max_size=4), st.text(max_size=20))
def test_a_list_without_words_matches_nothing(blanks: list[str], text: str) -> None:
    assert re.search(word_alternation(tuple(blanks)), text) is None
    assert re.search(f"(?:{word_alternation(tuple(blanks))})?x", "x")  # still usable inside a pattern


def test_an_override_that_empties_a_marker_list_turns_the_marker_off(tmp_path: Path) -> None:
    from tasks.config.judgment import WORKSPACE_JUDGMENT_FILE, load_config, make_judgment
    from tasks.verify.markers import markers_of

    packaged = markers_of(make_judgment(load_config(None)))
    (tmp_path / WORKSPACE_JUDGMENT_FILE).write_text("[markers]\nnegation = []\nyes = []\n", encoding="utf-8")
    emptied = markers_of(make_judgment(load_config(tmp_path)))
    negated = next(w for w in packaged.judgment.words("markers", "negation"))
    assert packaged.negation.search(f"这个 {negated}") and emptied.negation.search(f"这个 {negated}") is None
    assert emptied.negation.search("anything") is None and emptied.yes.search("anything") is None
