"""Contract (property tests, Hypothesis, fixed seed, bounded examples): whatever a workspace holds,
the parsers and the scan never raise; every file is parsed, recorded with an error, or ignored with
a reason; nothing outside the workspace is read; no NUL or lone surrogate reaches a stored string,
a JSON value or a key; numbers fit their INTEGER columns; ids are canonical ASCII. All of them
together stay well under two minutes."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, seed
from hypothesis import settings as examples
from hypothesis import strategies as st
from sqlalchemy import Engine, text

from tasks.cards.parse import ParseError, parse_card
from tasks.common.arxiv_ids import canonicalize, find_ids
from tasks.common.decode import EmptySourceError, UndecodableError, decode_bytes
from tasks.common.limits import INT4_MAX
from tasks.common.text import has_bad_chars
from tasks.common.urls import defang_markdown, safe_url
from tasks.config.topics import Topic
from tasks.feeds.hf_daily import parse_hf_daily_json
from tasks.inbox.notes import parse_note
from tasks.ingest.rows import RowBuilder, read_file, sha256
from tasks.ingest.scan import scan_workspace
from tasks.knowledge.parse import parse_knowledge
from tasks.queue.parse import parse_queue

TZ = ZoneInfo("Asia/Shanghai")
FAST = examples(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
SLOW = examples(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

LINE_BREAKS = ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"]
DIGITS = st.sampled_from(["0123456789", "０１２３４５６７８９", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "۰۱۲۳۴۵۶۷۸۹", "๐๑๒๓๔๕๖๗๘๙"])


@st.composite
def id_like(draw: st.DrawFn) -> str:
    digits = draw(DIGITS)
    body = "".join(draw(st.sampled_from(digits)) for _ in range(4)) + draw(st.sampled_from([".", "．"]))
    body += "".join(draw(st.sampled_from(digits)) for _ in range(draw(st.integers(4, 5))))
    prefix = draw(st.sampled_from(["", "arXiv:", "https://arxiv.org/abs/", "arxiv.org/html/", "10.48550/arXiv.",
                                   "https://huggingface.co/papers/", "ＡＲＸＩＶ：", "hep-th/99"]))
    version = draw(st.sampled_from(["", "v1", "v99999999999999"]))
    return prefix + body + version


def note_text() -> st.SearchStrategy[str]:
    pieces = st.one_of(
        st.text(max_size=40), id_like(), st.sampled_from(LINE_BREAKS), st.sampled_from([
            "## 1. ", "# ", "- ", "| a | b |\n|---|---|\n", "```", "---\n", "待核实 ", "[x](javascript:alert(1))",
            "<script>alert(1)</script>", "&#106;avascript:", "▲ 99999999999999999999", "1.8× ", "[" * 50,
            "> " * 30, "\ud800", "\x00", "\ufeff",
        ]),
    )
    return st.lists(pieces, max_size=40).map("".join)


def _clean(value: Any) -> bool:
    """No NUL or lone surrogate anywhere in a JSON-like value (keys included)."""
    if isinstance(value, str):
        return not has_bad_chars(value)
    if isinstance(value, dict):
        return all(_clean(k) and _clean(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_clean(v) for v in value)
    return True


@seed(1301)
@FAST
@given(st.binary(max_size=2000) | note_text().map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_decoding_never_raises_anything_but_its_own_errors(data: bytes) -> None:
    try:
        decoded = decode_bytes(data)
    except (EmptySourceError, UndecodableError):
        return
    assert "\x00" not in decoded.text and not has_bad_chars(decoded.text)
    assert not any(b in decoded.text for b in LINE_BREAKS if b != "\n")


@seed(1302)
@FAST
@given(note_text())
def test_notes_parse_and_ids_are_canonical_ascii(text_: str) -> None:
    note = parse_note(text_)
    if text_.strip(" \t\n\r\u2028\u2029\x85\x0b\x0c\ufeff\x00"):
        assert note.entries or not text_.replace("-", "").strip()
    for entry in note.entries:
        for m in entry.mentions:
            assert m.canonical is None or (m.canonical.isascii() and canonicalize(m.canonical) is not None)
            assert m.version is None or 0 <= m.version <= INT4_MAX
    for m in find_ids(text_):
        assert m.canonical is None or m.canonical.isascii()


@seed(1303)
@FAST
@given(note_text())
def test_rendered_markdown_keeps_no_dangerous_link(text_: str) -> None:
    out = defang_markdown(text_).lower()
    assert "](javascript" not in out and "<script" not in out and "](data:" not in out
    assert "javascript:" not in out.replace("javascript\\:", "")


@seed(1304)
@FAST
@given(st.text(max_size=60))
def test_only_http_urls_are_safe(url: str) -> None:
    safe = safe_url(url)
    if safe is not None:
        assert safe.lower().lstrip().replace("\t", "").startswith(("http:", "https:")) or "&" in safe


FIELD_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str), st.text(max_size=30), note_text(),
    st.sampled_from(["0001-01-01", "9999-12-31", "2026-02-30", "2026-13-01", "[a, b", "v∞", "- x", '"'])
)


@seed(1305)
@FAST
@given(st.dictionaries(st.sampled_from(["arxiv", "title", "primary", "secondary", "created", "votes", "version",
                                        "updated", "citations"]), FIELD_VALUES, max_size=9), note_text())
def test_cards_queues_and_knowledge_documents_parse_or_refuse(fields: dict[str, str], body: str) -> None:
    front = "---\n" + "".join(f"{k}: {v.replace(chr(10), ' ')}\n" for k, v in fields.items()) + "---\n"
    header = " · ".join(f"{k}: {v}" for k, v in fields.items() if k in ("version", "updated", "citations"))
    for parse in (lambda: parse_card(front + body, "0001-2610-04631.md"), lambda: parse_queue(
            f"## {fields.get('created', '2026-10-09')} 21:00\n\n| # | arXiv |\n|---|---|\n| {fields.get('votes', '1')} | "
            f"{fields.get('arxiv', '')} |\n{body}", TZ), lambda: parse_knowledge(f"# k\n\n{header}\n\n{body}", TZ)):
        try:
            result = parse()
        except ParseError:
            continue
        for value in (result if isinstance(result, list) else [result]):
            for name in ("votes", "citations"):
                number = getattr(value, name, None)
                assert number is None or 0 <= number <= INT4_MAX
            for row in getattr(value, "rows", ()):
                assert row.rank is None or 0 <= row.rank <= INT4_MAX
            version = getattr(value, "version", None)
            assert version is None or (version.isascii() and len(version) <= 64)


PAPER = st.one_of(st.none(), st.dictionaries(
    st.sampled_from(["id", "title", "upvotes", "summary", "authors"]),
    st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=20), st.none(),
              st.lists(st.text(max_size=5), max_size=2))))


@seed(1306)
@FAST
@given(st.lists(st.fixed_dictionaries({"paper": PAPER}), max_size=5))
def test_hf_daily_keeps_the_readable_papers(entries: list[dict[str, Any]]) -> None:
    snapshot = parse_hf_daily_json(json.dumps(entries).encode(), dt.date(2026, 10, 9))
    readable = [e for e in entries if isinstance(e["paper"], dict)]
    if readable:
        assert snapshot.error is None or len(snapshot.items) == 0
    for item in snapshot.items:
        assert item.upvotes is None or 0 <= item.upvotes <= INT4_MAX
        assert _clean([item.title, item.summary, list(item.authors), item.raw_id])


NAME_BYTES = st.one_of(
    st.binary(min_size=1, max_size=40), st.text(min_size=1, max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"a\nb.md", b"x" * 250 + b".md", b"\xff\xfe.md", b"2026-02-30-x.md", b"0001-01-01-0900-x.md",
                     "新\u2028名.md".encode(), b"<img src=x>.md"]),
).map(lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")[:250]).filter(lambda b: b not in (b".", b".."))
SPECIAL = st.sampled_from(["file", "file", "loop", "chain-out", "link-in", "fifo", "dir-link-out", "locked-dir"])


@st.composite
def workspace_entries(draw: st.DrawFn) -> list[tuple[bytes, bytes, str, bytes]]:
    folders = [b"inbox/amy", b"inbox/bob", b"organized/paper_cards", b"organized/queue", b"organized/knowledge"]
    return draw(st.lists(st.tuples(st.sampled_from(folders), NAME_BYTES, SPECIAL,
                                   st.binary(max_size=300) | note_text().map(lambda t: t.encode("utf-8", "surrogatepass"))),
                         min_size=1, max_size=8, unique_by=lambda e: (e[0], e[1])))


def _make(root: bytes, outside: bytes, entries: list[tuple[bytes, bytes, str, bytes]]) -> None:
    for folder, name, kind, data in entries:
        where = os.path.join(root, folder)
        os.makedirs(where, exist_ok=True)
        path = os.path.join(where, name)
        if os.path.lexists(path):
            continue
        try:
            if kind == "loop":
                os.symlink(path, path)
            elif kind == "chain-out":
                os.symlink(path + b".2", path)
                os.symlink(os.path.join(outside, b"secret.md"), path + b".2")
            elif kind == "link-in":
                with open(path + b".target", "wb") as f:
                    f.write(data)
                os.symlink(path + b".target", path)
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "dir-link-out":
                os.symlink(outside, path)
            elif kind == "locked-dir":
                os.makedirs(path)
                with open(os.path.join(path, b"2026-10-09-x.md"), "wb") as f:
                    f.write(data)
                os.chmod(path, 0)
            else:
                with open(path, "wb") as f:
                    f.write(data)
        except OSError:  # a name the file system refuses (too long for it, ...): nothing to test
            continue


def _unlock(root: bytes) -> None:
    for dirpath, dirnames, _ in os.walk(root):
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if not os.path.islink(full):
                os.chmod(full, stat.S_IRWXU)


@seed(1307)
@SLOW
@given(workspace_entries())
def test_the_scan_and_the_row_builder_never_raise_and_never_leave_the_workspace(
    entries: list[tuple[bytes, bytes, str, bytes]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = os.path.join(os.fsencode(tmp), b"ws"), os.path.join(os.fsencode(tmp), b"outside")
        os.makedirs(outside)
        with open(os.path.join(outside, b"secret.md"), "wb") as f:
            f.write(b"## 1. SECRET-OUTSIDE\n")
        _make(root, outside, entries)
        try:
            files = scan_workspace(Path(os.fsdecode(root)))
            builder = RowBuilder(1, "Asia/Shanghai", Topic("inference", "Asia/Shanghai", "20 22 * * *").judgment)
            for wf in files:
                assert not has_bad_chars(wf.path) and "\n" not in wf.path
                assert wf.problem or wf.kind != "other", wf
                data, error = read_file(wf)
                assert b"SECRET-OUTSIDE" not in data
                rows = builder.build_one(wf, data, sha256(data), error)
                assert rows is not None
                assert _clean(rows.source) and not has_bad_chars(rows.items.decode("utf-8", "surrogatepass"))
                assert b"\x00" not in rows.items + rows.mentions + rows.card + rows.queue
                assert b"SECRET-OUTSIDE" not in rows.items
        finally:
            _unlock(root)


@seed(1308)
@examples(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(entries=workspace_entries())
def test_whatever_a_workspace_holds_postgres_stores_it(
    entries: list[tuple[bytes, bytes, str, bytes]], settings: Any, clean_db: Engine,
) -> None:
    """Generated hostile workspaces, the whole way into PostgreSQL: every file stored (parsed or
    with its error), nothing from outside, no NUL or lone surrogate, numbers within their columns."""
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    with tempfile.TemporaryDirectory() as tmp:
        root, outside = os.path.join(os.fsencode(tmp), b"ws"), os.path.join(os.fsencode(tmp), b"outside")
        os.makedirs(outside)
        os.makedirs(os.path.join(root, b"inbox"))
        with open(os.path.join(outside, b"secret.md"), "wb") as f:
            f.write(b"## 1. SECRET-OUTSIDE\n")
        _make(root, outside, entries)
        try:
            ref = register_workspace(settings, Path(os.fsdecode(root)))
            files = find_changed_files(settings, ref)
            outcomes = ingest_batch(settings, ref, files)
        finally:
            _unlock(root)
        assert sorted(o.path for o in outcomes) == sorted(wf.path for wf in files)
        assert all(o.status != "failed" for o in outcomes)
        with clean_db.connect() as conn:
            leaked = conn.execute(text("SELECT count(*) FROM items i JOIN sources s ON s.id = i.source_id "
                                       "WHERE s.workspace_id = :w AND i.text LIKE '%SECRET-OUTSIDE%'"),
                                  {"w": ref.id}).scalar()
            assert leaked == 0
            assert find_changed_files(settings, ref) == []  # stored once; a re-run writes nothing
