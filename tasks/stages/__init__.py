"""The stages as plain functions over ids and settings, one module per stage (flows/stage_tasks.py runs them as Prefect tasks)."""
