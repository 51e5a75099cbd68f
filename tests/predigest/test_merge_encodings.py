"""Contract: the noon merge reads the knowledge document with the decoder ingest uses and writes it
back in the encoding it was read in. On a copy of the sample workspace whose `inference.md` is
GB18030, or UTF-16 with a BOM, briefing 2026-10-09 and `merge --apply` give the document the UTF-8
copy gets, in the original encoding: every byte the merge does not change is the original's (the
UTF-8 result, transcoded, is the written file byte for byte). A merged text the encoding cannot
hold is refused with one line, and the file is left as it was."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from tasks.common.decode import UnencodableError, decode_exact
from tasks.config.settings import Settings
from tasks.knowledge.document_file import read_knowledge, write_knowledge
from tasks.merge.merge_stage import merge_knowledge
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tests.helpers import empty_tables, ingest_all, sample_copy

D9 = dt.date(2026, 10, 9)
DOC = Path("organized/knowledge/inference.md")


def _applied(settings: Settings, tmp_path: Path, name: str, encode: str | None) -> tuple[bytes, bytes]:
    """(the document before, after) `merge --apply` of briefing D9 on a sample copy whose document
    is re-encoded with `encode` (None: as shipped, UTF-8)."""
    workspace, _ = sample_copy(tmp_path / name)
    doc = workspace / DOC
    if encode is not None:
        doc.write_bytes(doc.read_text(encoding="utf-8").encode(encode))
    before = doc.read_bytes()
    settings = settings.model_copy(update={"storage_url": (tmp_path / name / "published").as_uri()})
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    assert brief(settings, ref, topic, D9).error is None
    outcome = merge_knowledge(settings, workspace, "inference", D9, apply=True)
    assert outcome.status == "applied", outcome.message
    return before, doc.read_bytes()


@pytest.mark.parametrize(("encode", "codec"), [("gb18030", "gb18030"), ("utf-16", "utf-16-le")],
                         ids=["gb18030", "utf16-bom"])
def test_a_merge_writes_the_document_back_in_its_own_encoding(
        clean_db: Engine, settings: Settings, tmp_path: Path, encode: str, codec: str) -> None:
    utf8_before, utf8_after = _applied(settings, tmp_path, "utf8", None)
    empty_tables(clean_db)
    before, after = _applied(settings, tmp_path, encode, encode)
    assert utf8_after != utf8_before  # the merge changed something
    bom = "\ufeff" if encode == "utf-16" else ""
    assert before == (bom + utf8_before.decode("utf-8")).encode(codec)
    assert after == (bom + utf8_after.decode("utf-8")).encode(codec)
    assert decode_exact(after).encoding == codec


def test_a_merge_the_encoding_cannot_hold_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    doc = tmp_path / "inference.md"
    doc.write_bytes("# inference\r\n\r\n- café serving — 5€\r\n".encode("cp1252"))
    read = read_knowledge(doc)
    assert read.encoding == "cp1252" and read.text.endswith("5€\r\n")  # line endings kept for the writer
    with pytest.raises(UnencodableError) as caught:
        write_knowledge(doc, read.text + "- 投机解码 [anchored 2026-10-10]\r\n", read.encoding)
    assert "\n" not in str(caught.value) and "line 4" in str(caught.value)
    assert doc.read_bytes() == "# inference\r\n\r\n- café serving — 5€\r\n".encode("cp1252")
    assert list(tmp_path.iterdir()) == [doc]  # no temp file left beside it
    write_knowledge(doc, read.text + "- naïve [anchored 2026-10-10]\r\n", read.encoding)
    assert doc.read_bytes().endswith("- naïve [anchored 2026-10-10]\r\n".encode("cp1252"))
