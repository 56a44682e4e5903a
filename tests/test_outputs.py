"""What mapkit writes: never an input, never a partial file, never the user's settings lost.

Full disks and read-only folders are simulated by monkeypatching (tests may run as root, for
whom mode bits are not enforced, and no portable way makes a disk full).
"""

import errno
import json
import os
import stat

import pytest

from conftest import FIXTURES
from mapkit import outputs
from mapkit.boardfile import load_board


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_bytes((FIXTURES / "tiny.json").read_bytes())
    return path


def no_temp_left(folder):
    return not [p for p in os.listdir(folder) if p.endswith(".tmp") or p.startswith(".mapkit-")]


# ---------------------------------------------------------------- item 4: --write keeps the file's settings

def test_write_keeps_the_mode(cli, tiny):
    os.chmod(tiny, 0o644)
    assert cli("cards", tiny, "--write").exit_code == 0
    assert stat.S_IMODE(tiny.stat().st_mode) == 0o644
    assert load_board(tiny).deck is not None


def test_write_refuses_a_read_only_board(cli, tiny):
    os.chmod(tiny, 0o444)
    before = tiny.read_bytes()
    result = cli("cards", tiny, "--write")
    assert result.exit_code == 1
    assert "read-only" in result.output and str(tiny) in result.output
    assert tiny.read_bytes() == before


def test_write_goes_through_a_symlink_to_its_target(cli, tiny, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tiny)
    assert cli("cards", link, "--write").exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(tiny)
    assert load_board(tiny).deck is not None


def test_write_keeps_a_hard_link(cli, tiny, tmp_path):
    other = tmp_path / "other-name.json"
    os.link(tiny, other)
    assert cli("cards", tiny, "--write").exit_code == 0
    assert os.path.samefile(tiny, other) and tiny.stat().st_nlink == 2
    assert load_board(other).deck is not None


def test_write_keeps_crlf_line_endings(cli, tiny):
    text = tiny.read_text().replace("\n", "\r\n")
    tiny.write_bytes(text.encode())
    assert cli("cards", tiny, "--write").exit_code == 0
    raw = tiny.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") > text.count("\r\n")  # new lines added, all CRLF
    assert raw.startswith(text[:40].encode())  # the rest of the file did not move


def test_write_keeps_a_byte_order_mark(cli, tiny):
    tiny.write_bytes(b"\xef\xbb\xbf" + tiny.read_bytes())
    result = cli("cards", tiny, "--write")
    assert result.exit_code == 0, result.output
    assert tiny.read_bytes().startswith(b"\xef\xbb\xbf{")
    assert load_board(tiny).deck is not None


def test_write_validates_before_writing(cli, tmp_path):
    from mapkit.resources import boards_dir

    tiny = tmp_path / "portland.json"
    tiny.write_bytes((boards_dir() / "portland.json").read_bytes())
    before = tiny.read_bytes()
    result = cli("tickets", "generate", tiny, "--count", "5", "--deck", "Bad Name", "--write")
    assert result.exit_code == 1
    assert "ticket_decks" in result.output and "was not changed" in result.output
    assert tiny.read_bytes() == before


# ---------------------------------------------------------------- item 5: full or read-only disks

