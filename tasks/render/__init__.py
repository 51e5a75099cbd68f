"""The briefing as text: markdown, its JSON twin, the sources table, the fixed wording and the cuts."""
