"""Fixtures of the inbox tests: the parser's calls, counted where it is called."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tasks.inbox import document


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The texts the parser read (pyromark's event iterator), each with how often."""
    seen: Counter[str] = Counter()
    real = document.pyromark.events_with_range

    def counted(text: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        seen[text] += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(document.pyromark, "events_with_range", counted)
    return seen
