"""Issue 29 §2: files a user did not ask to change are never harmed, every read is bounded, and
hostile inputs end in a clear message, never a crash or a hang.

Devices are made with os.mknod in tmp_path (as root only: /dev/null's and /dev/full's numbers, so
writing them is harmless); FIFOs with os.mkfifo. Commands that could wait forever on a FIFO or
allocate without bound run in a subprocess with a timeout and a memory limit, so a regression
fails the test instead of hanging or starving the machine.
"""

import errno
import json
import os
import resource
import socket
import stat
import subprocess
import sys
import threading
import time
import zipfile

import pytest

from conftest import FIXTURES, REPO
from mapkit import outputs

TINY = FIXTURES / "tiny.json"
NULL_DEV, FULL_DEV = (1, 3), (1, 7)  # Linux's /dev/null and /dev/full


def device(path, numbers):
    """A character device node at path with these (major, minor) numbers, or skip."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*numbers))
        os.close(os.open(path, os.O_WRONLY))  # a nodev mount refuses to open it
    except OSError as exc:
        pytest.skip(f"no device node here: {exc}")
    return path


def still_device(path, numbers) -> bool:
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == numbers


def run_bounded(args, timeout=60, memory=3 << 30):
    """mapkit in a subprocess that may take at most `timeout` seconds and `memory` bytes."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-m", "mapkit", *[str(a) for a in args]], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, preexec_fn=limit)


def no_temp_left(folder):
    return not [p for p in os.listdir(folder) if p.endswith(".tmp") or p.startswith(".mapkit-")]


