"""Fixed wording of the static site and the feed that the markdown labels (`tasks.briefing.labels`) lack."""

from __future__ import annotations

ZH: dict[str, str] = {
    "site_title": "E1 预消化简报",
    "topic_title": "{topic} · E1 预消化简报",
    "feed_title": "{topic} · E1 预消化简报",
    "feed_subtitle": "predigest 每晚为 {topic} 发布的预消化简报，附诚实度声明",
    "date": "日期",
    "density": "密度",
    "score": "得分",
    "net_new": "NET-new",
    "latest": "最新一期",
    "briefings": "全部简报",
    "topics": "主题",
    "chart": "增量密度随时间变化",
    "chart_desc": "每个日期一根柱，高度为密度得分；得分为 0 的日期是一道细框，没有简报的日期留空",
    "subscribe": "订阅 Atom",
    "as_markdown": "markdown",
    "as_json": "JSON",
    "all_dates": "{topic} 全部日期",
    "all_topics": "全部主题",
    "increments_of_day": "本期增量",
    "no_increments": "本期无增量。",
    "none_yet": "尚未发布简报。",
    "read_page": "阅读全文",
    "published": "{topic} {date} 简报已发布：密度「{density}」，NET-new {net_new} 条",
}

EN: dict[str, str] = {
    **ZH,
    "site_title": "E1 pre-digest briefings",
    "topic_title": "{topic} · E1 pre-digest briefings",
    "feed_title": "{topic} · E1 pre-digest briefings",
    "feed_subtitle": "The evening pre-digest briefings predigest publishes for {topic}, with their honesty statements",
    "date": "Date",
    "density": "Density",
    "score": "Score",
    "latest": "Latest",
    "briefings": "All briefings",
    "topics": "Topics",
    "chart": "Increment density over time",
    "chart_desc": "one bar per date, its height the density score; a score of 0 is a thin outlined mark, a date without a briefing a gap",
    "subscribe": "Subscribe (Atom)",
    "all_dates": "every {topic} date",
    "all_topics": "all topics",
    "increments_of_day": "Increments",
    "no_increments": "No increments in this briefing.",
    "none_yet": "No briefing published yet.",
    "read_page": "Read the briefing",
    "published": "{topic} {date} briefing published: density \"{density}\", {net_new} NET-new",
}

SITE_LABELS: dict[str, dict[str, str]] = {"zh": ZH, "en": EN}
