"""The noon merge: a briefing's increments proposed into the knowledge document, and its changelog."""
