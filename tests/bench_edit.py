"""Measure `mapkit edit` in headless Chromium: page open, drag → problems drawn, drag → the print drawing, outside edit → redrawn.

    python tests/bench_edit.py COPY_OF_BOARD.json print|quick STATION_ID [DRAGS]
    (e.g. cp boards/seattle.json /tmp/s.json; PYTHONPATH=. python tests/bench_edit.py /tmp/s.json print westlake 9;
    PYTHONPATH=. makes a checkout's mapkit the one measured, not an installed one)

It drags the station DRAGS times (default 5), alternately right and left, and then edits the file
from outside 5 times, and prints in ms: the first page open; for each drag the time to the
page listing and marking the new problems (wall), to its first redraw of the map (wall), the
server's CPU for that drag (the write with its checks, and the page's /api/state and /api/svg), with `print` the time to the print drawing
on the page (wall) and the drawing process's CPU for it; each outside edit → redrawn. Each line
gives the median and the range, and the load average (1 min) before and after, since wall times
on a shared machine depend on it. It writes to the file it is given: give it a copy.
"""
import hashlib, os, sys, time, statistics, threading
if __name__ != "__main__":  # the print worker is a subprocess; never re-run on import
    raise SystemExit
from pathlib import Path
from mapkit.edit import Session, api, serve
from mapkit.textpatch import patch_text
from playwright.sync_api import sync_playwright

path = Path(sys.argv[1]); labels = sys.argv[2] == "print"; sid = sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 5
server_cpu = []  # CPU seconds of the server's threads, request by request
for name in ("move", "state", "svg"):
    inner = getattr(api, name)

    def timed(*a, _inner=inner, **k):
        t = time.thread_time()
        try:
            return _inner(*a, **k)
        finally:
            server_cpu.append(time.thread_time() - t)
    setattr(api, name, timed)


def summary(values, unit="ms"):
    v = sorted(values)
    return f"median {statistics.median(v):.0f} {unit} (range {v[0]:.0f}–{v[-1]:.0f}, n={len(v)})"


load_before = os.getloadavg()[0]
s = Session(path, str(path), print_labels=labels)
srv = serve(s)
with sync_playwright() as p:
    b = p.chromium.launch(executable_path=os.environ.get("MAPKIT_CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"])
    pg = b.new_page(viewport={"width": 1500, "height": 950}, bypass_csp=True)
    t = time.perf_counter(); pg.goto(srv.url); pg.wait_for_function("window.mapkit && window.mapkit.ready", timeout=30000)
    first = (time.perf_counter() - t) * 1000
    drags, redrawn, drag_cpu, prints, cpu, reloads = [], [], [], [], [], []
    for i in range(count):
        if labels:
            pg.wait_for_function("window.mapkit.last.labels === 'print'", timeout=120000)
        n = pg.evaluate("window.mapkit.loads")
        box = pg.locator(f'circle[data-station="{sid}"]').first.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        dx = 8 if i % 2 == 0 else -8
        pg.mouse.move(x, y); pg.mouse.down(); pg.mouse.move(x + dx, y + 6 - 12 * (i % 2), steps=3)
        v0 = pg.evaluate("state.version")
        server_cpu.clear()
        t = time.perf_counter(); pg.mouse.up()
        # (a page that does not list the problems before the drawing: its first redraw)
        pg.wait_for_function(f"window.mapkit.problems ? window.mapkit.problems.version > {v0} : window.mapkit.loads > {n}",
                             timeout=30000)
        drags.append((time.perf_counter() - t) * 1000)
        pg.wait_for_function(f"window.mapkit.loads > {n} && window.mapkit.last.total_ms !== undefined", timeout=30000)
        redrawn.append((time.perf_counter() - t) * 1000)
        drag_cpu.append(sum(server_cpu) * 1000)
        if labels:
            v = pg.evaluate("window.mapkit.last.version")
            pg.wait_for_function(f"window.mapkit.last.labels === 'print' && window.mapkit.last.version >= {v}", timeout=120000)
            prints.append((time.perf_counter() - t) * 1000)
            cpu.append(s.drawing.print_cpu_s * 1000)
    for i in range(5):
        n = pg.evaluate("window.mapkit.loads")
        st = next(x for x in s.snapshot.board.stations if x.id == sid)
        i0 = int(st.json_path.split("[")[1].rstrip("]"))
        xy = s.drawing.layout.positions[sid]
        text = patch_text(path.read_text(), {("stations", i0, "board"): {"x": round(xy[0] - 5 + 10 * (i % 2), 1),
                                                                         "y": round(xy[1] - 4, 1)}})
        # saved as editors save (a temporary file, then a rename): a half-written file would be
        # read, rightly, as a broken board first
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        digest = hashlib.sha256(text.encode()).hexdigest()
        t = time.perf_counter(); os.replace(tmp, path)
        pg.wait_for_function(f"window.mapkit.loads > {n} && state && state.loads && state.hash === '{digest}'", timeout=30000)
        reloads.append((time.perf_counter() - t) * 1000)
    b.close()
srv.shutdown(); s.stop()
print(f"{path.name}, station {sid}, {count} drags; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
print(f"page open: {first:.0f} ms")
print("drag → problems drawn (wall):", summary(drags))
print("drag → redrawn, the quick drawing (wall):", summary(redrawn))
print("drag → redrawn, server CPU:", summary(drag_cpu))
if prints:
    print("drag → print drawing on the page (wall):", summary(prints))
    print("print drawing CPU (drawing process):", summary(cpu))
print("outside edit → redrawn (wall):", summary(reloads))
