"""Object storage for published briefings: a local folder or an S3 bucket behind one small interface."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit
from urllib.request import url2pathname

from botocore.exceptions import ClientError

from tasks.common.files import NEW_FILE_MODE, write_atomically

if TYPE_CHECKING:
    from tasks.config.settings import Settings

# Suffix of in-flight temp files; list() skips them so a crashed write never shows up as a key.
_TMP_SUFFIX = ".predigest-tmp"
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_MISSING_CODES = frozenset({"NoSuchKey", "404", "NotFound"})


class ObjectStore(Protocol):
    """Flat key -> bytes storage; keys are `/`-separated relative paths such as `briefings/x/2024-01-01.md`."""

    def get(self, key: str) -> bytes | None:
        """Return the object's bytes, or None when it does not exist."""
        ...

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Store `data` under `key`, replacing any previous object."""
        ...

    def list(self, prefix: str) -> list[str]:
        """Return the sorted keys that start with `prefix`."""
        ...

    def head_sha256(self, key: str) -> str | None:
        """Return the hex sha256 of the stored object's bytes, or None when it does not exist."""
        ...

    def url_for(self, key: str) -> str:
        """Return a human-readable location of `key` (a file path or an s3:// URL)."""
        ...


def sha256_hex(data: bytes) -> str:
    """Hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def check_key(key: str, *, allow_prefix: bool = False) -> str:
    """Return `key` if it is a safe relative key, else raise ValueError; `allow_prefix` permits "" and a trailing "/"."""
    if allow_prefix:
        if key == "":
            return key
        body = key[:-1] if key.endswith("/") else key
    else:
        body = key
    # Reject anything that could name a path outside the root or be read differently by the two backends.
    bad = (
        not body
        or body.startswith("/")
        or "\\" in body
        or "\x00" in body
        or any(part in ("", ".", "..") for part in body.split("/"))
    )
    if bad:
        raise ValueError(
            f"unsafe storage key {key!r}: must be a relative path without '.', '..' or empty segments"
        )
    return key


class LocalStore:
    """An ObjectStore on a local directory; keys map to files below `root`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    def _path(self, key: str) -> Path:
        check_key(key)
        path = self.root / key
        # The lexical check above cannot see symlinks, so also check where the path really lands.
        if not path.resolve().is_relative_to(self.root):
            raise ValueError(f"storage key {key!r} escapes the store root {self.root}")
        return path

    def get(self, key: str) -> bytes | None:
        """Return the file's bytes, or None when it does not exist."""
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def put(self, key: str, data: bytes, content_type: str) -> None:  # noqa: ARG002 - ObjectStore.put; a file has no content type (a web server derives it from the name)
        """Write atomically: a temp file in the target directory, fsync, then os.replace."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Always NEW_FILE_MODE: published briefings are meant to be readable by a web server.
        write_atomically(path, data, mode=NEW_FILE_MODE, suffix=_TMP_SUFFIX)

    def list(self, prefix: str) -> list[str]:
        """Return sorted keys of files under the root that start with `prefix`."""
        check_key(prefix, allow_prefix=True)
        # Walk only the deepest directory the prefix pins down, not the whole root.
        base = (self.root / prefix.rpartition("/")[0]) if "/" in prefix else self.root
        if not base.is_dir():
            return []
        keys = []
        for dirpath, _dirnames, filenames in os.walk(base):
            for name in filenames:
                if name.endswith(_TMP_SUFFIX):
                    continue
                key = (Path(dirpath) / name).relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def head_sha256(self, key: str) -> str | None:
        """Hash the file's bytes; local reads are cheap so there is no separate hash record to go stale."""
        data = self.get(key)
        return None if data is None else sha256_hex(data)

    def url_for(self, key: str) -> str:
        """Return the absolute file path of `key`."""
        return str(self._path(key))


