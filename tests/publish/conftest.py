"""Fixtures of the page tests. Sections: browser; add new sections below, one per concern.

`chromium` is the path of a headless Chromium (`tests.publish.chromium.find_chromium`). Without one
on PATH a page test skips, saying how to install it, except in CI (the `CI` environment variable
set to anything but "", "0" or "false", as `.ci/run` and CI services set it): there it fails, so a
CI run can never pass without having opened the pages in a real browser.
"""

from __future__ import annotations

import os

import pytest

from tests.publish.chromium import MISSING, find_chromium

# --- browser -------------------------------------------------------------------------------------


def in_ci() -> bool:
    """Whether the tests run in CI, where a page test may not skip for want of a browser."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        if in_ci():
            pytest.fail(f"CI is set and there is {MISSING}: the page tests must run in CI, not skip")
        pytest.skip(MISSING)
    return binary
