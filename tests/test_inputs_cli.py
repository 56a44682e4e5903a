"""Issue 9, items 6, 7 and 9: seeds, bounded input, capped output, exit codes of crashes and Ctrl-C,
and rules that contradict each other."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES, REPO
from mapkit.cli.common import EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, MAX_PROBLEMS_SHOWN, SEED_MAX

TINY = FIXTURES / "tiny.json"


# ------------------------------------------------------------------ item 6: --seed

SEEDED = [
    ["simulate", TINY, "--games", "1"],
    ["report", TINY, "--games", "10", "--players", "2"],
    ["tickets", "generate", TINY, "--count", "3"],
    ["build", TINY, "--games", "1"],
]


@pytest.mark.parametrize("args", SEEDED, ids=lambda a: " ".join(str(x) for x in a[:2]))
@pytest.mark.parametrize("seed", ["-1", str(SEED_MAX + 1), "1.5", "x"])
def test_every_seed_option_refuses_what_numpy_cannot_take(cli, args, seed, tmp_path):
    result = cli(*args, "--seed", seed)
    assert result.exit_code == 2
    assert "is not a seed: give a whole number from 0 to 9223372036854775807" in result.output
    assert "Traceback" not in result.output


def test_the_largest_seed_plays(cli):
    result = cli("simulate", TINY, "--games", "2", "--seed", SEED_MAX, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["seed"] == SEED_MAX


def test_every_seed_option_uses_the_shared_type():
    """No command grows its own --seed: they all take cli.SEED."""
    from mapkit.cli import main
    from mapkit.cli.common import SEED

    found = []

    def walk(group):
        for cmd in group.commands.values():
            if hasattr(cmd, "commands"):
                walk(cmd)
            for p in cmd.params:
                if "--seed" in getattr(p, "opts", []):
                    found.append((cmd.name, p.type))

    walk(main)
    assert len(found) >= 4
    assert all(t is SEED for _, t in found), found


# ------------------------------------------------------------------ item 7: bounded input, capped output

@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_in_bounded_time(in_repo):
    """A device is no board file: refused before a byte is read (the read is bounded anyway)."""
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mapkit", "validate", "/dev/zero"],
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 1
    assert "[not-a-file] is a device, not a board file" in done.stdout
    assert time.monotonic() - t0 < 60


def test_a_file_over_the_limit_is_too_large_whatever_its_size_says(cli, tmp_path, monkeypatch):
    import mapkit.boardfile as boardfile

    monkeypatch.setattr(boardfile, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(TINY.read_text())
    result = cli("validate", path)
    assert result.exit_code == 1
    assert "[too-large] file is larger than" in result.output


def _many_problems(tiny_data, n):
    tiny_data["routes"] += [{"from": f"nowhere-{i}", "to": "alder", "color": "red", "length": 1} for i in range(n)]
    return tiny_data


def test_text_output_shows_the_first_problems_then_a_count(cli, tiny_data, write_board):
    n = MAX_PROBLEMS_SHOWN + 57
    path = write_board(_many_problems(tiny_data, n))
    result = cli("validate", path)
    lines = result.output.splitlines()
    assert result.exit_code == 1
    problem_lines = [line for line in lines if "[unknown-station]" in line]
    assert len(problem_lines) == MAX_PROBLEMS_SHOWN
    assert lines[-2] == f"... and {n - MAX_PROBLEMS_SHOWN} more problems (the first {MAX_PROBLEMS_SHOWN} are shown)"
    assert lines[-1].endswith(f"invalid ({n} errors, 0 warnings)")


def test_json_output_is_capped_with_counts(cli, tiny_data, write_board):
    n = MAX_PROBLEMS_SHOWN + 5
    path = write_board(_many_problems(tiny_data, n))
    out = json.loads(cli("validate", "--format", "json", path).output)
    assert len(out["problems"]) == MAX_PROBLEMS_SHOWN
    assert out["problem_count"] == out["error_count"] == n and out["warning_count"] == 0


def test_a_file_name_that_is_not_utf8_prints(tmp_path):
    """A file name of bytes that are not UTF-8 reaches Python as a lone surrogate."""
    name = os.fsdecode(b"bad-\xff.json")
    try:
        (tmp_path / name).write_text("{")
    except (UnicodeEncodeError, OSError):
        pytest.skip("the file system takes only UTF-8 names")
    done = subprocess.run([sys.executable, "-m", "mapkit", "validate", name], capture_output=True,
                          cwd=tmp_path, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 1
    assert b"Traceback" not in done.stderr
    assert b"bad-\\udcff.json" in done.stdout


# ------------------------------------------------------------------ item 9: exit codes

def test_a_crash_is_an_internal_error_with_its_own_exit_code(cli, monkeypatch):
    import mapkit.validate

    def boom(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(mapkit.validate, "validate_file", boom)
    monkeypatch.delenv("MAPKIT_DEBUG", raising=False)
    result = cli("validate", TINY)
    assert result.exit_code == EXIT_INTERNAL_ERROR != 1
    assert "internal error: ZeroDivisionError: division by zero" in result.output
    assert "bug in mapkit" in result.output and "report it" in result.output
    assert "Traceback" not in result.output


def test_mapkit_debug_shows_the_traceback(cli, monkeypatch):
    import mapkit.validate

    monkeypatch.setattr(mapkit.validate, "validate_file", lambda *a, **k: 1 / 0)
    monkeypatch.setenv("MAPKIT_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli("validate", TINY)


def test_ctrl_c_inside_a_command_exits_130(cli, monkeypatch):
    import mapkit.validate

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(mapkit.validate, "validate_file", interrupted)
    result = cli("validate", TINY)
    assert result.exit_code == EXIT_INTERRUPTED == 130
    assert "Traceback" not in result.output and "Aborted" not in result.output


def _group_cpu_seconds(group: int) -> float | None:
    """CPU seconds the live processes of a process group have used (None without /proc)."""
    if not os.path.isdir("/proc/self"):
        return None
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:   # pgrp; then utime and stime
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _wait_until_playing(proc, cpu: float = 2.0, longest: float = 30.0) -> None:
    """Until the run's processes have used `cpu` seconds of CPU (importing takes about 0.6 a
    process: past that they are playing games), at most `longest` seconds; 5 s without /proc."""
    start = time.monotonic()
    while time.monotonic() - start < longest and proc.poll() is None:
        used = _group_cpu_seconds(proc.pid)
        if used is None:
            time.sleep(5)
            return
        if used >= cpu:
            return
        time.sleep(0.1)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_of_a_real_run_exits_130_without_a_traceback(jobs):
    # a shell may start the test run with SIGINT ignored; the child gets the default back, in its
    # own process group, and the group is signalled as a terminal's Ctrl-C signals it (workers too)
    proc = subprocess.Popen([sys.executable, "-m", "mapkit", "simulate", str(TINY), "--games", "1000000",
                             "--agents", "random", "--jobs", jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=REPO, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_until_playing(proc)  # playing games, not importing
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err


@pytest.mark.parametrize("variants, needle", [
    (["solo", "teams"], "the solo puzzle is one player and cannot be played in teams"),
    (["teams", "solo"], "the solo puzzle is one player and cannot be played in teams"),
])
def test_contradictory_variants_are_refused(cli, variants, needle):
    args = [a for v in variants for a in ("--variant", v)]
    result = cli("simulate", TINY, "--games", "1", *args)
    assert result.exit_code == 2
    assert needle in result.output


def test_resolve_rules_refuses_what_cannot_be_played():
    from mapkit.errors import UsageError
    from mapkit.sim.rules import resolve_rules

    with pytest.raises(UsageError, match="2 teams of two or more need 4 players, but the rules allow 2-3 players"):
        resolve_rules("standard", {"max_players": 3, "teams": 2})
    with pytest.raises(UsageError, match="the solo puzzle is one player, but the rules allow 2-5 players"):
        resolve_rules("standard", {"solo": True})
    with pytest.raises(UsageError, match="keep_at_start 3 is more than the 2 tickets dealt"):
        resolve_rules("standard", {"deal_tickets": 2}, preset="mega", for_presets={"mega": {"deal_tickets": 2}})
    # what the presets and variants make on their own stays playable
    from mapkit.sim.rules import PRESETS, VARIANTS

    for preset in PRESETS:
        for variant in VARIANTS:
            resolve_rules(preset, {}, variants=(variant,))


def test_the_schema_gate_stops_collecting_after_its_cap(cli, tiny_data, write_board):
    """200,000 broken routes took 42 CPU seconds to list; the gate stops at MAX_SCHEMA_PROBLEMS."""
    from mapkit.boardfile import MAX_SCHEMA_PROBLEMS

    tiny_data["routes"] += [{"from": "alder", "to": "birch", "color": "red", "length": "x"}] * (MAX_SCHEMA_PROBLEMS + 500)
    out = json.loads(cli("validate", "--format", "json", write_board(tiny_data)).output)
    assert out["problem_count"] == MAX_SCHEMA_PROBLEMS + 1
    assert out["problems"][0]["message"].startswith(f"the schema check stopped after {MAX_SCHEMA_PROBLEMS} problems")
