#!/usr/bin/env python3
"""A PostGIS table served live by three replicas (issue 45): how long after an INSERT commits each replica shows
the new row in a tile, at 100k and 1M rows. Run from the repository after `swift build -c release --product
newsatlas`.

    python3 Benchmarks/postgis_live_bench.py [ROUNDS] [SIZES...]

For each size: a throwaway PostgreSQL 15 + PostGIS cluster (Tests/PostGIS/pgcluster.py) with a table of N seeded
points (`id bigserial PRIMARY KEY, name, geom geometry(Point, 4326)`), vacuumed and analysed, three `serve
--postgres … --table places` replicas of the release build, then ROUNDS times: one row inserted at a random place and committed (psycopg),
then the zoom-16 tile holding it asked of the three replicas in turn, on keep-alive connections, until each
tile (decoded by mapbox-vector-tile) holds a feature named as the row: the time from the commit to each
replica's first such tile. Each replica is asked with the ETag of the tile it served before the INSERT
(`If-None-Match`, as a map client revalidates), so an unchanged tile is a 304 that is not decoded, and the
replicas are asked again 1 ms after a round of 304s: the measurement leaves the two cores to the replicas
(asking and decoding in a tight loop took a core of its own). Then a replica killed with SIGKILL while 200 rows are inserted one by one, started
again: the rows it serves against the table's once it says it is caught up (0 lost is the target). The load
average is printed with each size. NEWSATLAS_BINARY names another build to measure; NEWSATLAS_REPLICAS another
number of replicas (3 by default: on a 2-core machine they share its cores); NEWSATLAS_ROUNDS=1 prints each round's
place and delays.
"""
import http.client
import math
import os
import random
import signal
import statistics
import sys
import time

import mapbox_vector_tile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "PostGIS"))
from pgcluster import Cluster, Server  # noqa: E402

BINARY = os.environ.get("NEWSATLAS_BINARY") or os.path.join(ROOT, ".build", "release", "newsatlas")
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
SIZES = [int(s) for s in sys.argv[2:]] or [100_000, 1_000_000]
PASSWORD = "bench-password"
REPLICAS = int(os.environ.get("NEWSATLAS_REPLICAS", "3"))


def tile_of(lon, lat, zoom):
    n = 1 << zoom
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return min(x, n - 1), min(y, n - 1)


def holds(body, name):
    layers = mapbox_vector_tile.decode(body)
    return any(f["properties"].get("name") == name for layer in layers.values() for f in layer["features"])


def health(connection):
    import json
    connection.request("GET", "/healthz")
    return json.loads(connection.getresponse().read())["tables"]["places"]


