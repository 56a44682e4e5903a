import sys, time, json
from mapkit.layout import layout_board
from mapkit.layout.figures import measure
sys.path.insert(0, "reports/layout"); from endneed_diag import stripped
from mapkit.layout.synthetic import layout_board_data
name = sys.argv[1]
if name in ("portland", "north-america", "seattle"):
    data = stripped(name); kw = {"portland": dict(size=(900, 600), geo_anchor=1.0), "north-america": dict(size=(800, 530), geo_anchor=1.0), "seattle": dict(size="auto")}[name]
else:
    n, s = map(int, name.split(":")); data = layout_board_data(n, seed=s); kw = dict(size="auto")
t = time.process_time(); res = layout_board(data, seed=0, **kw); cpu = time.process_time() - t
m = measure(res.data)
keys = ["board_mm", "routes_over_gap", "routes_drawn", "largest_gap_mm", "end_gaps_over_need", "largest_end_gap_mm", "routes_over_gap_even", "fill_w", "fill_h", "direction_error_deg_mean", "labels_with_room", "labels_total", "label_pt_smallest", "errors", "warnings"]
out = {k: m.get(k) for k in keys}; out["cpu"] = round(cpu, 1); out["case"] = name; out["tightened"] = res.figures.get("tightened")
print(json.dumps(out), flush=True)
