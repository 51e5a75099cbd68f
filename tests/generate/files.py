"""How every generated workspace file is written: one writer, one mtime rule, one answers file.

- `write_file(root, rel, data, at)` writes `data` (text as UTF-8, bytes as they are) at `root/rel`,
  making its folders. The mtime rule: a generator that dates a file passes `at`, the local time the
  file was written (`local(day, hour, minute)` in the team's zone, TZ), and the file's mtime is that
  time, so the same arguments give the same tree, mtimes included; a file written without `at`
  keeps the time of the write (tests that scan a workspace as they write it, day after day).
- A workspace that carries its own answers writes them with `write_answers(root, answers)` to
  ANSWERS at the root, outside inbox/ and organized/, so ingest never reads them; `read_answers`
  reads them back.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Asia/Shanghai")
ANSWERS = "answers.json"


def local(day: dt.date, hour: int = 0, minute: int = 0) -> dt.datetime:
    """`day` at `hour:minute` in the team's zone: when a generated file was written."""
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=TZ)


def write_file(root: Path, rel: str, data: str | bytes, at: dt.datetime | float | None = None) -> Path:
    """Write `data` at `root/rel`; with `at` (a time or a POSIX timestamp) the mtime is set to it."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    if at is not None:
        stamp = at.timestamp() if isinstance(at, dt.datetime) else at
        os.utime(path, (stamp, stamp))
    return path


def write_answers(root: Path, answers: Mapping[str, Any]) -> Path:
    """Write what the workspace was generated to mean (JSON, keys sorted) to `root/ANSWERS`."""
    return write_file(root, ANSWERS, json.dumps(answers, indent=1, sort_keys=True))


def read_answers(root: Path) -> dict[str, Any]:
    """The answers a generator wrote at `root`."""
    data: dict[str, Any] = json.loads((root / ANSWERS).read_text(encoding="utf-8"))
    return data
