"""rest.call speaks JSON to a local HTTP server: GET without a body, POST with one, the answer
decoded (None when empty), an error status raised as HTTPError with its code for the caller to
judge (404: no such pool; 409: created meanwhile). healthy() is true only for a JSON 200."""

from __future__ import annotations

import json
import threading
import urllib.error
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from predigest import rest
from predigest.processes import healthy


class _Api(BaseHTTPRequestHandler):
    seen: list[tuple[str, str, object]] = []

    def _answer(self, body: object) -> None:
        self.seen.append((self.command, self.path, body))
        if self.path.startswith("/missing"):
            self.send_error(404)
            return
        raw = b"" if self.path == "/empty" else b"<html>" if self.path == "/html/health" else json.dumps(
            {"echo": body}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler's name
        self._answer(None)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers["Content-Length"])
        assert self.headers["Content-Type"] == "application/json"
        self._answer(json.loads(self.rfile.read(length)))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Api.seen.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_get_and_post_as_json(api: str) -> None:
    assert rest.call(api, "/pools/x") == {"echo": None}
    assert rest.call(api, "/flows/filter", {}) == {"echo": {}}
    assert rest.call(api, "/empty") is None
    assert [(m, p) for m, p, _ in _Api.seen] == [("GET", "/pools/x"), ("POST", "/flows/filter"), ("GET", "/empty")]


def test_an_error_status_is_raised_with_its_code(api: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as raised:
        rest.call(api, "/missing")
    assert raised.value.code == 404


def test_healthy_only_for_a_json_answer(api: str) -> None:
    assert healthy(api)
    assert not healthy(f"{api}/html")  # another program on the port: 200, but no JSON
    assert not healthy(f"{api}/missing")  # an error status
