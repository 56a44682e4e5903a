"""Stop names → station names as riders know them, and printed names for a board.

- `base_name(stop_name)`: the place a stop's name names, with what tells the stops of one place
  apart taken off: direction words (Inbound, Outbound, Northbound, NB, "N/B"), platforms, bays,
  stands, gates and tracks ("Bay A", "Platform 2"), stop codes ("C227", "#1234", "NC-78" in
  "at Lot NC-78"), a counter in parentheses ("(1)"), "at Lot …" and "- Hail and Ride Location".
- `merge_key(stop_name)`: what stops must share to be one station by name (the base name without
  any parenthesis or trailing mode word such as "Metrô" or "Station", lowercase ASCII words).
- `board_name(name)`: the base name with its particles in lowercase where the exporter
  capitalised every word ("Franco da Rocha"), shortened to fit a label (LABEL_CHARS): the usual
  street abbreviations first, then cut after a whole word, never inside a parenthesis.
- `unique_names(...)`: printed names that no two stations share: a station of the same name is
  told apart by the cross street of its stops' names, else by a line only it serves, else by the
  compass side it lies on ("Main St (north)"); never "Main St 2".
- `read_names_file(path)`: the designer's `--names` CSV (`stop,name` header: a stop_id or a station
  name → the board name), read with a size bound and every problem named by line.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from mapkit.errors import MapkitError

LABEL_CHARS = 24          # a board label: two lines of about 12 characters at the smallest type
NAME_CHARS = 60           # the schema's limit for a station's name
NAMES_FILE_BYTES = 1 << 20
NAMES_FILE_ROWS = 5000

_DIRECTION = r"(?:in|out)bound|(?:north|south|east|west)(?:bound)?|[nsew]/?b|northeast|northwest|southeast|southwest"
_BOUND = r"(?:in|out|north|south|east|west)bound|[nsew]/?b"     # taken off after a plain space too
_SUFFIX = re.compile(
    r"(?:\s*[-–,/:]\s*|\s+)(?:platform|plat|bay|stand|stop|gate|track|quay|door|pole|side)\s*[a-z]?\d{0,3}[a-z]?$"
    r"|\s*[-–,/]?\s*\((?:platform|bay|stand|stop|track|gate|" + _DIRECTION + r")\b[^)]*\)$"
    r"|\s*\(\s*\d{1,3}\s*\)$"                                   # "(1)"
    r"|\s*[-–,/]\s*(?:" + _DIRECTION + r")$"                     # "Main St - North", "Main St / NB"
    r"|\s+(?:" + _BOUND + r")$"                                  # "FXB Inbound", "Main St NB"
    r"|\s+\[(?:" + _DIRECTION + r")\]$",
    re.IGNORECASE)
_AT_LOT = re.compile(r"\s+(?:(?:at|@)\s+(?:lot|parking lot|car park|garage)|[fn]/side|far side|near side)\b.*$",
                     re.IGNORECASE)
_HAIL = re.compile(r"(?:\s*[-–]\s*|\s+)hail and ride(?: location)?\b|(?:\s*[-–]\s*|\s+)temporary stop\b", re.IGNORECASE)
_CODE = re.compile(r"\s*[-–]?\s*(?:#\s?\d{2,6}|\b[A-Z]{1,2}\d{1,4}\b)")
_PARENS = re.compile(r"\s*\([^)]*\)")
_CROSS = re.compile(r"\s+(?:at|@|&|/|and|near|opp|opposite|[fn]/side|far side|near side)\s+", re.IGNORECASE)

ABBREVIATIONS = (("Street", "St"), ("Road", "Rd"), ("Avenue", "Ave"), ("Boulevard", "Blvd"), ("Drive", "Dr"),
                 ("Highway", "Hwy"), ("Place", "Pl"), ("Square", "Sq"), ("Lane", "Ln"), ("Parkway", "Pkwy"),
                 ("Terrace", "Tce"), ("Court", "Ct"), ("Crescent", "Cres"), ("Esplanade", "Esp"),
                 ("Transit Center", "TC"), ("Transit Centre", "TC"), ("Transportation Center", "TC"),
                 ("Interchange", "Int"), ("Shopping Centre", "Shops"), ("Shopping Center", "Shops"),
                 ("University", "Univ"), ("Station", "Stn"), ("Hospital", "Hosp"), ("International", "Intl"),
                 ("Airport", "Airport"), ("Mount", "Mt"), ("Saint", "St"), ("North", "N"), ("South", "S"),
                 ("East", "E"), ("West", "W"))


class NamesFileError(MapkitError):
    """The --names file cannot be used: each problem with its line."""

    exit_code = 2


def base_name(name: str) -> str:
    """The place a stop's name names: 'Central - Platform 2' → 'Central', 'FXB Inbound' → 'FXB',
    'Fuller Rd at Lot NC-78 Mitchell Field (1)' → 'Fuller Rd', 'Anderson St C227 (Cemetery)' →
    'Anderson St (Cemetery)'."""
    text = re.sub(r"\s+", " ", name.strip())
    out = _HAIL.sub("", text).strip()
    out = _AT_LOT.sub("", out).strip()
    out = _CODE.sub("", out).strip(" -–,")
    for _ in range(4):
        new = _SUFFIX.sub("", out).strip(" -–,")
        if new == out or not new:
            break
        out = new
    words = out.split()
    if len(words) > 2 and len(words[-1]) == 1 and words[-1] in "NSEW" and words[-2].lower() in STREET_WORDS:
        out = " ".join(words[:-1])             # "Spence St N": the north side's stop
    return re.sub(r"\s{2,}", " ", out) or text


def merge_key(name: str) -> str:
    """What stops must share to merge by name: the base name without any parenthesis."""
    b = base_name(name)
    text = _PARENS.sub("", b) or b
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = [_SHORT_WORDS.get(w, w) for w in re.sub(r"[^a-z0-9]+", " ", text).split()]
    while len(words) > 1 and words[-1] in MODE_WORDS:
        words.pop()                            # "Pinheiros Metrô" is the metro's stop at Pinheiros
    return " ".join(words)


# a mode word after a place's name says which line's stop it is, not another place
MODE_WORDS = frozenset("metro subway stn tram lrt".split())


_SHORT_WORDS = {"street": "st", "road": "rd", "avenue": "ave", "av": "ave", "boulevard": "blvd", "drive": "dr",
                "highway": "hwy", "place": "pl", "lane": "ln", "close": "cl", "crescent": "cres", "court": "ct",
                "terrace": "tce", "parade": "pde", "esplanade": "esp", "parkway": "pkwy", "center": "centre",
                "station": "stn"}
STREET_WORDS = frozenset("st street rd road ave av avenue dr drive hwy highway blvd boulevard ln lane pl place cl close "
                         "cres crescent ct court tce terrace pde parade way esp esplanade art arterial pkwy parkway "
                         "cir circle sq".split())


def is_street(key: str) -> bool:
    """Whether a merge key names a street ('varley st'), whose stops far apart are other places,
    rather than a place ('smithfield shopping centre', 'central campus transit center')."""
    words = key.split()
    return bool(words) and words[-1] in STREET_WORDS


def _abbreviate(text: str) -> str:
    for word, short in ABBREVIATIONS:
        text = re.sub(rf"\b{word}\b", short, text, flags=re.IGNORECASE)
    return text


def cut_words(text: str, limit: int) -> str:
    """text within limit characters, cut after a whole word, with no half parenthesis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit + 1]
    if " " not in head:
        return text[:limit]
    cut = head.rsplit(" ", 1)[0].rstrip(" -,/(&")
    if cut.count("(") > cut.count(")"):
        cut = cut[:cut.rfind("(")].rstrip(" -,/")
    return cut or text[:limit]


