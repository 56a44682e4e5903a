"""A quick look at a candidate layout that `mapkit render` refuses (it renders only valid boards):
spaces in their colors (a flight's path dotted), station markers and names. python reports/layout/preview.py BOARD.json OUT.png"""
import json, sys

import matplotlib; matplotlib.use('Agg')
import matplotlib.pyplot as plt
from mapkit.boardfile import build_board
from mapkit.geometry import Layout
d = json.load(open(sys.argv[1]))
b = build_board(d); L = Layout(b); ph = b.physical
fig, ax = plt.subplots(figsize=(ph.width_mm/60, ph.height_mm/60))
ax.add_patch(plt.Rectangle((ph.margin_mm, ph.margin_mm), ph.width_mm-2*ph.margin_mm, ph.height_mm-2*ph.margin_mm, fill=False))
cols = {c.id: c.hex for c in b.palette}
for rid, sh in L.routes.items():
    r = next(x for x in b.routes if x.id == rid)
    if r.kind == 'flight':  # its path round the board, which its few spaces alone do not show
        xs, ys = zip(*sh.centerline)
        ax.plot(xs, ys, ls=':', lw=0.6, c='k')
    for c in sh.spaces:
        ax.add_patch(plt.Polygon(c, closed=True, fc=cols.get(r.color, '#aaaaaa'), ec='k', lw=0.3))
for s in b.stations:
    x, y = L.positions[s.id]
    ax.add_patch(plt.Circle((x, y), ph.station_radius_mm, fc='w', ec='k'))
    ax.text(x + 8, y, s.name, fontsize=5)
ax.set_xlim(0, ph.width_mm); ax.set_ylim(ph.height_mm, 0); ax.set_aspect('equal')
plt.savefig(sys.argv[2], dpi=110, bbox_inches='tight')
