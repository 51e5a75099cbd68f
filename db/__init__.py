"""Postgres schema, engine/session and alembic migrations for predigest."""
