#!/usr/bin/env python3
"""`serve --postgres URL --table T`, end to end: a throwaway PostgreSQL 15 + PostGIS cluster, the binary given.

    python3 Tests/PostGIS/postgis_test.py BINARY

Starts its own cluster in a temporary folder (initdb and pg_ctl, run as `nobody` when this runs as root, since
initdb refuses root), listening on 127.0.0.1 and a Unix socket in that folder, with a password for TCP
(scram-sha-256) and trust on the socket; creates the postgis extension and seeded tables; removes everything at
the end. Checks:
  - a table's points served as a dataset: its clusters at zooms 0-6 and a leaf's properties equal to those of
    the same points given as a GeoJSON file with --points (rows with NULL, empty and non-point geometries left
    out, counted and said once on standard error), its feature ids from --id, --properties kept, --sum summed;
  - a table in SRID 3857 transformed by PostGIS to the same positions; a geography column read as well;
  - the Unix socket form of the URL; DATABASE_URL when --postgres is not given;
  - refusals in one sentence with their exit status, none repeating the password: a bad URL (64), a wrong
    password (69), a closed port (69), a table or column the database has not got (64), a table without a
    geometry column (64), table options without --table (64);
  - HTTP writes to a table's dataset made in the table (a feature added is a row, a feature removed a row
    deleted), a PUT of the whole dataset refused (409), the other datasets' allowed;
  - a table without a primary key needs --id (64); a role that may only read serves a table whose change
    trigger is installed, and is refused (69) for one whose trigger it cannot install;
  - the password in no line the server prints.
Exit status 0 when every check passes, 1 otherwise.
"""

import json
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit("usage: postgis_test.py BINARY")
PG = "/usr/lib/postgresql/15/bin"
PASSWORD = "s3cret-Pässwörd%@:/"  # URL-hostile characters, percent-encoded in the URL
failures = []


def check(condition, what):
    print(("ok     " if condition else "FAILED ") + what, flush=True)
    if not condition:
        failures.append(what)


def quoted(text):
    return urllib.request.quote(text, safe="")


root = tempfile.mkdtemp(prefix="newsatlas-postgis-")
os.chmod(root, 0o755)
as_user = []
if os.geteuid() == 0:
    nobody = pwd.getpwnam("nobody")
    os.chown(root, nobody.pw_uid, nobody.pw_gid)
    as_user = ["runuser", "-u", "nobody", "--"]
data = os.path.join(root, "data")
port = None
servers = []


def run_pg(*arguments, **options):
    return subprocess.run(as_user + list(arguments), check=True, capture_output=True, text=True, **options)


