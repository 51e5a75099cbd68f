"""Contract: CLI and log text show bidi and control characters as visible escapes (tasks.common.safe_text).

Whatever a workspace puts into a file name or an error message (bidi overrides, ESC sequences, C1
controls), a log record written after `show_controls_in_logs` and the CLI's one-line error carry
it as `\\u202e`/`\\x1b` text, never the character itself; the rest of the message is unchanged.
"""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from predigest.cli_checks import one_line
from tasks.common.safe_text import show_controls_in_logs, visible

_INVISIBLE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
names = st.text(st.sampled_from(["a", "é", "中", "\u202e", "\u2066", "\x1b", "\x9b", "\x07", "\u200f", "[", "<"]),
                 min_size=1, max_size=12)


@given(names)
def test_cli_error_line_shows_controls(name: str) -> None:
    line = one_line(ValueError(f"cannot read {name}"))
    assert _INVISIBLE.search(line) is None
    assert line == "cannot read " + visible(name)


def test_log_records_show_controls(caplog: pytest.LogCaptureFixture) -> None:
    show_controls_in_logs()
    show_controls_in_logs()  # idempotent: one escape, not two
    with caplog.at_level(logging.WARNING):
        logging.getLogger("predigest.test").warning("skipping %s: %s", "inbox/a/\u202egpj.md", "bad\x1b[31m")
        logging.getLogger("predigest.test").warning("plain %s", "text")
    first, second = caplog.records
    assert first.getMessage() == "skipping inbox/a/\\u202egpj.md: bad\\x1b[31m"
    assert second.getMessage() == "plain text"
