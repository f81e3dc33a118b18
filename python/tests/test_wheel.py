"""A wheel of the package runs where no Swift toolchain is: installed into a fresh virtual environment and
imported with the toolchain off PATH (the library carries the Swift runtime)."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import newsatlas


def test_library_needs_no_swift_runtime():
    library = Path(newsatlas.__file__).parent / "libNewsAtlasC.so"
    library = Path(os.environ.get("NEWSATLAS_LIBRARY", library))
    linked = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True).stdout
    assert "libswift" not in linked and "libFoundation" not in linked, linked


def test_wheel_in_a_fresh_venv_without_the_toolchain(tmp_path):
    library = Path(os.environ.get("NEWSATLAS_LIBRARY", Path(newsatlas.__file__).parent / "libNewsAtlasC.so"))
    source = Path(__file__).resolve().parents[1]
    # The wheel of the library already built (NEWSATLAS_LIBRARY: no second Swift build).
    environment = dict(os.environ, NEWSATLAS_LIBRARY=str(library))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", str(source), "-w", str(tmp_path / "wheels")],
        check=True, env=environment, cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "wheels").glob("newsatlas-*.whl")
    assert wheel.name.endswith("linux_x86_64.whl")  # a platform wheel: it holds a shared library
    venv.create(tmp_path / "fresh", with_pip=True)
    python = tmp_path / "fresh" / "bin" / "python"
    # numpy from the cache pip already holds (or PyPI); the package from the wheel.
    # Without PYTHONPATH, which could name a source tree that pip takes for the package installed.
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("NEWSATLAS_")}
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)], check=True, env=alone
    )
    swift = shutil.which("swift")
    path = os.pathsep.join(
        p for p in os.environ.get("PATH", "").split(os.pathsep)
        if not (swift and Path(p) == Path(swift).parent)
    )
    clean = {"PATH": path, "HOME": os.environ.get("HOME", "/tmp")}  # no NEWSATLAS_LIBRARY, no PYTHONPATH
    check = (
        "import shutil, newsatlas\n"
        "assert shutil.which('swift') is None\n"
        "r = newsatlas.resolve([48.85, 36.75], [2.35, 3.06])\n"
        "t = newsatlas.ClusterIndex([10.0, 10.1], [20.0, 20.1]).tile(0, 0, 0)\n"
        "print(newsatlas.__file__, r.codes.tolist(), r.containing.tolist(), 'tile', len(t) > 20)\n"
    )
    done = subprocess.run([python, "-c", check], capture_output=True, text=True, env=clean, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(tmp_path / "fresh") in done.stdout and "['fr', 'pt'] ['fr', 'dz'] tile True" in done.stdout