class FifoReader(threading.Thread):
    """Reads a FIFO to its end, as `cat fifo` would; opened before the writer comes."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = b""

    def run(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if chunk:
                self.data += chunk
            elif self.data:
                break  # the writer has been and gone
            else:
                time.sleep(0.01)  # no writer yet
        os.close(self.fd)


# ---------------------------------------------------------------- item 1: outputs that are not regular files

def test_simulate_log_into_a_null_device_keeps_the_device(cli, tmp_path):
    null = device(tmp_path / "null", NULL_DEV)
    result = cli("simulate", TINY, "--games", "2", "--log", null)
    assert result.exit_code == 0, result.output
    assert still_device(null, NULL_DEV)
    assert no_temp_left(tmp_path)


def test_simulate_log_into_a_full_device_is_no_space_and_keeps_the_device(cli, tmp_path):
    full = device(tmp_path / "full", FULL_DEV)
    result = cli("simulate", TINY, "--games", "2", "--log", full)
    assert result.exit_code == 1
    assert f"cannot write {full}: No space left on device" in result.output
    assert "Traceback" not in result.output
    assert still_device(full, FULL_DEV)


def test_layout_out_into_a_device_keeps_the_device(cli, tmp_path):
    full = device(tmp_path / "full", FULL_DEV)
    result = cli("layout", TINY, "--out", full)
    assert result.exit_code == 1 and "No space left on device" in result.output
    assert still_device(full, FULL_DEV)


def test_import_gtfs_out_into_a_device_with_force_keeps_the_device(cli, tmp_path):
    pytest.importorskip("partridge")
    from test_import_gtfs import metro_feed

    feed = metro_feed(0.35).zip(tmp_path / "small.zip")
    null = device(tmp_path / "null", NULL_DEV)
    result = cli("import", "gtfs", feed, "--out", null, "--force", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["written"]
    assert still_device(null, NULL_DEV)


def test_simulate_log_into_a_fifo_nobody_reads_is_refused_at_once(cli, tmp_path):
    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    result = cli("simulate", TINY, "--games", "2", "--log", fifo)
    assert result.exit_code == 1
    assert "no program is reading from this FIFO" in result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert no_temp_left(tmp_path)


def test_simulate_log_into_a_fifo_streams_the_log_to_its_reader(cli, tmp_path):
    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    reader.start()
    result = cli("simulate", TINY, "--games", "3", "--log", fifo)
    reader.join(60)
    assert result.exit_code == 0, result.output
    games = [json.loads(line) for line in reader.data.decode().splitlines()]
    assert len(games) == 3 and all("actions" in g for g in games)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_as_an_output_is_refused_and_kept(cli, tmp_path):
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        result = cli("simulate", TINY, "--games", "1", "--log", path)
    finally:
        sock.close()
    assert result.exit_code == 2
    assert "is a socket; mapkit writes only regular files" in result.output
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_an_output_link_that_loops_is_a_usage_error(cli, tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = cli("simulate", TINY, "--games", "1", "--log", tmp_path / "a")
    assert result.exit_code == 2
    assert "loops back on itself" in result.output and "internal error" not in result.output


def test_a_staged_folder_streams_into_a_device_and_renames_the_rest(tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    null = device(out / "report.md", NULL_DEV)
    (out / "report.json").write_text("old\n")
    with outputs.staged_folder(out) as stage:
        (stage / "report.md").write_text("# new\n")
        (stage / "report.json").write_text("new\n")
    assert still_device(null, NULL_DEV)
    assert (out / "report.json").read_text() == "new\n"
    assert no_temp_left(out)


def test_commit_never_renames_over_what_is_not_a_regular_file(tmp_path):
    """A regular file when checked, a FIFO when written (swapped in between): left as it is."""
    target = tmp_path / "out.json"
    with pytest.raises(outputs.OutputError, match="no longer a regular file"):
        with outputs.atomic_output(target) as tmp:
            tmp.write_text("{}")
            os.mkfifo(target)
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert no_temp_left(tmp_path)


# ---------------------------------------------------------------- item 2: a BOARD that is no file

def test_a_fifo_without_a_writer_as_board_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "board.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = run_bounded(["validate", fifo], timeout=60)
    assert done.returncode == 1
    assert "[not-a-file] is a FIFO (named pipe), not a board file" in done.stdout
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("command", [["validate"], ["info"], ["render", "--out", "kit"]])
def test_a_fifo_board_is_refused_by_every_command(tmp_path, command):
    fifo = tmp_path / "board.json"
    os.mkfifo(fifo)
    args = [command[0], fifo, *[tmp_path / a if a == "kit" else a for a in command[1:]]]
    done = run_bounded(args, timeout=60)
    assert done.returncode == 1
    assert "is a FIFO (named pipe), not a board file" in done.stdout + done.stderr


@pytest.mark.parametrize("command", ["validate", "info", "cards"])
def test_a_symlink_loop_as_board_is_a_clear_error(cli, tmp_path, command):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    result = cli(command, tmp_path / "a.json")
    assert result.exit_code == 1
    assert "the symbolic link loops back on itself; point it to a board file" in result.output
    assert "internal error" not in result.output


def test_a_symlink_to_a_board_is_still_read(cli, tmp_path):
    (tmp_path / "link.json").symlink_to(TINY)
    assert cli("validate", tmp_path / "link.json").exit_code == 0


# ---------------------------------------------------------------- item 3: bounded readers

def test_pairs_from_dev_zero_are_refused_in_bounded_memory():
    done = run_bounded(["tickets", "score", TINY, "--pairs", "/dev/zero"], timeout=60, memory=2 << 30)
    assert done.returncode == 1, done.stderr[-500:]
    assert "/dev/zero: is a device, not a pairs file" in done.stderr


def test_pairs_from_a_fifo_are_refused_without_waiting(tmp_path):
    fifo = tmp_path / "pairs.csv"
    os.mkfifo(fifo)
    done = run_bounded(["tickets", "score", TINY, "--pairs", fifo], timeout=60)
    assert done.returncode == 1 and "is a FIFO (named pipe), not a pairs file" in done.stderr


def test_a_pairs_file_over_the_board_files_bound_is_too_large(cli, tmp_path, monkeypatch):
    import mapkit.tickets as tickets

    monkeypatch.setattr(tickets, "MAX_PAIRS_BYTES", 100)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("from,to\n" + "alder,cedar\n" * 20)
    result = cli("tickets", "score", TINY, "--pairs", pairs)
    assert result.exit_code == 1
    assert "file is larger than 100 bytes, the most a pairs file may be" in result.output


def test_a_pairs_field_over_the_csv_limit_is_a_located_error(cli, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("from,to\n" + "a" * 200_000 + ",cedar\n")
    result = cli("tickets", "score", TINY, "--pairs", pairs)
    assert result.exit_code == 1
    assert f"{pairs}:2: broken CSV" in result.output and "internal error" not in result.output


@pytest.fixture
def gtfs():
    pytest.importorskip("partridge")
    import test_import_gtfs

    return test_import_gtfs


def test_import_gtfs_from_dev_zero_is_refused_in_bounded_memory(tmp_path):
    pytest.importorskip("partridge")
    done = run_bounded(["import", "gtfs", "/dev/zero", "--out", tmp_path / "x.json"], timeout=60, memory=2 << 30)
    assert done.returncode == 1, done.stderr[-500:]
    assert "/dev/zero: is a device, not a GTFS zip file" in done.stderr


def test_a_zip_member_over_the_bound_is_refused_before_it_is_unzipped(gtfs, tmp_path, monkeypatch):
    from mapkit.importers.gtfs import read

    feed = gtfs.metro_feed(0.35).zip(tmp_path / "feed.zip")
    with zipfile.ZipFile(feed) as z:
        size = z.getinfo("stop_times.txt").file_size
    monkeypatch.setattr(read, "MAX_FILE_BYTES", size - 1)
    opened = []
    real = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(str(name)) or real(self, name, *a, **k))
    with pytest.raises(read.FeedError, match=r"feed\.zip:stop_times\.txt: larger than .* unzipped"):
        gtfs.import_feed(feed)
    assert not any("stop_times" in name for name in opened)


def test_a_folder_feeds_file_over_the_bound_is_refused_as_it_is_read(gtfs, tmp_path, monkeypatch):
    from mapkit.importers.gtfs import read

    folder = gtfs.metro_feed(0.35).folder(tmp_path / "feed")
    monkeypatch.setattr(read, "MAX_FILE_BYTES", (folder / "stop_times.txt").stat().st_size - 1)
    with pytest.raises(read.FeedError, match=r"stop_times\.txt: larger than"):
        gtfs.import_feed(folder)


def test_a_line_of_padding_is_refused_without_gathering_it(gtfs, tmp_path):
    import tracemalloc

    from mapkit.importers.gtfs.read import Column, Feed, FeedError

    f = gtfs.metro_feed(0.35)
    files = f.files()
    files["stops.txt"] += " " * (8 << 20) + "\r\n"  # 8 MiB of spaces on one line
    with zipfile.ZipFile(tmp_path / "padded.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)
    feed = Feed(tmp_path / "padded.zip")
    tracemalloc.start()
    try:
        with pytest.raises(FeedError, match=r"padded\.zip:stops\.txt:\d+: "):
            for _ in feed.rows("stops.txt", [Column("stop_id")]):
                pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        feed.close()
    assert peak < 2 << 20, peak  # the 8 MiB line was never held whole
    feed = Feed(tmp_path / "padded.zip")
    try:
        with pytest.raises(FeedError, match=r"a line longer than 64 KiB"):
            for _ in feed.rows("stops.txt", [Column("stop_id")]):
                pass
    finally:
        feed.close()


def test_a_gtfs_folder_file_that_is_a_fifo_is_refused(gtfs, tmp_path):
    folder = gtfs.metro_feed(0.35).folder(tmp_path / "feed")
    (folder / "stops.txt").unlink()
    os.mkfifo(folder / "stops.txt")
    done = run_bounded(["import", "gtfs", folder, "--out", tmp_path / "x.json"], timeout=120)
    assert done.returncode == 1
    assert "stops.txt: is a FIFO (named pipe), not a GTFS file" in done.stderr


# ---------------------------------------------------------------- item 4: a full disk while rendering

class _FullAtFlush:
    """A file whose disk fills up as a PDF stream's compressed tail is written (matplotlib's
    Stream._flush): that write and every later one fail with ENOSPC, as on a real full disk,
    where matplotlib then flushes the same zlib stream again and fails with 'Error -2'."""

    def __init__(self, real):
        self._real, self._full = real, False

    def write(self, data):
        if not self._full and sys._getframe(1).f_code.co_name == "_flush":
            self._full = True
        if self._full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._real.write(data)

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.fixture
def disk_fills_at_flush(monkeypatch):
    from matplotlib.backends import backend_pdf

    real_init = backend_pdf.PdfFile.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.fh = _FullAtFlush(self.fh)

    monkeypatch.setattr(backend_pdf.PdfFile, "__init__", init)


def test_render_on_a_full_disk_is_no_space_and_keeps_the_old_pdf(cli, tmp_path, disk_fills_at_flush):
    out = tmp_path / "kit"
    out.mkdir()
    (out / "board.pdf").write_bytes(b"%PDF old")
    result = cli("render", TINY, "--out", out)
    assert result.exit_code == 1, result.output
    assert f"cannot write {out / 'board.pdf'}: No space left on device" in result.output
    assert "internal error" not in result.output and "Error -2" not in result.output
    assert (out / "board.pdf").read_bytes() == b"%PDF old"
    assert no_temp_left(out)


def test_build_on_a_full_disk_is_no_space(cli, tmp_path, disk_fills_at_flush):
    result = cli("build", TINY, "--out", tmp_path / "kit", "--games", "0")
    assert result.exit_code == 1, result.output
    assert "No space left on device" in result.output and "internal error" not in result.output
    assert no_temp_left(tmp_path / "kit")


def test_an_error_unrelated_to_the_disk_is_still_a_bug(tmp_path):
    """Only a disk fault behind another error is reported as the disk's: a plain bug stays one."""
    with pytest.raises(ZeroDivisionError):
        with outputs.atomic_output(tmp_path / "x.pdf"):
            try:
                raise FileNotFoundError(errno.ENOENT, "gone")
            except FileNotFoundError:
                1 / 0
    assert no_temp_left(tmp_path)


