"""A small DevTools-protocol client over headless Chromium (Debian's `chromium`), for page tests.

`Browser` starts one headless Chromium with its own profile directory and no network extras;
each `visit` loads a URL in a new tab, records every console call, uncaught exception, log entry and JavaScript dialog
(a dialog is accepted so a page cannot hang the test), and returns what it saw together with a
DOM report (elements, `on*` attributes and link targets), optional screenshots and, at each
screenshot's width, what an optional script measured in the page (`measure`: an expression that
returns a JSON string, e.g. `LAYOUT_REPORT`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websocket  # websocket-client

# Why a page test skips without a browser; tests/conftest.py counts these skips for `make test`'s last line.
MISSING = "no Chromium binary on PATH (apt-get install chromium fonts-wqy-zenhei fonts-noto-color-emoji)"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
         "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--remote-debugging-port=0",
         "--remote-allow-origins=*"]
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}

# Runs in the page through the protocol (not from the page): what the DOM holds after loading.
DOM_REPORT = """(() => {
  const out = {tags: {}, handlers: [], urls: [], text: document.body ? document.body.innerText : '', title: document.title};
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    out.tags[tag] = (out.tags[tag] || 0) + 1;
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on')) out.handlers.push(tag + '@' + name);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'srcdoc'].includes(name))
        out.urls.push(attr.value);
    }
  }
  return JSON.stringify(out);
})()"""


# Runs in the page at each width: horizontal overflow of the page and of each table box, each source
# cell's width and its file name's lines, and the density chart's bars and date labels (CSS px).
LAYOUT_REPORT = """(() => {
  const box = el => el.getBoundingClientRect();
  const root = document.documentElement;
  const out = {viewport: window.innerWidth, page: {scroll: root.scrollWidth, client: root.clientWidth},
               containers: [], sources: [], labels: [], bars: [], svg: null, columns: [], fixed: []};
  for (const el of document.querySelectorAll('.scroll'))
    out.containers.push({scroll: el.scrollWidth, client: el.clientWidth, right: box(el).right,
                         overflowX: getComputedStyle(el).overflowX});
  for (const cell of document.querySelectorAll('td.path')) {
    const file = cell.querySelector('.file');
    out.sources.push({width: box(cell).width, font: parseFloat(getComputedStyle(cell).fontSize),
                      title: (cell.querySelector('[title]') || {}).title || '', text: file ? file.innerText : '',
                      lines: file ? file.getClientRects().length : 0});
  }
  // Each column of a table whose header shows: its width, the em, and its header's longest word
  // (split at spaces; a run of CJK is one word), measured in the header's font.
  out.columns = [];
  const ctx = document.createElement('canvas').getContext('2d');
  for (const th of document.querySelectorAll('thead th')) {
    if (!th.getClientRects().length) continue;
    const style = getComputedStyle(th);
    ctx.font = style.font;
    const words = th.innerText.split(/\s+/).filter(Boolean);
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    out.columns.push({header: th.innerText, width: box(th).width - padding, em: parseFloat(style.fontSize),
                      word: Math.max(0, ...words.map(w => ctx.measureText(w).width))});
  }
  // A fixed-vocabulary cell's lines: the distinct tops of its text's line boxes.
  out.fixed = [...document.querySelectorAll('td.fixed')].filter(td => td.getClientRects().length).map(td => {
    const range = document.createRange();
    range.selectNodeContents(td);
    return {text: td.innerText, lines: new Set([...range.getClientRects()].map(r => Math.round(r.top))).size};
  });
  const svg = document.querySelector('svg');
  if (svg) { const b = box(svg); out.svg = {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; }
  for (const t of document.querySelectorAll('svg text.tick-label')) {
    const b = box(t), style = getComputedStyle(t);
    out.labels.push({text: t.textContent, visible: style.display !== 'none' && style.visibility !== 'hidden' && b.width > 0,
                     left: b.left, right: b.right, top: b.top, bottom: b.bottom, height: b.height});
  }
  for (const r of document.querySelectorAll('svg rect.bar')) {
    const b = box(r);
    out.bars.push({date: (r.querySelector('title') || {}).textContent || '', zero: r.classList.contains('zero'),
                   left: b.left, width: b.width, height: b.height});
  }
  return JSON.stringify(out);
})()"""


def find_chromium() -> str | None:
    """The path of a Chromium binary on PATH, or None."""
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


@dataclass
class PageVisit:
    events: list[dict[str, Any]] = field(default_factory=list)  # console, exceptions, log entries, dialogs
    dom: dict[str, Any] = field(default_factory=dict)
    screenshots: dict[str, bytes] = field(default_factory=dict)
    measures: dict[str, Any] = field(default_factory=dict)  # width name -> what `measure` returned there

    def of(self, *methods: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["method"] in methods]


class _Session:
    def __init__(self, ws: websocket.WebSocket, session_id: str, visit: PageVisit) -> None:
        self.ws, self.session_id, self.visit, self.next_id = ws, session_id, visit, 100

    def _record(self, message: dict[str, Any]) -> None:
        method = message.get("method", "")
        if method in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded",
                      "Page.javascriptDialogOpening"):
            self.visit.events.append(message)
        if method == "Page.javascriptDialogOpening":  # never let a dialog block the page
            self.send("Page.handleJavaScriptDialog", {"accept": True}, wait=False)

    def send(self, method: str, params: dict[str, Any] | None = None, wait: bool = True) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}, "sessionId": self.session_id}))
        while wait:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self._record(message)
        return {}

    def wait_for(self, method: str, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.ws.settimeout(max(0.1, end - time.monotonic()))
            message = json.loads(self.ws.recv())
            self._record(message)
            if message.get("method") == method:
                return
        raise TimeoutError(f"no {method} within {timeout}s")

    def drain(self, seconds: float) -> None:
        """Read events for a while (a payload could act after load, e.g. on a timer)."""
        end = time.monotonic() + seconds
        try:
            while (left := end - time.monotonic()) > 0:
                self.ws.settimeout(left)
                try:
                    self._record(json.loads(self.ws.recv()))
                except websocket.WebSocketTimeoutException:
                    return
        finally:  # the next command's reply may take longer than what was left of the drain
            self.ws.settimeout(30)


class Browser:
    """One headless Chromium with its own throwaway profile; each `visit` opens a fresh tab."""

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def __enter__(self) -> Browser:
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-")
        # Its own process group: Chromium's helpers (renderer, GPU, crash handler) go with it.
        self.proc = subprocess.Popen([self.binary, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
        try:
            self.ws = websocket.create_connection(_devtools_url(self.proc), timeout=30)
        except BaseException:
            self._stop()
            raise
        self.next_id = 0
        return self

    def __exit__(self, *exc: object) -> None:
        self.ws.close()
        self._stop()

    def _stop(self) -> None:
        """Stop the browser and every helper it started, then remove the profile. A helper still
        writing its profile made the removal fail now and then ("Directory not empty"), so the
        whole group is stopped and the removal is retried while the last writes land."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        for _ in range(50):
            try:
                self._profile.cleanup()
                return
            except OSError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)  # a helper outlived the browser
                time.sleep(0.1)
        self._profile.cleanup()

    def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return _reply(self.ws, self.next_id)

    def visit(self, url: str, screenshots: tuple[str, ...] = (), settle: float = 0.5,
              measure: str | None = None) -> PageVisit:
        """Load `url` in a new tab and report what happened (see the module docstring)."""
        visit = PageVisit()
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.ws.settimeout(30)
        session = _Session(self.ws, self._call("Target.attachToTarget", {"targetId": target, "flatten": True})
                           ["sessionId"], visit)
        try:
            for domain in ("Page", "Runtime", "Log"):
                session.send(f"{domain}.enable")
            width, height = WIDTHS["desktop"]
            session.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            session.send("Page.navigate", {"url": url})
            session.wait_for("Page.loadEventFired")
            session.drain(settle)
            result = session.send("Runtime.evaluate", {"expression": DOM_REPORT, "returnByValue": True})
            visit.dom = json.loads(result["result"]["value"])
            for name in screenshots:
                width, height = WIDTHS[name]
                session.send("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": name == "phone"})
                if measure is not None:
                    result = session.send("Runtime.evaluate", {"expression": measure, "returnByValue": True})
                    visit.measures[name] = json.loads(result["result"]["value"])
                shot = session.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                               "clip": _full_page(session, width)})
                visit.screenshots[name] = base64.b64decode(shot["data"])
        finally:
            self.ws.settimeout(30)
            self._call("Target.closeTarget", {"targetId": target})
        return visit


def _full_page(session: _Session, width: int) -> dict[str, Any]:
    metrics = session.send("Page.getLayoutMetrics")
    height = min(float(metrics["cssContentSize"]["height"]), 4000.0)  # long pages: the top is what matters
    return {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}


def _reply(ws: websocket.WebSocket, ident: int) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv())
        if message.get("id") == ident:
            if "error" in message:
                raise RuntimeError(str(message["error"]))
            return dict(message["result"])


def _devtools_url(proc: subprocess.Popen[str], timeout: float = 120.0) -> str:
    assert proc.stderr is not None
    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            # Keep reading its stderr, or a chatty browser fills the pipe and stalls.
            threading.Thread(target=lambda: [None for _ in proc.stderr or ()], daemon=True).start()
            return match[1]
    raise RuntimeError("chromium did not start its DevTools endpoint:\n" + "".join(seen[-20:]))


def save(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
