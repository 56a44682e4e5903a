"""The editor's local web server: the standard library's ThreadingHTTPServer on 127.0.0.1.

Why the standard library: the page needs a handful of JSON endpoints and three static files, for
one user on one machine; http.server has no dependency to keep up to date and cannot drift from
the Python mapkit runs on. ThreadingHTTPServer lets the page's long poll wait while it writes.

Safety (see docs/design/editor.md):
- bound to 127.0.0.1 only; requests whose Host is not this address are refused (a web page that
  rebinds its own name to 127.0.0.1 cannot reach the API);
- every /api request carries the random token from the page's address (header X-Mapkit-Token);
  without it, 403 — so no other page or program can read or write through the editor;
- the only file written is the board the server was started on; no request can name a path
  (the static files are a fixed list; a body naming a file is refused);
- bodies are bounded (64 KiB) and must be JSON objects;
- a write (POST) whose Origin is another site is refused, and the page may not be framed
  (X-Frame-Options DENY, CSP frame-ancestors 'none');
- a connection idle for IDLE_TIMEOUT_S is closed, and at most MAX_CONNECTIONS are served at once
  (the rest are answered 503 at once), so half-sent requests cannot pile up threads;
- the browser is opened on a redirect file readable by this user only (`redirect_file`), so the
  token is not on the browser's command line for other local users to read.
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import shutil
import tempfile
import threading
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from mapkit.edit import api
from mapkit.edit.session import Session

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024
LONG_POLL_S = 10.0
IDLE_TIMEOUT_S = 30.0      # longer than the long poll: a connection silent this long is closed
MAX_CONNECTIONS = 32       # served at once; more are answered 503 at once
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/overlays.js": ("overlays.js", "text/javascript; charset=utf-8"),
          "/make.js": ("make.js", "text/javascript; charset=utf-8"),
          "/balance.js": ("balance.js", "text/javascript; charset=utf-8"),
          "/app.css": ("app.css", "text/css; charset=utf-8")}


def static_text(name: str) -> bytes:
    return resources.files("mapkit.edit").joinpath("static", name).read_bytes()


class EditServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, session: Session, port: int = 0, report: Path | None = None,
                 idle_timeout: float = IDLE_TIMEOUT_S, max_connections: int = MAX_CONNECTIONS):
        super().__init__((HOST, port), Handler)
        self.session = session
        self.token = secrets.token_urlsafe(24)
        self.idle_timeout = idle_timeout
        self._slots = threading.BoundedSemaphore(max_connections)
        self._redirect: Path | None = None
        board = session.drawing.board if session.drawing else None
        self.report_path = api.find_report(session.path, board.id, report) if board else report

    def shutdown(self) -> None:
        super().shutdown()
        api.stop_jobs()  # a layout still running is stopped with the editor
        if self._redirect is not None:
            shutil.rmtree(self._redirect.parent, ignore_errors=True)
            self._redirect = None

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):  # too many at once: say so and close
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        pass  # a connection that timed out or was dropped: nothing to print on the designer's terminal

    def redirect_file(self) -> Path:
        """A page, readable by this user only (mode 0600 in a 0700 folder), that sends the browser
        on to the editor's address with its token: what to open in the browser, so the token is not
        on its command line. Removed when the server stops."""
        if self._redirect is None:
            folder = Path(tempfile.mkdtemp(prefix="mapkit-edit-"))
            path = folder / "open.html"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                url = escape(self.url)
                fh.write(f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={url}">'
                         f'<title>mapkit edit</title><p><a href="{url}">Open mapkit edit</a></p>\n')
            self._redirect = path
        return self._redirect

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def report_info(self) -> dict | None:
        d = self.session.drawing
        board_id = d.board.id if d else "?"
        if self.report_path is None and d is not None:
            self.report_path = api.find_report(self.session.path, board_id)
        return api.report_summary(self.report_path, board_id)


class Handler(BaseHTTPRequestHandler):
    server: EditServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the quiet server prints nothing per request
        pass

    def setup(self) -> None:
        self.timeout = self.server.idle_timeout  # socket timeout: a silent connection is closed
        super().setup()

    # ------------------------------------------------------------ replies

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                                    "img-src 'self' data:; frame-ancestors 'none'")
        self.send_header("X-Frame-Options", "DENY")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    def _error(self, status: int, message: str, **extra) -> None:
        self._json(status, {"error": message, **extra})

    # ------------------------------------------------------------ checks

    def _host_ok(self) -> bool:
        host = self.headers.get("Host", "")
        return host in (f"{HOST}:{self.server.port}", f"localhost:{self.server.port}")

    def _origin_ok(self) -> bool:
        """No Origin (a program, not a page), or this editor's own."""
        origin = self.headers.get("Origin")
        return origin is None or origin in (f"http://{HOST}:{self.server.port}", f"http://localhost:{self.server.port}")

    def _token_ok(self) -> bool:
        given = self.headers.get("X-Mapkit-Token", "")
        return secrets.compare_digest(given.encode(), self.server.token.encode())

    def _read_body(self) -> bytes | None:
        """The body, read before any reply (an unread body would be taken for the next request
        on a kept-alive connection); None when it is too large (the connection is then closed)."""
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return None
        return self.rfile.read(length) if length else b"{}"

    @staticmethod
    def _parse(raw: bytes | None):
        if raw is None:
            raise api.ApiError(413, f"the request body must be at most {MAX_BODY} bytes")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise api.ApiError(400, "the request body is not JSON")

    # ------------------------------------------------------------ routes

    def do_GET(self):  # noqa: N802 - http.server's name
        self._handle("GET")

    def do_HEAD(self):  # noqa: N802
        self._handle("GET")

    def do_POST(self):  # noqa: N802
        self._handle("POST")

    def do_PUT(self):  # noqa: N802
        self._read_body()
        self._error(405, "the editor accepts GET and POST only")

    do_DELETE = do_PATCH = do_PUT

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        raw = self._read_body() if method == "POST" else b""
        if not self._host_ok():
            return self._error(403, "requests must be addressed to 127.0.0.1 (this editor serves nothing else)")
        if method == "GET" and url.path in STATIC:
            name, ctype = STATIC[url.path]
            return self._send(200, static_text(name), ctype)
        if url.path == "/favicon.ico":
            return self._send(204, b"", "image/x-icon")
        if not url.path.startswith("/api/"):
            return self._error(404, f"nothing at {url.path}")
        if method == "POST" and not self._origin_ok():
            return self._error(403, "writes are accepted from the editor's own page only (this request came from "
                                    f"{self.headers.get('Origin')!r})")
        if not self._token_ok():
            return self._error(403, "missing or wrong token: open the address `mapkit edit` printed "
                                    "(its ?token=... is required for every request)")
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            if method == "GET":
                self._get(url.path, query)
            else:
                self._post(url.path, self._parse(raw))
        except api.ApiError as exc:
            self._error(exc.status, exc.message, **exc.extra)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _int(self, query: dict, key: str, default: int | None) -> int | None:
        try:
            return int(query[key]) if key in query else default
        except ValueError:
            raise api.ApiError(400, f"{key} must be a whole number")

    def _get(self, path: str, query: dict) -> None:
        s = self.server.session
        if path == "/api/state":
            _, why = api.layout_module()
            return self._json(200, api.state(s, self.server.report_info(), why))
        if path == "/api/svg":
            return self._send(200, api.svg(s).encode("utf-8"), "image/svg+xml; charset=utf-8")
        if path == "/api/wait":
            since = self._int(query, "since", -1)
            timeout = min(LONG_POLL_S, max(0.0, self._int(query, "timeout", int(LONG_POLL_S))))
            return self._json(200, {"rev": s.wait(since, timeout)})
        if path == "/api/layout/status":
            return self._json(200, api.layout_status(s, query))
        if path == "/api/tickets/targets":
            return self._json(200, api.tickets_targets(s, query))
        if path == "/api/balance/status":
            return self._json(200, api.balance_status(s, query))
        if path == "/api/suggest":
            return self._json(200, api.suggest_length(s, query))
        if path == "/api/overlay":
            kind = query.get("kind", "")
            return self._json(200, api.overlay(s, self.server.report_path, kind, self._int(query, "players", None)))
        raise api.ApiError(404, f"no endpoint {path}")

    def _post(self, path: str, body) -> None:
        s = self.server.session
        handlers = {"/api/move": api.move, "/api/undo": api.undo, "/api/redo": api.redo,
                    "/api/layout/preview": api.layout_preview, "/api/layout/apply": api.layout_apply,
                    "/api/layout/cancel": api.layout_cancel, "/api/tickets/generate": api.tickets_generate,
                    "/api/balance/run": api.balance_run, "/api/balance/cancel": api.balance_cancel}
        if path in api.EDITS:
            return self._json(200, api.edit(path, s, body))
        if path == "/api/new":
            return self._json(200, api.new_board(s, body))
        if path not in handlers:
            raise api.ApiError(404, f"no endpoint {path}")
        return self._json(200, handlers[path](s, body))


def serve(session: Session, port: int = 0, report: Path | None = None, **options) -> EditServer:
    """Start the session's watcher and a server in a background thread; returns the server
    (server.url is the page's address; server.shutdown() stops it). options: EditServer's
    idle_timeout and max_connections."""
    server = EditServer(session, port, report, **options)
    session.start()
    # what the server made so far (the board, its checks and drawing, the imports) lives as long as
    # it does: frozen out of the full collections, which a drag would otherwise pay now and then
    gc.collect()
    gc.freeze()
    threading.Thread(target=server.serve_forever, name="mapkit-edit-http", daemon=True).start()
    return server
