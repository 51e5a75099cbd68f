"""Files replaced whole: whoever reads one (a web server, the workspace scan, a second `up` started
beside the first) sees the old bytes or the new, never part of them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644  # mkstemp makes 0600 files; what predigest writes is meant to be read by others


def write_atomically(path: Path, data: bytes, *, mode: int | None = None, suffix: str = ".tmp") -> None:
    """Replace (or create) `path` with `data`: a temp file `.<name>.…<suffix>` in the same folder,
    flushed to disk and given `mode` (by default the replaced file's, NEW_FILE_MODE for a new
    one), then renamed over `path`. On any failure the temp file is removed and `path` is as it was."""
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = NEW_FILE_MODE
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
