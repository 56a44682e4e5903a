"""Which trips run: the feed's busiest service day, from partridge.

A feed lists every service it has: weekdays, weekends, school days, holidays, a special event.
Counting every trip of every service would weight a line by how many calendars it has, and pick
holiday patterns as a line's "representative" one; one real day is what a rider sees. partridge
(the `gtfs` extra) reads calendar.txt's weekday flags and date ranges with calendar_dates.txt's
additions and removals, and gives the earliest date with the most trips and the services that
run on it.

partridge reads whole files with pandas, so only the small files it needs go to it (trips.txt,
calendar.txt, calendar_dates.txt: a zip is not unpacked whole), after read.py has checked their
rows with file:line messages.
"""

from __future__ import annotations

import datetime
import re
import shutil
import tempfile
import warnings
from pathlib import Path

from mapkit.errors import UsageError
from mapkit.importers.gtfs.read import Column, Feed, FeedError

EXTRA_MESSAGE = ("`mapkit import gtfs` needs the GTFS reader, an optional extra: pip install 'mapkit[gtfs]' "
                 "(it brings partridge, which reads the feed's service calendar)")


def require_extra() -> None:
    """UsageError (exit 2) naming the extra when partridge is not installed."""
    try:
        import partridge  # noqa: F401
    except ImportError:
        raise UsageError(EXTRA_MESSAGE) from None


_DATE = re.compile(r"^\d{8}$")


def _date(value: str) -> str | None:
    if not _DATE.match(value):
        return f"'{value}' is not a date YYYYMMDD"
    try:
        datetime.date(int(value[:4]), int(value[4:6]), int(value[6:]))
    except ValueError:
        return f"'{value}' is not a real date"
    return None


def _flag(value: str) -> str | None:
    return None if value in ("0", "1") else f"'{value}' is not 0 or 1"


def _exception(value: str) -> str | None:
    return None if value in ("1", "2") else f"'{value}' is not 1 (added) or 2 (removed)"


DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def check_calendar(feed: Feed) -> None:
    """Row checks of the calendar files, so that partridge never meets a row it would choke on."""
    for _ in feed.rows("calendar.txt", [Column("service_id"), *[Column(d, check=_flag) for d in DAYS],
                                        Column("start_date", check=_date), Column("end_date", check=_date)]):
        pass
    for _ in feed.rows("calendar_dates.txt", [Column("service_id"), Column("date", check=_date),
                                              Column("exception_type", check=_exception)]):
        pass


def busiest_day(feed: Feed) -> tuple[datetime.date, frozenset[str]]:
    """(date, service ids running on it) of the earliest date with the most trips."""
    import partridge

    check_calendar(feed)
    for _ in feed.rows("trips.txt", [Column("route_id"), Column("service_id"), Column("trip_id")]):
        pass  # partridge reads trips.txt whole: its broken rows are reported here first, with their lines
    tmp = tempfile.mkdtemp(prefix="mapkit-gtfs-")
    try:
        for name in ("trips.txt", "calendar.txt", "calendar_dates.txt"):
            if feed.has(name):
                with feed.open_binary(name) as src, open(Path(tmp) / name, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        try:
            with warnings.catch_warnings():
                # partridge 1.1 calls pandas' rename(inplace=True), deprecated for pandas 4: the user
                # can do nothing about it, so it is not shown (the closing note tracks the risk)
                warnings.simplefilter("ignore", FutureWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                date, services = partridge.read_busiest_date(tmp)
        except AssertionError:
            # partridge asserts that some service runs on some day
            raise FeedError([f"{feed.label}: no trip runs on any day: calendar.txt and calendar_dates.txt give no "
                             "date to the service_id of any trip in trips.txt"])
        except Exception as exc:  # noqa: BLE001 - the rows were checked; what is left is the library's word
            raise FeedError([f"{feed.label}: the service calendar cannot be read (partridge: "
                             f"{type(exc).__name__}: {exc})"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return date, frozenset(services)
