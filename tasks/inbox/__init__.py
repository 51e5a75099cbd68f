"""Inbox notes: file names and the entries inside them."""
