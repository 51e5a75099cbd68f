"""The network clients a run uses; tests replace `http_client` with a replay of recorded responses
(and hand the same double to `ArxivLookup`)."""

from __future__ import annotations

from tasks.config.settings import Settings
from tasks.feeds.arxiv_api import ArxivLookup
from tasks.feeds.http import HttpClient, UrllibHttpClient


def http_client(settings: Settings) -> HttpClient:
    """The real HTTP client, identified by the configured contact address."""
    return UrllibHttpClient(contact=settings.contact_email)


def arxiv_lookup(settings: Settings) -> ArxivLookup:
    """One lookup instance per run (arxiv.Client over requests), so the 3 s spacing holds across its batches."""
    return ArxivLookup(contact=settings.contact_email)
