#!/usr/bin/env python3
"""Runs the release binary's concurrent headline paths many times and counts the runs a signal ended.

    python3 Tests/Release/sweep.py BINARY [FEED_RUNS] [ALL_RUNS]

Issue 46: the release build trapped (exit 132, SIGILL) in about 11 % of `headlines --country fr --feed URL`
runs and in every multi-country GDELT run, through a compiler miscompile of a task group's children
(Sources/NewsAPI/Result+Awaiting.swift). This starts the GDELT imitation (Tests/Support/server.py) and the feed
server (feed_server.py) on 127.0.0.1, then runs, FEED_RUNS times each (default 200): one feed of France, two
feeds of France merged (an RSS and an Atom document: the release build dropped one's items), half of the runs
with a warm cache and half with --refresh; and ALL_RUNS times (default 20) `headlines --all` with no key (GDELT
for every country) and `--countries de,fr --provider gdelt`. It checks each run's exit status (0, and never a
signal) and that a merge shows both feeds' items, prints a line of counts per form, and exits 1 if any run
failed. Settings and caches live in a scratch folder removed at the end.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUPPORT = os.path.join(ROOT, "Tests", "Support")


def start(script):
    process = subprocess.Popen([sys.executable, os.path.join(SUPPORT, script)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, cwd=SUPPORT)
    port = process.stdout.readline().strip()  # readiness: the server prints its port once it listens
    if not port.isdigit():
        raise SystemExit(f"sweep: {script} did not start: {port!r}")
    return process, f"http://127.0.0.1:{port}"


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: sweep.py BINARY [FEED_RUNS] [ALL_RUNS]")
    binary = os.path.abspath(sys.argv[1])
    feed_runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    all_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    gdelt, gdelt_base = start("server.py")
    feeds, feed_base = start("feed_server.py")
    scratch = tempfile.mkdtemp(prefix="newsatlas-sweep-")
    failed = 0
    try:
        config = os.path.join(scratch, "config", "newsatlas")
        os.makedirs(config)
        with open(os.path.join(config, "config.toml"), "w") as f:
            f.write("gdelt-spacing = 0\n")
        with open(os.path.join(config, "feeds.txt"), "w") as f:
            f.write(f"fr {feed_base}/feeds/rss2-cdata.xml\nfr {feed_base}/feeds/atom-relative.xml\n")
        environment = {k: v for k, v in os.environ.items() if k not in ("NEWSAPI_KEY", "NEWSATLAS_API_BASE")}
        environment.update(XDG_CONFIG_HOME=os.path.join(scratch, "config"),
                           XDG_CACHE_HOME=os.path.join(scratch, "cache"), NEWSATLAS_GDELT_BASE=gdelt_base,
                           LANG="C.UTF-8")
        one_feed = ["headlines", "--country", "fr", "--feed", f"{feed_base}/feeds/rss2-cdata.xml"]
        both = ["headlines", "--country", "fr", "--provider", "feeds", "--format", "json"]
        forms = [("one feed", one_feed, feed_runs), ("two feeds merged", both, feed_runs),
                 ("--all keyless", ["headlines", "--all"], all_runs),
                 ("--countries de,fr gdelt", ["headlines", "--countries", "de,fr", "--provider", "gdelt"], all_runs)]
        for name, arguments, runs in forms:
            statuses = {}
            wrong = 0
            for n in range(runs):
                extra = ["--refresh"] if n % 2 else []
                run = subprocess.run([binary] + arguments + extra, env=environment, capture_output=True,
                                     text=True, timeout=300)
                statuses[run.returncode] = statuses.get(run.returncode, 0) + 1
                if run.returncode == 0 and arguments is both:
                    titles = [a["title"] for r in json.loads(run.stdout)["results"] for a in r["articles"]]
                    if not ("Storm warning for the coast" in titles and any("guid permanent" in t for t in titles)):
                        wrong += 1
                elif run.returncode != 0 and statuses[run.returncode] == 1:
                    print(f"  {name}: exit {run.returncode}: {run.stderr.strip()[:300]}", flush=True)
            bad = sum(count for status, count in statuses.items() if status != 0) + wrong
            failed += bad
            traps = sum(count for status, count in statuses.items() if status < 0 or status >= 128)
            print(f"{name}: {runs} runs, exit statuses {dict(sorted(statuses.items()))}, "
                  f"{traps} ended by a signal, {wrong} missing a feed's items", flush=True)
    finally:
        for server in (gdelt, feeds):
            server.stdin.close()
            server.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"sweep: {'all runs answered' if failed == 0 else f'{failed} runs failed'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
