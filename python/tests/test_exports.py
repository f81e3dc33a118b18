"""The library exports its C interface and nothing else (Sources/NewsAtlasC/NewsAtlasC.map): no Swift runtime,
no mangled Swift symbols that another Swift library loaded into the same Python could clash with."""

import shutil
import subprocess

import pytest

from newsatlas import _native


def exported(path):
    nm = shutil.which("nm")
    if nm is None:
        pytest.fail("No 'nm' on PATH (binutils): it reads the library's dynamic symbol table.")
    listing = subprocess.run([nm, "-D", "--defined-only", path], check=True, capture_output=True, text=True)
    # Global symbols only: nm writes a local one's type in lower case (the linker leaves a few local entries
    # in the dynamic table for its own relocations; nothing outside the library can bind to them).
    rows = [line.split() for line in listing.stdout.splitlines() if line.strip()]
    return {row[-1] for row in rows if row[-2].isupper() or row[-2] in "uvwi"}


def test_only_the_c_interface_is_exported():
    symbols = exported(_native._path)
    assert symbols, "nm listed no symbols"
    others = sorted(s for s in symbols if not s.startswith("newsatlas_"))
    assert others == [], f"{len(others)} symbols besides newsatlas_*: {others[:20]}"


def test_every_exported_function_is_declared_for_ctypes():
    # The C interface is what _native.py declares: nothing exported that Python does not type, and back.
    assert exported(_native._path) == set(_native._signatures)
