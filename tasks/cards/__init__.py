"""Paper cards: parse one card file."""
