"""The print-and-play kit of a board, as `mapkit render` and `mapkit build` write it into one folder:

board.pdf (real size), board-tiles.pdf (A4/Letter sheets), tickets.pdf, trains.pdf, summary.pdf
(summary cards and the bonus cards), rules.pdf (the rules booklet), and with png: board.png,
tickets-sheet.png, trains-sheet.png.

The kit is written whole or not at all: every file is first written into a staging folder inside
the kit folder (outputs.staged_folder), and only once all of them are complete does each replace
its namesake; a failure on the way (a full disk) leaves the previous kit as it was.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from mapkit.errors import MapkitError, UsageError
from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.outputs import OutputError, check_output, make_folder, staged_folder
from mapkit.render import board as board_pdf
from mapkit.render import cards, imposition, marks, pdf, rules, summary, tiles
from mapkit.render.scene import build_scene
from mapkit.render.tiling import tile_board

PNG_DPI = 150
# every file render_kit may write, so a caller can check none of them is an input
KIT_FILES = ("board.pdf", "board-tiles.pdf", "tickets.pdf", "trains.pdf", "summary.pdf", "rules.pdf",
             "board.png", "tickets-sheet.png", "trains-sheet.png")


@dataclass(frozen=True)
class RenderOptions:
    paper: str = "a4"            # a4 or letter
    mode: str = "home"           # home (cards butted) or bleed (3 mm bleed)
    duplex: str = "long-edge"    # none, long-edge or short-edge
    png: bool = False            # also write PNG previews
    decks: tuple[str, ...] | None = None  # ticket decks to print; None: those the ruleset uses; ("all",)
    light_backs: bool = False    # card backs in light ink (a colored frame on white) instead of full color

    def check(self) -> None:
        if self.paper not in pdf.PAPERS:
            raise UsageError(f"unknown paper '{self.paper}'; choose one of {', '.join(pdf.PAPERS)}")
        if self.mode not in imposition.MODES:
            raise UsageError(f"unknown mode '{self.mode}'; choose one of {', '.join(imposition.MODES)}")
        if self.duplex not in imposition.DUPLEX:
            raise UsageError(f"unknown duplex '{self.duplex}'; choose one of {', '.join(imposition.DUPLEX)}")


@dataclass
class RenderResult:
    board: str
    out_dir: Path
    files: dict[str, Path] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)
    tiles: dict = field(default_factory=dict)
    cards: dict = field(default_factory=dict)
    unplaced_labels: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    route_ends: dict = field(default_factory=dict)   # scene.route_end_figures: route-end gaps as drawn

    def as_dict(self) -> dict:
        return {"board": self.board, "out": str(self.out_dir),
                "files": {k: str(v) for k, v in self.files.items()}, "pages": dict(self.pages),
                "tiles": dict(self.tiles), "cards": dict(self.cards),
                "unplaced_labels": list(self.unplaced_labels), "warnings": list(self.warnings),
                "route_ends": dict(self.route_ends)}


def content_hash(path: Path | bytes) -> str:
    """First 8 hex digits of the SHA-256 of the board file's bytes, or of the bytes given (printed
    on the board)."""
    data = path if isinstance(path, bytes) else Path(path).read_bytes()
    return hashlib.sha256(data).hexdigest()[:8]


def render_kit(path: Path, board: Board, out_dir: Path, options: RenderOptions = RenderOptions(),
               file_hash: str | None = None) -> RenderResult:
    """Write the kit of the board read from path into out_dir (created if missing): all of its
    files, or, on a failure, none (the previous kit stays whole). The sheets carry the board file's
    hash: `file_hash` where the file is yet to be written (content_hash of its bytes), else path's."""
    options.check()
    _check_decks(board, options.decks)
    make_folder(out_dir)
    for name in KIT_FILES:  # a kit file that is a folder or a socket is refused before any work
        check_output(out_dir / name)
    result = RenderResult(board.id, out_dir)
    stage = None
    try:
        with staged_folder(out_dir) as stage:
            _render(file_hash or content_hash(path), board, stage, options, result)
    except OutputError as exc:
        # a file written into the stage is named by its place in the kit folder
        raise OutputError(str(exc).replace(str(stage), str(out_dir)) if stage else str(exc)) from exc
    except OSError as exc:
        raise MapkitError(f"cannot write into {out_dir}: {exc.strerror or exc}")
    return result


def _check_decks(board: Board, names: tuple[str, ...] | None) -> None:
    """A deck asked for by name that the board does not have is a usage error, before anything is
    written: printing the kit without it would hand the designer a kit missing the deck they asked for.
    (A deck the ruleset plays with but the board lacks stays a warning: the board is then unfinished,
    not the command wrong.)"""
    from mapkit.errors import did_you_mean

    unknown = [n for n in names or () if n != "all" and n not in board.ticket_decks]
    if unknown:
        decks = ", ".join(sorted(board.ticket_decks)) or "none (run `mapkit tickets generate BOARD --write`)"
        which = ", ".join(f"'{n}'{did_you_mean(n, board.ticket_decks)}" for n in unknown)
        raise UsageError(f"--deck: the board has no ticket deck {which}; decks: {decks}, or 'all'")


