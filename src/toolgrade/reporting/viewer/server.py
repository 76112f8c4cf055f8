"""The viewer's web server: the standard library's threading HTTP server, on loopback only.

Routes: `/` the list (query parameters: q, status, check, failure, agent, sort, page, size),
`/run/<n>` the n-th run's view (the same parameters: the list it was opened from), and
`/api/runs` the list as JSON. Nothing is written and nothing but GET is served.

Transcripts are agent text and may hold secrets, so the server listens on 127.0.0.1 only and
answers only requests whose Host names it there: a web page the user opens elsewhere cannot
point a name of its own at 127.0.0.1 (DNS rebinding) and read the runs. Pages carry a content
security policy that allows no script at all, should escaping ever miss.
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from toolgrade.reporting.viewer.index import RunIndex, StaleIndex
from toolgrade.reporting.viewer.pages import (
    NotFound,
    page_json,
    render_error,
    render_list,
    render_run,
)
from toolgrade.reporting.viewer.query import Query, QueryError, Searcher, parse_query

HOST = "127.0.0.1"
_RUN = re.compile(r"^/run/(\d{1,12})$")
_HEADERS = {
    # No script, no network: styles are inline, forms post back here only.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class ViewerServer(ThreadingHTTPServer):
    """A threading HTTP server over one output folder's index."""

    daemon_threads = True  # Ctrl-C does not wait for a browser's open keep-alive connection

    def __init__(self, index: RunIndex, port: int = 0) -> None:
        """Listen on 127.0.0.1:`port` (0: a free port the system picks)."""
        self.index = index
        self.searcher = Searcher(index)
        super().__init__((HOST, port), ViewerHandler)

    @property
    def port(self) -> int:
        """The port listened on."""
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """The list page's address."""
        return f"http://{HOST}:{self.port}/"

    def allowed_hosts(self) -> frozenset[str]:
        """The Host header values answered (the loopback names of this port)."""
        return frozenset(f"{name}:{self.port}" for name in (HOST, "localhost"))


class ViewerHandler(BaseHTTPRequestHandler):
    """Serves one request: a page, the JSON list, or an error page saying what was wrong."""

    server: ViewerServer
    server_version = "toolgrade-view"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a served page is not news on the terminal (errors still answer the page)."""

    def do_GET(self) -> None:  # the name http.server calls
        """Route a GET request."""
        if self.headers.get("Host", "").lower() not in self.server.allowed_hosts():
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"forbidden: unknown Host\n")
            return
        parts = urlsplit(self.path)
        api = parts.path.startswith("/api/")
        try:
            query = parse_query(parse_qs(parts.query, keep_blank_values=True))
            self._route(parts.path, query)
        except QueryError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc), api)
        except NotFound as exc:
            self._error(HTTPStatus.NOT_FOUND, str(exc), api)
        except StaleIndex as exc:
            self._error(HTTPStatus.CONFLICT, str(exc), api)

    def _route(self, path: str, query: Query) -> None:
        index, searcher = self.server.index, self.server.searcher
        if path == "/":
            self._html(render_list(index, searcher.page(query)))
        elif path == "/api/runs":
            body = json.dumps(page_json(index, searcher.page(query)), ensure_ascii=False)
            self._send(HTTPStatus.OK, "application/json", body.encode("utf-8"))
        elif (match := _RUN.match(path)) is not None:
            self._html(render_run(index, searcher, query, int(match.group(1))))
        else:
            raise NotFound(f"no page {path!r} here: the runs are at /")

    def _error(self, status: HTTPStatus, message: str, api: bool) -> None:
        if api:
            body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8")
            self._send(status, "application/json", body)
        else:
            self._send(status, "text/html", render_error(status.value, message).encode("utf-8"))

    def _html(self, page: str) -> None:
        self._send(HTTPStatus.OK, "text/html", page.encode("utf-8"))

    def _send(self, status: HTTPStatus, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def make_server(index: RunIndex, port: int = 0) -> ViewerServer:
    """A server over `index` on 127.0.0.1:`port` (0: a free port), not yet serving.

    Raises OSError when the port is taken.
    """
    return ViewerServer(index, port)
