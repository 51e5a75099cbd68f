"""Keys a reader can type for the items of a briefing that have no arXiv id.

A pending item (a verification) is keyed by the stored verification key it stands for, an
engineering increment by its name: both are what identifies the item today (the verification's
key is stored, and an increment's name is what merges it with others), so the key of an item is
the same on every evening that lists it. The key is a prefix and eight hex digits of a hash:
short, ASCII, and the same in zh and en briefings.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

PENDING = "p"  # a pending item: verdicts settled, not-a-contradiction
ENGINEERING = "e"  # an engineering increment: verdict not-new
ITEM_KEY = re.compile(r"^([pe])-[0-9a-f]{8}$")
_SPACE = re.compile(r"\s+")


def _key(prefix: str, identity: str) -> str:
    return f"{prefix}-{hashlib.sha256(identity.encode('utf-8')).hexdigest()[:8]}"


# Every listed item is keyed on every date rendered (a year's backfill lists the same items daily).
@lru_cache(maxsize=65536)
def pending_key(verification_key: str) -> str:
    """The key of the pending item standing for a stored verification key."""
    return _key(PENDING, verification_key)


@lru_cache(maxsize=65536)
def engineering_key(name: str) -> str:
    """The key of an engineering increment of this name (case and spacing do not count)."""
    return _key(ENGINEERING, _SPACE.sub(" ", name).strip().casefold())


def key_prefix(text: str) -> str | None:
    """The kind of item a key names (PENDING, ENGINEERING), or None when `text` is no item key."""
    found = ITEM_KEY.match(text.strip().lower())
    return found.group(1) if found else None
