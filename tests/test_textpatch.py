"""Changing values inside a board file's own text: only the changed characters move."""

import json

import pytest

from mapkit.errors import BoardError
from mapkit.textpatch import DELETE, PatchError, patch_text
from mapkit.writer import validate_text, write_patches

from conftest import REPO

TEXT = """{
  "id": "t",
  "stations": [
    {"id": "a", "name": "A", "lat": 1, "lon": 2},
    {"id": "b",  "name": "B", "lat": 1.5, "lon": 2, "board": {"x": 1, "y": 2}}
  ],
  "routes": [
    {"from": "a", "to": "b", "length": 2,
     "waypoints": [{"x": 3, "y": 4}]}
  ],
  "empty": {},
  "list": []
}
"""


def apply(changes, text=TEXT):
    out = patch_text(text, changes)
    return out, json.loads(out)


def test_replace_only_that_value():
    out, data = apply({("stations", 1, "board"): {"x": 10.5, "y": 20}})
    assert data["stations"][1]["board"] == {"x": 10.5, "y": 20}
    assert out == TEXT.replace('{"x": 1, "y": 2}', '{"x": 10.5, "y": 20}')  # the odd double space kept


def test_insert_key_in_one_line_object_and_in_a_multiline_one():
    out, data = apply({("stations", 0, "board"): {"x": 5, "y": 6}, ("id",): "u", ("name",): "New"})
    assert data["stations"][0]["board"] == {"x": 5, "y": 6}
    assert '"lon": 2, "board": {"x": 5, "y": 6}}' in out
    assert data["name"] == "New" and list(data)[-1] == "name"
    assert out.rstrip().endswith('"list": [],\n  "name": "New"\n}')


def test_delete_key_and_array_items():
    out, data = apply({("routes", 0, "waypoints"): DELETE, ("stations", 0): DELETE})
    assert "waypoints" not in data["routes"][0] and data["routes"][0]["length"] == 2
    assert [s["id"] for s in data["stations"]] == ["b"]
    out, data = apply({("stations", 1): DELETE})
    assert [s["id"] for s in data["stations"]] == ["a"]
    assert patch_text(TEXT, {("stations", 0, "nothing"): DELETE}) == TEXT


def test_append_items_copy_the_neighbours_layout():
    out, data = apply({("stations", 2): {"id": "c"}, ("list", 0): 1, ("empty", "k"): True})
    assert data["stations"][2] == {"id": "c"} and data["list"] == [1] and data["empty"] == {"k": True}
    assert '},\n    {"id": "c"}\n  ]' in out


def test_crlf_and_bom_kept():
    crlf = "\ufeff" + TEXT.replace("\n", "\r\n")
    out = patch_text(crlf, {("stations", 0, "board"): {"x": 1, "y": 1}, ("zz",): 1})
    assert out.startswith("\ufeff") and out.count("\n") == out.count("\r\n")
    json.loads(out[1:])


def test_bad_paths_and_overlaps_refused():
    with pytest.raises(PatchError, match="no such key"):
        patch_text(TEXT, {("nope", 0): 1})
    with pytest.raises(PatchError, match="outside"):
        patch_text(TEXT, {("stations", 5): 1})
    with pytest.raises(PatchError, match="inside"):
        patch_text(TEXT, {("stations", 1): {}, ("stations", 1, "board"): {}})
    with pytest.raises(PatchError, match="invalid JSON"):
        patch_text("{\"a\": [1, 2", {("a", 0): 3})


def test_write_patches_changes_bytes_only_there(tmp_path):
    path = tmp_path / "b.json"
    raw = (REPO / "boards" / "portland.json").read_bytes()
    path.write_bytes(raw)
    data = json.loads(raw)
    def moved_valid(i):   # a station 1 mm to the right still gives a valid board (a computed layout
        # draws some routes at their shortest: moving one of their ends shortens them too much)
        d = json.loads(raw)
        d["stations"][i]["board"]["x"] += 1
        return validate_text(json.dumps(d), "moved").valid
    index = next(i for i, s in enumerate(data["stations"]) if "board" in s and moved_valid(i))
    old = data["stations"][index]["board"]
    write_patches(path, {("stations", index, "board"): {"x": old["x"] + 1, "y": old["y"]}})
    new = path.read_bytes()
    assert json.loads(new)["stations"][index]["board"]["x"] == old["x"] + 1
    diff = [i for i, (a, b) in enumerate(zip(raw, new)) if a != b]
    assert diff and diff[-1] - diff[0] < 12 and len(raw) - 3 <= len(new) <= len(raw) + 3
    with pytest.raises(BoardError):  # an unknown station would not validate: nothing written
        write_patches(path, {("routes", 0, "to"): "nowhere"})
    assert path.read_bytes() == new
    # the editor's gate: a board with check errors may still be written, a schema error may not
    far = {"x": old["x"] + 2000, "y": old["y"]}  # off the board: a check error, not a schema one
    with pytest.raises(BoardError):
        write_patches(path, {("stations", index, "board"): far})
    report = write_patches(path, {("stations", index, "board"): far}, gate="schema")
    assert not report.valid and json.loads(path.read_bytes())["stations"][index]["board"] == far
    with pytest.raises(BoardError):
        write_patches(path, {("stations", index, "board"): {"x": "left"}}, gate="schema")