# ---------------------------------------------------------------- item 5: GTFS feeds that break the importer

def test_a_damaged_zip_member_names_it(gtfs, cli, tmp_path):
    f = gtfs.metro_feed(0.35)
    path = tmp_path / "damaged.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in f.files().items():
            z.writestr(name, text)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("stop_times.txt")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for k in range(start + 10, start + 60):
        raw[k] ^= 0x5A
    path.write_bytes(bytes(raw))
    result = cli("import", "gtfs", path, "--out", tmp_path / "x.json")
    assert result.exit_code == 1, result.output
    assert "damaged.zip:stop_times.txt: the file is damaged in the zip" in result.output
    assert "internal error" not in result.output


def test_stops_all_at_zero_zero_are_a_clear_error(gtfs, tmp_path):
    from mapkit.importers.gtfs.read import FeedError

    f = gtfs.metro_feed(0.35)
    f.stops = [f.stops[0]] + [row[:2] + ["0.000000", "0.000000"] + row[4:] for row in f.stops[1:]]
    with pytest.raises(FeedError, match=r"of the selected lines are within 10 m of 0\.00000, 0\.00000"):
        gtfs.import_feed(f.zip(tmp_path / "zero.zip"))


def test_routes_of_one_place_cross_nothing():
    """Two routes whose ends share coordinates: no crossing, and no empty intersection point asked for its coordinates."""
    from mapkit.importers.gtfs import lines as L
    from mapkit.importers.gtfs.planar import _crossings

    xy = {"a": (0.0, 0.0), "b": (0.0, 0.0), "c": (0.0, 0.0), "d": (0.0, 0.0)}
    segs = [L.Segment("a", "b", ["x"], 0.0, frozenset()), L.Segment("c", "d", ["y"], 0.0, frozenset())]
    assert _crossings(segs, xy, set()) == []