# small words a place's name writes in lowercase after its first word ("Franco da Rocha",
# "Rio Grande da Serra", "Mother of Good Counsel", "Hoek van Holland")
PARTICLES = frozenset("da de do das dos del della di du des la le les van von der den ter of the and sur".split())


def tidy_case(name: str) -> str:
    """A name whose exporter capitalised every word, told as riders write it: the particles after
    the first word in lowercase ('Franco Da Rocha' → 'Franco da Rocha') and each part of a
    hyphenated name capitalised ('Corinthians-itaquera' → 'Corinthians-Itaquera'). A name in
    capitals, or with a particle already lowercase, is the publisher's choice and kept."""
    words = name.split(" ")
    if name.isupper() or any(w in PARTICLES for w in words):
        return name
    out = []
    for i, w in enumerate(words):
        if i and w.lower() in PARTICLES and w[:1].isupper() and w[1:].islower():
            w = w.lower()
        else:
            w = re.sub(r"(?<=[^\W\d_]{2}-)([^\W\d_]{3,})",
                       lambda m: m.group(1).capitalize() if m.group(1).islower() and m.group(1) not in PARTICLES
                       else m.group(1), w)
        out.append(w)
    return " ".join(out)


def board_name(name: str, limit: int = LABEL_CHARS) -> str:
    """A station's name as printed: the base name (tidy_case), abbreviated while longer than
    `limit`, then cut after a whole word ('Smithfield Shopping Centre' → 'Smithfield Shops')."""
    text = tidy_case(base_name(name))
    if len(text) > limit:
        text = _PARENS.sub("", text).strip() or text
    if len(text) > limit:
        text = _abbreviate(text)
    return cut_words(text, limit)


def cross_street(stop_names: list[str], name: str) -> str | None:
    """The commonest other street named in the stops' names ('Main St at 5th Ave' → '5th Ave')."""
    found = Counter()
    for n in stop_names:
        parts = _CROSS.split(_CODE.sub("", _HAIL.sub("", n)).strip())
        for p in parts[1:]:
            p = base_name(p).strip()
            if p and merge_key(p) != merge_key(name):
                found[p] += 1
    return found.most_common(1)[0][0] if found else None


def _compass(lat: float, lon: float, others: list[tuple[float, float]]) -> str:
    clat = sum(o[0] for o in others) / len(others)
    clon = sum(o[1] for o in others) / len(others)
    dlat, dlon = lat - clat, (lon - clon) * 0.7
    if abs(dlat) >= abs(dlon):
        return "north" if dlat > 0 else "south"
    return "east" if dlon > 0 else "west"


