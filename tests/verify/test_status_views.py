"""Contract of the shortcuts the daily and backfill paths take around `status_as_of`, each against the
plain computation on random histories (events in any order, days before and after the asked day):

- `is_open(t, day)` is `status_as_of(t, day, n).status in OPEN` for any staleness threshold `n`,
  and False where `status_as_of` gives None;
- `listed` lists what building every view and filtering them lists, in the same order;
- `texts_naming` finds, for each key, exactly the texts one of its probes occurs in, in order,
  whatever the texts and probes hold, the separator and empty ones included.
Runs without a database."""

from __future__ import annotations

import datetime as dt
import random

from tasks.model.judged import StatusAsOf
from tasks.verify.joined import texts_naming
from tasks.verify.status import OPEN, Event, Tracked, is_open, listed, state_on, status_as_of

D = dt.date(2026, 10, 1)
ACTIONS = ["raised", "seen", "resolved", "raised", "seen"]


def _tracked(rng: random.Random, n: int) -> list[Tracked]:
    items = []
    for k in range(n):
        events = tuple(
            Event(D + dt.timedelta(days=rng.randrange(-10, 12)), rng.choice(ACTIONS), rng.choice(["a.md", "b.md"]),
                  rng.choice(["", '{"text": "claim", "title": "T"}', "plain text"]))
            for _ in range(rng.randrange(0, 7))
        )
        items.append(Tracked(f"hedge:k{k}", "hedge", f"k{k}", events))
    return items


def _plain_listed(items: list[Tracked], day: dt.date, stale_after_days: int) -> list[StatusAsOf]:
    """`listed` as it was: a view of every item, then filtered."""
    views = [v for v in (status_as_of(t, day, stale_after_days) for t in items) if v is not None]
    fresh = sorted((v for v in views if v.status in OPEN and v.seen_in_window), key=lambda v: (v.raised_on, v.key))
    resolved_today = sorted((v for v in views if v.status == "resolved" and v.resolved_on == day), key=lambda v: v.key)
    earlier = sorted((v for v in views if v.status in OPEN and not v.seen_in_window),
                     key=lambda v: (v.status != "stale", v.raised_on, v.key))
    return fresh + resolved_today + earlier


def test_is_open_is_the_status_of_the_full_view() -> None:
    rng = random.Random(5)
    seen_states = set()
    for item in _tracked(rng, 400):
        for offset in range(-11, 13, 3):
            day = D + dt.timedelta(days=offset)
            for stale in (0, 3, 7):
                view = status_as_of(item, day, stale)
                assert is_open(item, day) == (view is not None and view.status in OPEN)
                exists, resolved_on = state_on(item, day)
                assert exists == (view is not None)
                if view is not None:
                    assert resolved_on == view.resolved_on
                    seen_states.add(view.status)
    assert seen_states == {"pending", "stale", "resolved"}  # the histories exercise every state


def test_listed_is_the_plain_filter_of_every_view() -> None:
    rng = random.Random(11)
    nonempty = 0
    for _ in range(60):
        items = _tracked(rng, rng.randrange(0, 30))
        for offset in (-5, 0, 4, 9):
            day = D + dt.timedelta(days=offset)
            expected = _plain_listed(items, day, 7)
            assert listed(items, day, 7) == expected
            nonempty += bool(expected)
    assert nonempty > 50


def _plain_naming(probes: dict[str, list[str]], texts: list[str]) -> dict[str, list[int]]:
    found = {key: [i for i, text in enumerate(texts) if any(p in text for p in words)] for key, words in probes.items()}
    return {key: hits for key, hits in found.items() if hits}


def test_texts_naming_finds_exactly_the_texts_each_key_names() -> None:
    rng = random.Random(2)
    alphabet = "ab\0c推理 "
    for _ in range(2000):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8))) for _ in range(rng.randrange(0, 4))]
        probes = {f"k{k}": ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 4)))
                            for _ in range(rng.randrange(1, 3))] for k in range(5)}
        assert texts_naming(probes, texts) == _plain_naming(probes, texts), (probes, texts)