def measure(size):
    cluster = Cluster(PASSWORD, prefix="newsatlas-live-bench-")
    servers = []
    try:
        cluster.psql(f"""
            CREATE TABLE places (id bigserial PRIMARY KEY, name text, geom geometry(Point, 4326));
            SELECT setseed(0.45);
            INSERT INTO places (name, geom) SELECT 'p' || g,
              ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
            FROM generate_series(1, {size}) g;
            """)
        # Vacuumed and analysed now, not by autovacuum during the first INSERTs measured (in a run without this,
        # the second INSERT at 1M took 0.9-1.2 s on each replica; with it, 0.54-0.70 s).
        cluster.psql("VACUUM ANALYZE places")
        environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(cluster.root, "config"),
                           XDG_CACHE_HOME=os.path.join(cluster.root, "cache"),
                           XDG_DATA_HOME=os.path.join(cluster.root, "share"))
        url = cluster.url(PASSWORD)

        def replica():
            server = Server(BINARY, ["--no-news", "--postgres", url, "--table", "places"], environment)
            servers.append(server)
            if not server.base:
                sys.exit("serve did not start: " + server.output)
            return server

        started = time.monotonic()
        replicas = [replica() for _ in range(REPLICAS)]
        print(f"{size:,} rows: {REPLICAS} replicas ready in {time.monotonic() - started:.1f} s; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)
        connections = [http.client.HTTPConnection(r.base.split("//")[1]) for r in replicas]
        database = cluster.connect()
        rng = random.Random(size)
        delays = [[] for _ in replicas]
        for round in range(ROUNDS):
            lon, lat = rng.uniform(-179, 179), rng.uniform(-80, 80)
            name = f"probe {round}"
            x, y = tile_of(lon, lat, 16)
            path = f"/tiles/places/16/{x}/{y}.mvt"
            tags = []
            for connection in connections:  # each replica's tile before the row: its ETag to revalidate with
                connection.request("GET", path)
                answer = connection.getresponse()
                answer.read()
                tags.append(answer.getheader("ETag"))
            with database.transaction():
                database.execute("INSERT INTO places (name, geom) VALUES (%s, ST_SetSRID(ST_MakePoint(%s, %s), 4326))",
                                 (name, lon, lat))
            committed = time.monotonic()
            waiting = set(range(REPLICAS))
            while waiting and time.monotonic() - committed < 30:
                changed = False
                for k in sorted(waiting):
                    connections[k].request("GET", path, headers={"If-None-Match": tags[k]} if tags[k] else {})
                    answer = connections[k].getresponse()
                    body = answer.read()
                    if answer.status == 200:
                        changed = True
                        tags[k] = answer.getheader("ETag")
                        if holds(body, name):
                            delays[k].append(time.monotonic() - committed)
                            waiting.discard(k)
                if not changed:
                    time.sleep(0.001)  # every replica still serves the tile it had: ask again in 1 ms
            if waiting:
                print(f"  round {round}: not seen by replicas {sorted(waiting)} within 30 s")
            elif os.environ.get("NEWSATLAS_ROUNDS"):  # each round's delays, replica by replica
                print(f"  round {round} at ({lon:.5f}, {lat:.5f}): "
                      + ", ".join(f"{d[-1] * 1000:.0f}" for d in delays) + " ms", flush=True)
        for k in range(REPLICAS):
            d = sorted(delays[k])
            if d:
                print(f"  replica {k + 1}: INSERT → tile min {d[0] * 1000:.0f} ms, median "
                      f"{statistics.median(d) * 1000:.0f} ms, max {d[-1] * 1000:.0f} ms ({len(d)} rounds)")

        # A replica killed while rows are inserted, started again: what it serves once caught up.
        replicas[-1].process.send_signal(signal.SIGKILL)
        replicas[-1].process.wait()
        for n in range(200):
            with database.transaction():
                database.execute("INSERT INTO places (name, geom) VALUES (%s, ST_SetSRID(ST_MakePoint(%s, %s), 4326))",
                                 (f"burst {n}", rng.uniform(-179, 179), rng.uniform(-80, 80)))
            if n == 100:
                replicas[-1] = replica()
        last = int(cluster.psql("SELECT max(seq) FROM newsatlas.changes WHERE tbl = 'public.places'"))
        connection = http.client.HTTPConnection(replicas[-1].base.split("//")[1])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            table = health(connection)
            if table["change"] == last and table["lagSeconds"] == 0:
                break
            time.sleep(0.05)
        import json
        connection.request("GET", "/v1/datasets")
        served = next(d["pointCount"] for d in json.loads(connection.getresponse().read())["datasets"]
                      if d["name"] == "places")
        rows = int(cluster.psql("SELECT count(*) FROM places"))
        print(f"  a replica killed during 200 INSERTs and started again: serves {served:,} of the table's "
              f"{rows:,} rows ({rows - served} lost)", flush=True)
    finally:
        for server in servers:
            if server.process.poll() is None:
                server.kill()
        cluster.remove()


if __name__ == "__main__":
    print(f"binary {BINARY}; {os.cpu_count()} cores")
    for size in SIZES:
        measure(size)
