"""Measure `mapkit edit` in headless Chromium: drag → redrawn, drag → the print drawing, outside edit → redrawn.

    python tests/bench_edit.py COPY_OF_BOARD.json print|quick STATION_ID
    (e.g. cp boards/portland.json /tmp/p.json; PYTHONPATH=. python tests/bench_edit.py /tmp/p.json print pioneer-square;
    PYTHONPATH=. makes a checkout's mapkit the one measured, not an installed one)

It moves the station 5 times by dragging and 5 times by editing the file from outside, and prints
each time in ms: drag → the first redraw, drag → the print drawing of that version (with
`print`), outside edit → the first redraw. It writes to the file it is given: give it a copy.
"""
import hashlib, os, sys, time, statistics
if __name__ != "__main__":  # the print worker is a subprocess; never re-run on import
    raise SystemExit
from pathlib import Path
from mapkit.edit import Session, serve
from mapkit.textpatch import patch_text
from playwright.sync_api import sync_playwright
path = Path(sys.argv[1]); labels = sys.argv[2] == "print"; sid = sys.argv[3]
s = Session(path, str(path), print_labels=labels)
srv = serve(s)
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    pg = b.new_page(viewport={"width": 1500, "height": 950}, bypass_csp=True)
    t = time.perf_counter(); pg.goto(srv.url); pg.wait_for_function("window.mapkit && window.mapkit.ready", timeout=30000)
    print("first load %.0f ms" % ((time.perf_counter() - t) * 1000))
    drags, prints, reloads, cpu = [], [], [], []
    for i in range(5):
        if labels:
            pg.wait_for_function("window.mapkit.last.labels === 'print'", timeout=120000)
        n = pg.evaluate("window.mapkit.loads")
        box = pg.locator(f'circle[data-station="{sid}"]').first.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        pg.mouse.move(x, y); pg.mouse.down(); pg.mouse.move(x + 8, y + 6, steps=3)
        t = time.perf_counter(); pg.mouse.up()
        pg.wait_for_function(f"window.mapkit.loads > {n} && window.mapkit.last.total_ms !== undefined", timeout=30000)
        drags.append(((time.perf_counter() - t) * 1000, pg.evaluate("window.mapkit.last.total_ms")))
        if labels:
            v = pg.evaluate("window.mapkit.last.version")
            pg.wait_for_function(f"window.mapkit.last.labels === 'print' && window.mapkit.last.version >= {v}", timeout=120000)
            prints.append((time.perf_counter() - t) * 1000)
            cpu.append(s.drawing.print_cpu_s * 1000)
        n = pg.evaluate("window.mapkit.loads")
        st = next(x for x in s.snapshot.board.stations if x.id == sid)
        i0 = int(st.json_path.split("[")[1].rstrip("]"))
        xy = s.drawing.layout.positions[sid]
        text = patch_text(path.read_text(), {("stations", i0, "board"): {"x": round(xy[0] - 5, 1), "y": round(xy[1] - 4, 1)}})
        # saved as editors save (a temporary file, then a rename): a half-written file would be
        # read, rightly, as a broken board first
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        digest = hashlib.sha256(text.encode()).hexdigest()
        t = time.perf_counter(); os.replace(tmp, path)
        pg.wait_for_function(f"window.mapkit.loads > {n} && state && state.loads && state.hash === '{digest}'", timeout=30000)
        reloads.append((time.perf_counter() - t) * 1000)
    if labels:
        t = time.perf_counter()
        pg.wait_for_function("window.mapkit.last.labels === 'print'", timeout=120000)
        print("print labels arrived %.1f s after the last reload" % (time.perf_counter() - t))
    print("drag→redrawn (wall, page total) ms:", [(round(a), round(b_)) for a, b_ in drags], "median", round(statistics.median(a for a, _ in drags)))
    if prints:
        print("drag→print drawing ms:", [round(a) for a in prints], "median", round(statistics.median(prints)))
        print("print drawing CPU in the drawing process ms:", [round(a) for a in cpu])
    print("outside edit→redrawn ms:", [round(r) for r in reloads], "median", round(statistics.median(reloads)))
    b.close()
srv.shutdown(); s.stop()
