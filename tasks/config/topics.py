"""Topic configuration: which topics exist, their schedules, and the vocabulary that marks relevance."""

from __future__ import annotations

import copy
import logging
import re
import stat
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tasks.config.judgment import Judgment, TopicTerms, default_judgment, load_config, make_judgment
from tasks.config.settings import Settings

WORKSPACE_TOPICS_FILE = "predigest-topics.toml"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Topic:
    """One topic as the briefing stage needs it."""

    name: str
    timezone: str
    schedule: str
    terms: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=())
    merge_time: str = "12:00"  # the next noon update (HH:MM in `timezone`) merges this topic's increments
    # Word lists and weights of judgment, with every known topic's names and vocabulary.
    judgment: Judgment = field(default_factory=default_judgment)

    @property
    def names(self) -> tuple[str, ...]:
        """The topic's own names, used when a source says what it is (not) about."""
        return tuple(dict.fromkeys((self.name, *self.aliases)))


def _load_toml(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def _packaged_defaults() -> dict[str, Any]:
    """A fresh copy of the packaged topics.toml (callers may change what they are given)."""
    return copy.deepcopy(_parsed_packaged_defaults())


@lru_cache(maxsize=1)
def _parsed_packaged_defaults() -> dict[str, Any]:
    # Read once: the packaged file does not change while the process runs, and every file ingested
    # asks for the topics.
    text = resources.files("tasks.config").joinpath("topics.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = {"defaults": {**base.get("defaults", {}), **override.get("defaults", {})}, "topics": {}}
    for name in set(base.get("topics", {})) | set(override.get("topics", {})):
        merged["topics"][name] = {**base.get("topics", {}).get(name, {}), **override.get("topics", {}).get(name, {})}
    return merged


# A topic name becomes a storage key, a URL segment and a heading: only a plain slug qualifies
# (ASCII letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters).
_SAFE_TOPIC = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
KNOWLEDGE_DIR = ("organized", "knowledge")


def is_safe_topic_name(name: str) -> bool:
    """Whether `name` can be a topic: ASCII letters, digits, '-' and '_', starting with a letter or digit."""
    return _SAFE_TOPIC.fullmatch(name) is not None


@dataclass(frozen=True)
class KnowledgeFolder:
    """What `organized/knowledge/` holds: the topics (real documents), and every other `*.md`
    entry with why it is no topic (workspace-relative path, reason)."""

    topics: tuple[str, ...]
    rejected: tuple[tuple[str, str], ...]


def _why_not_a_topic(entry: Path, inside: bool) -> str | None:
    """Why the entry is no topic's document, or None when it is one: a regular file (not a
    symlink, even to a file inside), inside the workspace, with a safe slug name."""
    if not inside:
        return "the knowledge folder leads outside the workspace; not followed"
    try:
        mode = entry.lstat().st_mode
    except OSError as exc:
        return f"cannot stat: {exc.strerror or exc}"
    if stat.S_ISLNK(mode):
        return "symlink; a topic needs a regular file"
    if not stat.S_ISREG(mode):
        return "directory" if stat.S_ISDIR(mode) else "not a regular file (device, fifo or socket)"
    if not is_safe_topic_name(entry.stem):
        return "file name is not a safe topic name (ASCII letters, digits, '-' and '_', starting with a letter or digit)"
    return None


def knowledge_folder(workspace: Path) -> KnowledgeFolder:
    """The topics that have a knowledge document in the workspace (sorted), and the `*.md`
    entries of `organized/knowledge/` that are none, each with its reason."""
    folder = workspace.joinpath(*KNOWLEDGE_DIR)
    try:
        if not folder.is_dir():
            return KnowledgeFolder((), ())
        inside = folder.resolve(strict=True).is_relative_to(workspace.resolve(strict=True))
        entries = sorted(p for p in folder.iterdir() if p.name.endswith(".md"))
    except (OSError, RuntimeError):  # an unreadable folder or a symlink loop: no topics
        return KnowledgeFolder((), ())
    topics, rejected = [], []
    for entry in entries:
        reason = _why_not_a_topic(entry, inside)
        if reason is None:
            topics.append(entry.stem)
        else:
            rejected.append(("/".join((*KNOWLEDGE_DIR, entry.name)), reason))
    return KnowledgeFolder(tuple(sorted(topics)), tuple(rejected))


def no_document(topic: str) -> str:
    """The one line that refuses to brief a topic with no knowledge document (configured only), and
    says how to make it briefable."""
    if not is_safe_topic_name(topic):  # the true reason: no file could ever be its document
        return (f"invalid topic {topic!r}: a topic is ASCII letters, digits, '-' and '_', starting with a letter "
                "or digit, at most 64 characters")
    path = "/".join((*KNOWLEDGE_DIR, f"{topic}.md"))
    return (f"topic {topic!r} has no knowledge document: create {path} (a title `# {topic}` and a line "
            "`version: v1` are enough to start; what it anchors is the baseline every paper is checked against) "
            "and run again; without one every paper would be called NET-new")


def discover_topics(workspace: Path) -> list[str]:
    """Topics that have a knowledge document in the workspace, sorted (`knowledge_folder`)."""
    return list(knowledge_folder(workspace).topics)


def load_topic_config(settings: Settings, workspace: Path) -> dict[str, Any]:
    """Packaged defaults, then the workspace's file, then PREDIGEST_TOPICS_FILE."""
    config = _packaged_defaults()
    for candidate in (workspace / WORKSPACE_TOPICS_FILE, settings.topics_file):
        if candidate is not None and Path(candidate).is_file():
            try:
                config = _merge(config, _load_toml(Path(candidate)))
            except (OSError, ValueError, AttributeError, TypeError) as exc:
                # A broken or oddly shaped file is skipped, said loudly, and the run goes on on the defaults.
                log.warning("topic configuration %s skipped: %s: %s", candidate, type(exc).__name__, exc)
    return config


def resolve_topic(
    name: str, settings: Settings, workspace: Path, config: dict[str, Any] | None = None,
    judgment: Judgment | None = None,
) -> Topic:
    """The configuration of one topic; unknown topics get the defaults and their own name as vocabulary.
    `judgment`, when given, is `judgment_for(settings, workspace, config)` (the same for every topic)."""
    config = config if config is not None else load_topic_config(settings, workspace)
    defaults = config.get("defaults", {})
    judgment = judgment if judgment is not None else judgment_for(settings, workspace, config)
    entry = config.get("topics", {}).get(name, {})
    schedule = entry.get("schedule") or defaults.get("schedule") or settings.default_schedule
    return Topic(
        name=name,
        timezone=entry.get("timezone") or defaults.get("timezone") or settings.timezone,
        schedule=schedule,
        terms=tuple(entry.get("terms", ())),
        aliases=tuple(entry.get("aliases", ())),
        merge_time=str(entry.get("merge_time") or defaults.get("merge_time") or settings.merge_time),
        judgment=judgment,
    )


def topic_terms(name: str, config: dict[str, Any]) -> TopicTerms:
    """A topic's names and vocabulary, as evidence of ownership reads them."""
    entry = config.get("topics", {}).get(name, {})
    names = tuple(dict.fromkeys((name, *entry.get("aliases", ()))))
    return TopicTerms(name, names, tuple(dict.fromkeys((*names, *entry.get("terms", ())))),
                      tuple(str(t) for t in entry.get("tags", ())))


def judgment_for(settings: Settings, workspace: Path, config: dict[str, Any] | None = None) -> Judgment:
    """The workspace's judgment configuration, knowing every configured or discovered topic."""
    config = config if config is not None else load_topic_config(settings, workspace)
    names = sorted(set(all_topic_names(config)) | set(discover_topics(workspace)) | set(settings.topics))
    return make_judgment(load_config(workspace, settings.judgment_file), tuple(topic_terms(n, config) for n in names),
                         settings.lang)


def all_topic_names(config: dict[str, Any]) -> list[str]:
    """Every topic the configuration knows, including those with no knowledge document here."""
    return sorted(config.get("topics", {}))
