"""JSON over the Prefect server's REST API, with the standard library only.

`up`, `status` and their reports ask the server a few plain questions (is it healthy, is the work
pool there, which deployments does it hold); Prefect's own client would import Prefect first, about
a second of CPU per command, for requests of a few milliseconds. Errors are urllib's: HTTPError
carries the status (404, 409) for the caller to judge.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any


def call(api_url: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
    """GET `api_url + path`, or POST `body` as JSON when there is one; the decoded answer (None when
    it is empty)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{api_url}{path}", data=data, method="GET" if data is None else "POST",
                                     headers={"Content-Type": "application/json"} if data is not None else {})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the API URL is configuration
        raw = response.read()
    return json.loads(raw) if raw.strip() else None
