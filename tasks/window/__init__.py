"""The window a briefing reads: its entries, mentions, anchors, reader verdicts and papers as judged."""
