"""Work queue: parse the dated Top-15 snapshots."""
