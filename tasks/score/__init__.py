"""Scoring published briefings against labelled evenings (`predigest score`)."""
