"""A real S3 endpoint that misbehaves on demand: moto's server on 127.0.0.1 behind a local HTTP proxy
that answers chosen requests with 500 or 503, or drops their connection before or after passing
them on (the object stored, its answer lost). No network beyond the loopback."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# What the proxy does with one request: pass it on, answer with a 5xx, or drop the connection
# before passing it on ("drop") or after moto has handled it ("drop-after").
PASS, ERROR_500, ERROR_503, DROP, DROP_AFTER = "pass", "500", "503", "drop", "drop-after"
_ERROR_CODES = {ERROR_500: "InternalError", ERROR_503: "SlowDown"}
_HOP_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "proxy-connection"})


@dataclass
class FaultPlan:
    """The faults still to inject, consumed one per matching request, and every request seen."""

    faults: list[str] = field(default_factory=list)
    matches: Callable[[str, str], bool] = lambda method, path: True  # noqa: E731 - a default predicate
    seen: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, what was done)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_for(self, method: str, path: str) -> str:
        with self.lock:
            action = self.faults.pop(0) if self.faults and self.matches(method, path) else PASS
            self.seen.append((method, path, action))
            return action

    def arm(self, faults: list[str], matches: Callable[[str, str], bool] | None = None) -> None:
        with self.lock:
            self.faults = list(faults)
            self.matches = matches or (lambda method, path: True)


def _handler(upstream: tuple[str, int], plan: FaultPlan) -> type[BaseHTTPRequestHandler]:
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, and `Expect: 100-continue` answered

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def _relay(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            action = plan.next_for(self.command, self.path)
            if action in _ERROR_CODES:
                payload = (f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{_ERROR_CODES[action]}</Code>"
                           "<Message>injected fault</Message></Error>").encode()
                self.send_response(int(action))
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            if action == DROP:
                self._drop()
                return
            conn = http.client.HTTPConnection(*upstream, timeout=30)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS | {"expect"}}
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
            finally:
                conn.close()
            if action == DROP_AFTER:
                self._drop()
                return
            self.send_response(answer.status, answer.reason)
            for name, value in answer.getheaders():
                if name.lower() not in _HOP_HEADERS | {"content-length"}:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _drop(self) -> None:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _relay  # noqa: N815 - http.server's names

    return Proxy


@contextmanager
def faulty_s3_endpoint() -> Iterator[tuple[str, FaultPlan]]:
    """Yield (endpoint URL, fault plan) for a moto S3 server on 127.0.0.1 behind the fault proxy."""
    from moto.server import ThreadedMotoServer

    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    plan = FaultPlan()
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), _handler(moto.get_host_and_port(), plan))
    proxy.daemon_threads = True
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}", plan
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join()
        moto.stop()
