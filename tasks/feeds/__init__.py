"""Feed clients: HF Daily Papers, arXiv listings (RSS/Atom) and arXiv API metadata, behind one HTTP seam.

Modules: `http` (client protocol, urllib client, replay doubles), `model` (FeedSnapshot/FeedItem
rows), `hf_daily`, `arxiv_rss`, `arxiv_api` (lookups with the `arxiv` package's client, `arxiv_client`). Plain functions and small classes; no database here.
"""
