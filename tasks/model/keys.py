"""Where every published object lives: the one builder of object keys, and of the relative links between them.

Keys under the store (each writer and reader builds them here, so none can disagree with another):
- `briefings/index.json`                               every briefing (`INDEX_KEY`)
- `briefings/index.html`                               the site index: each topic with its latest briefing
- `briefings/<topic>/<date>.md|.json|.html`            a briefing, its JSON twin and its page
- `briefings/<topic>/index.html|atom.xml|site.json`    a topic's index page, feed and date summaries
- `briefings/<topic>/<date>.knowledge.diff|.knowledge.md`  the noon merge proposal
- `notifications/<topic>/<date>/<content hash>/<destination digest>.json`  a delivered notification
The default language's objects keep the keys they had before briefings came in several languages;
every other language gets its own, the language before the suffix (`<date>.en.md`, `atom.en.xml`,
`index.en.html`), so one never overwrites another. The merge proposal is one per briefing date,
whatever the language (the knowledge document is one).
"""

from __future__ import annotations

import datetime as dt
import re

from tasks.config.settings import Settings

ROOT = "briefings"
INDEX_KEY = f"{ROOT}/index.json"
DEFAULT_LANG: str = Settings.model_fields["lang"].default
PROPOSAL_SUFFIXES = (".knowledge.diff", ".knowledge.md")

_TOPIC = re.compile(r"[A-Za-z0-9._-]+")
_LANG = re.compile(r"[a-z]{2,8}")  # a language code, and the name of a topic-wide object
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TWIN_KEY = re.compile(rf"{ROOT}/([^/]+)/(\d{{4}}-\d{{2}}-\d{{2}})(?:\.([a-z]{{2,8}}))?\.json")


def validate_topic(topic: str) -> str:
    """Return `topic` if it is a safe key segment (ASCII letters, digits, '-', '_', '.'), else raise ValueError."""
    # "." and ".." pass the character check but are path traversal; "index.json" would collide with the index.
    if not _TOPIC.fullmatch(topic) or topic in (".", "..", "index.json"):
        raise ValueError(f"invalid topic {topic!r}: use ASCII letters, digits, '-', '_' and '.' only")
    return topic


def lang_suffix(lang: str, suffix: str) -> str:
    """`suffix` (".html") for the default language, else with the language before it (".en.html")."""
    if not _LANG.fullmatch(lang):
        raise ValueError(f"invalid language {lang!r}: use a lower-case language code such as 'zh' or 'en'")
    return suffix if lang == DEFAULT_LANG else f".{lang}{suffix}"


def object_name(stem: dt.date | str, lang: str, suffix: str) -> str:
    """The name of one of a topic's objects inside its folder: `<stem>[.<lang>]<suffix>`, where `stem` is
    a briefing's date (`2026-10-09.en.md`; a date or its ISO text) or a topic-wide object's name (`atom.en.xml`)."""
    # A datetime is a date subclass, but truncating it would silently ignore the topic's timezone.
    if isinstance(stem, dt.datetime) or not isinstance(stem, dt.date | str):
        raise TypeError(f"briefing date must be a datetime.date, got {type(stem).__name__}")
    if isinstance(stem, str) and not (_LANG.fullmatch(stem) or _ISO_DATE.fullmatch(stem)):
        raise ValueError(f"invalid object name {stem!r}: a date or lower-case letters only")  # never a path
    name = stem.isoformat() if isinstance(stem, dt.date) else stem
    return f"{name}{lang_suffix(lang, suffix)}"


def topic_folder(topic: str) -> str:
    """`briefings/<topic>`: the folder of a topic's objects."""
    return f"{ROOT}/{validate_topic(topic)}"


def object_key(topic: str, stem: dt.date | str, lang: str, suffix: str) -> str:
    """The key of one of a topic's objects: `briefings/<topic>/<object_name>`."""
    return f"{topic_folder(topic)}/{object_name(stem, lang, suffix)}"


def topic_site_key(topic: str, lang: str) -> str:
    """`briefings/<topic>[.<lang>]`: a topic's site in one language as a whole (its feed's id is made from it)."""
    return f"{topic_folder(topic)}{lang_suffix(lang, '')}"


def briefing_keys(topic: str, date: dt.date, lang: str = DEFAULT_LANG) -> tuple[str, str]:
    """Return the (markdown, json) keys `briefings/<topic>/<YYYY-MM-DD>[.<lang>].md|.json`."""
    if not isinstance(date, dt.date):
        raise TypeError(f"briefing date must be a datetime.date, got {type(date).__name__}")
    return object_key(topic, date, lang, ".md"), object_key(topic, date, lang, ".json")


def twin_key_parts(key: str) -> tuple[str, str, str] | None:
    """(topic, ISO date, language) of a key shaped like a JSON twin's (`briefing_keys`); None for any
    other key. The parts are not validated: `briefing_keys` of them says whether it really is one."""
    match = _TWIN_KEY.fullmatch(key)
    return (match[1], match[2], match[3] or DEFAULT_LANG) if match else None


def topic_names(lang: str) -> dict[str, str]:
    """The names, inside the topic's folder, of its index page, feed and date summaries in `lang`."""
    return {"topic_index": object_name("index", lang, ".html"), "feed": object_name("atom", lang, ".xml"),
            "summaries": object_name("site", lang, ".json")}


def topic_keys(topic: str, lang: str) -> dict[str, str]:
    """The keys of a topic's index page, feed and date summaries in `lang`."""
    return {what: f"{topic_folder(topic)}/{name}" for what, name in topic_names(lang).items()}


def site_keys(topic: str, date: dt.date, lang: str) -> dict[str, str]:
    """The keys of a briefing's page and of its topic's index page, feed and summaries, in `lang`."""
    return {"page": object_key(topic, date, lang, ".html"), **topic_keys(topic, lang)}


def site_index_name(lang: str) -> str:
    """The site index's name inside `briefings/` (`index.html`, `index.en.html`)."""
    return object_name("index", lang, ".html")


def site_index_key(lang: str) -> str:
    """`briefings/index.html` (`index.en.html` for English): every topic with its latest briefing."""
    return f"{ROOT}/{site_index_name(lang)}"


def proposal_names(date: dt.date | str) -> tuple[str, str]:
    """The (diff, proposed document) names inside the topic's folder, one pair per briefing date."""
    diff, document = PROPOSAL_SUFFIXES
    return object_name(date, DEFAULT_LANG, diff), object_name(date, DEFAULT_LANG, document)


def proposal_keys(topic: str, date: dt.date) -> tuple[str, str]:
    """The (diff, proposed document) keys `briefings/<topic>/<YYYY-MM-DD>.knowledge.diff|.knowledge.md`;
    the twin names them and the publisher writes them."""
    return tuple(f"{topic_folder(topic)}/{name}" for name in proposal_names(date))  # type: ignore[return-value]


def notification_key(topic: str, date: dt.date, content_hash: str, destination_digest: str) -> str:
    """The marker of one delivered notification: `notifications/<topic>/<date>/<content hash>/<digest>.json`."""
    return f"notifications/{validate_topic(topic)}/{date.isoformat()}/{content_hash}/{destination_digest}.json"
