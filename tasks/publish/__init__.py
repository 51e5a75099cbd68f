"""Publishing briefings to object storage (a local folder or S3), idempotently."""

from tasks.model.keys import INDEX_KEY, briefing_keys, validate_topic
from tasks.publish.objects import (
    IndexEntry,
    PublishedBriefing,
    briefing_content_hash,
    publish_briefing,
    put_if_changed,
    read_index,
    update_index,
)
from tasks.publish.storage import LocalStore, ObjectStore, S3Store, open_store

__all__ = [
    "INDEX_KEY",
    "IndexEntry",
    "LocalStore",
    "ObjectStore",
    "PublishedBriefing",
    "S3Store",
    "briefing_content_hash",
    "briefing_keys",
    "open_store",
    "publish_briefing",
    "put_if_changed",
    "read_index",
    "update_index",
    "validate_topic",
]
