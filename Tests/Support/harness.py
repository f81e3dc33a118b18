"""What the Python checks that .ci/run calls share: the binary to test, and counted checks that end with the
closing line "N passed, N failed"."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = {"passed": 0, "failed": 0}


def check(condition, what):
    RESULTS["passed" if condition else "failed"] += 1
    print(("ok     " if condition else "FAILED ") + what, flush=True)


def binary():
    """The newsatlas given as the first argument, else the one `swift build` made."""
    if len(sys.argv) > 1:
        return sys.argv[1]
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    return os.path.join(path, "newsatlas")


def shared_points_geojson(folder):
    """The shared 10,000 seeded points (Tests/Fixtures/points-10k.json) as a GeoJSON file in `folder`, point i
    with properties {"index": i}: its path."""
    import json
    with open(os.path.join(ROOT, "Tests", "Fixtures", "points-10k.json")) as f:
        points = json.load(f)["points"]
    path = os.path.join(folder, "points.geojson")
    with open(path, "w") as f:
        json.dump({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"index": i}, "geometry": {"type": "Point", "coordinates": p}}
            for i, p in enumerate(points)]}, f)
    return path


def finish():
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] else 0)
