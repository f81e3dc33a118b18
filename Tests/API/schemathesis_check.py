#!/usr/bin/env python3
"""`newsatlas serve` against its OpenAPI document (Documentation/openapi.json), by PyPI's schemathesis.

Starts the GDELT imitation (Tests/Support/server.py, on 127.0.0.1: the keyless provider, no network) and
`BINARY serve --port 0` with a scratch datasets folder holding a small dataset, a write token in a file only its
owner can read (never on a command line), settings and caches of its own; readiness is read from their first
lines, never slept for. Then schemathesis generates requests for every operation of the document (its examples,
its coverage of each parameter's edges, property-based fuzzing with a fixed seed and a bounded number of
examples per operation, and the stateful links from a written dataset to its reads) and checks every answer
(CHECKS): no 5xx, a status, content type, body and headers the document lists; a request outside the document
refused; a method no operation has answered 405 with `Allow`; writes that refuse a request without the token;
a dataset found once written and gone once removed. The write operations get the token; the others never do.

    python3 Tests/API/schemathesis_check.py [path/to/newsatlas]

Prints schemathesis' report (each failure with a curl command that reproduces it) and exits non-zero when it
found a failure or could not run. The scratch folder is removed and both servers stopped at the end. It runs
schemathesis from this Python if it has it, else from .build/python-venv (scripts/bootstrap installs it there).

The servers' logs are in the scratch folder (SCHEMATHESIS_CHECK_KEEP=1 keeps it); SCHEMATHESIS_EXTRA adds
options to schemathesis' command line (`--report har`, `--checks positive_data_acceptance`, ...).
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUPPORT = os.path.join(ROOT, "Tests", "Support")
SCHEMA = os.path.join(ROOT, "Documentation", "openapi.json")
VENV_PYTHON = os.path.join(ROOT, ".build", "python-venv", "bin", "python")

SEED = 47  # issue 47
EXAMPLES = 30  # test cases per operation and phase (the coverage phase adds each parameter's edge cases)
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance", "response_headers_conformance", "negative_data_rejection",
          "ignored_auth", "unsupported_method", "use_after_free", "ensure_resource_availability"]

# A small dataset of the datasets folder, as a write over HTTP keeps one (NAME.geojson): served at start, as
# `places` (the name the document's write operations give as their example), and writable.
PLACES = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": id, "properties": {"name": name, "population": population},
     "geometry": {"type": "Point", "coordinates": [longitude, latitude]}}
    for id, name, population, latitude, longitude in [
        ("paris", "Paris", 2100000, 48.85, 2.35), ("versailles", "Versailles", 85000, 48.80, 2.13),
        ("lyon", "Lyon", 520000, 45.76, 4.84), (7, "Sydney", 5300000, -33.87, 151.21)]]}

# schemathesis' settings. The checks are chosen here, not with --checks, so that an operation's own settings
# below can turn one off. Its requests write a space in a query as '+' (HTML forms' encoding), which the server
# reads as a space, as it reads %20.
CONFIG = """\
[checks]
enabled = false
{checks}

# The operations that declare the write token (writes) get it; the others are sent none.
[auth.openapi.writeToken]
bearer = "${{NEWSATLAS_CHECK_WRITE_TOKEN}}"

# /v1/headlines answers 503 by design on this keyless server for provider=newsapi and for source= (NewsAPI
# alone serves them, and there is no key); the document lists that 503. Everywhere else a 5xx is a failure.
[[operations]]
include-path = "/v1/headlines"
checks.not_a_server_error.expected-statuses = ["2XX", "3XX", "4XX", "503"]

# Where the server takes more than the document describes, by design, a request outside the document is no
# negative case: a batch answers any body with 200, one row per line, a line it cannot read with its error in
# that row; a dataset's body is read as `serve --points` reads a file (a feature whose geometry is not a Point
# is kept and never clustered, whatever it is). Their parameters are still checked by the other checks.
[[operations]]
include-operation-id = ["nearestBatch", "resolveBatch", "putDataset", "addFeatures"]
checks.negative_data_rejection.enabled = false

# Writes draw their dataset names from the document, not from earlier answers: those name `markers` above all,
# which every write refuses (409) before it reads anything.
[[operations]]
include-tag = "writes"
phases.examples.extra-data-sources.responses = false
phases.coverage.extra-data-sources.responses = false
phases.fuzzing.extra-data-sources.responses = false
"""

# Operations left out of the run, each with its reason (none today: /openapi.json is served and checked too).
EXCLUDED_PATHS = []


def schemathesis_python():
    """A Python that has schemathesis: this one, else the one of the tests' virtual environment."""
    try:
        import schemathesis  # noqa: F401
        return sys.executable
    except ImportError:
        if os.path.exists(VENV_PYTHON):
            return VENV_PYTHON
        raise SystemExit("schemathesis_check: no schemathesis here or in .build/python-venv; run scripts/bootstrap")


def start_imitation(scratch):
    """The GDELT imitation: its process and base URL."""
    with open(os.path.join(scratch, "imitation.log"), "w") as log:
        process = subprocess.Popen([sys.executable, os.path.join(SUPPORT, "server.py")], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=log, text=True, cwd=SUPPORT)
    port = process.stdout.readline().strip()  # readiness: the imitation prints its port once it listens
    if not port.isdigit():
        process.kill()
        process.wait()
        raise SystemExit(f"schemathesis_check: the GDELT imitation did not start: {port!r}")
    return process, f"http://127.0.0.1:{port}"


