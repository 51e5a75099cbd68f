"""Briefing stage: collect a window from Postgres, judge it, render markdown and JSON."""
