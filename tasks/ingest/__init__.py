"""Ingestion: workspace files to source, item and mention rows."""
