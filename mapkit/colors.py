"""How far apart two printed colors look: sRGB → CIELAB (D65) → CIEDE2000. Pure Python, no I/O.

`validate` uses this to warn when two route colors of a board (or a color and the gray that gray
routes are drawn in) are too alike to tell apart at the table.

CIEDE2000 follows G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference formula:
implementation notes, supplementary test data, and mathematical observations", Color Research &
Application 30 (2005) 21-30; the test suite checks it against that paper's published test pairs.
"""

from __future__ import annotations

import math

# How gray routes are drawn (mapkit.render.style.GRAY_HEX; a test keeps the two equal). It lives
# here too so that validating a board never imports matplotlib. Its fill is 2.3:1 against the paper;
# the spaces read by their outline, a darker shade of the gray (6:1; mapkit.render.style.space_edge).
# A gray dark enough to reach 3:1 by itself (#8a8a8a) would be only ΔE 14.6 from Seattle's Sounder
# color, so the fill stays this light and the outline carries the contrast (as with whitish colors,
# which get an ink outline).
GRAY_DISPLAY_HEX = "#a0a0a0"

# The smallest CIEDE2000 difference between two route colors of one board. ΔE00 ≈ 1 is a
# just-noticeable difference side by side under good light; pieces on a table are seen apart, in
# home lighting, printed on varying paper and inks, and often by color-blind players (the
# symbols help them). The Portland Aerial Tram's silver (#898E91) next to gray (#A0A0A0) is 7.6,
# and players mix them up. 20 keeps every pair clearly distinct while the standard map's eight
# colors still fit (its closest pair, orange and yellow, is about 21).
MIN_COLOR_DELTA_E = 20.0


def hex_to_rgb(hex_color: str) -> tuple[float, float, float]:
    """#rrggbb → (r, g, b) in 0..1."""
    h = hex_color.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))


def _linear(c: float) -> float:
    # the sRGB transfer function (IEC 61966-2-1)
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def rgb_to_lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """sRGB (0..1) → CIELAB with the D65 white point."""
    r, g, b = (_linear(c) for c in rgb)
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
    white = (0.95047, 1.0, 1.08883)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip((x, y, z), white))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e_2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - math.sqrt(c_bar7 / (c_bar7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)

    def hue(b: float, ap: float) -> float:
        return 0.0 if b == 0 and ap == 0 else math.degrees(math.atan2(b, ap)) % 360

    h1p, h2p = hue(b1, a1p), hue(b2, a2p)
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    elif h2p - h1p > 180:
        dh = h2p - h1p - 360
    else:
        dh = h2p - h1p + 360
    dH = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    c_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_bar = (h1p + h2p + 360) / 2
    else:
        h_bar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    c_bar7 = c_bar ** 7
    r_c = 2 * math.sqrt(c_bar7 / (c_bar7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * c_bar
    s_h = 1 + 0.015 * c_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dH / s_h) ** 2 + r_t * (dc / s_c) * (dH / s_h))


def color_distance(hex1: str, hex2: str) -> float:
    """CIEDE2000 difference of two #rrggbb colors as printed (sRGB)."""
    return delta_e_2000(rgb_to_lab(hex_to_rgb(hex1)), rgb_to_lab(hex_to_rgb(hex2)))
