"""Judgment stages: topic relevance, density, key points, ranking (dedup against anchors: tasks.knowledge.parse)."""
