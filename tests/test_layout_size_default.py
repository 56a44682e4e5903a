"""`mapkit layout` without --size: a board the file already draws keeps its size; one not drawn
yet gets the smallest standard size that fits (as --size auto)."""

import json

from mapkit.layout.fit import drawn_size
from mapkit.layout.synthetic import layout_board_data


def _board_mm(out: str) -> tuple[float, float]:
    head = out.splitlines()[0]
    w, h = head.split("board ")[1].split(" mm")[0].split(" x ")
    return float(w), float(h)


def test_a_drawn_board_keeps_its_size_and_auto_still_chooses(cli, tmp_path):
    data = layout_board_data(14, seed=3)
    assert drawn_size(data) is None
    src = tmp_path / "net.json"
    src.write_text(json.dumps(data))
    first = cli("layout", src, "--out", tmp_path / "drawn.json")
    assert "(chosen:" in first.output            # not drawn yet: auto
    auto = _board_mm(first.output)
    drawn = json.loads((tmp_path / "drawn.json").read_text())
    big = (1189.0, 841.0) if auto != (1189.0, 841.0) else (1400.0, 1000.0)
    drawn["physical"] = {**drawn.get("physical", {}), "width_mm": big[0], "height_mm": big[1]}
    (tmp_path / "drawn.json").write_text(json.dumps(drawn))
    assert drawn_size(drawn) == big
    again = cli("layout", tmp_path / "drawn.json", "--out", tmp_path / "again.json")
    assert _board_mm(again.output) == big and "the file's size" in again.output
    chosen = cli("layout", tmp_path / "drawn.json", "--size", "auto", "--out", tmp_path / "auto.json")
    assert _board_mm(chosen.output) != big and "(chosen:" in chosen.output


def test_a_drawn_board_without_physical_is_the_default_size():
    data = layout_board_data(6, seed=1)
    for s in data["stations"]:
        s["board"] = {"x": 100.0, "y": 100.0}
    data.pop("physical", None)
    assert drawn_size(data) == (800.0, 530.0)
