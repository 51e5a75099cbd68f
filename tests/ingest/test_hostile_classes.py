"""Contract: each class of hostile input named in issue 13 costs at most its own source.

One workspace holds them all next to the sample notes; one evening (ingest, then every topic's
briefing) must finish, publish the inference briefing, record or quarantine each hostile file with
its reason, and leave no script or `javascript:` link in the outputs. Parser-level classes (ids,
decoding, line breaks, queue rows, HF entries, card fields, knowledge header) are checked on the
parsers directly below.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from markdown_it import MarkdownIt
from sqlalchemy import Engine, text

from tasks.cards.parse import parse_card
from tasks.common.arxiv_ids import find_ids, issued_by
from tasks.common.decode import decode_bytes
from tasks.config.settings import Settings
from tasks.feeds.hf_daily import parse_hf_daily_json
from tasks.inbox.notes import parse_note
from tasks.knowledge.parse import parse_knowledge
from tasks.publish.objects import INDEX_KEY
from tests.helpers import sample_copy
from tests.ingest.hostile import item_texts, published, run_evening, sources

TZ = ZoneInfo("Asia/Shanghai")
NOTE = "## 1. KV cache eviction for vLLM serving (arXiv:2609.31111)\n\n- throughput 1.8× on H100\n"
INBOX = "inbox/amy"


def _write(root: Path, rel: str, data: bytes) -> Path:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    yield from _hostile_workspace(tmp_path, large=True)


@pytest.fixture
def topics_workspace(tmp_path: Path) -> Iterator[Path]:
    """The hostile workspace without its two large notes (100,000 ids; a 5 MB line), for the test of
    failing topics: they are the first test's concern, and took 10 of this one's 12 seconds."""
    yield from _hostile_workspace(tmp_path, large=False)


def _hostile_workspace(tmp_path: Path, large: bool) -> Iterator[Path]:
    root, outside = sample_copy(tmp_path)
    (outside / "secret.md").write_text("## 1. SECRET-OUTSIDE vLLM\n", encoding="utf-8")
    inbox = root / INBOX
    inbox.mkdir(parents=True, exist_ok=True)
    # whole-run crashes
    (inbox / "2026-10-09-1001-amy-loop.md").symlink_to(inbox / "2026-10-09-1001-amy-loop.md")
    (inbox / "2026-10-09-1002-amy-chain.md").symlink_to(inbox / "2026-10-09-1003-amy-chain2.md")
    (inbox / "2026-10-09-1003-amy-chain2.md").symlink_to(outside / "secret.md")
    os.makedirs(root / "inbox" / "bob", exist_ok=True)
    with open(os.path.join(os.fsencode(root / "inbox" / "bob"), b"2026-10-09-1004-bob-\xff\xfe.md"), "wb") as f:
        f.write(NOTE.encode())
    _write(root, "inbox/bob/2026-10-09-1005-bob-new\nline.md", NOTE.encode())
    _write(root, "organized/paper_cards/9100-2610-09100.md",
           b"---\narxiv: 2610.09100\ntitle: Big votes\nprimary: inference\ncreated: 2026-10-09\n"
           b"votes: 99999999999999999999\n---\nTL;DR vLLM\n")
    _write(root, "organized/paper_cards/9101-2610-09101.md",
           b"---\ntitle: No id field\nprimary: inference\ncreated: 2026-10-09\nvotes: -1\n---\nTL;DR vLLM\n")
    window_mtime = 1791507600.0  # 2026-10-09 12:00 Asia/Shanghai: inside the evening's window
    for name in ("0001-01-01-0900-amy-year-one.md", "2026-02-30-amy-feb30.md"):
        os.utime(_write(root, f"{INBOX}/{name}", NOTE.encode()), (window_mtime, window_mtime))
    if large:
        many = "## 1. dump\n\n" + " ".join(f"arXiv:2610.{i:05d}" for i in range(100_000)) + "\n"
        _write(root, f"{INBOX}/2026-10-09-1006-amy-many-ids.md", many.encode())
    # whole-topic crashes
    _write(root, "organized/knowledge/agents.md",
           b"# agents\n\nversion: v\xe2\x88\x9e \xc2\xb7 updated: 2026-10-08 12:00 \xc2\xb7 citations: 3\n\n"
           b"## \xc2\xa71 Tools\n\n- ToolBench arXiv:2610.04102 [anchored 2026-02-30]\n")
    _write(root, "organized/knowledge/<img src=x onerror=alert(1)>.md", b"# evil\n\nversion: v1\n")
    # decoding and splitting
    _write(root, f"{INBOX}/2026-10-09-1007-amy-big5.md", "## 1. 長文本推理服務的快取\n\n- 吞吐提升\n".encode("big5"))
    _write(root, f"{INBOX}/2026-10-09-1008-amy-cp1252.md", "## 1. “vLLM” café serving – 5€\n".encode("cp1252"))
    _write(root, f"{INBOX}/2026-10-09-1009-amy-cut.md", "## 1. 推理服务截断\n\n- 末尾".encode()[:-1])
    _write(root, f"{INBOX}/2026-10-09-1010-amy-breaks.md",
           "## 1. alpha vLLM\u2028text a\u2029## 2. beta vLLM\x85text b\x0b## 3. gamma\x0ctext c".encode())
    if large:
        _write(root, f"{INBOX}/2026-10-09-1011-amy-one-line.md", ("# " + "vLLM serving long line " * 220_000).encode())
    # output
    _write(root, f"{INBOX}/2026-10-09-1012-amy-links.md", (
        "## 1. vLLM KV cache [paper](javascript:alert(1)) and [2610.04631](JaVaScRiPt:alert(2))\n\n"
        "- see [x](&#106;avascript:alert(3)) and [y](data:text/html,<script>alert(4)</script>)\n"
        "- <script>alert(5)</script> vLLM serving 2× faster\n").encode())
    # silent loss
    locked = root / INBOX / "locked"
    locked.mkdir()
    _write(root, f"{INBOX}/locked/2026-10-09-1013-amy-hidden.md", NOTE.encode())
    locked.chmod(0)
    queue = root / "organized" / "queue" / "work-queue.md"
    queue.write_text(queue.read_text("utf-8") + "\n## 2026-10-09 21:00\n\n| # | arXiv | 标题 |\n|---|---|---|\n"
                     "| 1 | 2610.04631 | A |\n| 2 | 2610.04102 | B |\nbroken row without pipes\n"
                     "| 3 | 2610.03871 | C |\n4 | 2610.03394 | D |\n| 5 | 2610.05062 | E |\n", encoding="utf-8")
    yield root
    locked.chmod(0o755)


def test_no_hostile_file_stops_the_evening(
    workspace: Path, settings: Settings, clean_db: Engine, tmp_path: Path
) -> None:
    _, results = run_evening(settings, workspace)
    by_topic = {r.topic: r for r in results}
    assert set(by_topic) == {"agents", "inference"}  # the HTML-named document is no topic
    assert by_topic["inference"].error is None and by_topic["inference"].written
    assert by_topic["agents"].error is None  # its Feb 30 anchor does not fail the topic
    found = sources(clean_db)

    def error(fragment: str) -> str:
        (path,) = [p for p in found if fragment in p]
        return found[path].error or ""

    assert "symlink loop" in error("amy-loop")
    assert "outside the workspace" in error("amy-chain.md")
    assert error("bob-\\xff\\xfe") == ""  # a non-UTF-8 name is stored escaped, and parsed
    assert error("bob-new\\nline") == ""
    assert "quarantined" in error("onerror")
    if os.geteuid() != 0:  # root lists any folder
        assert "cannot list directory" in error("amy/locked")
    for fragment in ("9100-2610-09100", "9101-2610-09101", "year-one", "feb30", "many-ids", "big5", "cp1252",
                     "amy-cut", "breaks", "one-line", "amy-links"):
        assert error(fragment) == "", fragment
    with clean_db.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM items WHERE text LIKE '%SECRET-OUTSIDE%'")).scalar() == 0
        votes = dict(conn.execute(text("SELECT s.path, c.votes FROM paper_cards c JOIN sources s ON s.id = c.source_id "
                                       "WHERE s.path LIKE '%/91__-%'")).all())
        card_id = conn.execute(text("SELECT c.arxiv_id FROM paper_cards c JOIN sources s ON s.id = c.source_id "
                                    "WHERE s.path LIKE '%9101-2610-09101.md'")).scalar()
        version = conn.execute(text("SELECT version FROM knowledge_snapshots WHERE topic = 'agents'")).scalar()
        many = conn.execute(text("SELECT count(DISTINCT m.arxiv_id), count(*) FROM mentions m JOIN items i ON i.id = m.item_id "
                                 "JOIN sources s ON s.id = i.source_id WHERE s.path LIKE '%many-ids%'")).one()
        last = conn.execute(text("SELECT m.arxiv_id FROM mentions m JOIN items i ON i.id = m.item_id JOIN sources s "
                                 "ON s.id = i.source_id WHERE s.path LIKE '%many-ids%' ORDER BY i.ordinal DESC, m.id DESC "
                                 "LIMIT 1")).scalar()
    assert set(votes.values()) == {None}  # beyond 32 bits, and negative: dropped
    assert any("out of range" in w for w in found[next(p for p in found if "9100-" in p)].warnings)
    assert card_id == "2610.09101"  # from the file name
    assert version is None  # "v∞"
    # Every id is stored once, those past the line's character cap on one last entry, and the source
    # says so; the cap cut none of them into a shorter or malformed one.
    assert (tuple(many), last) == ((100_000, 100_000), "2610.99999")
    assert any("arXiv references from line 3 on were past" in w for w in found[next(p for p in found if "many-ids" in p)].warnings)
    assert found[next(p for p in found if "feb30" in p)].time_basis == "undated"
    assert found[next(p for p in found if "year-one" in p)].time_basis == "undated"
    assert any("decoded as big5" in w for w in found[next(p for p in found if "big5" in p)].warnings)
    assert any("lossy" in w for w in found[next(p for p in found if "amy-cut" in p)].warnings)
    assert any("長文本推理服務" in t for t in item_texts(clean_db, next(p for p in found if "big5" in p)))
    assert len(item_texts(clean_db, next(p for p in found if "breaks" in p))) == 3
    assert item_texts(clean_db, next(p for p in found if "one-line" in p))
    queue_rows = item_texts(clean_db, "organized/queue/work-queue.md")
    assert sum(1 for t in queue_rows if "2610.05062" in t and "| E |" in t) == 1  # rows after the broken one kept

    markdown, twin = published(settings, "inference")
    for output in (markdown, json.dumps(twin, ensure_ascii=False)):
        lowered = output.lower()
        assert "javascript:" not in lowered and "<script" not in lowered and "](data:" not in lowered
    # A note's link is shown as escaped text (`\[paper\](javascript\:…)`), never made a link.
    tokens = MarkdownIt("commonmark", {"html": True}).parse(markdown)
    assert not [t for t in tokens for c in (t.children or ()) if c.type in ("link_open", "image", "html_inline")]
    for line in markdown.splitlines():
        if line.startswith("| ") and "bob-new" in line:
            assert line.endswith("|")  # the file name's newline did not break the row
    assert "2026-02-30" not in json.dumps([s for s in twin["sources"] if s["time_basis"] == "filename"])
    assert not [s for s in twin["sources"] if s["time_basis"] == "undated"]  # in no window, whatever the mtime
    undated = [u for u in twin["undated"] if "feb30" in u["path"] or "year-one" in u["path"]]
    assert len(undated) == 2 and "未定日期" in markdown  # named, with why, not silently dated


def test_a_topic_that_fails_is_reported_failed_and_the_others_publish(
    topics_workspace: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks.config.topics import Topic
    from tasks.stages import briefings
    from tasks.stages.workspace import WorkspaceRef

    real = briefings.assemble_and_publish

    def failing(settings: Settings, ref: WorkspaceRef, topic: Topic, *args: object, **kw: object) -> object:
        if topic.name == "agents":
            raise KeyError("injected for agents")
        return real(settings, ref, topic, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(briefings, "assemble_and_publish", failing)  # what `brief` calls
    _, results = run_evening(settings, topics_workspace, ["agents", "inference", "<b>bad</b>"])
    by_topic = {r.topic: r for r in results}
    assert by_topic["inference"].written and by_topic["inference"].error is None
    assert by_topic["agents"].error == "KeyError: 'injected for agents'"
    assert "invalid topic" in (by_topic["<b>bad</b>"].error or "")
    store = Path(settings.storage_root_url.removeprefix("file://"))
    index = json.loads((store / INDEX_KEY).read_text("utf-8"))
    failed = {f["topic"]: f["error"] for f in index["failed"]}
    assert set(failed) == {"agents", "<b>bad</b>"} and "injected" in failed["agents"]
    assert {b["topic"] for b in index["briefings"]} == {"inference"}


# --- parser-level classes ----------------------------------------------------------------------


@pytest.mark.parametrize(("written", "canonical"), [
    ("arXiv:2613.12345", None), ("arXiv:0703.1234", None), ("hep-th/9913001", None), ("hep-th/0704001", None),
    ("hep-th/9912001", "hep-th/9912001"), ("arXiv:０７０４．０００１", "0704.0001"),
    ("arXiv:٢٦١٠.٠٤٦٤٦", "2610.04646"), ("arXiv:२६१०.०४६४६v2", "2610.04646"),
    ("https://doi.org/10.48550/arXiv.2610.04646", "2610.04646"), ("10.48550/arXiv.2610.04646", "2610.04646"),
    ("https://arxiv.org/html/2610.04646v3", "2610.04646"), ("arxiv.org/pdf/2610.04646v1", "2610.04646"),
    ("https://huggingface.co/papers/2610.04631", "2610.04631"), ("arXiv:2610.04646v99999999999", None),
])
def test_ids_in_every_written_form(written: str, canonical: str | None) -> None:
    (found,) = find_ids(f"see {written} here")
    assert found.canonical == canonical and found.raw == written
    assert found.canonical is None or found.canonical.isascii()


def test_an_id_after_the_briefing_month_is_not_issued_by_then() -> None:
    # Well-formed as text (nothing reads a clock); no briefing before December 2099 can hold it.
    (found,) = find_ids("see arXiv:9912.12345 here")
    assert found.canonical == "9912.12345"
    assert not issued_by("9912.12345", dt.date(2026, 10, 9)) and issued_by("2610.04646", dt.date(2026, 10, 9))


@pytest.mark.parametrize(("data", "encoding"), [
    ("## 1. 長文本推理服務\n".encode("big5"), "big5"), ("## 1. café naïve\n".encode("latin-1"), "cp1252"),
    ("## 1. “q” – €5\n".encode("cp1252"), "cp1252"), ("## 1. 推理服务截断".encode()[:-1], "utf-8"),
    ("# 笔记\n\n## 1. 推理服务\n".encode("gb18030"), "gb18030"), ("\ufeffx\n".encode("utf-16"), "utf-16"),
])
def test_legacy_and_damaged_encodings_decode_with_a_warning_not_a_quarantine(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded.encoding == encoding
    assert decoded.text.strip()
    if encoding in ("big5", "cp1252", "utf-8"):
        assert decoded.warnings


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_every_line_break_splits_a_note_alike(brk: str) -> None:
    text = brk.join(["## 1. alpha", "body a", "## 2. beta", "body b"])
    note = parse_note(decode_bytes(text.encode()).text)
    assert [(e.title, e.text) for e in note.entries] == [("alpha", "body a"), ("beta", "body b")]


def test_a_huge_single_line_note_gives_an_entry() -> None:
    note = parse_note("# " + "vLLM " * 1_000_000)
    assert note.entries and "vLLM" in note.entries[0].text


def test_one_malformed_hf_paper_leaves_the_others() -> None:
    body = json.dumps([
        {"paper": {"id": "2610.04631", "title": "A", "upvotes": 5}},
        {"paper": "not an object"},
        {"paper": {"id": "2610.04102", "title": "B\u0000\ud800", "upvotes": 2**63}},
        {"paper": {"id": "2610.03871", "title": "C", "upvotes": -1}},
    ]).encode()
    snapshot = parse_hf_daily_json(body, dt.date(2026, 10, 9))
    assert snapshot.error is None
    assert [i.arxiv_id for i in snapshot.items] == ["2610.04631", "2610.04102", "2610.03871"]
    assert [i.upvotes for i in snapshot.items] == [5, None, None]
    assert "\x00" not in snapshot.items[1].title and "\ud800" not in snapshot.items[1].title
    assert any("entry 1 skipped" in w for w in snapshot.warnings)
    assert sum("out of range" in w for w in snapshot.warnings) == 2


def test_card_fields_out_of_range_are_dropped_with_a_warning() -> None:
    card = parse_card("---\narxiv: 2610.04631\nvotes: 4294967296\nprimary: " + "x" * 300 + "\n---\nTL;DR\n")
    assert card.votes is None and any("out of range" in w for w in card.warnings)
    assert card.primary is not None and len(card.primary) <= 64
    assert parse_card("---\narxiv: 2610.04631\ncreated: 0001-01-01\n---\nx\n").created is None
    named = parse_card("---\ntitle: t\n---\nno id here\n", "0042-2610-04631.md")
    assert named.arxiv_id == "2610.04631"


def test_knowledge_header_version_must_look_like_one() -> None:
    doc = parse_knowledge("# t\n\nversion: v∞ · updated: 0001-01-01 00:00 · citations: 99999999999999\n", TZ)
    assert doc.version is None and doc.updated_at is None and doc.citations is None
    assert any("version" in w for w in doc.warnings)


def test_a_symlinked_inbox_is_not_followed(tmp_path: Path) -> None:
    from tasks.ingest.scan import scan_workspace

    outside = tmp_path / "outside" / "amy"
    outside.mkdir(parents=True)
    (outside / "2026-10-09-0900-amy-x.md").write_text(NOTE, "utf-8")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "inbox").symlink_to(tmp_path / "outside")
    files = scan_workspace(root)
    assert [(f.path, f.problem) for f in files] == [("inbox", "symlinked folder; not followed")]


def test_a_broken_topics_file_falls_back_to_the_defaults(tmp_path: Path, settings: Settings) -> None:
    from tasks.config.topics import WORKSPACE_TOPICS_FILE, load_topic_config

    (tmp_path / WORKSPACE_TOPICS_FILE).write_bytes(b"[topics.inference\nterms = \xff")
    assert "inference" in load_topic_config(settings, tmp_path)["topics"]
    (tmp_path / WORKSPACE_TOPICS_FILE).write_text('topics = "not a table"\n', "utf-8")
    assert "inference" in load_topic_config(settings, tmp_path)["topics"]
