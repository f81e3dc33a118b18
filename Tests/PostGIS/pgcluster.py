"""A throwaway PostgreSQL 15 + PostGIS cluster and `serve` processes, for Tests/PostGIS and Benchmarks.

The cluster lives in a new temporary folder (initdb and pg_ctl, run as `nobody` when this runs as root, since
initdb refuses root), listens on 127.0.0.1 (a port the system picked) and on a Unix socket in that folder, with
scram-sha-256 and a password over TCP and trust on the socket, holds a database `atlas` with the postgis
extension, and is removed with the folder by `remove()`.
"""

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import urllib.request

PG = "/usr/lib/postgresql/15/bin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, password, prefix="newsatlas-pg-", settings=()):
        self.password = password
        self.root = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.root, 0o755)
        self.as_user = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.data = os.path.join(self.root, "data")
        secret = os.path.join(self.root, "pw")
        with open(secret, "w") as f:
            f.write(password + "\n")
        if self.as_user:
            os.chown(secret, pwd.getpwnam("nobody").pw_uid, -1)
        os.chmod(secret, 0o600)
        self.run("initdb", "-D", self.data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                 f"--pwfile={secret}")
        os.unlink(secret)
        self.port = free_port()
        self.options = f"-p {self.port} -k {self.root} -h 127.0.0.1 " + " ".join(f"-c {s}" for s in settings)
        self.start()
        subprocess.run(self.as_user + ["/usr/bin/createdb", "-h", self.root, "-p", str(self.port), "-U",
                                       "postgres", "atlas"], check=True, capture_output=True)
        self.psql("CREATE EXTENSION postgis")

    def run(self, tool, *arguments):
        return subprocess.run(self.as_user + [f"{PG}/{tool}"] + list(arguments), check=True, capture_output=True,
                              text=True)

    def start(self):
        self.run("pg_ctl", "-D", self.data, "-o", self.options, "-l", os.path.join(self.root, "log"), "-w", "start")

    def stop(self, mode="fast"):
        self.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def psql(self, sql):
        return subprocess.run(
            self.as_user + ["/usr/bin/psql", "-h", self.root, "-p", str(self.port), "-U", "postgres", "-d", "atlas",
                            "-v", "ON_ERROR_STOP=1", "-q", "-t", "-A", "-f", "-"],
            input=sql, check=True, capture_output=True, text=True).stdout

    def url(self, quoted_password):
        return f"postgres://postgres:{quoted_password}@127.0.0.1:{self.port}/atlas?sslmode=disable"

    def connect(self):
        """A psycopg connection over the Unix socket (trust), autocommit off."""
        import psycopg
        return psycopg.connect(host=self.root, port=self.port, user="postgres", dbname="atlas")

    def remove(self):
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)


class Server:
    """`BINARY serve --port 0 ARGUMENTS`, started and read until it says where it serves (its readiness line);
    the rest of its output is drained into `lines` by a thread, so that it never blocks on a full pipe."""

    def __init__(self, binary, arguments, environment):
        self.process = subprocess.Popen([binary, "serve", "--port", "0"] + arguments, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, env=environment)
        self.lines = []
        self.base = None
        for line in self.process.stdout:
            self.lines.append(line)
            if "serving on " in line:
                self.base = line.strip().split("serving on ")[1]
                break
        self.drain = threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True)
        self.drain.start()

    @property
    def output(self):
        return "".join(self.lines)

    def kill(self):
        self.process.kill()
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.drain.join(timeout=10)
        return self.output


def get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status, answer.headers, answer.read()
