"""network.END_NEED_LSOFT (off by default): a route's longest good drawing gives only its ends at a
narrow fan their need (crowding.bearing_end_needs), not every gap."""

import math

import numpy as np

from mapkit.layout import network
from mapkit.layout.crowding import bearing_end_needs


def test_bearing_end_needs_narrow_and_wide():
    geo = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 3.0], [-10.0, 0.0]])
    ends = [(0, 1, 2.0), (0, 2, 2.0), (0, 3, 2.0)]
    needs = bearing_end_needs(ends, geo, 5.0, 6.0, 30.0)
    assert needs[0][0] > 6.0 and needs[1][0] > 6.0       # about 17 degrees apart at station 0
    assert needs[2][0] == 6.0                             # alone on its side
    assert all(n[1] == 6.0 for n in needs)                # one band at each far station
    geo[2] = [10.0, 0.5]                                  # 3 degrees: more than 30 mm, counted at 6
    assert bearing_end_needs(ends, geo, 5.0, 6.0, 30.0)[0][0] == 6.0


def test_switch_lengthens_only_crowded_ends(monkeypatch):
    from mapkit.layout.synthetic import layout_board_data
    data = layout_board_data(20, seed=0)
    off = network.build_network(data)
    monkeypatch.setattr(network, "END_NEED_LSOFT", True)
    on = network.build_network(data)
    diff = np.array([b.lsoft - c.lsoft for b, c in zip(on.bundles, off.bundles)])
    assert (diff >= -1e-9).all()
    assert all(math.isinf(b.gap_max) for b in on.bundles)
