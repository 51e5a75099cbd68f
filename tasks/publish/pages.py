"""HTML pages of the static site, rendered by Jinja2 (autoescape on) from a briefing's content.

The content is the briefing's view (`tasks.render.twin.briefing_view` of the content
model, made once per briefing by `tasks.publish.rendered`), the value its JSON twin is written from,
so the page says exactly what the JSON says; the index pages and feed take each date's summary
(`date_summary` of the view), which can be rebuilt from what is stored for every date. Templates are package data under `templates/`; every
text from a workspace reaches them as a plain value (escaped) or through `note_html` (sanitised).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from tasks.common.urls import safe_url
from tasks.model.keys import object_name, proposal_names, site_index_name, topic_names
from tasks.publish.chart import density_chart
from tasks.publish.safety import arxiv_url, clean_text, note_html
from tasks.render.labels import DENSITY, DENSITY_LEVELS, LABELS, feed_problems_text, short_title
from tasks.render.shown import SHOWN, source_rows
from tasks.render.summary import merge_line, summary_lines


def source_parts(path: str) -> tuple[str, str]:
    """A source's folder (the person, for `inbox/<person>/<file>`) and its file name; a feed URI or a
    bare name has no folder. The page shows these two and keeps the full path for hovering."""
    if "://" in path or "/" not in path.strip("/"):
        return "", path
    folder, _, name = path.strip("/").rpartition("/")
    return folder.rpartition("/")[2], name


def header(text: str) -> str:
    """A column header whose words break only at spaces: its hyphens do not break ("NET-new")."""
    return text.replace("-", "\u2011")


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("tasks.publish", "templates"),
        autoescape=select_autoescape(["html", "xml"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(note=note_html, text=clean_text, arxiv=arxiv_url, safe_url=safe_url, short=short_title,
                       source_parts=source_parts, header=header)
    # The markdown's cuts of long lists and its section 五, so the page says the same.
    env.globals.update(shown=SHOWN, source_rows=source_rows, summary_lines=summary_lines,
                       merge_line=merge_line)
    return env


ENV = _environment()


def labels_for(lang: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """(language, its wording table, its density names); unknown languages fall back to zh."""
    lang = lang if lang in LABELS else "zh"
    return lang, LABELS[lang], DENSITY[lang]


def heading(label: str) -> str:
    """A markdown heading label ("## 一、…") as heading text."""
    return label.lstrip("#").strip()


OPTIONAL_SUMMARY_FIELDS = frozenset({"feed_problems"})  # in a summary only when the briefing has them


def date_summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the topic's index page and feed, the artifact and the notifications need of one
    briefing, taken from its view (equal to its JSON twin parsed back)."""
    increments = doc.get("increments") or []
    outcomes = Counter(str(s.get("outcome") or "") for s in doc.get("sources") or [])
    return {
        "date": doc["date"],
        "cutoff": doc.get("cutoff"),
        "density": doc.get("density"),
        "density_score": doc.get("density_score"),
        "density_rule": doc.get("density_rule"),
        "density_numbers": doc.get("density_numbers"),  # the rule's thresholds: the chart's bands
        "counts": dict(doc.get("counts") or {}),
        "increments": [{"arxiv_id": p.get("arxiv_id"), "title": p.get("title") or "", "status": p.get("status")}
                       for p in increments],
        # The knowledge document is listed as the baseline, not as a source checked for increments.
        "checked": sum(n for outcome, n in outcomes.items() if outcome != "baseline"),
        "outcomes": {k: v for k, v in sorted(outcomes.items()) if k},
        "errors": [s["path"] for s in doc.get("sources") or [] if s.get("error")],
        # Only when the briefing names a feed problem, as in its JSON twin.
        **({"feed_problems": list(doc["feed_problems"])} if doc.get("feed_problems") else {}),
    }