def _antimeridian_feed(gtfs):
    f = gtfs.FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", -17.5 + 0.02 * i, 179.99 if i % 2 else -179.99) for i in range(20)]
    b = [f.stop(f"B{i}", f"Beta {i}", -17.3, 179.95 - 0.005 * i if i % 2 else -179.95 + 0.005 * i) for i in range(14)]
    f.route("A", "A", "Line A", 1, "E32017")
    f.trips_of("A", a, 6)
    f.route("B", "B", "Line B", 1, "0019A8")
    f.trips_of("B", b + [a[10]], 6)
    return f


def test_a_network_across_the_antimeridian_is_projected_in_one_piece():
    """Stops alternating at 179.99 and -179.99 are 2 km apart, not the width of the world."""
    from types import SimpleNamespace

    from mapkit.importers.gtfs.planar import project
    from mapkit.importers.gtfs.stations import haversine_m

    st = {f"s{i}": SimpleNamespace(lat=-17.5 + 0.02 * i, lon=179.99 if i % 2 else -179.99) for i in range(10)}
    xy = project(st)
    for u in st:
        for v in st:
            real = haversine_m((st[u].lat, st[u].lon), (st[v].lat, st[v].lon))
            drawn = ((xy[u][0] - xy[v][0]) ** 2 + (xy[u][1] - xy[v][1]) ** 2) ** 0.5
            assert abs(drawn - real) <= 0.01 * real + 1.0, (u, v, drawn, real)


