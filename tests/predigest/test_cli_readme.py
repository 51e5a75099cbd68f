"""Contract: the commands the README shows are the commands there are.

- Every `predigest …` line of a README bash block names a real subcommand (or `--version`), and
  every `--flag` on it is a flag of that subcommand; `db` actions are real actions.
- The synopses under "Running it" and "One machine" show every flag their subcommand has (so they
  match `--help`), and `predigest <command> --help` runs for every subcommand the README names.
- `make` targets and `deploy/*.sh` scripts the README names exist (the scripts executable).
- The output the README shows for a run uses the lines `predigest run` prints (see predigest.progress).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from predigest.cli import build_parser
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
PARSER = build_parser()
(SUBPARSERS,) = [a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)]
COMMANDS: dict[str, argparse.ArgumentParser] = dict(SUBPARSERS.choices)


def _shown() -> list[tuple[str, str]]:
    """(subcommand, the README line) for every predigest command in a bash block."""
    shown = []
    for block in BLOCKS:
        for raw in block.splitlines():
            line = raw.split(" # ", 1)[0].split("     #", 1)[0].strip()
            match = re.search(r"(?:^|\s)predigest\s+(.*)$", line)
            if not match or line.startswith("#"):
                continue
            rest = match.group(1)
            first = rest.split()[0]
            if first == "--version":
                shown.append(("--version", line))
            elif "|" in rest and "[" not in rest:  # `predigest watch | up | down`
                shown += [(name.strip(), line) for name in rest.split("|")]
            else:
                shown.append((first, line))
    return shown


SHOWN = _shown()


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings if opt.startswith("--")}


def test_the_readme_shows_commands() -> None:
    assert {name for name, _ in SHOWN} >= {"run", "feeds", "backfill", "db", "watch", "up", "down", "--version"}


@pytest.mark.parametrize(("name", "line"), SHOWN, ids=[f"{n}:{i}" for i, (n, _) in enumerate(SHOWN)])
def test_every_shown_command_and_flag_exists(name: str, line: str) -> None:
    if name == "--version":
        return
    assert name in COMMANDS, f"README shows `predigest {name}`, which does not exist"
    after = line.split(f"predigest {name}", 1)[-1] if f"predigest {name}" in line else ""
    unknown = set(re.findall(r"--[a-z][a-z-]*", after)) - _flags(COMMANDS[name])
    assert not unknown, f"{line!r}: {sorted(unknown)} are not flags of `predigest {name}`"
    if name == "db":
        (action,) = [a for a in COMMANDS["db"]._actions if a.dest == "action"]
        words = after.split()
        assert words and words[0] in (action.choices or ()), line


@pytest.mark.parametrize("name", ["run", "feeds", "backfill", "up"])
def test_synopses_show_every_flag(name: str) -> None:
    synopsis = next(line for n, line in SHOWN if n == name and line.startswith(f"predigest {name} "))  # the first
    missing = _flags(COMMANDS[name]) - {"--help", "--debug"} - set(re.findall(r"--[a-z][a-z-]*", synopsis))
    assert not missing, f"the README's synopsis of {name} lacks {sorted(missing)}"


def test_help_parses_for_every_command_the_readme_names() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREDIGEST_")}
    for name in sorted({n for n, _ in SHOWN if n != "--version"}):
        done = subprocess.run([sys.executable, "-m", "predigest.cli", name, "--help"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0 and done.stdout.startswith(f"usage: predigest {name}"), done.stderr
    version = subprocess.run([sys.executable, "-m", "predigest.cli", "--version"], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=120, check=False)
    assert version.returncode == 0 and version.stdout.startswith("predigest ")


def test_make_targets_and_deploy_scripts_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make ([a-z-]+)`", README)) | set(re.findall(r"^make ([a-z-]+)", README, re.M)):
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"make {target}"
    for script in set(re.findall(r"deploy/[a-z_]+\.sh", README)):
        path = ROOT / script
        assert path.is_file() and os.access(path, os.X_OK), script


def test_the_run_output_shown_is_what_run_prints(tmp_path: Path) -> None:
    from predigest import progress
    from tasks.config.settings import Settings

    settings = Settings(_env_file=None, home=tmp_path / "home")  # type: ignore[call-arg]
    assert progress.database_line(settings).split(" under ")[0] + " under" in README
    kept = progress.prefect_line("http://127.0.0.1:41677/api", kept=settings.home, started=True)
    assert kept.split(" under ")[0] in README and kept.split(", ", 1)[1] in README
    assert "ingest: " in README and "keeps running for later commands; stop it with `predigest db stop`" in README