def unique_names(stations: list[dict], limit: int = LABEL_CHARS) -> dict[str, str]:
    """key → printed name, no two alike. Each station dict: key, name (its base name), stop_names,
    lines (labels of the lines serving it), lat, lon. A name several stations share is told apart by
    the cross street of each one's stops, else a line serving only that one, else its compass side."""
    names = {s["key"]: board_name(s["name"], limit) for s in stations}
    by = {s["key"]: s for s in stations}
    for _ in range(3):
        groups = defaultdict(list)
        for k, n in names.items():
            groups[n.lower()].append(k)
        clash = [g for g in groups.values() if len(g) > 1]
        if not clash:
            break
        for group in clash:
            shown = names[group[0]]
            tags = {}
            for k in group:
                s = by[k]
                street = cross_street(s.get("stop_names", []), s["name"])
                others = set().union(*(set(by[o].get("lines", [])) for o in group if o != k))
                own = [ln for ln in s.get("lines", []) if ln not in others]
                tags[k] = ([f"at {street}"] if street else []) + ([own[0]] if own else [])
            for k in group:
                pick = None
                for t in tags[k]:
                    if sum(1 for o in group if t in tags[o]) == 1:
                        pick = t
                        break
                if pick is None:
                    pick = _compass(by[k]["lat"], by[k]["lon"], [(by[o]["lat"], by[o]["lon"]) for o in group if o != k])
                    if sum(1 for o in group if o != k and
                           _compass(by[o]["lat"], by[o]["lon"], [(by[x]["lat"], by[x]["lon"]) for x in group if x != o]) == pick):
                        pick = f"{pick}, {k}"[:20]
                base = shown if not pick.startswith("at ") else cut_words(shown, max(8, limit - len(pick) - 1))
                names[k] = f"{base} {pick}" if pick.startswith("at ") else f"{base} ({pick})"
    return {k: v[:NAME_CHARS] for k, v in names.items()}


def read_names_file(path: Path) -> dict[str, tuple[str, int]]:
    """The designer's names: {stop_id or station name (as in the feed or as printed): (board name,
    line)}. A CSV with a header `stop,name` (`stop_id` or `station` also name the first column), at
    most NAMES_FILE_BYTES and NAMES_FILE_ROWS; every problem is reported with its line."""
    path = Path(path)
    where = str(path)
    try:
        if not path.is_file():
            raise NamesFileError(f"--names: {where} is not a file; give a CSV with a header 'stop,name'")
        with open(path, "rb") as fh:
            raw = fh.read(NAMES_FILE_BYTES + 1)
    except OSError as exc:
        raise NamesFileError(f"--names: cannot read {where}: {exc.strerror or exc}")
    if len(raw) > NAMES_FILE_BYTES:
        raise NamesFileError(f"--names: {where} is larger than {NAMES_FILE_BYTES // 1024} KiB; a names file has one "
                             "short line a station")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NamesFileError(f"--names: {where}: not UTF-8 text (byte {exc.start}); save it as UTF-8")
    rows = csv.reader(io.StringIO(text, newline=""))
    problems, out = [], {}
    try:
        header = next(rows, None)
    except csv.Error as exc:
        raise NamesFileError(f"--names: {where}:1: broken CSV: {exc}")
    if not header:
        raise NamesFileError(f"--names: {where} is empty; it needs a header 'stop,name' and one line a station")
    header = [h.strip().lower() for h in header]
    first = next((h for h in ("stop", "stop_id", "station") if h in header), None)
    if first is None or "name" not in header:
        raise NamesFileError(f"--names: {where}:1: the header is '{','.join(header)}'; it must name the columns "
                             "'stop' (a stop_id or station name) and 'name' (the board name), e.g. 'stop,name'")
    i, j = header.index(first), header.index("name")
    try:
        for row in rows:
            line = rows.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if line > NAMES_FILE_ROWS + 1:
                problems.append(f"{where}:{line}: more than {NAMES_FILE_ROWS} names; a board has at most 500 stations")
                break
            if len(row) <= max(i, j):
                problems.append(f"{where}:{line}: {len(row)} value(s), the header names {len(header)} columns")
                continue
            stop, name = row[i].strip(), row[j].strip()
            if not stop or not name:
                problems.append(f"{where}:{line}: {'stop' if not stop else 'name'} is empty")
                continue
            if len(name) > NAME_CHARS:
                problems.append(f"{where}:{line}: the name '{name[:30]}...' has {len(name)} characters; at most {NAME_CHARS}")
                continue
            if stop in out and out[stop][0] != name:
                problems.append(f"{where}:{line}: '{stop}' was named '{out[stop][0]}' on line {out[stop][1]}; "
                                "give each stop or station one name")
                continue
            out[stop] = (name, line)
    except csv.Error as exc:
        problems.append(f"{where}:{rows.line_num}: broken CSV: {exc}")
    if problems:
        raise NamesFileError("--names: " + "\n".join(problems[:20])
                             + (f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""))
    return out
