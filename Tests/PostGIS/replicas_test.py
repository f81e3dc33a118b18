#!/usr/bin/env python3
"""Three `serve` replicas on one PostGIS table, live: the binary given, a throwaway PostgreSQL 15 + PostGIS cluster.

    python3 Tests/PostGIS/replicas_test.py BINARY [ROWS]

Seeds a table of ROWS points (20,000 by default; with rows of NULL and non-point geometries), starts three
replicas (`serve --postgres URL --table places`, each with its own --datasets-dir and the write token), then runs
a burst, all at once: two psycopg writers committing INSERTs of 1-20 rows, UPDATEs that move a point, UPDATEs that
change a row's key, DELETEs and transactions rolled back; an HTTP writer adding features (with ids and without)
through one replica and removing them through another. During the burst one replica is killed with SIGKILL and
started again, and the database is restarted (pg_ctl stop -m fast, start) under load; writers go on once it is
back. Checks:
  - each replica says once that the rows without a Point are left out;
  - every replica catches up: /healthz says it serves the table's last change, connected, 0 s behind, and
    /metrics says the same;
  - each replica's dataset equals a fresh load of the table: a fourth `serve` started at the end has the same
    point count (the table's point rows), the same content hash, and the same bytes for the clusters at zooms 0-8
    and for a tile at each zoom 0-6;
  - a TRUNCATE (which row triggers do not see) with rows inserted in its transaction and after it: the four
    replicas read the table whole again and equal a fifth, fresh one;
  - HTTP writes: a property that is no column, and features some with an id and some without, are refused (400,
    one sentence); an id no row has is 404 (a number or not); a PUT or DELETE of the whole dataset is 409; a
    write's answer is the dataset that serves it (its point count one more);
  - /healthz?maxLag=S: 503 "behind" while the database is down past S seconds, 200 once caught up;
  - the password is in no line a replica prints.
Prints how long an INSERT took to be seen by all three replicas (no limit is asserted: Benchmarks/README.md).
Exit status 0 when every check passes, 1 otherwise.
"""

import json
import os
import random
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgcluster import Cluster, Server, get  # noqa: E402

BIN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit("usage: replicas_test.py BINARY [ROWS]")
ROWS = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
PASSWORD = "r3plica-Pässwörd%@:/"
TOKEN = "replica-write-token-0123456789abcdef"
failures = []


def check(condition, what):
    print(("ok     " if condition else "FAILED ") + what, flush=True)
    if not condition:
        failures.append(what)


