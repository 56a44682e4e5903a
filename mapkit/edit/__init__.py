"""`mapkit edit`: the board in a browser while you work on it (see docs/guide/make-a-board.md and docs/design/editor.md).

session: the board file, its problems, writes, undo; svg: the board drawn from the print's
geometry; api: the JSON endpoints; server: the local HTTP server; static/: the page.
"""

from __future__ import annotations

from mapkit.edit.server import EditServer, serve
from mapkit.edit.session import Session

__all__ = ["EditServer", "Session", "serve"]