def _render(file_hash: str, board: Board, out: Path, opt: RenderOptions, result: RenderResult) -> None:
    """Write the kit's files into `out` (the stage); `result.files` names them in result.out_dir."""
    layout = Layout(board)
    stamp = marks.Stamp(board.name, board.version, file_hash)
    scene = build_scene(board, layout, file_hash)
    # the flight is drawn where the scene put it: the assembly overview and the tickets' mini-maps
    # show it there too
    layout.routes = dict(scene.routes)
    names = {s.id: s.name for s in board.stations}
    result.unplaced_labels = list(scene.unplaced)
    result.route_ends = scene.route_ends
    for rid, sid, gap in scene.route_ends.get("bare", []):
        result.warnings.append(f"route '{rid}' stops {gap:g} mm short of station '{sid}' with no line drawn to it "
                               "(one would cross another route's space or a label); move the station's routes "
                               "apart there")
    result.warnings += scene.warnings
    for key in scene.unplaced:
        if key in names:
            result.warnings.append(f"the label of station '{key}' ({names[key]}) overlaps something wherever it "
                                   "goes; give the station a \"label\" direction or move it")
        else:
            result.warnings.append(f"the bonus badge of route '{key.split(':', 1)[1]}' overlaps something "
                                   "wherever it goes")
    if scene.legend_collides:
        result.warnings.append("the legend found no free spot on the board and covers part of it; "
                               "leave an empty corner in the playing area")

    def record(name: str, pages: int | None) -> Path:
        result.files[name] = result.out_dir / name
        if pages is not None:
            result.pages[name] = pages
        return out / name

    record("board.pdf", board_pdf.write_board_pdf(scene, out / "board.pdf"))

    tiling = tile_board(board.physical.width_mm, board.physical.height_mm, opt.paper)
    record("board-tiles.pdf", tiles.write_tiles_pdf(scene, board, layout, tiling, out / "board-tiles.pdf", stamp))
    result.tiles = {"paper": opt.paper, "orientation": tiling.orientation, "rows": tiling.rows, "cols": tiling.cols,
                    "sheets": tiling.sheets, "other_orientation_sheets": tiling.other_sheets,
                    "overlap_mm": [round(tiling.overlap_x, 1), round(tiling.overlap_y, 1)]}

    tickets_png = out / "tickets-sheet.png" if opt.png else None
    for name in cards.missing_decks(board, opt.decks):
        result.warnings.append(f"the board has no ticket deck '{name}', so it is not printed; "
                               f"decks: {', '.join(sorted(board.ticket_decks)) or 'none'}")
    if cards.ticket_cards(board, opt.decks):
        t = cards.write_tickets(out / "tickets.pdf", board, layout, opt.paper, opt.mode, opt.duplex, png=tickets_png,
                                decks=opt.decks, light_backs=opt.light_backs, stamp=stamp)
        record("tickets.pdf", t.pages)
        result.cards["tickets"] = {"cards": t.cards, "frames": t.frames, "per_sheet": t.per_sheet, "sheets": t.sheets,
                                   "decks": {name: len(ts) for name, ts in cards.ticket_decks(board, opt.decks)}}
    else:
        result.warnings.append("the board has no tickets, so there is no tickets.pdf; run "
                               "`mapkit tickets generate BOARD --write` first")

    trains_png = out / "trains-sheet.png" if opt.png else None
    t = cards.write_trains(out / "trains.pdf", board, opt.paper, opt.mode, opt.duplex, png=trains_png,
                           light_backs=opt.light_backs, stamp=stamp)
    record("trains.pdf", t.pages)
    result.cards["trains"] = {"cards": t.cards, "frames": t.frames, "per_sheet": t.per_sheet, "sheets": t.sheets,
                              "from": "board deck" if board.deck is not None else "derived deck"}

    s = cards.write_summary(out / "summary.pdf", board, opt.paper, opt.mode, opt.duplex, stamp)
    record("summary.pdf", s.pages)
    result.cards["summary"] = {"cards": s.cards, "frames": s.frames, "per_sheet": s.per_sheet, "sheets": s.sheets,
                               "bonus_cards": [name for name, _, _ in summary.bonus_cards(board)]}

    deck = cards.train_cards(board)
    counts = {c: deck.count(c) for c in dict.fromkeys(deck)}
    record("rules.pdf", rules.write_rules(out / "rules.pdf", board, opt.paper,
                                          result.cards.get("tickets", {}).get("cards", 0), counts, stamp))

    if opt.png:
        board_pdf.write_board_png(scene, record("board.png", None))
        if tickets_png is not None and tickets_png.exists():
            record("tickets-sheet.png", None)
        record("trains-sheet.png", None)
