"""Pending verifications: raised from hedges, lookups, conflicting numbers and lapsed promises; aged and resolved."""
