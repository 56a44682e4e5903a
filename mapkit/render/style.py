"""Colors and names shared by the board and the cards."""

from __future__ import annotations

from matplotlib.colors import to_rgb

GRAY_HEX = "#a0a0a0"
INK = "#222222"
PAPER = "#f6f1e4"        # board background
INNER = "#fbf8f0"        # the playing area
TRACK = "#ffffff"
HAIRLINE = "#9a9a9a"
WATER = "#3d7fb5"
ACCENT = "#c0392b"       # ticket stations on the mini-map, bonus badges
CARD_BACK = "#233a5e"
TICKET_BACK = "#7a4e2d"

KIND_NAMES = {
    "rail": "Rail", "light-rail": "Light rail", "streetcar": "Streetcar", "commuter-rail": "Commuter rail",
    "aerial-tram": "Aerial tram", "monorail": "Monorail", "bus": "Bus", "ferry": "Ferry",
    "water-taxi": "Water taxi", "flight": "Flight",
}
WATER_KINDS = ("ferry", "water-taxi")


def luminance(hex_color: str) -> float:
    """Relative luminance (WCAG) of a color, 0 black to 1 white."""
    def lin(c):
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in to_rgb(hex_color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_on(hex_color: str) -> str:
    """Black or white, whichever reads better on this color."""
    lum = luminance(hex_color)
    return "#000000" if (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) else "#ffffff"


def contrast(hex_a: str, hex_b: str) -> float:
    """WCAG contrast ratio of two colors, 1 (the same lightness) to 21 (black on white)."""
    la, lb = sorted((luminance(hex_a), luminance(hex_b)))
    return (lb + 0.05) / (la + 0.05)


def is_whitish(hex_color: str) -> bool:
    """Light enough to vanish on the board's paper (under 1.3:1 against it, like the Portland Aerial
    Tram's #F0F4F8 at 1.04:1): drawn with an ink outline instead of a shade of itself."""
    return luminance(hex_color) > 0.7


# A space's outline: a darker shade of its own color, except for whitish colors, whose shade would
# still be pale: those get the board's ink, heavier, so the space reads as a space and not as a hole
# in the board (its fill still matches its train cards).
PALE_EDGE_LW = 1.4


def space_edge(hex_color: str, lw: float = 0.6) -> tuple[object, float]:
    """(outline color, line width in pt) of a space, legend sample or card panel of this color."""
    if is_whitish(hex_color):
        return INK, max(lw, PALE_EDGE_LW)
    return shade(hex_color, 0.55), lw


def shade(hex_color: str, factor: float) -> tuple[float, float, float]:
    """The color darkened (factor < 1) or lightened towards white (factor > 1)."""
    r, g, b = to_rgb(hex_color)
    if factor <= 1:
        return (r * factor, g * factor, b * factor)
    t = min(1.0, factor - 1)
    return (r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t)


def route_hex(board, color_id: str) -> str:
    return GRAY_HEX if color_id == "gray" else board.color(color_id).hex


def kind_name(kind: str) -> str:
    return KIND_NAMES.get(kind, kind.replace("-", " ").capitalize())
