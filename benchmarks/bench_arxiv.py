"""arXiv metadata lookups for 1,000 unknown ids, counted through `ReplayHttpClient`.

A workspace of 50 notes names 1,000 distinct arXiv ids (20 a note), none of them in `papers` yet.
`tasks.feeds.stage.lookup_papers` looks them up through `ArxivLookup`, an `arxiv.Client` whose
requests session is answered by the replay client (100 ids a request, 3 s apart:
a fake clock records the waits instead of sleeping) against a replay client that answers each
`id_list` with Atom entries for all but every tenth id (arXiv does not know those). Then the same
stage runs again: every id is now known (found or unknown), so it must send nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.harness import Databases, Result, fresh_database, settings_for, temp_dir, timed

IDS = 1_000
PER_NOTE = 20


def _ids() -> list[str]:
    return [f"2609.{10000 + 7 * k:05d}" for k in range(IDS)]


def _write_workspace(root: Path, ids: list[str]) -> None:
    for n in range(IDS // PER_NOTE):
        lines = [f"# Reading list {n}", ""]
        for k, arxiv_id in enumerate(ids[n * PER_NOTE : (n + 1) * PER_NOTE]):
            lines += [f"## 条目{k + 1} · Paper {arxiv_id}（arXiv:{arxiv_id}）", "", "- vLLM serving, 1.5× throughput.", ""]
        path = root / "inbox" / "amy" / f"2026-09-{1 + n % 28:02d}T{10 + n % 10:02d}00-amy-list-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")


def _atom(ids: list[str]) -> bytes:
    entries = "".join(
        f"<entry><id>http://arxiv.org/abs/{i}v1</id><title>Paper {i}</title><summary>About {i}.</summary>"
        f"<published>2026-09-02T00:00:00Z</published><updated>2026-09-02T00:00:00Z</updated>"
        f"<author><name>A. Author</name></author><arxiv:primary_category term=\"cs.LG\"/>"
        f"<category term=\"cs.LG\"/></entry>"
        for i in ids if int(i.split(".")[1]) % 10 != 3  # ~every tenth id is unknown to arXiv
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"<opensearch:totalResults>{len(ids)}</opensearch:totalResults>{entries}</feed>"
    ).encode()


def _replay() -> Any:
    from tasks.feeds.http import HttpResponse, ReplayHttpClient

    def answer(_url: str, params: Any) -> HttpResponse:
        return HttpResponse(200, _atom(params.get("id_list", "").split(",")), {"content-type": "application/atom+xml"})

    return ReplayHttpClient({(lambda url, _params: "export.arxiv.org/api/query" in url): answer})


def bench_arxiv(dbs: Databases) -> Result:
    from tasks.feeds.arxiv_api import ArxivLookup
    from tasks.feeds.http import FakeClock
    from tasks.feeds.stage import lookup_papers
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    result = Result(f"arXiv metadata for {IDS:,} unknown ids (counted through the replay client)",
                    "python -m benchmarks --only arxiv")
    ids = _ids()
    with temp_dir("arxiv") as tmp, fresh_database(dbs, "arxiv") as url:
        _write_workspace(tmp / "workspace", ids)
        settings = settings_for(url, tmp)
        ref = register_workspace(settings, tmp / "workspace")
        ingest_batch(settings, ref, find_changed_files(settings, ref))
        client, clock = _replay(), FakeClock()
        lookup = ArxivLookup(client, sleep=clock.sleep, clock=clock.monotonic)
        with timed() as first:
            summary = lookup_papers(settings, ref.id, lookup)
        first_requests = client.count
        with timed() as second:
            again = lookup_papers(settings, ref.id, ArxivLookup(client, sleep=clock.sleep, clock=clock.monotonic))
        second_requests = client.count - first_requests
    result.add("ids asked (first run)", summary.asked, "count",
               f"{summary.found} found, {summary.unknown} unknown to arXiv, errors {len(summary.errors)}")
    result.add("requests, first run", first_requests, "count")
    result.add("requests per 100 unknown ids", first_requests * 100 / IDS, "count")
    result.add("polite waiting arXiv asks for (3 s apart, fake clock)", sum(clock.sleeps), "s")
    result.add("wall time of the first run (no real waiting)", first(), "s")
    result.add("ids asked / requests, second run (all known)", again.asked, "count",
               f"{second_requests} requests, {second():.2f} s")
    result.check("requests per 100 unknown ids", first_requests * 100 / IDS, 1.0, "count")
    result.check("requests for known ids", second_requests, 0, "count")
    if summary.found + summary.unknown != IDS:
        raise AssertionError(f"lookup resolved {summary.found + summary.unknown} of {IDS} ids")
    return result
