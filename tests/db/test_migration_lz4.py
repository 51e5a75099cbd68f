"""Contract of migration 0016: on a server that can compress with lz4, the texts and JSON of items
and mentions are compressed with it (and downgrading sets them back to the server's default); on
one that cannot, nothing changes. Either way the values stored are the values read.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, text

from db.engine import downgrade_database, make_engine, upgrade_database


def _methods(engine: Engine) -> dict[tuple[str, str], str]:
    """attcompression of each text and jsonb column of items and mentions ('' when the default)."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT c.relname, a.attname, a.attcompression FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relname IN ('items', 'mentions') AND a.attnum > 0 AND NOT a.attisdropped "
            "AND a.atttypid IN ('text'::regtype, 'jsonb'::regtype)")).all()
    return {(table, column): str(method or "") for table, column, method in rows}


def _has_lz4(engine: Engine) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(text("SELECT coalesce(bool_or('lz4' = ANY(enumvals)), false) FROM pg_settings "
                                      "WHERE name = 'default_toast_compression'")).scalar())


def test_lz4_where_the_server_has_it(database_factory: Callable[[str], str]) -> None:
    engine = make_engine(database_factory("predigest_lz4"), pool_size=1)
    try:
        upgrade_database(engine)
        methods = _methods(engine)
        assert ("items", "outline") in methods and ("mentions", "context") in methods
        assert set(methods.values()) == ({"l"} if _has_lz4(engine) else {""})
        long = "长文本 " * 5000  # far past the size at which a row's values are compressed
        with engine.begin() as conn:
            ws = conn.execute(text("INSERT INTO workspaces (root) VALUES ('/ws') RETURNING id")).scalar_one()
            source = conn.execute(text(
                "INSERT INTO sources (workspace_id, path, kind, sha256, size, observed_at, time_basis) "
                "VALUES (:w, 'inbox/a/n.md', 'note', 'x', 1, now(), 'filename') RETURNING id"), {"w": ws}).scalar_one()
            conn.execute(text("INSERT INTO items (source_id, ordinal, heading, text, numbers, hedges, links, outline) "
                              "VALUES (:s, 0, '', :t, '[]', '[]', '[]', CAST(:o AS jsonb))"),
                         {"s": source, "t": long, "o": '{"paragraphs": ["' + long + '"]}'})
        with engine.connect() as conn:
            text_, outline = conn.execute(text("SELECT text, outline FROM items")).one()
        assert text_ == long and outline == {"paragraphs": [long]}
        downgrade_database(engine, "0015")
        assert set(_methods(engine).values()) == {""}
    finally:
        engine.dispose()
