"""The briefing's fixed wording as data (`tasks/config/labels.toml`, [zh] and [en]), read once.

The renderer formats it (tasks.render.labels); the judge reads the same words to recognise a
briefing pasted into a note by its shape (tasks.judge.echoes), so a change of wording changes both.
The file stays beside its renderer; this floor only reads it, it imports nothing above.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=1)
def label_tables() -> dict[str, dict[str, Any]]:
    """labels.toml's tables by language, as written (no key of [zh] filled into [en])."""
    text = resources.files("tasks.config").joinpath("labels.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    return {"zh": dict(raw["zh"]), "en": dict(raw["en"])}