def start_serve(binary, scratch, gdelt_base):
    """`serve` on a free port with the scratch folder's settings, datasets and token: its process and base URL."""
    config = os.path.join(scratch, "config", "newsatlas")
    datasets = os.path.join(scratch, "datasets")
    os.makedirs(config)
    os.makedirs(datasets)
    with open(os.path.join(config, "config.toml"), "w") as f:
        f.write("gdelt-spacing = 0\n")  # the imitation needs no pacing
    with open(os.path.join(datasets, "places.geojson"), "w") as f:
        json.dump(PLACES, f)
    token_file = os.path.join(scratch, "write-token")
    token = secrets.token_hex(32)
    descriptor = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as f:
        f.write(token + "\n")
    # No key (the settings of the scratch folder hold none), so headlines come from the GDELT imitation.
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NEWSAPI_KEY", "NEWSATLAS_API_BASE", "NEWSATLAS_WRITE_TOKEN")}
    environment.update(XDG_CONFIG_HOME=os.path.join(scratch, "config"), XDG_CACHE_HOME=os.path.join(scratch, "cache"),
                       XDG_DATA_HOME=os.path.join(scratch, "data"), NEWSATLAS_GDELT_BASE=gdelt_base,
                       LANG="C.UTF-8")
    log = os.path.join(scratch, "serve.log")  # a line per request
    with open(log, "w") as f:
        process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--datasets-dir", datasets,
             "--write-token-file", token_file, "--grace", "1"],
            stdout=subprocess.PIPE, stderr=f, text=True, env=environment)
    ready = process.stdout.readline()  # "newsatlas: serving on http://127.0.0.1:PORT"
    base = ready.strip().rsplit(" ", 1)[-1]
    if not base.startswith("http://127.0.0.1:"):
        process.kill()
        process.wait()
        with open(log, errors="replace") as f:
            raise SystemExit(f"schemathesis_check: serve did not start: {ready!r}\n{f.read()[-2000:]}")
    return process, base, token


def stop(process, name, ask):
    """Stops a server: `ask` (SIGTERM, or closing its input), then SIGKILL if it has not ended in 15 seconds."""
    if process.poll() is None:
        ask()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        print(f"schemathesis_check: {name} did not stop; killed", flush=True)
        process.kill()
        process.wait()


def run_schemathesis(base, token, scratch):
    with open(os.path.join(scratch, "schemathesis.toml"), "w") as f:
        f.write(CONFIG.format(checks="\n".join(f"{name}.enabled = true" for name in CHECKS)))
    command = [schemathesis_python(), "-m", "schemathesis.cli", "--config-file",
               os.path.join(scratch, "schemathesis.toml"), "run", SCHEMA, "--url", base,
               "--seed", str(SEED), "--max-examples", str(EXAMPLES),
               "--generation-database", "none", "--request-timeout", "20", "--no-color"]
    for path in EXCLUDED_PATHS:
        command += ["--exclude-path", path]
    command += os.environ.get("SCHEMATHESIS_EXTRA", "").split()
    environment = dict(os.environ, NEWSATLAS_CHECK_WRITE_TOKEN=token)
    print("schemathesis_check: " + " ".join(command[1:]), flush=True)
    started = time.monotonic()
    # Run in the scratch folder: whatever schemathesis writes beside it goes with it.
    status = subprocess.run(command, cwd=scratch, env=environment, timeout=900).returncode
    print(f"schemathesis_check: schemathesis exited {status} after {time.monotonic() - started:.0f} s", flush=True)
    return status


def main():
    binary = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
    if binary is None:
        sys.path.insert(0, SUPPORT)
        from harness import binary as built  # the one `swift build` made
        binary = built()
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"schemathesis_check: {binary} is no program to run; give the path of a built newsatlas")
    scratch = tempfile.mkdtemp(prefix="newsatlas-schemathesis-")
    imitation = serve = None
    status = 1
    try:
        imitation, gdelt_base = start_imitation(scratch)
        serve, base, token = start_serve(binary, scratch, gdelt_base)
        status = run_schemathesis(base, token, scratch)
        if serve.poll() is not None:
            print(f"schemathesis_check: serve ended during the run (exit {serve.returncode})", flush=True)
            status = status or 1
        if status != 0:
            # The warnings and errors serve logged (a failed write's reason, say), the last of them.
            with open(os.path.join(scratch, "serve.log"), errors="replace") as f:
                said = [line for line in f if " info " not in line]
            print("schemathesis_check: serve logged "
                  + (":\n" + "".join(said[-20:]) if said else "no warning or error"), flush=True)
    finally:
        if serve is not None:
            stop(serve, "serve", serve.terminate)
        if imitation is not None:
            stop(imitation, "the GDELT imitation", imitation.stdin.close)  # it serves until its input closes
        if os.environ.get("SCHEMATHESIS_CHECK_KEEP") == "1":
            print(f"schemathesis_check: kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print("schemathesis_check: " + ("the server answers as its document says" if status == 0 else "FAILED"))
    sys.exit(0 if status == 0 else 1)


if __name__ == "__main__":
    main()
