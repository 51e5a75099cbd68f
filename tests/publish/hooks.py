"""A local HTTP server that records JSON POSTs (a stand-in for webhook endpoints), for notification tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Hooks:
    url: str
    status: int = 200  # what the endpoint answers; anything else counts as a failed delivery
    bodies: list[dict[str, Any]] = field(default_factory=list)
    failed: int = 0


@contextmanager
def serve_hooks() -> Iterator[Hooks]:
    """Serve on a free localhost port until the block ends; `Hooks.url` is the endpoint."""
    hooks = Hooks("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if hooks.status == 200:
                hooks.bodies.append(json.loads(body))
            else:
                hooks.failed += 1
            self.send_response(hooks.status)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hooks.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hooks
    finally:
        server.shutdown()
        server.server_close()
