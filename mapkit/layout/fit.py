"""Board size: the smallest standard size that holds a network, and what does not fit in a given one.

Standard sizes are the printed ones a designer can buy or tile: the ISO A series from A3 to A0,
the standard Ticket to Ride board (800 × 530 mm) and the 900 × 600 and 1000 × 700 mm boards of
fan maps, each either way round.
"""

from __future__ import annotations

from mapkit.model import Physical

STANDARD_SIZES = ((420, 297), (594, 420), (800, 530), (841, 594), (900, 600), (1000, 700), (1189, 841),
                  (1400, 1000), (1682, 1189))
EDGE_MM = 12.0  # station centres this far inside the inner area: a double's spaces reach 11 mm aside
FILL = 0.8      # the stations' bounding box spans at least this share of the inner area each way
SHRINK_OK = 0.9  # --size auto may pick a size the network fills once shrunk this much (pick_size)


def inner_box(width: float, height: float, margin: float) -> tuple[float, float, float, float]:
    """Where station centres and waypoints may go."""
    e = margin + EDGE_MM
    return (e, e, width - e, height - e)


def fills(span_w: float, span_h: float, width: float, height: float, margin: float) -> bool:
    """Whether a span_w × span_h layout fills the inner area of that board FILL each way."""
    return span_w >= FILL * (width - 2 * margin) and span_h >= FILL * (height - 2 * margin)


def pick_size(span_w: float, span_h: float, margin: float, prefer_fill: bool = False) -> tuple[float, float]:
    """The smallest standard size (by area, either way round) for a span_w × span_h layout, first
    among those it fills FILL each way and holds as it is, then among those it fills once shrunk
    to no less than SHRINK_OK (its gaps have room below network.MAX_GAP_MM; the layout shrinks it
    gradually), then the smallest that holds it: a board the network would leave a third empty is
    the wrong choice even where it is the first that holds it, since a layout held to its routes'
    gaps cannot grow into it (prefer_fill, with the gap rule; without it, the smallest that holds it).
    The largest size when none holds it (the fit report then says by how much)."""
    need_w, need_h = span_w + 2 * (margin + EDGE_MM), span_h + 2 * (margin + EDGE_MM)
    options = []
    for w, h in STANDARD_SIZES:
        for W, H in ((w, h), (h, w)):
            holds = W >= need_w and H >= need_h
            # a network with no extent one way (a line of stations) sets no shrink that way
            shrink = min([1.0] + [(room - 2 * (margin + EDGE_MM)) / span
                                  for room, span in ((W, span_w), (H, span_h)) if span > 0])
            filled = fills(span_w * shrink, span_h * shrink, W, H, margin)
            if not prefer_fill:
                filled = False   # the layout's fill term stretches the network into a larger board
            if holds or (filled and shrink >= SHRINK_OK):
                rank = 0 if holds and filled else 1 if filled else 2
                options.append((rank, W * H, abs(W / H - need_w / need_h), W, H))
    if not options:
        w, h = STANDARD_SIZES[-1]
        return (w, h) if span_w >= span_h else (h, w)
    options.sort()
    return options[0][3], options[0][4]


def filled_size(span_w: float, span_h: float, margin: float) -> tuple[float, float]:
    """The board (rounded down to 10 mm) that a span_w × span_h layout would fill FILL each way."""
    return (10 * int((span_w / FILL + 2 * margin) // 10), 10 * int((span_h / FILL + 2 * margin) // 10))


def next_size(width: float, height: float) -> tuple[float, float] | None:
    """The next standard size up by area, in the same orientation (None past the largest)."""
    for w, h in sorted(STANDARD_SIZES, key=lambda s: s[0] * s[1]):
        W, H = (w, h) if width >= height else (h, w)
        if w * h > width * height and W >= width and H >= height:
            return W, H
    return None


def drawn_size(data: dict) -> tuple[float, float] | None:
    """The size of a board the file already draws (every station has a board position): its
    physical width_mm and height_mm, or their defaults; None for a board not drawn yet. A new
    layout of a drawn board keeps this size unless asked for another."""
    stations = data.get("stations") or []
    if not stations or not all("board" in s_ for s_ in stations):
        return None
    ph = data.get("physical") or {}
    return (float(ph.get("width_mm", Physical.width_mm)), float(ph.get("height_mm", Physical.height_mm)))


def parse_size(text: str) -> tuple[float, float] | str:
    """'auto' or 'WxH' in mm (e.g. 800x530); anything else raises ValueError with the fix."""
    t = text.strip().lower()
    if t == "auto":
        return "auto"
    parts = t.replace("×", "x").split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        w, h = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"'{text}' is not a board size: give auto or WIDTHxHEIGHT in mm, for example 800x530") from None
    if not (100 <= w <= 5000 and 100 <= h <= 5000):
        raise ValueError(f"'{text}': each side must be from 100 to 5000 mm (the board file's limits)")
    return (w, h)
