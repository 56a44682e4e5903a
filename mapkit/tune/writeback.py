"""Writing a tuned board: only the changed fields move, the rest of the file byte for byte.

Each kept change edits the board data with paths into its current version; a removed double's
track (or a palette color no route uses any more) shifts later items up and an added track is
appended, so `Patches` keeps the edits in the coordinates of the file as it was read (route i now
-> route j of the file, or an appended one; palette color i now -> color j of the file),
merging an edit inside an earlier one (a replaced ticket's points changed again) into its value.
The result is one `mapkit.writer.patch_text` change set against the original text.
"""

from __future__ import annotations

import copy
import json

from mapkit.writer import DELETE, patch_text, validate_text, write_patches  # noqa: F401


class Patches:
    def __init__(self, data: dict):
        self.changes: dict = {}                       # original-file path -> value or DELETE
        self.route_origin = list(range(len(data.get("routes", []))))   # current index -> file index or None
        self.file_routes = len(self.route_origin)
        self.appended: list = []                       # file paths of appended routes, in order
        self.palette_origin = list(range(len(data.get("palette", []))))   # current index -> file index

    def _translate(self, path: tuple) -> tuple:
        """A path into the current data as a path into the file (appended routes: their append path)."""
        if len(path) >= 2 and path[0] == "routes" and isinstance(path[1], int):
            cur = path[1]
            if cur < len(self.route_origin):
                orig = self.route_origin[cur]
                if orig is None:
                    k = sum(1 for x in self.route_origin[:cur] if x is None)
                    return self.appended[k] + tuple(path[2:])
                return ("routes", orig) + tuple(path[2:])
        if len(path) >= 2 and path[0] == "palette" and isinstance(path[1], int) and path[1] < len(self.palette_origin):
            return ("palette", self.palette_origin[path[1]]) + tuple(path[2:])
        return tuple(path)

    def add(self, edits: list) -> None:
        """Record one kept change's edits (paths into the data before that change)."""
        route_deletes = sorted((p[1] for p, v in edits if v is DELETE and len(p) == 2 and p[0] == "routes"),
                               reverse=True)
        palette_deletes = sorted((p[1] for p, v in edits if v is DELETE and len(p) == 2 and p[0] == "palette"),
                                 reverse=True)
        for path, value in edits:
            path = tuple(path)
            if path[0] == "routes" and len(path) == 2 and path[1] == len(self.route_origin) and value is not DELETE:
                fp = ("routes", self.file_routes + len(self.appended))
                if self.appended:
                    raise ValueError("one added route per run: a second would need a second append")
                self.appended.append(fp)
                self._set(fp, copy.deepcopy(value))
                continue
            fp = self._translate(path)
            if value is DELETE and fp in self.appended:
                self.changes.pop(fp, None)
                continue
            self._set(fp, value if value is DELETE else copy.deepcopy(value))
        # appended tracks sit at the end of the current list: mark them before removing anything
        for path, value in edits:
            if path[0] == "routes" and len(path) == 2 and value is not DELETE and path[1] == len(self.route_origin):
                self.route_origin.append(None)
        for cur in route_deletes:
            del self.route_origin[cur]
        for cur in palette_deletes:
            del self.palette_origin[cur]

    def _set(self, fp: tuple, value) -> None:
        for q in list(self.changes):
            if len(q) < len(fp) and fp[:len(q)] == q and self.changes[q] is not DELETE:
                node = self.changes[q]   # an edit inside an earlier one: change that value
                for p in fp[len(q):-1]:
                    node = node[p]
                if value is DELETE:
                    del node[fp[-1]]
                else:
                    node[fp[-1]] = value
                return
        for q in list(self.changes):
            if len(q) > len(fp) and q[:len(fp)] == fp:
                del self.changes[q]
        self.changes[fp] = value

    def text(self, original: str) -> str:
        return patch_text(original, self.changes)

    def check(self, original: str, final: dict) -> str:
        """The patched text, proved to parse to exactly the tuned data (else ValueError: a bug)."""
        new = self.text(original)
        if json.loads(new) != final:
            raise ValueError("the patched file does not hold the tuned board; nothing was written")
        return new
