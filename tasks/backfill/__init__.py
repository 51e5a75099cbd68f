"""Backfill: past dates planned as jobs, run in date order over lanes, and the runs recorded."""
