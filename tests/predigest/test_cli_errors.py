"""Contract of the CLI's refusals: each bad request a newcomer makes (a missing or empty workspace,
one without inbox/ or organized/, an unknown topic, bad dates, a bad storage URL, `feeds` without a
workspace, a bad setting) exits non-zero with exactly one line on stderr and no traceback, before
any flow starts, and writes nothing (an unknown topic never reaches the published folder or its
index.json). `--debug` and `PREDIGEST_DEBUG=1` add the traceback. `--version` and `--help` work.
Every command runs as a real `predigest` process, as a user would run it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from predigest import __version__
from predigest.cli import build_parser
from tests.helpers import ROOT, SAMPLE_WORKSPACE


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREDIGEST_", "PREFECT_"))}
    # A database that does not exist: none of these commands may get as far as connecting.
    return env | {"PREDIGEST_HOME": str(home), "PREDIGEST_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
                  "PREFECT_SERVER_ANALYTICS_ENABLED": "false"} | extra


def predigest(args: list[str], home: Path, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "predigest.cli", *args], env=_env(home, **extra),
                          cwd=cwd or home.parent, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty"
    path.mkdir()
    return path


def _no_topics(tmp_path: Path) -> Path:
    path = tmp_path / "inbox-only"
    (path / "inbox").mkdir(parents=True)
    (path / "inbox" / "2026-10-09-note.md").write_text("# a note\n", encoding="utf-8")
    return path


CASES = {
    "missing-workspace": (lambda t: ["run", "--workspace", str(t / "nowhere"), "--date", "2026-10-09"], {},
                          "workspace not found"),
    "file-as-workspace": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE / "organized" / "knowledge" / "inference.md")],
                          {}, "not a directory"),
    "empty-directory": (lambda t: ["run", "--workspace", str(_empty(t))], {}, "neither inbox/ nor organized/"),
    "no-topics": (lambda t: ["run", "--workspace", str(_no_topics(t))], {}, "no topics to brief"),
    "unknown-topic": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE), "--topic", "nosuchtopic"], {},
                      "unknown topic 'nosuchtopic'"),
    # Refused as unsafe, the true reason: no knowledge document could ever make it a topic.
    "unsafe-topic": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE), "--topic", "../etc"], {},
                     "unsafe topic name '../etc'"),
    "unsafe-topic-merge": (lambda t: ["merge", "--workspace", str(SAMPLE_WORKSPACE), "--topic", "a b", "--date",
                                      "2026-10-09"], {}, "unsafe topic name 'a b'"),
    "bad-date": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE), "--date", "2026-13-01"], {}, "not a date"),
    "bad-since": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE), "--since", "yesterday"], {}, "not a datetime"),
    "backfill-reversed": (lambda t: ["backfill", "--workspace", str(SAMPLE_WORKSPACE), "--from", "2026-10-09",
                                     "--to", "2026-10-01"], {}, "is before --from"),
    "backfill-concurrency": (lambda t: ["backfill", "--from", "2026-10-01", "--to", "2026-10-02", "--concurrency", "0"],
                             {}, "must be 1..8"),
    "bad-storage-scheme": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE)], {"PREDIGEST_STORAGE_URL": "ftp://x/y"},
                           "unsupported storage URL"),
    "storage-without-bucket": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE)], {"PREDIGEST_STORAGE_URL": "s3://"},
                               "has no bucket"),
    "feeds-without-workspace": (lambda t: ["feeds", "--date", "2026-10-09"], {}, "feeds needs a workspace"),
    "backfill-without-workspace": (lambda t: ["backfill", "--from", "2026-10-01", "--to", "2026-10-02"], {},
                                   "backfill needs a workspace"),
    "up-missing-workspace": (lambda t: ["up", "--workspace", str(t / "nowhere")], {}, "workspace not found"),
    "watch-missing-workspace": (lambda t: ["watch", "--workspace", str(t / "nowhere"), "--dry-run"], {},
                                "workspace not found"),
    "bad-timezone-setting": (lambda t: ["run", "--workspace", str(SAMPLE_WORKSPACE)], {"PREDIGEST_TIMEZONE": "Mars/Base"},
                             "PREDIGEST_TIMEZONE"),
    "unknown-subcommand": (lambda t: ["brief"], {}, "invalid choice"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_request_is_one_line_on_stderr(case: str, tmp_path: Path, home: Path) -> None:
    argv, extra, expected = CASES[case]
    done = predigest(argv(tmp_path), home, **extra)
    assert done.returncode != 0
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert expected in lines[0] and lines[0].startswith("predigest: ")  # argparse errors of subcommands too
    assert "Traceback" not in done.stderr + done.stdout
    assert not (home / "published").exists() and not (home / "pg").exists()  # nothing started, nothing written


def test_an_unknown_topic_never_touches_published_briefings(tmp_path: Path, home: Path) -> None:
    published = tmp_path / "published"
    (published / "briefings").mkdir(parents=True)
    index = published / "briefings" / "index.json"
    index.write_text('{"topics": {}}\n', encoding="utf-8")
    workspace = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, workspace)
    done = predigest(["run", "--workspace", str(workspace), "--topic", "nosuchtopic", "--date", "2026-10-09"], home,
                     PREDIGEST_STORAGE_URL=published.as_uri())
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert index.read_text(encoding="utf-8") == '{"topics": {}}\n'
    assert sorted(p.name for p in (published / "briefings").iterdir()) == ["index.json"]


@pytest.mark.parametrize("how", ["flag-before", "flag-after", "environment"])
def test_debug_shows_the_traceback(how: str, tmp_path: Path, home: Path) -> None:
    argv = ["run", "--workspace", str(tmp_path / "nowhere")]
    extra = {}
    if how == "flag-before":
        argv = ["--debug", *argv]
    elif how == "flag-after":
        argv = [*argv, "--debug"]
    else:
        extra = {"PREDIGEST_DEBUG": "1"}
    done = predigest(argv, home, **extra)
    assert done.returncode == 2
    assert "Traceback" in done.stderr and done.stderr.splitlines()[-1].startswith("predigest: workspace not found")


def test_version(home: Path) -> None:
    done = predigest(["--version"], home)
    assert (done.returncode, done.stdout.strip()) == (0, f"predigest {__version__}")


def test_help_lists_every_subcommand_with_a_one_line_description(home: Path) -> None:
    done = predigest(["--help"], home)
    assert done.returncode == 0
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    assert set(helps) == set(sub.choices) >= {"run", "feeds", "backfill", "db", "watch", "up", "down"}
    lines = done.stdout.splitlines()
    for name, text in helps.items():
        assert text, f"{name} has no description"
        (line,) = [ln for ln in lines if ln.split()[:1] == [name]]
        assert text in line, f"{name}'s description wraps onto a second line"
    assert (ROOT / "predigest" / "cli.py").is_file()
