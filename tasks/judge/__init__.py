"""Judgment stages: topic relevance, dedup against anchors, density."""