def statement(summary: Mapping[str, Any], lang: str) -> str:
    """The honest density statement of one briefing (the markdown's wording, from the stored facts)."""
    lang, L, density = labels_for(lang)
    by_status: dict[str, list[str]] = {"net_new": [], "engineering": [], "adjacent": []}
    for p in summary["increments"]:
        by_status.setdefault(str(p["status"]), []).append(short_title(p["title"]))

    def names(status: str) -> str:
        return L["names"].format(names="/".join(by_status[status])) if by_status[status] else ""

    counts = L["counts"].format(net_new=len(by_status["net_new"]), net_names=names("net_new"),
                                engineering=len(by_status["engineering"]), eng_names=names("engineering"),
                                adjacent=len(by_status["adjacent"]), adj_names=names("adjacent"))
    parts = [L[f"outcome_{o}"].format(n=summary["outcomes"][o], paths=L["list_sep"].join(summary["errors"]))
             for o in ("increments", "confirmatory", "off_topic", "error") if summary["outcomes"].get(o)]
    checked = L["checked"].format(n=summary["checked"], parts=L["sep"].join(parts) or L["none"])
    text = L["honesty"].format(density=density.get(str(summary["density"]), str(summary["density"])),
                               counts=counts, checked=checked,
                               feeds=feed_problems_text(summary.get("feed_problems") or [], L), cards="", main="")
    return clean_text(text)


def page_name(lang: str) -> Callable[[str], str]:
    """A briefing's page name inside its topic's folder from its ISO date, in `lang` (`2026-10-09.en.html`)."""
    return lambda date: object_name(date, lang, ".html")


def _links(date: str | None, site_url: str | None, lang: str) -> dict[str, str]:
    """Relative links between the site's pages of one language (they work from a folder, a bucket or a web server)."""
    topic = topic_names(lang)
    merge_diff, merge_document = proposal_names(date) if date else ("", "")
    return {"topic_index": topic["topic_index"], "atom": topic["feed"], "root_index": f"../{site_index_name(lang)}",
            **({"markdown": object_name(date, lang, ".md"), "json": object_name(date, lang, ".json"),
                "merge_diff": merge_diff, "merge_document": merge_document} if date else {}),
            "site": safe_url(site_url) or ""}


def render_page(doc: Mapping[str, Any], lang: str, site_url: str | None = None) -> bytes:
    """The briefing's own page, `briefings/<topic>/<date>.html`."""
    key_lang = lang
    lang, L, density = labels_for(lang)
    summary = date_summary(doc)
    page = ENV.get_template("briefing.html").render(
        doc=doc, L=L, D=density, lang=lang, heading=heading, statement=statement(summary, lang),
        links=_links(str(doc["date"]), site_url, key_lang),
        title=L["title"].format(topic=doc["topic"], date=doc["date"]),
    )
    return page.encode("utf-8")


def render_topic_index(topic: str, summaries: Sequence[Mapping[str, Any]], lang: str) -> bytes:
    """`briefings/<topic>/index.html`: every date (newest first) with its density and NET-new count, and the chart."""
    key_lang = lang
    lang, L, density = labels_for(lang)
    ordered = sorted(summaries, key=lambda s: str(s["date"]))
    page = ENV.get_template("topic.html").render(
        topic=topic, rows=list(reversed(ordered)), chart=density_chart(ordered), L=L, D=density, lang=lang,
        levels=DENSITY_LEVELS, links=_links(None, None, key_lang), page_name=page_name(key_lang),
        latest_statement=statement(ordered[-1], lang) if ordered else "",
    )
    return page.encode("utf-8")


def render_root_index(latest: Sequence[tuple[str, Mapping[str, Any]]], lang: str) -> bytes:
    """`briefings/index.html`: each topic with its latest briefing."""
    key_lang = lang
    lang, L, density = labels_for(lang)
    page = ENV.get_template("index.html").render(latest=sorted(latest, key=lambda t: t[0]), L=L, D=density,
                                                 lang=lang, names=topic_names(key_lang), page_name=page_name(key_lang))
    return page.encode("utf-8")


def render_entry_html(summary: Mapping[str, Any], lang: str) -> str:
    """The increments of one briefing as a small HTML fragment (a feed entry's content, a message's body)."""
    lang, L, density = labels_for(lang)
    return ENV.get_template("entry.html").render(summary=summary, L=L, D=density, lang=lang,
                                                 statement=statement(summary, lang))

