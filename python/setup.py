"""Builds the Swift library (SwiftPM, release) and puts it inside the package, so a wheel carries it.

The library is the repository's `NewsAtlasC` product: the engine behind a C interface, with the Swift runtime
linked in. Set NEWSATLAS_LIBRARY to a built libNewsAtlasC.so to package that one instead of building, or
NEWSATLAS_SWIFT_PACKAGE to the Swift package's folder when this folder is not inside it.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

LIBRARY = "libNewsAtlasC.so"


def swift_library() -> Path:
    prebuilt = os.environ.get("NEWSATLAS_LIBRARY")
    if prebuilt:
        return Path(prebuilt)
    package = Path(os.environ.get("NEWSATLAS_SWIFT_PACKAGE", Path(__file__).resolve().parent.parent))
    if not (package / "Package.swift").is_file():
        raise SystemExit(
            f"newsatlas: no Package.swift in {package}; build from a NewsAtlas checkout "
            "(pip install ./python) or set NEWSATLAS_SWIFT_PACKAGE or NEWSATLAS_LIBRARY."
        )
    if shutil.which("swift") is None:
        raise SystemExit("newsatlas: building needs a Swift 6.2 (or later) toolchain on PATH (swift.org).")
    command = ["swift", "build", "-c", "release", "--product", "NewsAtlasC", "--package-path", str(package)]
    subprocess.run(command, check=True)
    bin_path = subprocess.run(
        command[:4] + ["--package-path", str(package), "--show-bin-path"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    return Path(bin_path) / LIBRARY


class BuildWithSwift(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "newsatlas" / LIBRARY
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(swift_library(), target)
        target.chmod(0o755)


class BinaryDistribution(Distribution):
    """A wheel for this platform (it holds a shared library), not a pure-Python one."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithSwift}, distclass=BinaryDistribution)
