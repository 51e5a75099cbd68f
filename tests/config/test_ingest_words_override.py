"""Contract: a workspace's `predigest-judgment.toml` reaches the parsers that run at ingest.

Each test writes a small workspace of its own, ingests it through the real ingest stages once with
the packaged judgment and once with a `predigest-judgment.toml` that adds one word to one table, and
asserts on what ingest stored:

- `[markers] hedge`: a note's line holding the added word is stored with that hedge (`items.hedges`);
- `[markers] entry_words`: a note's lines led by the added word and a number head its stored entries;
- `[cards] tldr`: a card's paragraph led by the added marker is its stored TL;DR;
- `[knowledge] references`: a document's entries under a heading of the added word are reference-only.

The override repeats the packaged list with the word added (a list in an override replaces the
packaged one), so the change each test sees is that word's alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from tasks.config.judgment import WORKSPACE_JUDGMENT_FILE
from tasks.config.settings import Settings
from tests.config.test_judgment_override import DAY, DOC, TOPIC, _added
from tests.helpers import empty_tables, ingest_all


def _ingested(settings: Settings, engine: Engine, root: Path, files: dict[str, str], override: str | None,
              query: str) -> list[Any]:
    """The rows of `query` once a fresh database has ingested a workspace of `files` (and `override`)."""
    empty_tables(engine)
    for rel, content in {f"organized/knowledge/{TOPIC}.md": DOC, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    if override is not None:
        (root / WORKSPACE_JUDGMENT_FILE).write_text(override, encoding="utf-8")
    ingest_all(settings, root)
    with engine.connect() as conn:
        return list(conn.execute(text(query)).all())


def _both(settings: Settings, engine: Engine, tmp_path: Path, files: dict[str, str], override: str,
          query: str) -> tuple[list[Any], list[Any]]:
    return (_ingested(settings, engine, tmp_path / "packaged", files, None, query),
            _ingested(settings, engine, tmp_path / "override", files, override, query))


def test_an_added_hedge_word_is_stored_with_the_notes_entry(settings: Settings, clean_db: Engine,
                                                            tmp_path: Path) -> None:
    note = "# Notes\n\n## QuillServe 1.2\n\n- QuillServe 1.2 decodes 3.1× faster than vLLM, zweifelhaft.\n"
    files = {f"inbox/mara/{DAY}T1400-mara-inference-notes.md": note}
    query = "SELECT i.hedges FROM items i JOIN sources s ON s.id = i.source_id WHERE s.path LIKE 'inbox/%'"
    before, after = _both(settings, clean_db, tmp_path, files, _added("markers", "hedge", "zweifelhaft"), query)
    assert not any(h["marker"] == "zweifelhaft" for (hedges,) in before for h in hedges)
    assert any(h["marker"] == "zweifelhaft" and "QuillServe" in h["text"] for (hedges,) in after for h in hedges)


def test_an_added_entry_word_heads_the_notes_entries(settings: Settings, clean_db: Engine, tmp_path: Path) -> None:
    note = ("# Notes\n\nBefund 1 · QuillServe 1.2\nQuillServe 1.2 decodes 3.1× faster than vLLM.\n\n"
            "Befund 2 · FooCache\nFooCache halves prefill memory.\n")
    files = {f"inbox/mara/{DAY}T1400-mara-inference-notes.md": note}
    query = ("SELECT i.label, i.title FROM items i JOIN sources s ON s.id = i.source_id"
             " WHERE s.path LIKE 'inbox/%' ORDER BY i.ordinal")
    before, after = _both(settings, clean_db, tmp_path, files, _added("markers", "entry_words", "Befund"), query)
    assert before == [("preamble", None)]  # without the word the note has no heading: one entry
    assert after == [("Befund 1", "QuillServe 1.2"), ("Befund 2", "FooCache")]


def test_an_added_tldr_marker_leads_the_cards_summary(settings: Settings, clean_db: Engine, tmp_path: Path) -> None:
    card = ("---\narxiv: 2611.04242\ntitle: SpecFlow\nprimary: inference\ncreated: 2026-11-09\n---\n\n"
            "# SpecFlow\n\nAn opening paragraph.\n\n**Kurzfassung:** Speculative decoding at scale.\n")
    files = {"organized/paper_cards/0001-2611-04242.md": card}
    before, after = _both(settings, clean_db, tmp_path, files, _added("cards", "tldr", "Kurzfassung"),
                          "SELECT tldr FROM paper_cards")
    assert before == [("An opening paragraph.",)]
    assert after == [("Speculative decoding at scale.",)]


def test_an_added_references_heading_makes_its_entries_reference_only(settings: Settings, clean_db: Engine,
                                                                      tmp_path: Path) -> None:
    doc = DOC + "\n## Literatur\n\n- FlashAttention（arXiv:2205.14135）(cited 2026-07-01)\n"
    files = {f"organized/knowledge/{TOPIC}.md": doc}
    before, after = _both(settings, clean_db, tmp_path, files, _added("knowledge", "references", "Literatur"),
                          "SELECT reference_only FROM anchors WHERE arxiv_id = '2205.14135'")
    assert before == [(False,)]
    assert after == [(True,)]
