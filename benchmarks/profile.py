"""Sampling profiles of the timed parts, with py-spy (thread- and process-aware), and their summaries.

`python -m benchmarks --profile DIR` records each timed variant, with every process it starts, into
`DIR/<benchmark>-<variant>.txt` (py-spy's collapsed stacks); only running threads unless
`--profile-wall`. py-spy is not a dependency (`.venv/bin/pip install py-spy`).

    python -m benchmarks.profile DIR/backfill-1-worker.txt               # where the CPU went
    python -m benchmarks.profile FILE --under run_job --top 30           # only stacks through run_job

The summary gives the share of samples per thread kind, then the frames with the most inclusive
samples: in this project's code, in Prefect, and everything by self time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PROJECT_PARTS = ("tasks/", "flows/", "predigest/", "db/")  # py-spy names files relative to sys.path
RATE = 250  # samples a second
_directory: Path | None = None
_wall = False


def enable(directory: Path, wall: bool = False) -> None:
    """Record every `profiled` block into `directory` from now on (with `wall`, waiting threads too);
    SystemExit without py-spy."""
    global _directory, _wall
    if py_spy() is None:
        raise SystemExit('--profile needs py-spy: .venv/bin/pip install -e ".[bench]"')
    directory.mkdir(parents=True, exist_ok=True)
    _directory, _wall = directory, wall


def py_spy() -> str | None:
    """The py-spy executable next to this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


@contextlib.contextmanager
def profiled(name: str) -> Iterator[None]:
    """Record this process and its children while the block runs, when profiling is enabled."""
    if _directory is None:
        yield
        return
    out = _directory / f"{name}.txt"
    recorder = subprocess.Popen(
        [str(py_spy()), "record", "--pid", str(os.getpid()), "--subprocesses", "--threads", "--rate", str(RATE),
         "--format", "raw", "--output", str(out), "--nonblocking", *(["--idle"] if _wall else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    time.sleep(0.5)  # attached before the measured code starts (its samples would be lost otherwise)
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        _, err = recorder.communicate(timeout=120)
        if not out.exists():
            print(f"   [profile] py-spy wrote nothing for {name}: {err.decode(errors='replace').strip()[-300:]}")
        else:
            print(f"   [profile] {out}", flush=True)


# --- summaries -----------------------------------------------------------------------------------

_LINE = re.compile(r"^(?P<stack>.*) (?P<count>\d+)$")
_PROCESS = re.compile(r'process (?P<pid>\d+):"(?P<cmd>[^"]*)";')
_THREAD = re.compile(r"thread \((?P<tid>\d+)\): (?P<name>[^;]*);?")
_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


@dataclass(frozen=True)
class Stack:
    processes: tuple[str, ...]  # command lines, the profiled process first, then its descendants
    thread: str  # the thread's name
    frames: tuple[str, ...]  # outermost first
    samples: int


def read_stacks(path: Path) -> list[Stack]:
    """Every line of a raw py-spy file (`process …;thread (id): name;frame;… samples`)."""
    stacks = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        rest, processes = match["stack"], []
        while (process := _PROCESS.match(rest)) is not None:
            processes.append(process["cmd"])
            rest = rest[process.end():]
        thread = _THREAD.match(rest)
        name = ""
        if thread is not None:
            name, rest = thread["name"], rest[thread.end():]
        stacks.append(Stack(tuple(processes), name, tuple(f for f in rest.split(";") if f), int(match["count"])))
    return stacks


def frame_key(frame: str) -> str:
    """`func (file)` without the line number: one entry per function."""
    match = _FRAME.match(frame)
    return f"{match['func']} ({match['file']})" if match else frame


def frame_file(frame: str) -> str:
    match = _FRAME.match(frame)
    return match["file"] if match else ""


def stack_kind(stack: Stack) -> str:
    """Where the samples ran: the profiled process's main thread, its task threads, a child process."""
    if len(stack.processes) > 1:
        return "Prefect API server (child process)" if "uvicorn" in stack.processes[-1] else "worker processes"
    if stack.thread == "MainThread":
        return "main thread"
    if any("run_task_sync" in f or "_WorkItem.run" in f for f in stack.frames):
        return "task threads"
    return "other threads (Prefect services, clients)"


def summarize(path: Path, top: int = 20, under: str | None = None) -> str:
    """Sample shares by where they ran, then the functions with the most inclusive and self samples."""
    stacks = [s for s in read_stacks(path) if under is None or any(under in f for f in s.frames)]
    total = sum(s.samples for s in stacks) or 1
    kinds: Counter[str] = Counter()
    project: Counter[str] = Counter()
    prefect: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    for stack in stacks:
        kinds[stack_kind(stack)] += stack.samples
        for frame in set(stack.frames):
            where = frame_file(frame)
            if where.startswith(PROJECT_PARTS):
                project[frame_key(frame)] += stack.samples
            elif where.startswith("prefect/"):
                prefect[frame_key(frame)] += stack.samples
        if stack.frames:
            self_time[frame_key(stack.frames[-1])] += stack.samples
    seconds = f" ({total / RATE:.1f} s of CPU at {RATE} samples/s)"
    lines = [f"{path.name}: {total} samples{seconds}" + (f" through {under!r}" if under else "")]
    lines += [f"  {n / total:6.1%}  {kind}" for kind, n in kinds.most_common()]
    for title, counter in (("inclusive, this project:", project), ("inclusive, Prefect:", prefect),
                           ("self:", self_time)):
        lines.append(title)
        lines.extend(f"  {n / total:6.1%}  {key}" for key, n in counter.most_common(top))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--under", help="only stacks with a frame containing this text")
    args = parser.parse_args(argv)
    for path in args.files:
        print(summarize(path, args.top, args.under))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