class S3Store:
    """An ObjectStore on an S3 bucket below an optional key prefix; each object carries its sha256 as metadata."""

    def __init__(self, bucket: str, prefix: str, client: Any) -> None:
        if not bucket:
            raise ValueError("S3Store needs a bucket name")
        self.bucket = bucket
        self.prefix = check_key(prefix.strip("/"), allow_prefix=True)
        self.client = client

    def _full(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def get(self, key: str) -> bytes | None:
        """Download the object, or return None when it does not exist."""
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=self._full(check_key(key)))
        except ClientError as exc:
            if _error_code(exc) in _MISSING_CODES:
                return None
            raise
        body: bytes = response["Body"].read()
        return body

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Upload the object with its sha256 in metadata so later change checks need only a HEAD."""
        self.client.put_object(
            Bucket=self.bucket,
            Key=self._full(check_key(key)),
            Body=data,
            ContentType=content_type,
            Metadata={"sha256": sha256_hex(data)},
        )

    def list(self, prefix: str) -> list[str]:
        """Return sorted keys (relative to the store prefix) that start with `prefix`."""
        check_key(prefix, allow_prefix=True)
        strip = len(self._full(""))
        keys: list[str] = []
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=self._full(prefix)):
            keys.extend(item["Key"][strip:] for item in page.get("Contents", []))
        return sorted(keys)

    def head_sha256(self, key: str) -> str | None:
        """Read the sha256 metadata via HEAD; objects written by other tools lack it, so hash their bytes instead."""
        try:
            response = self.client.head_object(Bucket=self.bucket, Key=self._full(check_key(key)))
        except ClientError as exc:
            if _error_code(exc) in _MISSING_CODES:
                return None
            raise
        recorded = response.get("Metadata", {}).get("sha256", "")
        if _SHA256_HEX.fullmatch(recorded):
            return str(recorded)
        data = self.get(key)
        return None if data is None else sha256_hex(data)

    def url_for(self, key: str) -> str:
        """Return `s3://bucket/prefix/key`."""
        return f"s3://{self.bucket}/{self._full(check_key(key))}"


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def store_for(settings: Settings) -> ObjectStore:
    """The store the settings publish to, S3 requests retried as they configure (`open_store`)."""
    return open_store(
        settings.storage_root_url, s3_endpoint_url=settings.s3_endpoint_url, s3_retry_mode=settings.s3_retry_mode,
        s3_max_attempts=settings.s3_max_attempts, s3_timeout_seconds=settings.s3_timeout_seconds,
    )


def open_store(
    url: str, *, s3_endpoint_url: str | None = None, s3_retry_mode: str = "standard", s3_max_attempts: int = 5,
    s3_timeout_seconds: float = 30.0,
) -> ObjectStore:
    """Open `file:///dir` as a LocalStore or `s3://bucket[/prefix]` as an S3Store; anything else is a ValueError.

    S3 requests that answer 5xx or throttling, time out, or lose their connection are retried by
    botocore (`s3_retry_mode`, `s3_max_attempts` counting the first try). Retrying a write is safe: a
    PUT stores the whole body or nothing, and every key is written with the same bytes again."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"file URL {url!r} names a remote host; use file:///absolute/path")
        if not parts.path:
            raise ValueError(f"file URL {url!r} has no path")
        # url2pathname undoes the percent-encoding that Path.as_uri() applies (spaces, non-ASCII).
        return LocalStore(Path(url2pathname(parts.path)))
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ValueError(f"S3 URL {url!r} has no bucket; expected s3://bucket[/prefix]")
        # Imported here so local-only runs never pay for loading boto3.
        import boto3
        from botocore.config import Config

        config = Config(retries={"mode": s3_retry_mode, "max_attempts": s3_max_attempts},
                        connect_timeout=s3_timeout_seconds, read_timeout=s3_timeout_seconds)
        client = boto3.client("s3", endpoint_url=s3_endpoint_url, config=config)
        return S3Store(parts.netloc, parts.path, client)
    raise ValueError(f"unsupported storage URL {url!r}: expected file:///path or s3://bucket[/prefix]")
