"""The stages as plain functions over ids and settings, one module per stage (see tasks.run)."""
