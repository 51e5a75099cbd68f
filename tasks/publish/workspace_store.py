"""One store per workspace: a store records the workspace it publishes for and refuses any other.

The default store is the workspace's own folder under home (`Settings.storage_root_url`:
`published/<workspace key>`). A store named by PREDIGEST_STORAGE_URL is used as set (its keys are
public addresses), so two workspaces pointed at it would write the same keys
(`briefings/<topic>/<date>.md`) over each other's briefings, and a page of one would link objects
left by the other. So the first publish records its workspace's key (`workspace_key`: the folder's
name and a hash of its absolute path, never the path itself) in `predigest-workspace.json` at the
store's root, and every publish, and the CLI before it starts, checks that record first.
"""

from __future__ import annotations

import json
from pathlib import Path

from tasks.common.jsontext import json_text
from tasks.config.settings import Settings, workspace_key
from tasks.publish.objects import JSON_CONTENT_TYPE
from tasks.publish.storage import ObjectStore, store_for

OWNER_KEY = "predigest-workspace.json"


class StoreTaken(RuntimeError):
    """The store publishes the briefings of another workspace."""


def recorded_owner(store: ObjectStore) -> str | None:
    """The workspace key the store records, or None when it records none yet; StoreTaken when its
    record is not one predigest wrote (it is never overwritten)."""
    raw = store.get(OWNER_KEY)
    if raw is None:
        return None
    try:
        owner = json.loads(raw.decode("utf-8"))["workspace"]
    except (ValueError, TypeError, KeyError) as exc:
        raise StoreTaken(f"{store.url_for(OWNER_KEY)} is not predigest's record of the store's workspace "
                         f"({type(exc).__name__}); nothing is published there") from exc
    return str(owner)


def check_owner(store: ObjectStore, workspace: Path) -> bool:
    """Whether the store records `workspace` already (False: it records none yet); StoreTaken naming
    both when it records another."""
    key, owner = workspace_key(workspace), recorded_owner(store)
    if owner is not None and owner != key:
        raise StoreTaken(
            f"{store.url_for(OWNER_KEY)} says this store publishes the briefings of workspace {owner}, not of "
            f"{workspace} ({key}); give each workspace its own PREDIGEST_STORAGE_URL (or unset it: the default "
            "is the workspace's own folder under PREDIGEST_HOME)")
    return owner is not None


def claim_store(store: ObjectStore, workspace: Path) -> None:
    """Record `workspace` as the store's, unless it is already (one read per publish after the first)."""
    if not check_owner(store, workspace):
        record = json_text({"workspace": workspace_key(workspace)}) + "\n"
        store.put(OWNER_KEY, record.encode("utf-8"), JSON_CONTENT_TYPE)


def workspace_store(settings: Settings, workspace: Path | str | None = None) -> ObjectStore:
    """The store the workspace (default: the settings') publishes to, claimed for it (`claim_store`);
    with no workspace at all, the configured store as it is."""
    root = workspace if workspace is not None else settings.workspace
    if root is None:
        return store_for(settings)
    store = store_for(settings.model_copy(update={"workspace": Path(root)}))
    claim_store(store, Path(root))
    return store