def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_atomic_write_leaves_the_old_file_on_a_full_disk(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old\n")

    class Full:
        def __init__(self, real):
            self.real = real

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.real.close()

        def write(self, data):
            self.real.write(data[: len(data) // 2])  # half gets written, then the disk is full
            enospc()

    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, m="r", *a, **k: Full(real_open(p, m, *a, **k)) if "w" in m else real_open(p, m, *a, **k))
    with pytest.raises(outputs.OutputError, match="report.json.*No space left"):
        outputs.atomic_write_text(target, "new content\n" * 100)
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert no_temp_left(tmp_path)


def test_read_only_folder_is_a_clean_error(tmp_path, monkeypatch):
    def erofs(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", erofs)
    with pytest.raises(outputs.OutputError, match=r"cannot write .*x\.json: Read-only file system"):
        outputs.atomic_write_text(tmp_path / "x.json", "{}")


def test_new_files_get_the_umask_mode_not_0600(tmp_path):
    old = os.umask(0o022)
    try:
        outputs.atomic_write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_render_on_a_full_disk_keeps_the_old_pdf(cli, tiny, tmp_path, monkeypatch):
    from matplotlib.backends import backend_pdf

    out = tmp_path / "kit"
    out.mkdir()
    (out / "board.pdf").write_bytes(b"%PDF old")
    calls = {"n": 0}
    real = backend_pdf.PdfFile.write

    def write(self, data):
        calls["n"] += 1
        if calls["n"] > 50:
            enospc()
        return real(self, data)

    monkeypatch.setattr(backend_pdf.PdfFile, "write", write)
    result = cli("render", tiny, "--out", out)
    assert result.exit_code == 1
    assert "No space left on device" in result.output and "board.pdf" in result.output
    assert "Traceback" not in result.output
    assert (out / "board.pdf").read_bytes() == b"%PDF old"
    assert no_temp_left(out)


def test_build_on_a_disk_full_after_the_first_pdf_keeps_the_previous_kit_whole(cli, tiny, tmp_path, monkeypatch):
    """The disk fills up once board.pdf is written: every file of the previous kit is left as it
    was (not a mix of new and old PDFs), and nothing of the attempt is left in the folder."""
    from mapkit.render.kit import KIT_FILES

    out = tmp_path / "kit"
    out.mkdir()
    old = {name: f"old {name}".encode() for name in KIT_FILES if name.endswith(".pdf")}
    old["board.json"] = b"{} old completed board"    # tiny has no deck: build derives board.json
    for name, data in old.items():
        (out / name).write_bytes(data)
    real = outputs._fsync
    written = []

    def fsync(path):
        base = os.path.basename(path)
        if base.endswith(".tmp") and ".pdf." in base:
            if written:
                enospc()
            written.append(base)
        return real(path)

    monkeypatch.setattr(outputs, "_fsync", fsync)
    result = cli("build", tiny, "--out", out, "--games", "0")
    assert result.exit_code == 1
    assert written and written[0].startswith(".board.pdf.")  # the first PDF was complete
    assert "No space left on device" in result.output and "Traceback" not in result.output
    assert str(out) in result.output and ".mapkit-" not in result.output
    assert {name: (out / name).read_bytes() for name in old} == old
    assert no_temp_left(out)   # (tests/test_build.py: a build that succeeds replaces the old kit)


def test_simulate_log_on_a_full_disk_keeps_the_previous_log(cli, tiny, tmp_path, monkeypatch):
    log = tmp_path / "games.jsonl"
    log.write_text("previous\n")
    monkeypatch.setattr(outputs, "_fsync", enospc)
    result = cli("simulate", tiny, "--games", "3", "--log", log)
    assert result.exit_code == 1
    assert "No space left on device" in result.output and "games.jsonl" in result.output
    assert log.read_text() == "previous\n"
    assert no_temp_left(tmp_path)


def test_report_on_a_full_disk_keeps_the_previous_report(cli, tiny, tmp_path, monkeypatch, few_strategy_games):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.json").write_text('{"old": true}\n')
    monkeypatch.setattr(outputs, "_fsync", enospc)
    # random players judged by fixed cut-offs: the fewest games before the write that fails
    result = cli("report", tiny, "--games", "10", "--players", "2", "--agents", "random", "--reference", "none",
                 "--out", out)
    assert result.exit_code == 1
    assert "No space left on device" in result.output
    assert (out / "report.json").read_text() == '{"old": true}\n'
    assert no_temp_left(out)


def test_build_on_a_read_only_folder_is_a_clean_error(cli, tiny, tmp_path, monkeypatch):
    def eacces(*args, **kwargs):
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", eacces)
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", eacces)
    result = cli("build", tiny, "--out", tmp_path / "kit", "--games", "0")
    assert result.exit_code == 1
    assert "Permission denied" in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------- item 3: no output is an input

def test_build_refuses_to_overwrite_its_board(cli, tmp_path):
    kit = tmp_path / "kit"
    kit.mkdir()
    board = kit / "board.json"
    board.write_bytes((FIXTURES / "tiny.json").read_bytes())  # no deck: build would derive one
    before = board.read_bytes()
    result = cli("build", board, "--out", kit, "--games", "0")
    assert result.exit_code == 2
    assert "would overwrite the input" in result.output
    assert board.read_bytes() == before


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_simulate_log_refuses_the_board(cli, tiny, tmp_path, how):
    log = tiny
    if how == "symlink":
        log = tmp_path / "log.jsonl"
        log.symlink_to(tiny)
    elif how == "hardlink":
        log = tmp_path / "log.jsonl"
        os.link(tiny, log)
    before = tiny.read_bytes()
    result = cli("simulate", tiny, "--games", "2", "--log", log)
    assert result.exit_code == 2
    assert "would overwrite the input" in result.output
    assert tiny.read_bytes() == before


def test_report_out_refuses_the_board(cli, tmp_path):
    board = tmp_path / "report.json"
    board.write_bytes((FIXTURES / "tiny.json").read_bytes())
    before = board.read_bytes()
    result = cli("report", board, "--games", "10", "--players", "2", "--out", tmp_path)
    assert result.exit_code == 2
    assert "would overwrite the input" in result.output
    assert board.read_bytes() == before


def test_render_refuses_the_board(cli, tmp_path):
    board = tmp_path / "summary.pdf"
    board.write_bytes((FIXTURES / "tiny.json").read_bytes())
    result = cli("render", board, "--out", tmp_path)
    assert result.exit_code == 2 and "would overwrite the input" in result.output
    assert json.loads(board.read_text())["id"]
