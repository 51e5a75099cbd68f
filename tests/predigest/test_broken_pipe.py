"""Contract: a command whose reader went away (`predigest status | head -1`) ends quietly with exit
0, not with a `predigest: BrokenPipeError` line as if it had failed (predigest/cli.py, main)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

# A command that meets a closed pipe while writing its output.
COMMAND = """
import argparse, sys
import predigest.cli as cli
def write(args):
    raise BrokenPipeError(32, "Broken pipe")
parser = argparse.ArgumentParser()
parser.set_defaults(func=write)
cli.build_parser = lambda: parser
sys.exit(cli.main([]))
"""


def test_a_closed_pipe_ends_the_command_quietly() -> None:
    done = subprocess.run([sys.executable, "-c", COMMAND], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
