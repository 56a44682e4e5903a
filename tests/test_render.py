"""`mapkit render`: the print-and-play kit.

The tiny fixture is rendered three times per run (A4 through the CLI, A4 again for byte
identity, Letter in bleed mode); the pure parts (tiling, imposition, label placement) are tested
directly.
"""

import json
import math
from pathlib import Path

import pytest
from pypdf import PdfReader
from shapely.geometry import box
from shapely.ops import unary_union

from mapkit.cards import derive_deck
from mapkit.geometry import Layout
from mapkit.render import RenderOptions, content_hash, render_kit
from mapkit.render import cards, imposition, labels, summary, symbols, tiling
from mapkit.render.pdf import PAPERS, PRINT_MARGIN_MM
from mapkit.render.scene import build_scene
from mapkit.validate import load_valid_board

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "fixtures" / "tiny.json"
PDFS = ["board.pdf", "board-tiles.pdf", "tickets.pdf", "trains.pdf", "summary.pdf", "rules.pdf"]
MM_PER_PT = 25.4 / 72


def mm_size(page) -> tuple[float, float]:
    box_ = page.mediabox
    return (round(float(box_.width) * MM_PER_PT, 1), round(float(box_.height) * MM_PER_PT, 1))


@pytest.fixture(scope="module")
def tiny():
    return load_valid_board(TINY)


