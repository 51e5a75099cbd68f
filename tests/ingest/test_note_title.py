"""What ingest keeps of a note's title, which no entry holds (the first level-1 heading is the
note's, not an entry's): it goes on the note's first entry (`items.extra`, beside its front
matter), cut to NOTE_TITLE_CHARS, and nowhere else; a note without one keeps nothing."""

from __future__ import annotations

from tasks.ingest.sources import note_items
from tasks.model.note_facts import NOTE_TITLE_CHARS


def test_the_title_rides_on_the_first_entry_only() -> None:
    items = list(note_items("---\nrating: 3\n---\n# 推理 · E1 预消化简报\n\n## A\n\nx\n\n## B\n\ny\n"))
    assert [x.heading for x in items] == ["A", "B"]  # the title is no entry's heading
    assert items[0].extra == {"front_matter": {"rating": "3"}, "note_title": "推理 · E1 预消化简报"}
    assert items[1].extra == {}


def test_a_note_without_a_title_keeps_nothing() -> None:
    assert [x.extra for x in note_items("## A\n\nx\n\n## B\n\ny\n")] == [{}, {}]


def test_a_title_line_of_garbage_is_cut() -> None:
    (item,) = note_items("# " + "标题" * 5000 + "\n\n## A\n\nx\n")
    assert len(item.extra["note_title"]) == NOTE_TITLE_CHARS
