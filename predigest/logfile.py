"""A command's log records go to `$PREDIGEST_HOME/run/predigest.log`, not the terminal.

Prefect configures logging when it is imported: a console handler on the root logger (and a few
of its own), to which every flow and task run propagates, so a task that fails prints its
traceback, and a lost database connection prints one warning per thread and attempt. A command
that runs a flow moves every handler writing to the terminal onto the file instead (appended,
one line per record, tracebacks in full), and the terminal keeps the command's own lines: what it
did, or one line saying what failed. `--debug` keeps the terminal handlers too.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOG_NAME = "predigest.log"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_path(home: Path) -> Path:
    return home.expanduser().resolve() / "run" / LOG_NAME


class _FileHandler(logging.FileHandler):
    """The log file, counting what it got at WARNING and above (the command's last line says so)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8", delay=True)
        self.setFormatter(logging.Formatter(_FORMAT))
        self.warnings = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.warnings += 1
        super().emit(record)


class _Routed:
    handler: _FileHandler | None = None
    moved: list[tuple[logging.Logger, logging.Handler | None]] = []  # (logger, terminal handler taken off)


def _to_terminal(handler: logging.Handler) -> bool:
    stream = getattr(handler, "stream", None)
    return not isinstance(handler, logging.FileHandler) and stream in (sys.stderr, sys.stdout,
                                                                        sys.__stderr__, sys.__stdout__)


def log_to_file(home: Path, keep_terminal: bool = False) -> Path:
    """Send this process's log records to the log file under `home` instead of the terminal
    (`keep_terminal`: to both). Prefect sets its logging up when `prefect.main` is first imported
    (again, whatever was set up before): it is imported first, so its handlers are there to move."""
    import prefect.main  # noqa: F401

    path = log_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = _Routed.handler
    if handler is None or Path(handler.baseFilename) != path:
        handler = _Routed.handler = _FileHandler(path)
    loggers = [logging.getLogger(), *(logger for logger in logging.root.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for logger in loggers:
        terminal = [h for h in logger.handlers if _to_terminal(h)]
        if not terminal:
            continue
        if not keep_terminal:
            for h in terminal:
                logger.removeHandler(h)
                _Routed.moved.append((logger, h))
        if handler not in logger.handlers:
            logger.addHandler(handler)
            _Routed.moved.append((logger, None))
    return path


def restore() -> None:
    """Undo `log_to_file` (the CLI's `main` called in-process, by a test or a script, leaves the
    process's logging as it found it)."""
    handler, _Routed.handler = _Routed.handler, None
    for logger, moved in reversed(_Routed.moved):
        if moved is not None:
            logger.addHandler(moved)
        elif handler is not None:
            logger.removeHandler(handler)
    _Routed.moved.clear()
    if handler is not None:
        handler.close()


def summary_line() -> str | None:
    """`log: …` when this command logged warnings or errors to the file: how many, and where."""
    handler = _Routed.handler
    if handler is None or not handler.warnings:
        return None
    return f"log: {handler.warnings} warning{'s' if handler.warnings != 1 else ''} or errors in {handler.baseFilename}"


def details() -> str:
    """" (details in <log file>)" once this command logs to the file, else ""."""
    handler = _Routed.handler
    return f" (details in {handler.baseFilename})" if handler is not None else ""
