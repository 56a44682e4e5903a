import json
import os

from conftest import FIXTURES


def test_build_makes_the_kit_without_touching_the_board(cli, tmp_path):
    board = tmp_path / "tiny.json"
    original = (FIXTURES / "tiny.json").read_text()
    board.write_text(original)
    out = tmp_path / "kit"
    out.mkdir()
    pdfs = ("board.pdf", "board-tiles.pdf", "tickets.pdf", "trains.pdf", "summary.pdf", "rules.pdf")
    for name in pdfs:   # a previous kit, replaced
        (out / name).write_bytes(b"old")
    result = cli("build", board, "--out", out, "--games", "20", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["derived"] == ["deck"]  # the tiny board has tickets but no deck
    for name in pdfs:
        assert (out / name).read_bytes().startswith(b"%PDF"), name
    for name in ("board.json", "report.md"):
        assert (out / name).exists(), name
    assert not [p for p in os.listdir(out) if p.startswith(".")]   # no staging folder left
    assert board.read_text() == original
    completed = json.loads((out / "board.json").read_text())
    assert sum(completed["deck"]["counts"].values()) + completed["deck"]["wild"] == completed["deck"]["total"]
    # the sheets carry the hash of the completed board.json written beside them
    from pypdf import PdfReader

    from mapkit.render import content_hash
    assert content_hash(out / "board.json") in PdfReader(out / "rules.pdf").pages[0].extract_text()


def test_build_stops_on_a_broken_board(cli, in_repo, tmp_path):
    result = cli("build", "tests/bad_boards/self-loop.json", "--out", tmp_path / "kit")
    assert result.exit_code == 1
    assert "[self-loop]" in result.output
    assert not (tmp_path / "kit").exists()