def psql(sql):
    return run_pg("/usr/bin/psql", "-h", root, "-p", str(port), "-U", "postgres", "-d", "atlas", "-v",
                  "ON_ERROR_STOP=1", "-q", "-t", "-f", "-", input=sql).stdout


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(arguments, environment=None, expect_ready=True):
    """Starts serve; returns (process, base URL) once it says it serves, or (process, None) when it exits."""
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(root, "config"), XDG_CACHE_HOME=os.path.join(root, "cache"),
               XDG_DATA_HOME=os.path.join(root, "share"), LANG="C.UTF-8")
    env.pop("DATABASE_URL", None)
    env.update(environment or {})
    process = subprocess.Popen([BIN, "serve", "--port", "0", "--no-news"] + arguments, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    servers.append(process)
    line = process.stdout.readline()  # "newsatlas: serving on http://127.0.0.1:PORT", or nothing at exit
    if "serving on " not in line:
        process.wait(timeout=60)
        return process, None
    return process, line.strip().split("serving on ")[1]


def stop(process):
    process.terminate()
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return out + err


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


def status_of(url, method="GET", body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


try:
    secret = os.path.join(root, "pw")
    with open(secret, "w") as f:
        f.write(PASSWORD + "\n")
    if as_user:
        os.chown(secret, pwd.getpwnam("nobody").pw_uid, -1)
    os.chmod(secret, 0o600)
    run_pg(f"{PG}/initdb", "-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
           f"--pwfile={secret}")
    os.unlink(secret)
    port = free_port()
    run_pg(f"{PG}/pg_ctl", "-D", data, "-o", f"-p {port} -k {root} -h 127.0.0.1", "-l", os.path.join(root, "log"),
           "-w", "start")
    run_pg("/usr/bin/createdb", "-h", root, "-p", str(port), "-U", "postgres", "atlas")
    psql("CREATE EXTENSION postgis")

    # Seeded points, the poles, the antimeridian and duplicates among them.
    rng = random.Random(45)
    points = [(rng.uniform(-180, 180), rng.uniform(-85, 85)) for _ in range(2000)]
    points += [(0, 90), (0, -90), (180, 10), (-180, 10), (179.9999, -3), (2.35, 48.85), (2.35, 48.85)]
    rows = []
    features = []
    for n, (lon, lat) in enumerate(points):
        name = f"place {n} l'été"
        rows.append(f"({n + 1}, '{name.replace(chr(39), chr(39) * 2)}', {n % 7}, "
                    f"ST_SetSRID(ST_MakePoint({lon!r}, {lat!r}), 4326))")
        features.append({"type": "Feature", "id": n + 1, "geometry": {"type": "Point", "coordinates": [lon, lat]},
                         "properties": {"name": name, "seats": n % 7}})
    psql("CREATE TABLE places (id integer PRIMARY KEY, name text, seats integer, extra text, geom geometry)")
    psql("INSERT INTO places (id, name, seats, geom) VALUES " + ", ".join(rows))
    # Rows without a point: NULL, empty, a line; then a table in web Mercator and one of geography.
    psql("INSERT INTO places (id, name, seats, geom) VALUES (100001, 'none', 1, NULL), "
         "(100002, 'empty', 1, 'POINT EMPTY'::geometry), "
         "(100003, 'line', 1, ST_SetSRID('LINESTRING(0 0, 1 1)'::geometry, 4326))")
    psql("CREATE TABLE mercator AS SELECT id, name, ST_Transform(geom, 3857) AS geom FROM places "
         "WHERE id <= 2000")
    psql("CREATE TABLE spheres AS SELECT id, name, geom::geography AS where_on_earth FROM places WHERE id <= 2000")
    # A row whose --id column is NULL: no change to it could be followed, so it is left out and said.
    psql("INSERT INTO mercator (id, name, geom) VALUES (NULL, 'no id', ST_Transform(ST_SetSRID(ST_MakePoint(1, 1), 4326), 3857))")
    psql("CREATE TABLE plain (id integer, name text)")
    given = os.path.join(root, "places.geojson")
    with open(given, "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f)

    url = f"postgres://postgres:{quoted(PASSWORD)}@127.0.0.1:{port}/atlas?sslmode=disable"
    table_server, table_base = serve(["--postgres", url, "--table", "public.places", "--id", "id",
                                      "--properties", "name,seats", "--sum", "seats"])
    # Several tables, without a primary key (--id names the key replicas follow rows by), the other column
    # options left to each (its first geometry or geography column, every other column).
    other_server, other_base = serve(["--postgres", url, "--table", "mercator", "--table", "spheres", "--id", "id"])
    file_server, file_base = serve(["--points", f"places={given}", "--sum", "seats"])
    check(table_base is not None,
          "serve starts with a PostGIS table" + ("" if table_base else ": " + table_server.stderr.read()))
    check(other_base is not None,
          "serve starts with two PostGIS tables" + ("" if other_base else ": " + other_server.stderr.read()))
    check(file_base is not None, "serve starts with the same points as a file")
    if table_base and file_base and other_base:
        datasets = {d["name"]: d for d in get(table_base + "/v1/datasets")["datasets"]}
        check(datasets.get("places", {}).get("pointCount") == len(points),
              f"places: {len(points)} points, the three rows without a Point left out "
              f"({datasets.get('places', {}).get('pointCount')})")
        def rounded(answer):
            # Positions as PostGIS writes them (ST_AsGeoJSON, 15 decimals) against Python's shortest repr.
            for feature in answer.get("features", []):
                feature["geometry"]["coordinates"] = [round(c, 9) for c in feature["geometry"]["coordinates"]]
            return answer

        same = True
        for zoom in range(0, 7):
            ours = rounded(get(f"{table_base}/v1/datasets/places/clusters?zoom={zoom}"))
            theirs = rounded(get(f"{file_base}/v1/datasets/places/clusters?zoom={zoom}"))
            if ours != theirs and same:
                a, b = ours.get("features", []), theirs.get("features", [])
                print(f"zoom {zoom}: {len(a)} against {len(b)}; first difference:",
                      next(((x, y) for x, y in zip(a, b) if x != y), None))
            same = same and ours == theirs
        check(same, "places' clusters at zooms 0-6 equal those of the same points given as a file")
        leaves = get(f"{table_base}/v1/datasets/places/clusters?zoom=17")
        by_id = {f.get("id"): f for f in leaves.get("features", [])}
        leaf = by_id.get(5)
        check(leaf is not None and leaf["properties"] == {"name": "place 4 l'été", "seats": 4}
              and abs(leaf["geometry"]["coordinates"][0] - points[4][0]) < 1e-12
              and abs(leaf["geometry"]["coordinates"][1] - points[4][1]) < 1e-12,
              f"a leaf keeps its id, its --properties (no other column) and its position ({leaf})")
        mercator = {f.get("properties", {}).get("name"): f["geometry"]["coordinates"]
                    for f in get(f"{other_base}/v1/datasets/mercator/clusters?zoom=17")["features"]}
        near = all(abs(mercator[f"place {n} l'été"][0] - points[n][0]) < 1e-6
                   and abs(mercator[f"place {n} l'été"][1] - points[n][1]) < 1e-6 for n in range(0, 50))
        check(near, "a table in SRID 3857 is served at its WGS 84 positions (within 1e-6 degrees)")
        spheres = get(f"{other_base}/v1/datasets")["datasets"]
        check(any(d["name"] == "spheres" and d["pointCount"] == 2000 for d in spheres),
              "a geography column is read")
        status, body = status_of(f"{table_base}/v1/datasets/places/features", "POST", b"{}",
                                 {"Content-Type": "application/geo+json"})
        check(status in (401, 403), f"writes need a token ({status})")
    output = stop(table_server) if table_server else ""
    stop(file_server) if file_server else None
    other_output = stop(other_server) if other_server else ""
    check(other_output.count("whose id is NULL are left out") == 1
          and "public.mercator: 1 rows whose id is NULL are left out: replicas follow rows by it." in other_output,
          f"a row whose --id column is NULL is left out and said once ({other_output[:300]})")
    check(output.count("without a Point geometry") == 1 and "public.places: 3 rows" in output,
          "the rows left out are counted and said once")
    check(PASSWORD not in output and quoted(PASSWORD) not in output, "the password is in no line serve prints")

    # A write token: the table's dataset takes features (written in the table), not a whole dataset (409);
    # another dataset is kept in the folder.
    token = os.path.join(root, "token")
    with open(token, "w") as f:
        f.write("t" * 24 + "\n")
    os.chmod(token, 0o600)
    writer, base = serve(["--postgres", url, "--table", "places", "--write-token-file", token,
                          "--datasets-dir", os.path.join(root, "datasets")])
    if base:
        headers = {"Authorization": "Bearer " + "t" * 24, "Content-Type": "application/geo+json"}
        added = [dict(f, id=200_000 + n) for n, f in enumerate(features[:3])]
        body = json.dumps({"type": "FeatureCollection", "features": added}).encode()
        status, text = status_of(f"{base}/v1/datasets/places/features", "POST", body, headers)
        rows = psql("SELECT count(*) FROM places WHERE id >= 200000 AND name LIKE 'place %'").split()
        check(status == 200 and json.loads(text)["pointCount"] == len(points) + 3 and rows == ["3"],
              f"features written to the table's dataset are rows of the table, served ({status} {text[:120]})")
        status, text = status_of(f"{base}/v1/datasets/places/features", "POST", body, headers)
        check(status == 400 and "PostgreSQL refused the write to public.places: duplicate key value" in text,
              f"a key the table has already: 400 in PostgreSQL's words ({status} {text[:160]})")
        status, text = status_of(f"{base}/v1/datasets/places/features/200001", "DELETE", None, headers)
        rows = psql("SELECT count(*) FROM places WHERE id = 200001").split()
        check(status == 200 and rows == ["0"], f"a feature removed is a row deleted ({status} {text[:120]})")
        status, text = status_of(f"{base}/v1/datasets/places", "PUT", body, headers)
        check(status == 409 and "is the PostgreSQL table public.places: add and remove its features" in text,
              f"a PUT of the table's whole dataset is 409 ({status} {text[:120]})")
        status, _ = status_of(f"{base}/v1/datasets/mine", "PUT", body, headers)
        check(status in (200, 201), f"a write to another dataset is taken ({status})")
        psql("DELETE FROM places WHERE id >= 200000")
    else:
        check(False, "serve starts with a write token and a table")
    stop(writer) if writer else None

    # A role that may only read: the trigger a DBA installed is enough (here, the one serve installed on
    # places as postgres), a table without it is refused in one sentence.
    psql(f"CREATE ROLE reader LOGIN PASSWORD '{PASSWORD.replace(chr(39), chr(39) * 2)}'; "
         "GRANT SELECT ON places, plain TO reader; GRANT USAGE ON SCHEMA newsatlas TO reader; "
         "GRANT SELECT ON newsatlas.changes TO reader; "
         "CREATE TABLE guarded (id integer PRIMARY KEY, geom geometry); GRANT SELECT ON guarded TO reader")
    reader_url = f"postgres://reader:{quoted(PASSWORD)}@127.0.0.1:{port}/atlas?sslmode=disable"
    reader, base = serve(["--postgres", reader_url, "--table", "places"])
    check(base is not None and get(base + "/v1/datasets/places/clusters?zoom=0")["features"] != [],
          "a role that may only read serves a table whose trigger a DBA installed")
    stop(reader) if reader else None

    # The change log keeps each key's last change: a key changed again replaces its row, a TRUNCATE every row
    # before it; installing the trigger prunes what an earlier version kept; a reader keeps an earlier
    # version's trigger it may not replace, says so once, and follows the table as well.
    def log_rows(table, key=None):
        where = f"tbl = 'public.{table}'" + (f" AND key = '{key}'" if key is not None else "")
        return int(psql(f"SELECT count(*) FROM newsatlas.changes WHERE {where}").split()[0])

    psql("CREATE TABLE churn (id integer PRIMARY KEY, geom geometry(Point, 4326))")
    installer, base = serve(["--postgres", url, "--table", "churn"])
    check(base is not None, "serve installs the trigger on a second table")
    stop(installer) if installer else None
    psql("INSERT INTO churn SELECT n, ST_SetSRID(ST_MakePoint(n, n), 4326) FROM generate_series(1, 5) AS n")
    for n in range(4):
        psql(f"UPDATE churn SET geom = ST_SetSRID(ST_MakePoint({n}, 0), 4326) WHERE id = 1")
    psql("BEGIN; UPDATE churn SET geom = geom WHERE id = 2; UPDATE churn SET geom = geom WHERE id = 2; COMMIT")
    psql("UPDATE churn SET id = 6 WHERE id = 3; DELETE FROM churn WHERE id = 4")
    check(log_rows("churn", "1") == 1 and log_rows("churn", "2") == 1 and log_rows("churn") == 6,
          f"each key's last change is kept, no more ({log_rows('churn')} rows for keys 1-6)")
    psql("TRUNCATE churn")
    marker = psql("SELECT truncated FROM newsatlas.changes WHERE tbl = 'public.churn'").split()
    check(marker == ["t"], f"a TRUNCATE leaves its own row alone in the table's log ({marker})")
    psql("INSERT INTO churn VALUES (7, ST_SetSRID(ST_MakePoint(1, 1), 4326))")
    psql("DO $$ DECLARE d text; BEGIN SELECT pg_get_functiondef('newsatlas.record_change()'::regprocedure) "
         "INTO d; EXECUTE replace(replace(d, 'change log v2', 'change log v1'), "
         "'DELETE FROM newsatlas.changes WHERE', 'PERFORM 1 FROM newsatlas.changes WHERE'); END $$")
    psql("INSERT INTO newsatlas.changes (tbl, key) VALUES ('public.places', '1'), ('public.places', '1')")
    psql("GRANT SELECT ON churn TO reader")
    reader, base = serve(["--postgres", reader_url, "--table", "churn"])
    if base is not None:
        psql("INSERT INTO churn VALUES (8, ST_SetSRID(ST_MakePoint(2, 2), 4326))")
        psql("UPDATE churn SET geom = geom WHERE id = 8")
        deadline = time.monotonic() + 30
        while get(base + "/v1/datasets/churn")["pointCount"] != 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        counted = get(base + "/v1/datasets/churn")["pointCount"]
    said = stop(reader) if reader else ""
    check(base is not None and counted == 2 and said.count("the trigger is an earlier version's") == 1
          and log_rows("churn", "8") == 2,
          f"a reader follows through an earlier version's trigger and says so once ({said[-300:]})")
    before = log_rows("places", "1")
    installer, base = serve(["--postgres", url, "--table", "churn"])
    stop(installer) if installer else None
    check(before >= 2 and log_rows("places", "1") == 1 and log_rows("churn", "8") == 1,
          f"installing the trigger again prunes what the earlier one kept ({before} → {log_rows('places', '1')})")

    # The socket form, and DATABASE_URL.
    socket_server, base = serve(["--table", "places"],
                                {"DATABASE_URL": f"postgresql:///atlas?host={root}&port={port}&user=postgres"})
    check(base is not None and get(base + "/v1/datasets/places/clusters?zoom=0")["features"] != [],
          "DATABASE_URL with a Unix socket's folder")
    stop(socket_server) if socket_server else None

    # Refusals: one sentence each, a documented status, never the password.
    wrong = f"postgres://postgres:{quoted('not-' + PASSWORD)}@127.0.0.1:{port}/atlas"
    cases = [
        (["--postgres", f"mysql://postgres:{quoted(PASSWORD)}@127.0.0.1/atlas", "--table", "places"], 64,
         "--postgres takes a URL such as"),
        (["--postgres", url + "&sslmode=verify-full", "--table", "places"], 64, "sslmode takes disable"),
        (["--postgres", wrong, "--table", "places"], 69, "refused: password authentication failed"),
        (["--postgres", f"postgres://postgres:{quoted(PASSWORD)}@127.0.0.1:{free_port()}/atlas", "--table",
          "places"], 69, "Cannot connect to PostgreSQL at postgres://postgres@127.0.0.1:"),
        (["--postgres", url, "--table", "nowhere"], 64, "has no table public.nowhere."),
        (["--postgres", url, "--table", "places", "--id", "nope"], 64, "The table public.places has no column nope."),
        (["--postgres", url, "--table", "places", "--geometry", "name"], 64,
         "The column name of public.places is not a geometry or geography column."),
        (["--postgres", url, "--table", "plain"], 64, "The table public.plain has no geometry or geography column."),
        (["--postgres", url, "--table", "places; DROP TABLE places"], 64, "is not a table name"),
        (["--postgres", url, "--table", "mercator"], 64,
         "The table public.mercator has no one-column primary key: name the column that identifies a row with --id"),
        (["--postgres", reader_url, "--table", "guarded"], 69,
         "Cannot install the trigger that follows public.guarded's changes: permission denied"),
        (["--postgres", url], 64, "--postgres, --geometry, --id and --properties go with --table."),
        (["--table", "places"], 64, "--table needs a database"),
    ]
    for arguments, code, sentence in cases:
        process, base = serve(arguments)
        output = stop(process) if base else process.stdout.read() + process.stderr.read()
        lines = [line for line in output.splitlines() if line.strip()]
        check(base is None and process.returncode == code and len(lines) == 1 and sentence in output
              and PASSWORD not in output and quoted(PASSWORD) not in output,
              f"{' '.join(arguments[-2:])}: exit {process.returncode}, {lines}")
    check(psql("SELECT count(*) FROM places").split() != [], "the table is still there")
finally:
    for process in servers:
        if process.poll() is None:
            process.kill()
    if port is not None:
        try:
            run_pg(f"{PG}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
        except subprocess.CalledProcessError as error:
            print(error.stderr)
    shutil.rmtree(root, ignore_errors=True)

print(f"{len(failures)} failed" if failures else "all PostGIS checks passed")
sys.exit(1 if failures else 0)