@pytest.fixture(scope="module")
def a4_kit(tmp_path_factory):
    """The tiny board's kit on A4, home mode, long-edge duplex, with previews, through the CLI."""
    from click.testing import CliRunner

    from mapkit.cli import main

    out = tmp_path_factory.mktemp("a4")
    result = CliRunner().invoke(main, ["render", str(TINY), "--out", str(out), "--png", "--format", "json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


@pytest.fixture(scope="module")
def letter_kit(tmp_path_factory, tiny):
    out = tmp_path_factory.mktemp("letter")
    result = render_kit(TINY, tiny, out, RenderOptions(paper="letter", mode="bleed", duplex="short-edge"))
    return out, result.as_dict()


# ------------------------------------------------------------------ the PDFs


def test_cli_reports_every_file_with_its_page_count(a4_kit):
    out, report = a4_kit
    assert report["board"] == "tiny"
    assert set(report["files"]) == set(PDFS) | {"board.png", "tickets-sheet.png", "trains-sheet.png"}
    for name in PDFS:
        path = Path(report["files"][name])
        assert path == out / name and path.exists()
        assert len(PdfReader(path).pages) == report["pages"][name]
    assert report["unplaced_labels"] == [] and report["warnings"] == []


@pytest.mark.parametrize("kit, paper", [("a4_kit", "a4"), ("letter_kit", "letter")])
def test_page_sizes_and_counts(kit, paper, request, tiny):
    out, report = request.getfixturevalue(kit)
    pw, ph = (round(v, 1) for v in PAPERS[paper])
    # the board at real size on one page
    board_pages = PdfReader(out / "board.pdf").pages
    assert len(board_pages) == 1 and mm_size(board_pages[0]) == (400.0, 300.0)
    # tiles: the assembly page plus one page per sheet, all in the chosen orientation
    t = report["tiles"]
    expected = (ph, pw) if t["orientation"] == "landscape" else (pw, ph)
    tile_pages = PdfReader(out / "board-tiles.pdf").pages
    assert len(tile_pages) == 1 + t["sheets"] == 1 + t["rows"] * t["cols"]
    assert {mm_size(p) for p in tile_pages} == {expected}
    # card sheets: portrait, a front and a back page per sheet
    for name, key in (("tickets.pdf", "tickets"), ("trains.pdf", "trains"), ("summary.pdf", "summary")):
        c = report["cards"][key]
        pages = PdfReader(out / name).pages
        assert {mm_size(p) for p in pages} == {(pw, ph)}
        assert len(pages) == 2 * c["sheets"] == 2 * math.ceil(c["cards"] / c["per_sheet"])
    # the standard rules play with the standard deck only (`--deck` prints others)
    assert report["cards"]["tickets"]["cards"] == len(tiny.ticket_decks["standard"])
    assert report["cards"]["tickets"]["decks"] == {"standard": len(tiny.ticket_decks["standard"])}
    # one summary card per seat, and the Longest Path bonus card
    assert report["cards"]["summary"]["cards"] == summary.copies(tiny) + 1
    assert report["cards"]["summary"]["bonus_cards"] == ["Longest Continuous Path"]


def test_bleed_mode_fits_fewer_cards(a4_kit, letter_kit):
    assert a4_kit[1]["cards"]["trains"]["per_sheet"] == 16
    assert letter_kit[1]["cards"]["trains"]["per_sheet"] < imposition.sheet_layout(paper="letter").per_sheet == 12


def _fonts(reader):
    found = {}
    for page in reader.pages:
        for ref in (page["/Resources"].get("/Font") or {}).values():
            font = ref.get_object()
            found[str(font["/BaseFont"])] = font
    return found


@pytest.mark.parametrize("name", PDFS)
def test_fonts_are_embedded(a4_kit, name):
    fonts = _fonts(PdfReader(a4_kit[0] / name))
    assert fonts
    for base, font in fonts.items():
        desc = font.get("/FontDescriptor")
        if desc is None:
            desc = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        desc = desc.get_object()
        assert any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")), f"{name}: {base} is not embedded"


def test_same_input_gives_the_same_bytes(a4_kit, tiny, tmp_path):
    render_kit(TINY, tiny, tmp_path, RenderOptions())
    for name in PDFS:
        assert (tmp_path / name).read_bytes() == (a4_kit[0] / name).read_bytes(), name
    meta = PdfReader(tmp_path / "board.pdf").metadata
    assert "/CreationDate" not in meta and meta["/Producer"] == "mapkit"


def _stamped(text: str, board) -> bool:
    flat = " ".join(text.split())
    return "playtest ☐" in flat and "date" in flat and (not board.version or f"version {board.version}" in flat)


def test_every_sheet_of_the_kit_carries_the_board_version_and_a_playtest_box(a4_kit, tiny):
    out, _ = a4_kit
    assert tiny.version
    digest = content_hash(TINY)
    for name in PDFS:
        for n, page in enumerate(PdfReader(out / name).pages, start=1):
            text = page.extract_text()
            tile = name == "board-tiles.pdf" and n > 1
            if not tile:   # a tile shows the board's title only on its part of the board
                assert tiny.name.split(":")[0] in text, (name, n)
            assert _stamped(text, tiny), (name, n, text[-300:])
            assert digest in text, (name, n)


def test_every_pdf_asks_for_actual_size_with_trim_boxes(a4_kit):
    for name in PDFS:
        reader = PdfReader(a4_kit[0] / name)
        assert reader.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None", name
        for page in reader.pages:
            assert "/TrimBox" in page and "/BleedBox" in page, name


def test_pages_say_print_at_100_percent(a4_kit):
    for name in PDFS:
        for page in PdfReader(a4_kit[0] / name).pages:
            text = page.extract_text()
            assert "100 mm" in text and "do not scale" in text, name


def test_previews(a4_kit):
    from matplotlib.image import imread

    out, report = a4_kit
    board_png = imread(report["files"]["board.png"])
    assert 1000 < board_png.shape[1] < 3000
    assert imread(report["files"]["trains-sheet.png"]).shape[1] > 1000


# ------------------------------------------------------------------ tiling (pure)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", [(800, 530), (400, 300), (1200, 800), (530, 800), (150, 100)])
def test_tiles_cover_the_board_with_overlap(paper, size):
    w, h = size
    t = tiling.tile_board(w, h, paper)
    windows = [box(*tile.window) for tile in t.tiles]
    assert unary_union(windows).buffer(1e-6).contains(box(0, 0, w, h))
    assert len({tile.label for tile in t.tiles}) == t.sheets == t.rows * t.cols
    assert t.tile(0, 0).label == "A1"
    for r in range(t.rows):
        for c in range(t.cols):
            a = t.tile(r, c).window
            if c + 1 < t.cols:
                assert a[2] - t.tile(r, c + 1).window[0] >= tiling.OVERLAP_MM - 1e-9
            if r + 1 < t.rows:
                assert a[3] - t.tile(r + 1, c).window[1] >= tiling.OVERLAP_MM - 1e-9
    # the printable area: paper less the printer margin (and the footer below the board)
    pw, ph = t.page
    x, y, cw, ch = t.content
    assert x >= PRINT_MARGIN_MM and y >= PRINT_MARGIN_MM
    assert x + cw <= pw - PRINT_MARGIN_MM + 1e-9 and y + ch + tiling.FOOTER_MM <= ph - PRINT_MARGIN_MM + 1e-9
    # the orientation chosen needs no more sheets than the other
    portrait = tiling.plan(w, h, *PAPERS[paper])
    landscape = tiling.plan(w, h, *reversed(PAPERS[paper]))
    assert t.sheets == min(portrait.sheets, landscape.sheets) and t.sheets <= t.other_sheets


def test_registration_ticks_cross_every_seam():
    t = tiling.tile_board(800, 530, "a4")
    ticks = tiling.registration_ticks(t)
    vx, hy = tiling.seams(t)
    assert vx and hy
    # two per seam per row (column) it separates
    assert len(ticks) == 2 * (len(vx) * t.rows + len(hy) * t.cols)
    for tick in ticks:
        (ax, ay), (bx, by) = tick.segment()
        if tick.vertical:  # a horizontal tick across a seam between columns, half on each sheet
            assert tick.x in vx and ax < tick.x < bx and ay == by
        else:
            assert tick.y in hy and ay < tick.y < by and ax == bx
        # on the board, and in a stretch of the seam only its two sheets print
        assert 0 <= tick.x <= 800 and 0 <= tick.y <= 530
        holders = [tile.label for tile in t.tiles
                   if tile.window[0] - 1e-6 <= tick.x <= tile.window[2] + 1e-6
                   and tile.window[1] - 1e-6 <= tick.y <= tile.window[3] + 1e-6]
        assert len(holders) == 2, (tick, holders)


def test_registration_ticks_move_off_what_they_would_cover():
    t = tiling.tile_board(800, 530, "a4")
    first = tiling.registration_ticks(t)[0]
    blocker = (first.x - 8, first.y - 8, first.x + 8, first.y + 8)
    moved = tiling.registration_ticks(t, [blocker])[0]
    assert moved.x == first.x and moved.y != first.y  # slid along its seam
    (ax, ay), (bx, by) = moved.segment()
    assert not box(ax, ay - 1, bx, by + 1).intersects(box(*blocker))


def test_a_tick_with_no_free_spot_in_its_third_goes_elsewhere_on_its_stretch_or_is_left_out():
    """A seam stretch whose first third is covered gets that tick where the stretch is free; one
    covered from end to end gets no tick (a mark printed on a station or a space would stay on the
    finished board), and every tick printed misses what it must avoid."""
    t = tiling.tile_board(800, 530, "a4")
    x = tiling.seams(t)[0][0]
    ys = [(t.tile(r, 0).window[1], t.tile(r, 0).window[3]) for r in range(t.rows)]
    lo, hi = tiling._exclusive(ys, 0, 530)          # the stretch of seam x only rows A's sheets print
    on = lambda ticks: sorted(k.y for k in ticks if k.vertical and k.x == x and k.y <= hi)
    plain = on(tiling.registration_ticks(t))
    assert len(plain) == 2
    # the first third covered, up to past the second tick's stretch start: that tick moves past it
    wall = (x - 20, -10, x + 20, plain[1] - 12)
    moved = on(tiling.registration_ticks(t, [wall]))
    assert len(moved) == 2 and all(y > wall[3] for y in moved) and moved[1] - moved[0] >= 6
    # the whole stretch covered: no tick on it, the other stretches and seams keep theirs
    full = (x - 20, -10, x + 20, hi + 1)
    plain_all, kept = tiling.registration_ticks(t), tiling.registration_ticks(t, [full])
    assert on(kept) == [] and len(kept) == len(plain_all) - 2
    for k in kept:
        (ax, ay), (bx, by) = k.segment()
        assert not box(ax, ay - 1, bx, by + 1).intersects(box(*full))
    # pieces either side of the seam all along the stretch, 4-6 mm from it: no room for a full tick
    # (5 mm each way), room for short ones (2 mm): the stretch gets those
    sides = [(x - 6, -10, x - 4, hi + 1), (x + 4, -10, x + 6, hi + 1)]
    short = [k for k in tiling.registration_ticks(t, sides) if k.vertical and k.x == x and k.y <= hi]
    assert len(short) == 2 and all(k.reach == tiling.SHORT_TICK_MM for k in short)
    for k in short:
        (ax, ay), (bx, by) = k.segment()
        assert bx - ax == 2 * tiling.SHORT_TICK_MM
        assert not any(box(ax, ay - 1, bx, by + 1).intersects(box(*b)) for b in sides)


def test_row_labels():
    assert [tiling.row_label(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]


# ------------------------------------------------------------------ cards and imposition (pure)


@pytest.mark.parametrize("paper, mode, per_sheet", [("a4", "home", 16), ("letter", "home", 12),
                                                    ("a4", "bleed", 9), ("letter", "bleed", 9)])
def test_sheet_layouts_fit_the_printable_area(paper, mode, per_sheet):
    lay = imposition.sheet_layout(imposition.MINI_CARD, paper, mode)
    assert lay.per_sheet == per_sheet
    x0, y0, x1, y1 = lay.frame
    pw, ph = lay.page
    room = PRINT_MARGIN_MM + imposition.MARK_ROOM_MM
    assert x0 >= room - 1e-9 and y0 >= room - 1e-9 and x1 <= pw - room + 1e-9 and y1 <= ph - room + 1e-9
    # cards never overlap: butted at home, 2 × bleed apart in bleed mode
    slots = [lay.slot(i) for i in range(lay.per_sheet)]
    gap = 2 * imposition.BLEED_MM if mode == "bleed" else 0.0
    for i, (x, y) in enumerate(slots):
        for x2, y2 in slots[i + 1:]:
            if abs(y - y2) < 1e-9:
                assert abs(x - x2) >= lay.card[0] + gap - 1e-9
            if abs(x - x2) < 1e-9:
                assert abs(y - y2) >= lay.card[1] + gap - 1e-9


def test_train_deck_is_the_board_deck_or_the_derived_one(tiny, a4_kit):
    deck = cards.train_cards(tiny)
    derived = derive_deck(tiny)
    assert len(deck) == derived.total == 110
    assert deck.count(None) == derived.wild
    for color, n in derived.counts.items():
        assert deck.count(color) == n
    trains = a4_kit[1]["cards"]["trains"]
    assert trains["cards"] == trains["frames"] == 110
    pages = imposition.impose(len(deck), imposition.sheet_layout(), "long-edge")
    fronts = [p for p in pages if p.side == "front"]
    assert len(fronts) * 16 >= 110
    assert sorted(c.card for p in fronts for c in p.cards) == list(range(110))


def test_the_decks_the_rules_use_are_printed(tiny):
    # the standard preset plays with the standard deck; --deck picks others, "all" every one
    assert {label for label, _ in cards.ticket_cards(tiny)} == {"standard"}
    assert len(cards.ticket_cards(tiny)) == len(tiny.ticket_decks["standard"])
    every = cards.ticket_cards(tiny, ("all",))
    assert len(every) == sum(len(ts) for ts in tiny.ticket_decks.values())
    assert every[0][0] == "standard" and {label for label, _ in every} == set(tiny.ticket_decks)
    assert [n for n, _ in cards.ticket_decks(tiny, ("1910", "cities"))] == ["1910", "cities"]
    assert cards.missing_decks(tiny, ("standard", "nope")) == ["nope"]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_backs_are_mirrored_for_long_edge(paper):
    lay = imposition.sheet_layout(imposition.MINI_CARD, paper, "home")
    pages = imposition.impose(lay.per_sheet + 3, lay, "long-edge")
    assert [p.side for p in pages] == ["front", "back", "front", "back"]
    pw = lay.page[0]
    for front, back in zip(pages[::2], pages[1::2]):
        where = {c.card: c.xy for c in back.cards}
        for c in front.cards:
            x, y = c.xy
            bx, by = where[c.card]
            assert by == pytest.approx(y)
            assert bx == pytest.approx(pw - x - lay.card[0])
            col = round((x - lay.slot(0)[0]) / lay.pitch[0])
            assert round((bx - lay.slot(0)[0]) / lay.pitch[0]) == lay.cols - 1 - col


def test_backs_for_short_edge_and_none():
    lay = imposition.sheet_layout()
    short = imposition.impose(5, lay, "short-edge")
    front, back = short
    for f, b in zip(front.cards, back.cards):
        assert b.xy == pytest.approx((f.xy[0], lay.page[1] - f.xy[1] - lay.card[1]))
    none = imposition.impose(lay.per_sheet + 1, lay, "none")
    assert [p.side for p in none] == ["front", "front", "back", "back"]
    # the person turns the printed stack over left to right: a long-edge flip by hand
    long = imposition.impose(lay.per_sheet + 1, lay, "long-edge")
    assert [c.xy for c in none[2].cards] == [c.xy for c in long[1].cards]
    assert [c.xy for c in none[3].cards] == [c.xy for c in long[3].cards]


def test_colors_get_distinct_symbols(tiny):
    sym = symbols.assign_symbols(tiny)
    assert len(set(sym.values())) == len(tiny.palette)
    for name in symbols.SYMBOLS + (symbols.WILD,):
        assert symbols.unit_shape(name).is_valid


# ------------------------------------------------------------------ the board drawing


def test_tiny_board_scene(tiny):
    layout = Layout(tiny)
    scene = build_scene(tiny, layout, content_hash(TINY))
    assert scene.unplaced == []
    assert labels.collisions(scene.placement, scene.label_obstacles, scene.label_bounds) == []
    assert set(scene.placement.placed) == {s.id for s in tiny.stations}
    spaces = [i for i in scene.items if type(i).__name__ == "Area" and i.z in (3, 7)]
    assert len(spaces) == tiny.total_spaces
    texts = " ".join(" ".join(i.lines) for i in scene.items if type(i).__name__ == "Text")
    assert tiny.name in texts and content_hash(TINY) in texts and "Alan R. Moon" in texts
    assert "Red Line — Light rail" in texts and "Locomotive" in texts


def test_pale_colors_are_outlined_in_ink(tiny_data, write_board):
    # a near-white route color (Portland's Aerial Tram, #F0F4F8, is 1.04:1 against the board) is drawn
    # with a heavier ink outline; other colors keep a darker shade of themselves
    from mapkit.render import style
    from mapkit.render.scene import route_items

    pale, other = tiny_data["palette"][0]["id"], tiny_data["palette"][1]["id"]
    tiny_data["palette"][0]["hex"] = "#F0F4F8"
    board = load_valid_board(write_board(tiny_data))
    layout = Layout(board)
    sym = symbols.assign_symbols(board)
    for color, edge, lw in ((pale, style.INK, style.PALE_EDGE_LW), (other, None, 0.6)):
        r = next(r for r in board.routes if r.color == color and r.kind != "flight")
        spaces = [i for i in route_items(board, r, layout.routes[r.id], sym) if type(i).__name__ == "Area"
                  and i.face == board.color(color).hex]
        assert len(spaces) == r.length
        hex_ = board.color(color).hex
        for i in spaces:
            assert i.edge == (edge or style.shade(hex_, 0.55)) and i.lw == lw
            # the outline stands out from the playing area (WCAG non-text contrast, 3:1)
            assert style.contrast(to_hex(i.edge), style.INNER) >= 3
    assert style.contrast("#F0F4F8", style.INNER) < 1.3 and style.is_whitish("#F0F4F8")


def to_hex(color) -> str:
    from matplotlib.colors import to_hex as mpl_to_hex
    return mpl_to_hex(color)


def test_a_label_with_no_room_is_reported():
    bounds = box(0, 0, 100, 100)
    wall = box(0, 0, 100, 100).difference(box(45, 45, 55, 55))
    req = labels.LabelRequest("x", labels.station_candidates("Long Station Name", (50, 50), 4))
    placement = labels.place([req], [wall], bounds)
    assert placement.unplaced == ["x"] and "x" in placement.placed


def test_labels_avoid_each_other():
    bounds = box(0, 0, 200, 200)
    reqs = [labels.LabelRequest(f"s{i}", labels.station_candidates("Station", (60 + 12 * i, 100), 4))
            for i in range(5)]
    placement = labels.place(reqs, [], bounds)
    assert placement.unplaced == []
    assert labels.collisions(placement, [], bounds) == []


def test_summary_card_text(tiny):
    front = " ".join(" ".join(s.lines) for s in summary.front(tiny))
    back = summary.back(tiny)
    assert "Draw 2 train cards" in front and "Claim a route" in front and "Draw 3 tickets" in front
    table = next(s.table for s in back if s.heading == "Route scoring")
    assert [int(p) for _, p in table] == list(tiny.route_points)
    text = " ".join(" ".join(s.lines) for s in back)
    assert "Longest continuous path: +10" in text
    assert "Alan R. Moon" in text and "Days of Wonder" in text and "non-commercial" in text


# ------------------------------------------------------------------ the command line


def test_bad_paper_is_a_usage_error(cli):
    result = cli("render", TINY, "--paper", "a3")
    assert result.exit_code == 2
    assert "a3" in result.output


def test_an_unknown_deck_is_a_usage_error_naming_the_decks(cli, tmp_path):
    # a kit without the deck asked for is not what the designer wanted: refuse before writing anything
    result = cli("render", TINY, "--deck", "standard", "--deck", "citys", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "no ticket deck 'citys' (did you mean 'cities'?)" in result.output
    assert "decks: 1910, cities, standard, transit, or 'all'" in result.output
    assert "standard'" not in result.output.split("decks:")[0]  # only the unknown one is named as missing
    assert not (tmp_path / "out").exists()


def test_broken_board_exits_1_with_the_validators_message(cli, tiny_data, write_board, tmp_path):
    tiny_data["routes"][0]["to"] = "birhc"
    result = cli("render", write_board(tiny_data), "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert "unknown station 'birhc'" in result.output
    assert not (tmp_path / "out").exists()


def test_out_pointing_at_a_file_is_refused(cli, tmp_path):
    target = tmp_path / "taken"
    target.write_text("not a folder")
    result = cli("render", TINY, "--out", target)
    assert result.exit_code == 2
    assert "is a file, not a folder" in result.output
    assert target.read_text() == "not a folder"


def test_text_output_describes_each_file(a4_kit):
    # the good run is the JSON run of the a4_kit fixture; this checks the text form of its result
    from mapkit.cli.render import _describe
    from mapkit.render.kit import RenderResult

    out, report = a4_kit
    result = RenderResult("tiny", out, {k: Path(v) for k, v in report["files"].items()}, report["pages"],
                          report["tiles"], report["cards"])
    line = _describe(result, "trains.pdf")
    assert "trains.pdf" in line and "110 train cards" in line and f"{report['pages']['trains.pdf']} pages" in line
