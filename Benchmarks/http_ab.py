"""compare.py's `http` rows for two builds of `httpbench`, alternately, against one nginx.

Usage: python3 Benchmarks/http_ab.py [--rounds N] NAME=HTTPBENCH NAME=HTTPBENCH

Each round runs each build's `httpbench URL 4000 32` once (4,000 GETs of a 1 KB JSON file, 32 in flight: a bare
libcurl multi loop, NewsAtlas's HTTPClient, URLSession), the order reversed every other round. Prints each
client's median requests per second for both builds and the median of the round-by-round ratios. Needs
/usr/sbin/nginx (`apt-get install nginx-light`).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (its nginx helpers)

arguments = sys.argv[1:]
rounds = 10
if arguments[:1] == ["--rounds"]:
    rounds, arguments = int(arguments[1]), arguments[2:]
builds = dict(argument.split("=", 1) for argument in arguments)
if len(builds) != 2:
    sys.exit("Give two builds, as NAME=HTTPBENCH.")
if not os.path.exists("/usr/sbin/nginx"):
    sys.exit("http_ab.py: nginx is missing; install it with: apt-get install nginx-light")

results = {name: [] for name in builds}
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "html"))
    with open(os.path.join(tmp, "html", "small.json"), "w") as f:
        f.write('{"status":"ok","pad":"' + "x" * 1000 + '"}')
    port = compare.free_port()
    with open(os.path.join(tmp, "nginx.conf"), "w") as f:
        f.write(f"""worker_processes 1; daemon off; error_log {tmp}/error.log; pid {tmp}/nginx.pid;
events {{ worker_connections 1024; }}
http {{ access_log off; keepalive_requests 1000000; server {{ listen 127.0.0.1:{port}; root {tmp}/html; }} }}
""")
    server = subprocess.Popen(["/usr/sbin/nginx", "-c", os.path.join(tmp, "nginx.conf"), "-p", tmp])
    try:
        compare.wait_for_port(port, server)
        order = list(builds)
        for round in range(rounds):
            for name in (order if round % 2 == 0 else order[::-1]):
                out = subprocess.run([builds[name], f"http://127.0.0.1:{port}/small.json", "4000", "32"],
                                     capture_output=True, text=True, check=True).stdout
                results[name].append(json.loads(out))
    finally:
        server.terminate()
        server.wait()

first, second = list(builds)
print(f"{rounds} rounds, load average at the end {os.getloadavg()[0]:.1f}")
for key in ["curlLoopPerSecond", "clientPerSecond", "urlSessionPerSecond"]:
    a = [r[key] for r in results[first]]
    b = [r[key] for r in results[second]]
    ratio = statistics.median(y / x for x, y in zip(a, b))
    print(f"{key}: {first} {statistics.median(a):,.0f}/s, {second} {statistics.median(b):,.0f}/s, "
          f"{second} / {first} {ratio:.2f}")
