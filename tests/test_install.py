"""The installed wheel (not the source tree) finds its schema and bundled boards."""

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from conftest import REPO


def test_wheel_installs_and_validates_a_bundled_board(tmp_path):
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
                           capture_output=True, text=True)
    if build.returncode != 0 and "hatchling" in build.stderr and "No matching distribution" in build.stderr:
        pytest.skip("the build backend cannot be fetched here")
    assert build.returncode == 0, build.stderr
    wheel = next(wheels.glob("mapkit-*.whl"))
    # The dependencies come from the environment running the tests, so only mapkit itself is
    # installed fresh. system_site_packages would give the *base* interpreter's site-packages, which
    # on a clean machine has none of them; a .pth line appends this environment's site-packages
    # instead (a plain path line: the editable install's own .pth files there are not processed,
    # so the repo's copy of mapkit cannot shadow the wheel).
    env_dir = tmp_path / "venv"
    # a venv without its own pip (ensurepip takes seconds): this environment's pip installs into it
    # with --python, as it would into any environment
    venv.create(env_dir, system_site_packages=False, with_pip=False)
    python = env_dir / "bin" / "python"
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(target, "_mapkit_test_deps.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--force-reinstall", str(wheel)], check=True, capture_output=True)
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    where = subprocess.run([str(python), "-c", "import mapkit, sys; print(mapkit.__file__)"],
                           capture_output=True, text=True, cwd=run_dir, env=env)
    assert str(env_dir) in where.stdout, where.stdout + where.stderr  # the installed copy, not the repo
    done = subprocess.run([str(env_dir / "bin" / "mapkit"), "validate", "portland"],
                          capture_output=True, text=True, cwd=run_dir, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "boards/portland.json: valid (0 errors, 0 warnings)" in done.stdout
