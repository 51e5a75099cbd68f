"""Contract of tasks.publish.storage and put_if_changed.

LocalStore round-trips bytes, lists keys sorted by prefix, writes atomically (no temp files left, old content
kept when a write fails) and refuses keys that would escape its root. S3Store (under moto, never the network)
keeps objects below its key prefix, records each object's sha256 as metadata so an unchanged re-put costs one
HEAD and no PUT, reports missing objects as None, and does not swallow other S3 errors. open_store accepts only
file:// and s3:// URLs. put_if_changed rewrites only when bytes differ, leaving mtime/LastModified alone otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from tasks.publish.objects import put_if_changed
from tasks.publish.storage import LocalStore, S3Store, open_store, sha256_hex

BUCKET = "predigest-test"
OLD_NS = 1_000_000_000 * 1_000_000_000  # 2001-09-09: any rewrite moves mtime well away from this


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


def record_calls(client: Any, operation: str) -> list[str]:
    """Return a list that collects the Key of every `operation` call the client makes from now on."""
    keys: list[str] = []

    def hook(params: dict[str, Any], **_: Any) -> None:
        keys.append(params["Key"])

    client.meta.events.register(f"before-parameter-build.s3.{operation}", hook)
    return keys


def backdate(path: Path) -> None:
    os.utime(path, ns=(OLD_NS, OLD_NS))


def test_local_roundtrip_and_sorted_prefix_listing(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "root")
    store.put("briefings/b/2024-01-02.md", b"# B", "text/markdown")
    store.put("briefings/a/2024-01-01.md", "# 中文".encode(), "text/markdown")
    store.put("other.txt", b"x", "text/plain")

    assert store.get("briefings/a/2024-01-01.md") == "# 中文".encode()
    assert store.get("briefings/missing.md") is None
    assert store.list("") == ["briefings/a/2024-01-01.md", "briefings/b/2024-01-02.md", "other.txt"]
    assert store.list("briefings/") == ["briefings/a/2024-01-01.md", "briefings/b/2024-01-02.md"]
    assert store.list("briefings/a") == ["briefings/a/2024-01-01.md"]
    assert store.list("nothing/here/") == []
    assert store.url_for("other.txt") == str((tmp_path / "root" / "other.txt").resolve())
    assert store.head_sha256("other.txt") == sha256_hex(b"x")
    assert store.head_sha256("absent.txt") is None


def test_local_write_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.put("d/k.json", b"{}", "application/json")
    store.put("d/k.json", b'{"a": 1}', "application/json")

    assert os.listdir(tmp_path / "d") == ["k.json"]
    assert (tmp_path / "d" / "k.json").read_bytes() == b'{"a": 1}'
    assert (tmp_path / "d" / "k.json").stat().st_mode & 0o777 == 0o644


def test_local_failed_write_keeps_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = LocalStore(tmp_path)
    store.put("k.md", b"old", "text/markdown")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("tasks.publish.storage.os.replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        store.put("k.md", b"new", "text/markdown")

    assert (tmp_path / "k.md").read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["k.md"]


@pytest.mark.parametrize(
    "key", ["../escape.md", "a/../../escape.md", "/etc/passwd", "", "a//b", "./a", "a/", "a\\..\\b", "a\x00b"]
)
def test_local_rejects_keys_that_escape_or_are_malformed(tmp_path: Path, key: str) -> None:
    store = LocalStore(tmp_path / "root")
    with pytest.raises(ValueError):
        store.put(key, b"x", "text/plain")
    with pytest.raises(ValueError):
        store.get(key)
    assert not (tmp_path / "escape.md").exists()


def test_local_rejects_symlink_escape(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    store = LocalStore(root)

    with pytest.raises(ValueError, match="escapes"):
        store.put("link/x.md", b"x", "text/markdown")
    assert list(outside.iterdir()) == []


def test_put_if_changed_skips_identical_bytes_and_keeps_mtime(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    assert put_if_changed(store, "t/2024-01-01.md", b"same", "text/markdown") is True
    path = tmp_path / "t" / "2024-01-01.md"
    backdate(path)

    assert put_if_changed(store, "t/2024-01-01.md", b"same", "text/markdown") is False
    assert path.stat().st_mtime_ns == OLD_NS
    assert path.read_bytes() == b"same"


def test_put_if_changed_rewrites_changed_bytes(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    put_if_changed(store, "k.md", b"v1", "text/markdown")
    backdate(tmp_path / "k.md")

    assert put_if_changed(store, "k.md", b"v2", "text/markdown") is True
    assert (tmp_path / "k.md").read_bytes() == b"v2"
    assert (tmp_path / "k.md").stat().st_mtime_ns != OLD_NS


def test_open_store_file_url_decodes_percent_escapes(tmp_path: Path) -> None:
    root = tmp_path / "pub lished"
    store = open_store(root.as_uri())

    assert isinstance(store, LocalStore)
    store.put("a.md", b"x", "text/markdown")
    assert (root / "a.md").read_bytes() == b"x"


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/x",
        "/plain/path",
        "relative/dir",
        "gs://bucket/p",
        "s3://",
        "s3:///prefix",
        "file://remotehost/x",
    ],
)
def test_open_store_rejects_unsupported_urls(url: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        open_store(url)


@pytest.mark.parametrize(
    ("url", "full_prefix"),
    [
        ("s3://predigest-test/some/prefix", "some/prefix/"),
        ("s3://predigest-test/some/prefix/", "some/prefix/"),
        ("s3://predigest-test", ""),
    ],
)
def test_open_store_s3_writes_under_prefix(s3: Any, url: str, full_prefix: str) -> None:
    store = open_store(url)
    assert isinstance(store, S3Store)
    store.put("briefings/t/2024-01-01.md", b"# hi", "text/markdown; charset=utf-8")

    full_key = f"{full_prefix}briefings/t/2024-01-01.md"
    listed = s3.list_objects_v2(Bucket=BUCKET)["Contents"]
    assert [item["Key"] for item in listed] == [full_key]
    head = s3.head_object(Bucket=BUCKET, Key=full_key)
    assert head["ContentType"] == "text/markdown; charset=utf-8"
    assert head["Metadata"] == {"sha256": sha256_hex(b"# hi")}

    assert store.get("briefings/t/2024-01-01.md") == b"# hi"
    assert store.list("briefings/") == ["briefings/t/2024-01-01.md"]
    assert store.url_for("briefings/t/2024-01-01.md") == f"s3://{BUCKET}/{full_key}"
    assert store.get("briefings/t/missing.md") is None
    assert store.head_sha256("briefings/t/missing.md") is None


def test_s3_prefix_listing_does_not_leak_sibling_prefixes(s3: Any) -> None:
    s3.put_object(Bucket=BUCKET, Key="some/prefix2/briefings/x.md", Body=b"not ours")
    store = open_store(f"s3://{BUCKET}/some/prefix")
    store.put("briefings/y.md", b"ours", "text/markdown")

    assert store.list("") == ["briefings/y.md"]


def test_s3_put_if_changed_uses_head_not_download(s3: Any) -> None:
    store = open_store(f"s3://{BUCKET}/p")
    assert isinstance(store, S3Store)
    puts = record_calls(store.client, "PutObject")
    gets = record_calls(store.client, "GetObject")

    assert put_if_changed(store, "k.json", b"{}", "application/json") is True
    assert put_if_changed(store, "k.json", b"{}", "application/json") is False
    assert puts == ["p/k.json"]
    assert gets == []
    assert put_if_changed(store, "k.json", b"[]", "application/json") is True
    assert puts == ["p/k.json", "p/k.json"]


def test_s3_object_without_hash_metadata_is_compared_by_content(s3: Any) -> None:
    s3.put_object(Bucket=BUCKET, Key="p/k.md", Body=b"written elsewhere")
    store = open_store(f"s3://{BUCKET}/p")
    assert isinstance(store, S3Store)
    puts = record_calls(store.client, "PutObject")

    assert put_if_changed(store, "k.md", b"written elsewhere", "text/markdown") is False
    assert puts == []
    assert put_if_changed(store, "k.md", b"changed", "text/markdown") is True
    assert puts == ["p/k.md"]


def test_s3_errors_other_than_missing_key_propagate(s3: Any) -> None:
    store = open_store("s3://no-such-bucket/p")
    with pytest.raises(ClientError):
        store.get("k.md")
    # A HEAD cannot tell a missing bucket from a missing key (both are a bare 404), so the PUT must surface it.
    with pytest.raises(ClientError):
        put_if_changed(store, "k.md", b"x", "text/markdown")