def request(url, method="GET", body=None, headers=None):
    """(status, parsed JSON or text) of a request; never raises for an HTTP status."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            status, data = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, data = error.code, error.read()
    try:
        return status, json.loads(data)
    except ValueError:
        return status, data.decode(errors="replace")


def write(base, method, path, features=None):
    body = None if features is None else json.dumps({"type": "FeatureCollection", "features": features}).encode()
    return request(base + path, method, body, {"Authorization": "Bearer " + TOKEN,
                                               "Content-Type": "application/geo+json"})


def point(lon, lat, properties, id=None):
    feature = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "properties": properties}
    if id is not None:
        feature["id"] = id
    return feature


cluster = Cluster(PASSWORD, prefix="newsatlas-replicas-", settings=("max_connections=200",))
servers = []
try:
    cluster.psql(f"""
        CREATE TABLE places (id bigserial PRIMARY KEY, name text, n integer, geom geometry(Point, 4326));
        SELECT setseed(0.45);
        INSERT INTO places (name, n, geom) SELECT 'seed ' || g, g % 7,
          ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326) FROM generate_series(1, {ROWS}) g;
        INSERT INTO places (name, n, geom) VALUES ('pole', 1, ST_SetSRID(ST_MakePoint(0, 90), 4326)),
          ('antimeridian', 1, ST_SetSRID(ST_MakePoint(180, 10), 4326)),
          ('twin', 1, ST_SetSRID(ST_MakePoint(2.35, 48.85), 4326)),
          ('twin', 1, ST_SetSRID(ST_MakePoint(2.35, 48.85), 4326)),
          ('nothing', 1, NULL);
        ALTER TABLE places ALTER COLUMN geom TYPE geometry USING geom;
        INSERT INTO places (name, n, geom) VALUES ('line', 1, ST_SetSRID('LINESTRING(0 0, 1 1)'::geometry, 4326));
        """)
    url = cluster.url(urllib.parse.quote(PASSWORD, safe=""))
    token_file = os.path.join(cluster.root, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token_file, 0o600)
    environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(cluster.root, "config"),
                       XDG_CACHE_HOME=os.path.join(cluster.root, "cache"),
                       XDG_DATA_HOME=os.path.join(cluster.root, "share"), LANG="C.UTF-8")
    environment.pop("DATABASE_URL", None)

    def replica(n):
        server = Server(BIN, ["--no-news", "--postgres", url, "--table", "places", "--write-token-file", token_file,
                              "--datasets-dir", os.path.join(cluster.root, f"datasets-{n}")], environment)
        servers.append(server)
        return server

    replicas = [replica(n) for n in range(3)]
    check(all(r.base for r in replicas),
          "three replicas start on one table" + "".join(r.output for r in replicas if not r.base))
    if not all(r.base for r in replicas):
        raise SystemExit(1)
    for r in replicas:
        said = [line for line in r.lines if "without a Point" in line]
        check(len(said) == 1 and "2 rows" in said[0], f"the rows without a Point are said once ({said})")

    # Refusals and answers of HTTP writes to a table's dataset, before the burst.
    base = replicas[0].base
    status, answer = write(base, "POST", "/v1/datasets/places/features", [point(1, 2, {"colour": "red"})])
    check(status == 400 and "colour" in str(answer), f"a property that is no column is refused, 400 ({answer})")
    status, answer = write(base, "POST", "/v1/datasets/places/features",
                           [point(1, 2, {"name": "a"}, id=90_000_001), point(1, 3, {"name": "b"})])
    check(status == 400 and "id" in str(answer), f"some features with an id and some without: 400 ({answer})")
    for missing in ["123456789", "not-a-number"]:
        status, answer = write(base, "DELETE", f"/v1/datasets/places/features/{missing}")
        check(status == 404, f"DELETE of an id no row has ({missing}): 404 ({status} {answer})")
    for method in ["PUT", "DELETE"]:
        status, answer = write(base, method, "/v1/datasets/places", [point(1, 2, {})] if method == "PUT" else None)
        check(status == 409 and "places" in str(answer), f"{method} of the whole dataset: 409 ({answer})")
    before = request(base + "/v1/datasets")[1]["datasets"]
    count = next(d["pointCount"] for d in before if d["name"] == "places")
    status, answer = write(base, "POST", "/v1/datasets/places/features", [point(3, 4, {"name": "by http", "n": 2})])
    check(status == 200 and answer.get("pointCount") == count + 1,
          f"POST features answers with the dataset that serves them ({status} {answer})")

    # How long one INSERT takes to be seen by every replica (its point count, read as a client would).
    def counts():
        return [next(d["pointCount"] for d in request(r.base + "/v1/datasets")[1]["datasets"]
                     if d["name"] == "places") for r in replicas]
    start_counts = counts()
    started = time.monotonic()
    cluster.psql("INSERT INTO places (name, n, geom) VALUES ('timed', 3, ST_SetSRID(ST_MakePoint(5, 5), 4326))")
    seen = [None] * 3
    while None in seen and time.monotonic() - started < 30:
        for k, c in enumerate(counts()):
            if seen[k] is None and c == start_counts[k] + 1:
                seen[k] = time.monotonic() - started
    print(f"       an INSERT seen by the three replicas after {', '.join(f'{s * 1000:.0f} ms' for s in seen if s)}"
          f" ({ROWS:,} rows)")
    check(None not in seen, "an INSERT is seen by every replica")

    # The burst.
    stop = threading.Event()
    errors = []
    http_done = {"added": 0, "removed": 0, "unavailable": 0, "not served within 10 s": 0}

    def sql_writer(seed):
        import psycopg
        rng = random.Random(seed)
        done = 0
        connection = None
        while done < 150 and not stop.is_set():
            try:
                if connection is None or connection.closed:
                    connection = cluster.connect()
                with connection.transaction():
                    cur = connection.cursor()
                    action = rng.random()
                    if action < 0.35:
                        for _ in range(rng.randint(1, 20)):
                            cur.execute("INSERT INTO places (name, n, geom) VALUES (%s, %s, "
                                        "ST_SetSRID(ST_MakePoint(%s, %s), 4326))",
                                        (f"w{seed} {done}", rng.randint(0, 9), rng.uniform(-180, 180),
                                         rng.uniform(-85, 85)))
                    elif action < 0.6:
                        cur.execute("UPDATE places SET geom = ST_SetSRID(ST_MakePoint(%s, %s), 4326) WHERE id = "
                                    "(SELECT id FROM places ORDER BY random() LIMIT 1)",
                                    (rng.uniform(-180, 180), rng.uniform(-85, 85)))
                    elif action < 0.7:
                        cur.execute("UPDATE places SET id = id + 1000000000 WHERE id = "
                                    "(SELECT id FROM places WHERE id < 1000000000 ORDER BY random() LIMIT 1)")
                    elif action < 0.9:
                        cur.execute("DELETE FROM places WHERE id IN "
                                    "(SELECT id FROM places ORDER BY random() LIMIT %s)", (rng.randint(1, 5),))
                    else:
                        cur.execute("INSERT INTO places (name, geom) VALUES ('rolled back', "
                                    "ST_SetSRID(ST_MakePoint(0, 0), 4326))")
                        raise psycopg.Rollback()
                done += 1
            except psycopg.OperationalError:
                connection = None  # the database restarts: the transaction is retried on a new connection
                time.sleep(0.05)
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
                return

    def http_writer():
        """Adds and removes features over HTTP; a 503 (the database restarting) is asked again, as a client
        would, after a tenth of a second."""
        rng = random.Random(7)
        added = []
        k = 0
        while k < 60 and not stop.is_set():
            if rng.random() < 0.6 or not added:
                with_id = rng.random() < 0.5
                features = [point(rng.uniform(-180, 180), rng.uniform(-85, 85), {"name": f"http {k} {j}"},
                                  id=(70_000_000 + k * 100 + j) if with_id else None) for j in range(rng.randint(1, 5))]
                attempt = lambda: write(replicas[0].base, "POST", "/v1/datasets/places/features", features)
                done, ids = "added", [f["id"] for f in features if "id" in f]
            else:
                target = added.pop(rng.randrange(len(added)))
                attempt = lambda: write(replicas[1].base, "DELETE", f"/v1/datasets/places/features/{target}")
                done, ids = "removed", []
            status, answer = attempt()
            while status == 503 and not stop.is_set():
                http_done["unavailable"] += 1
                time.sleep(0.1)
                status, answer = attempt()
            # A DELETE may find its row gone: a concurrent SQL writer deleted or re-keyed it first.
            if status == 200 or (status == 404 and done == "removed"):
                http_done[done] += 1
                added += ids
            elif status == 202:
                http_done["not served within 10 s"] += 1
            else:
                errors.append(f"{done}: {status} {answer}")
            k += 1

    writers = [threading.Thread(target=sql_writer, args=(seed,)) for seed in (1, 2)]
    writers.append(threading.Thread(target=http_writer))
    for w in writers:
        w.start()
    # A replica killed mid-burst and started again at once (it loads the table as of then and follows).
    time.sleep(1.0)
    replicas[2].process.send_signal(signal.SIGKILL)
    replicas[2].process.wait()
    replicas[2] = replica(2)
    check(replicas[2].base is not None, "a replica killed with SIGKILL during the burst starts again")
    # The database restarted under load.
    time.sleep(1.0)
    cluster.stop("fast")
    down = time.monotonic()
    def noticed(status, health):
        return status == 503 and not health["tables"]["places"]["connected"]
    status, health = request(replicas[0].base + "/healthz?maxLag=0.5")
    while not noticed(status, health) and time.monotonic() - down < 10:
        time.sleep(0.05)  # polling the replica's own health answer
        status, health = request(replicas[0].base + "/healthz?maxLag=0.5")
    check(status == 503 and health.get("status") == "behind" and not health["tables"]["places"]["connected"],
          f"/healthz?maxLag=0.5 answers 503 'behind' while the database is down ({status} {health})")
    cluster.start()
    for w in writers:
        w.join(timeout=300)
    stop.set()
    check(not errors, f"the writers met no unexpected error ({errors[:3]})")
    print(f"       HTTP writes: {http_done}")

    def wait_for_the_last_change(followers):
        last = int(cluster.psql("SELECT coalesce(max(seq), 0) FROM newsatlas.changes WHERE tbl = 'public.places'"))
        deadline = time.monotonic() + 120
        caught_up = [False] * len(followers)
        while not all(caught_up) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling the replicas' own health answers
            for k, r in enumerate(followers):
                table = request(r.base + "/healthz")[1]["tables"]["places"]
                caught_up[k] = table["change"] == last and table["connected"] and table["lagSeconds"] == 0
        check(all(caught_up), f"every replica serves the table's last change ({last}), connected, 0 s behind")
        for k, r in enumerate(followers):
            if not caught_up[k]:
                metrics = request(r.base + "/metrics")[1]
                print(f"       replica {k}: {request(r.base + '/healthz')[1]}\n"
                      + "\n".join(line for line in metrics.splitlines() if line.startswith("newsatlas_table"))
                      + "\n" + cluster.psql("SELECT pid, state, xact_start, backend_xmin, left(query, 60) "
                                            "FROM pg_stat_activity WHERE datname = 'atlas'"))
        return last

    def same_as_a_fresh_load(followers, n, what):
        """Starts replica n on the table as it is and compares every follower's dataset with its own."""
        fresh = replica(n)
        check(fresh.base is not None, f"a fresh replica loads the table {what}")
        points = int(cluster.psql("SELECT count(*) FROM places WHERE GeometryType(geom) = 'POINT'"))
        entries = []
        for r in followers + [fresh]:
            entry = next(d for d in request(r.base + "/v1/datasets")[1]["datasets"] if d["name"] == "places")
            entries.append((entry["pointCount"], entry["contentHash"]))
        check(all(e == entries[-1] for e in entries) and entries[-1][0] == points,
              f"{what}: each replica has the table's {points} points and the fresh load's content hash ({entries})")
        same = True
        for zoom in range(0, 9):
            answers = [get(f"{r.base}/v1/datasets/places/clusters?zoom={zoom}")[2] for r in followers + [fresh]]
            if any(a != answers[-1] for a in answers):
                print(f"       zoom {zoom}: the clusters differ")
                same = False
        for zoom in range(0, 7):
            x = y = (1 << zoom) // 2
            tiles = [get(f"{r.base}/tiles/places/{zoom}/{x}/{y}.mvt")[2] for r in followers + [fresh]]
            if any(t != tiles[-1] for t in tiles):
                print(f"       tile {zoom}/{x}/{y}: the bytes differ")
                same = False
        check(same, f"{what}: each replica's clusters (zooms 0-8) and tiles (zooms 0-6) are the fresh load's, "
                    "byte for byte")
        return fresh

    last = wait_for_the_last_change(replicas)
    status, health = request(replicas[0].base + "/healthz?maxLag=5")
    check(status == 200 and health["status"] == "ok", f"/healthz?maxLag=5 is 200 once caught up ({health})")
    status, metrics = request(replicas[1].base + "/metrics")
    check(f'newsatlas_table_change{{dataset="places"}} {last}' in metrics
          and 'newsatlas_table_lag_seconds{dataset="places"} 0.0' in metrics
          and 'newsatlas_table_connected{dataset="places"} 1' in metrics
          and 'newsatlas_table_disconnections_total{dataset="places"} 1' in metrics,
          "/metrics: the change served, 0 s behind, connected, one disconnection")
    fresh = same_as_a_fresh_load(replicas, 3, "after the burst")

    # A TRUNCATE, which row triggers do not see, with rows added in its transaction and after it: every
    # replica (the fresh one too) reads the table whole again and follows on.
    cluster.psql("BEGIN; TRUNCATE places; INSERT INTO places (name, n, geom) SELECT 'after ' || g, g % 5, "
                 "ST_SetSRID(ST_MakePoint(g % 360 - 180, g % 170 - 85), 4326) FROM generate_series(1, 500) g; "
                 "COMMIT; INSERT INTO places (name, geom) VALUES ('later', ST_SetSRID(ST_MakePoint(1, 1), 4326))")
    wait_for_the_last_change(replicas + [fresh])
    replicas.append(fresh)
    fresh = same_as_a_fresh_load(replicas, 4, "after a TRUNCATE")
    for r in replicas + [fresh]:
        r.stop()
    printed = "".join(r.output for r in servers)
    check(PASSWORD not in printed and urllib.parse.quote(PASSWORD, safe="") not in printed,
          "the password is in no line a replica printed")
finally:
    for server in servers:
        if server.process.poll() is None:
            server.kill()
    cluster.remove()

print(f"{len(failures)} failed" if failures else "every check passed")
sys.exit(1 if failures else 0)
