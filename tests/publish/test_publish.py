"""Contract of tasks.publish.objects.

publish_briefing stores `briefings/<topic>/<YYYY-MM-DD>.md` and `.json` and merges an entry into
`briefings/index.json`, which lists every briefing sorted by (date, topic) in deterministic JSON. Republishing
identical content writes nothing (local mtimes unchanged, no S3 PUT); changed content rewrites only what changed
and replaces the (topic, date) entry rather than duplicating it. Unsafe topics, datetimes and invalid JSON twins
are refused before anything is written. A missing or corrupt index is rebuilt from the stored briefings rather
than failing the run, and concurrent publishes in one process do not lose index entries.
Every key comes from `object_key`: the default language keeps `<date>.md`, another language puts
itself before the suffix (`<date>.en.md`), and a language that is not a lower-case code is refused;
a briefing published in two languages has two index entries, the non-default one naming its `lang`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from tasks.model.keys import object_key
from tasks.publish.objects import (
    DEFAULT_LANG,
    INDEX_KEY,
    briefing_keys,
    publish_briefing,
    read_index,
    update_index,
)
from tasks.publish.storage import LocalStore, S3Store, open_store

BUCKET = "predigest-test"
OLD_NS = 1_000_000_000 * 1_000_000_000  # 2001-09-09: any rewrite moves mtime well away from this
MAY1, MAY2 = dt.date(2024, 5, 1), dt.date(2024, 5, 2)


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """A moto-backed S3 with fake credentials and one empty bucket; yields a raw boto3 client."""
    for var in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def md(topic: str, date: dt.date, extra: str = "") -> str:
    return f"# {topic} {date:%Y-%m-%d}\n\n要点：一切正常。{extra}\n"


def js(topic: str, date: dt.date) -> str:
    return json.dumps({"topic": topic, "date": date.isoformat(), "items": []}, ensure_ascii=False) + "\n"


def expected_hash(markdown: str, json_text: str) -> str:
    return hashlib.sha256(markdown.encode() + b"\x00" + json_text.encode()).hexdigest()


def index_doc(raw: bytes) -> list[dict[str, str]]:
    document = json.loads(raw)
    assert set(document) == {"briefings"}
    entries: list[dict[str, str]] = document["briefings"]
    return entries


def publish_three(store: Any) -> None:
    for topic, date in [("ml-systems", MAY2), ("agents", MAY2), ("agents", MAY1)]:
        publish_briefing(store, topic, date, md(topic, date), js(topic, date))


def test_publish_writes_keys_and_sorted_deterministic_index(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    result = publish_briefing(store, "ml-systems", MAY2, md("ml-systems", MAY2), js("ml-systems", MAY2))

    assert (result.markdown_key, result.json_key) == (
        "briefings/ml-systems/2024-05-02.md",
        "briefings/ml-systems/2024-05-02.json",
    )
    assert result.markdown_written and result.json_written
    assert result.content_hash == expected_hash(md("ml-systems", MAY2), js("ml-systems", MAY2))
    assert (tmp_path / result.markdown_key).read_text(encoding="utf-8") == md("ml-systems", MAY2)
    assert (tmp_path / result.json_key).read_text(encoding="utf-8") == js("ml-systems", MAY2)

    publish_briefing(store, "agents", MAY2, md("agents", MAY2), js("agents", MAY2))
    publish_briefing(store, "agents", MAY1, md("agents", MAY1), js("agents", MAY1))

    raw = (tmp_path / INDEX_KEY).read_bytes()
    entries = index_doc(raw)
    assert [(e["date"], e["topic"]) for e in entries] == [
        ("2024-05-01", "agents"),
        ("2024-05-02", "agents"),
        ("2024-05-02", "ml-systems"),
    ]
    assert entries[0] == {
        "topic": "agents",
        "date": "2024-05-01",
        "markdown": "briefings/agents/2024-05-01.md",
        "json": "briefings/agents/2024-05-01.json",
        "content_hash": expected_hash(md("agents", MAY1), js("agents", MAY1)),
    }
    rendered = json.dumps({"briefings": entries}, sort_keys=True, ensure_ascii=False, indent=2) + "\n"
    assert raw == rendered.encode()
    assert [(e.topic, e.date) for e in read_index(store)] == [
        ("agents", MAY1),
        ("agents", MAY2),
        ("ml-systems", MAY2),
    ]


def test_identical_republish_writes_nothing(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    publish_three(store)
    md_key, json_key = briefing_keys("agents", MAY1)
    paths = [tmp_path / md_key, tmp_path / json_key, tmp_path / INDEX_KEY]
    before = [p.read_bytes() for p in paths]
    for path in paths:
        os.utime(path, ns=(OLD_NS, OLD_NS))

    result = publish_briefing(store, "agents", MAY1, md("agents", MAY1), js("agents", MAY1))

    assert (result.markdown_written, result.json_written) == (False, False)
    assert [p.stat().st_mtime_ns for p in paths] == [OLD_NS] * 3
    assert [p.read_bytes() for p in paths] == before
    assert update_index(store, []) is False


def test_changed_markdown_rewrites_only_markdown_and_replaces_index_entry(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    publish_three(store)
    json_path = tmp_path / briefing_keys("agents", MAY1)[1]
    os.utime(json_path, ns=(OLD_NS, OLD_NS))

    new_md = md("agents", MAY1, extra=" 更新")
    result = publish_briefing(store, "agents", MAY1, new_md, js("agents", MAY1))

    assert (result.markdown_written, result.json_written) == (True, False)
    assert json_path.stat().st_mtime_ns == OLD_NS
    entries = index_doc((tmp_path / INDEX_KEY).read_bytes())
    matching = [e for e in entries if (e["topic"], e["date"]) == ("agents", "2024-05-01")]
    assert len(entries) == 3
    assert [e["content_hash"] for e in matching] == [expected_hash(new_md, js("agents", MAY1))]


@pytest.mark.parametrize("topic", ["", "a/b", "..", ".", "a b", "ünïcode", "index.json", "x\n", "a\\b"])
def test_invalid_topic_rejected_before_writing(tmp_path: Path, topic: str) -> None:
    store = LocalStore(tmp_path)
    with pytest.raises(ValueError, match="invalid topic"):
        publish_briefing(store, topic, MAY1, "# x\n", "{}")
    assert store.list("") == []


def test_datetime_and_invalid_json_rejected_before_writing(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    with pytest.raises(TypeError):
        publish_briefing(store, "agents", dt.datetime(2024, 5, 1, 22, 20), "# x\n", "{}")
    with pytest.raises(ValueError, match="not valid JSON"):
        publish_briefing(store, "agents", MAY1, "# x\n", "{not json")
    assert store.list("") == []


CORRUPT_INDEXES = [
    b"{not json",
    b"\xff\xfe\x00",
    b"[]",
    b'{"briefings": "nope"}',
    b'{"briefings": [{"topic": "agents"}]}',
    json.dumps(
        {
            "briefings": [
                {
                    "topic": "agents",
                    "date": "2024-05-01",
                    "markdown": "../x.md",
                    "json": "briefings/agents/2024-05-01.json",
                    "content_hash": "0" * 64,
                }
            ]
        }
    ).encode(),
]


@pytest.mark.parametrize("garbage", CORRUPT_INDEXES)
def test_corrupt_index_is_rebuilt_from_stored_briefings(tmp_path: Path, garbage: bytes) -> None:
    store = LocalStore(tmp_path)
    publish_three(store)
    store.put(INDEX_KEY, garbage, "application/json")
    # Strays the rebuild must ignore: a JSON twin without markdown, and a non-briefing file.
    store.put("briefings/orphan/2024-05-03.json", b"{}", "application/json")
    store.put("briefings/agents/notes.json", b"{}", "application/json")

    result = publish_briefing(store, "zeta", MAY1, md("zeta", MAY1), js("zeta", MAY1))

    entries = index_doc((tmp_path / INDEX_KEY).read_bytes())
    assert [(e["date"], e["topic"]) for e in entries] == [
        ("2024-05-01", "agents"),
        ("2024-05-01", "zeta"),
        ("2024-05-02", "agents"),
        ("2024-05-02", "ml-systems"),
    ]
    by_topic_date = {(e["topic"], e["date"]): e["content_hash"] for e in entries}
    assert by_topic_date[("ml-systems", "2024-05-02")] == expected_hash(
        md("ml-systems", MAY2), js("ml-systems", MAY2)
    )
    assert by_topic_date[("zeta", "2024-05-01")] == result.content_hash


def test_missing_index_is_rebuilt_without_rewriting_briefings(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    assert read_index(store) == []
    publish_three(store)
    (tmp_path / INDEX_KEY).unlink()

    assert len(read_index(store)) == 3
    result = publish_briefing(store, "agents", MAY1, md("agents", MAY1), js("agents", MAY1))

    assert (result.markdown_written, result.json_written) == (False, False)
    assert len(index_doc((tmp_path / INDEX_KEY).read_bytes())) == 3


class SlowIndexStore:
    """Delegates to a LocalStore but stalls index reads, widening the read-modify-write race window."""

    def __init__(self, inner: LocalStore) -> None:
        self.inner = inner

    def get(self, key: str) -> bytes | None:
        data = self.inner.get(key)
        if key == INDEX_KEY:
            time.sleep(0.02)
        return data

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self.inner.put(key, data, content_type)

    def list(self, prefix: str) -> list[str]:
        return self.inner.list(prefix)

    def head_sha256(self, key: str) -> str | None:
        return self.inner.head_sha256(key)

    def url_for(self, key: str) -> str:
        return self.inner.url_for(key)


def test_concurrent_publishes_keep_every_index_entry(tmp_path: Path) -> None:
    store = SlowIndexStore(LocalStore(tmp_path))
    # Seed an index first: a missing index is rebuilt by scanning storage, which would mask lost updates.
    publish_briefing(store, "seed", MAY1, md("seed", MAY1), js("seed", MAY1))
    topics = [f"topic-{n}" for n in range(8)]
    start = threading.Barrier(len(topics))

    def publish(topic: str) -> None:
        start.wait()
        publish_briefing(store, topic, MAY1, md(topic, MAY1), js(topic, MAY1))

    with ThreadPoolExecutor(len(topics)) as pool:
        list(pool.map(publish, topics))

    assert sorted(e["topic"] for e in index_doc((tmp_path / INDEX_KEY).read_bytes())) == ["seed", *topics]


def test_s3_republish_issues_no_put_and_index_is_correct(s3: Any) -> None:
    store = open_store(f"s3://{BUCKET}/some/prefix")
    assert isinstance(store, S3Store)
    puts: list[str] = []
    store.client.meta.events.register(
        "before-parameter-build.s3.PutObject", lambda params, **_: puts.append(params["Key"])
    )

    publish_three(store)
    assert len(puts) == 9  # md + json + index, three times
    index_key = f"some/prefix/{INDEX_KEY}"
    modified = s3.head_object(Bucket=BUCKET, Key=index_key)["LastModified"]

    puts.clear()
    publish_three(store)

    assert puts == []
    assert s3.head_object(Bucket=BUCKET, Key=index_key)["LastModified"] == modified
    entries = index_doc(s3.get_object(Bucket=BUCKET, Key=index_key)["Body"].read())
    assert [(e["date"], e["topic"]) for e in entries] == [
        ("2024-05-01", "agents"),
        ("2024-05-02", "agents"),
        ("2024-05-02", "ml-systems"),
    ]
    assert entries[2]["markdown"] == "briefings/ml-systems/2024-05-02.md"
    assert entries[2]["content_hash"] == expected_hash(md("ml-systems", MAY2), js("ml-systems", MAY2))


def test_s3_corrupt_index_is_rebuilt(s3: Any) -> None:
    store = open_store(f"s3://{BUCKET}/some/prefix")
    publish_three(store)
    s3.put_object(Bucket=BUCKET, Key=f"some/prefix/{INDEX_KEY}", Body=b"\x00garbage")

    result = publish_briefing(store, "agents", MAY1, md("agents", MAY1), js("agents", MAY1))

    assert (result.markdown_written, result.json_written) == (False, False)
    raw = s3.get_object(Bucket=BUCKET, Key=f"some/prefix/{INDEX_KEY}")["Body"].read()
    entries = index_doc(raw)
    assert len(entries) == 3
    assert {(e["topic"], e["date"]): e["content_hash"] for e in entries}[
        ("agents", "2024-05-02")
    ] == expected_hash(md("agents", MAY2), js("agents", MAY2))


def test_keys_of_each_language_come_from_one_builder(tmp_path: Path) -> None:
    assert DEFAULT_LANG == "zh"
    assert briefing_keys("t", MAY1) == ("briefings/t/2024-05-01.md", "briefings/t/2024-05-01.json")
    assert briefing_keys("t", MAY1, "en") == ("briefings/t/2024-05-01.en.md", "briefings/t/2024-05-01.en.json")
    assert object_key("t", MAY1, "en", ".knowledge.md") == "briefings/t/2024-05-01.en.knowledge.md"
    assert object_key("t", "atom", "zh", ".xml") == "briefings/t/atom.xml"
    for bad in ("EN", "e", "en/../x", ""):
        with pytest.raises(ValueError):
            object_key("t", MAY1, bad, ".md")
    with pytest.raises(TypeError):
        object_key("t", dt.datetime(2024, 5, 1), "zh", ".md")  # type: ignore[arg-type]
    store = LocalStore(tmp_path)
    publish_briefing(store, "t", MAY1, md("t", MAY1), js("t", MAY1))
    publish_briefing(store, "t", MAY1, "# English\n", js("t", MAY1), "en")
    assert (tmp_path / "briefings/t/2024-05-01.md").read_text(encoding="utf-8") == md("t", MAY1)
    listed = json.loads((tmp_path / INDEX_KEY).read_text(encoding="utf-8"))["briefings"]
    assert [(e["markdown"], e.get("lang")) for e in listed] == [
        ("briefings/t/2024-05-01.md", None), ("briefings/t/2024-05-01.en.md", "en")]
    assert {e.lang for e in read_index(store)} == {"zh", "en"}
