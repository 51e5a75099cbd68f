"""Engineering increments: candidates from notes, one per thing across sources, novelty and naming."""