def test_a_feed_across_the_antimeridian_imports_in_bounded_time(gtfs, tmp_path):
    started = time.monotonic()
    result = gtfs.import_feed(_antimeridian_feed(gtfs).zip(tmp_path / "fiji.zip"))
    assert time.monotonic() - started < 60
    lons = {s["lon"] for s in result.data["stations"]}  # the file keeps the stops' own longitudes
    assert all(-180 <= x <= 180 for x in lons) and max(lons) > 179 and min(lons) < -179
    assert result.summary["lengths"]["spaces"] > 0


def test_control_characters_in_a_feeds_names_are_read_as_spaces(gtfs, tmp_path):
    """A stop named with a tab or BEL would make a board the schema refuses: read as a space."""
    f = gtfs.metro_feed(0.35)
    for row in f.stops[1:]:
        row[1] = row[1].replace(" ", "\t\x07", 1)
    result = gtfs.import_feed(f.folder(tmp_path / "feed"))
    names = [s["name"] for s in result.data["stations"]]
    assert names and all(n.isprintable() for n in names)
    assert any("  " in n or " " in n for n in names)


# ---------------------------------------------------------------- item 6: a deck of wild cards only

@pytest.fixture
def all_wild(tmp_path):
    data = json.loads((REPO / "boards" / "north-america.json").read_text())
    data["deck"]["counts"] = {k: 0 for k in data["deck"]["counts"]}
    data["deck"]["wild"] = data["deck"]["total"]
    path = tmp_path / "all-wild.json"
    path.write_text(json.dumps(data))
    return path


def test_validate_refuses_a_deck_without_colored_cards(cli, all_wild):
    result = cli("validate", all_wild, "--format", "json")
    assert result.exit_code == 1
    codes = {(p["code"], p["json_path"]) for p in json.loads(result.output)["problems"]}
    assert ("deck-no-colors", "$.deck.counts") in codes


def test_simulate_refuses_it_cleanly(cli, all_wild):
    result = cli("simulate", all_wild, "--games", "1")
    assert result.exit_code == 1 and "[deck-no-colors]" in result.output and "internal error" not in result.output


def test_the_engine_plays_an_all_wild_deck_to_its_end(all_wild):
    """A library caller may skip validation: the state is well-formed from the first refill."""
    import random

    from mapkit.boardfile import load_board
    from mapkit.sim import engine
    from mapkit.sim.agents import make_agent
    from mapkit.sim.legal import Legal
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.tables import build_tables
    from mapkit.sim.view import SeatView

    board = load_board(all_wild)
    t, rules = build_tables(board), rules_for_board(board)
    s = engine.new_game(t, rules, 2, 1)
    assert s.gaps["endless_wipes"] >= 1  # the first refill already met the endless row
    agents = [make_agent("random") for _ in range(2)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, t, 2, random.Random(seat))
    for _ in range(20_000):
        if s.phase == engine.OVER:
            break
        engine.apply(s, agents[s.current].act(SeatView(s, s.current), Legal(s)))
    assert s.phase == engine.OVER


# ---------------------------------------------------------------- item 7: control characters in printed text

@pytest.mark.parametrize("where, char", [
    (("stations", 0, "name"), "\x00"), (("stations", 1, "name"), "\x07"), (("name",), "\x1b"),
    (("routes", 0, "line"), "\x85"), (("credits",), "\n"), (("palette", 0, "name"), "\x7f"),
    (("wild", "name"), "\t"),
])
def test_control_characters_in_printed_text_are_refused_at_their_path(cli, tiny_data, write_board, where, char):
    node = tiny_data
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = "Al" + char + "der" if where[-1] != "line" else "MAX" + char
    path = write_board(tiny_data)
    result = cli("validate", path, "--format", "json")
    assert result.exit_code == 1
    problems = json.loads(result.output)["problems"]
    json_path = "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in where)
    found = [p for p in problems if p["json_path"] == json_path]
    assert found and f"U+{ord(char):04X}" in found[0]["message"], problems
    text = cli("validate", path).output
    assert not any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in text)  # nothing raw reaches the terminal


def test_printed_text_keeps_every_other_character(cli, tiny_data, write_board):
    tiny_data["stations"][0]["name"] = "Zürich HB – Gare de l’Est 東京 🚉"
    tiny_data["credits"] = "Données © contributeurs"
    assert cli("validate", write_board(tiny_data)).exit_code == 0
