#!/usr/bin/env python3
"""The feeds parser (Sources/Feeds, libxml2) against Python's feedparser on the same 1 MB feeds.

Writes two feeds of about 1 MB (RSS 2.0 shaped like Le Monde's, with CDATA, HTML descriptions and entities;
Atom with xml:base, relative links and type="html" summaries) from a fixed seed, then alternates rounds: the
Swift tool (`feedsbench`, release build, which times its own loop after a warm-up, so process start is not
counted) and feedparser in this process, each parsing each file N times. Prints feeds per second per round,
the medians and the ratio. Needs feedparser (PyPI) in the Python that runs it.

Then, per process (a process started for one feed, as a script or a cron job reads one): `feedsbench
--iterations 0 FILE` (start, read, one parse) against `python3 -c 'import feedparser; feedparser.parse(...)'`,
alternating, wall-clock time. And the corpus as a whole (`--corpus DIR`: every feed file under it, the 400
real-world feeds of Tests/Fixtures/feeds/corpus): each side parses every file once per round in one process
(the Swift tool after its warm-up parse of each), rounds alternating; feeds per second over the whole corpus.

    swift build -c release --product feedsbench           # in Benchmarks/
    /path/to/venv/bin/python feeds_bench.py --rounds 5 --iterations 10 --corpus ../Tests/Fixtures/feeds/corpus
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import feedparser

WORDS = ("gouvernement budget sénat climat accord élection économie santé école football marché énergie "
         "réforme tribunal grève météo culture cinéma musique science espace").split()


def sentence(rng, count):
    return " ".join(rng.choice(WORDS) for _ in range(count)).capitalize()


def rss2(rng, target):
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
            'xmlns:media="http://search.yahoo.com/mrss/" xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
            '<channel><title>Le Quotidien : Actualit&#233;s</title><link>https://www.quotidien.example/</link>'
            '<description>Toute l\'actualit&#233;</description>'
            '<pubDate>Wed, 25 Nov 2026 15:04:12 +0100</pubDate>\n')
    parts, size, n = [head], len(head), 0
    while size < target:
        n += 1
        minute = n % 60
        item = (f'<item><title><![CDATA[{sentence(rng, 8)} « {rng.choice(WORDS)} » & {n}]]></title>'
                f'<pubDate>Wed, 25 Nov 2026 {n % 24:02d}:{minute:02d}:11 +0100</pubDate>'
                f'<description><![CDATA[<p>{sentence(rng, 40)} <b>l&rsquo;{rng.choice(WORDS)}&nbsp;{n}</b> '
                f'<a href="/x/{n}">{rng.choice(WORDS)}</a>.</p><p>{sentence(rng, 40)} &amp; fin.</p>]]>'
                f'</description><guid isPermaLink="true">https://www.quotidien.example/a/2026/11/25/{n}.html</guid>'
                f'<link>/a/2026/11/25/{n}.html</link><dc:creator>Service {rng.choice(WORDS)}</dc:creator>'
                f'<media:content url="https://img.quotidien.example/{n}.jpg" width="644" height="322"/></item>\n')
        parts.append(item)
        size += len(item.encode())
    parts.append("</channel></rss>\n")
    return "".join(parts).encode()


def atom(rng, target):
    head = ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
            'xml:base="https://blog.example.org/news/"><title>Example Times</title><id>tag:x,2026:/</id>'
            '<updated>2026-11-25T12:00:00Z</updated><author><name>Newsroom</name></author>\n')
    parts, size, n = [head], len(head), 0
    while size < target:
        n += 1
        entry = (f'<entry><title type="html">{sentence(rng, 8)} &lt;b&gt;{n}&lt;/b&gt; &amp;amp; more</title>'
                 f'<link rel="alternate" href="2026/11/25/{n}"/><id>tag:x,2026:{n}</id>'
                 f'<published>2026-11-25T{n % 24:02d}:{n % 60:02d}:30.123-05:00</published>'
                 f'<updated>2026-11-25T16:50:00Z</updated>'
                 f'<summary type="html">&lt;p&gt;{sentence(rng, 60)} &lt;a href="/x"&gt;{rng.choice(WORDS)}'
                 f'&lt;/a&gt;&amp;hellip;&lt;/p&gt;&lt;p&gt;{sentence(rng, 30)}&lt;/p&gt;</summary></entry>\n')
        parts.append(entry)
        size += len(entry.encode())
    parts.append("</feed>\n")
    return "".join(parts).encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--tool", default=os.path.join(os.path.dirname(__file__), ".build/release/feedsbench"))
    parser.add_argument("--corpus", help="a folder of feeds to time as a whole, in process")
    parser.add_argument("--processes", type=int, default=10, help="per-process runs per round and side")
    args = parser.parse_args()
    rng = random.Random(20261125)
    folder = tempfile.mkdtemp(prefix="newsatlas-feeds-bench-")
    files = {}
    for name, make in (("rss2-1mb.xml", rss2), ("atom-1mb.xml", atom)):
        path = os.path.join(folder, name)
        with open(path, "wb") as out:
            out.write(make(rng, 1 << 20))
        files[name] = path
    rates = {name: {"swift": [], "feedparser": []} for name in files}
    try:
        for name, path in files.items():
            data = open(path, "rb").read()
            expected = len(feedparser.parse(data).entries)  # warm-up, and the count to agree on
            for round_ in range(args.rounds):
                out = subprocess.run([args.tool, "--iterations", str(args.iterations), path], check=True,
                                     capture_output=True, text=True).stdout
                swift = json.loads(out)
                if swift["items"] != expected:
                    sys.exit(f"{name}: feedsbench read {swift['items']} items, feedparser {expected}")
                rates[name]["swift"].append(swift["iterations"] / swift["seconds"])
                start = time.perf_counter()
                for _ in range(args.iterations):
                    result = feedparser.parse(data)
                elapsed = time.perf_counter() - start
                assert len(result.entries) == expected
                rates[name]["feedparser"].append(args.iterations / elapsed)
                print(f"{name} round {round_ + 1}: Feeds {rates[name]['swift'][-1]:.1f} feeds/s, "
                      f"feedparser {rates[name]['feedparser'][-1]:.2f} feeds/s", flush=True)
            size = len(data)
            s, p = statistics.median(rates[name]["swift"]), statistics.median(rates[name]["feedparser"])
            print(f"{name}: {size} bytes, {expected} items; median Feeds {s:.1f} feeds/s "
                  f"({s * size / 1e6:.1f} MB/s), feedparser {p:.2f} feeds/s ({p * size / 1e6:.2f} MB/s); "
                  f"ratio {s / p:.0f}x", flush=True)
        per_process(args, files)
        if args.corpus:
            corpus(args)
    finally:
        for path in files.values():
            os.unlink(path)
        os.rmdir(folder)


def per_process(args, files):
    """Feeds per second when each is read by a process of its own: start, read the file, parse it once."""
    python = [sys.executable, "-c", "import sys, feedparser; feedparser.parse(open(sys.argv[1], 'rb').read())"]
    for name, path in files.items():
        rates = {"swift": [], "feedparser": []}
        for round_ in range(args.rounds):
            for side, command in (("swift", [args.tool, "--iterations", "0", path]), ("feedparser", python + [path])):
                start = time.perf_counter()
                for _ in range(args.processes):
                    subprocess.run(command, check=True, capture_output=True)
                rates[side].append(args.processes / (time.perf_counter() - start))
            print(f"{name} per process, round {round_ + 1}: Feeds {rates['swift'][-1]:.1f} feeds/s, "
                  f"feedparser {rates['feedparser'][-1]:.2f} feeds/s", flush=True)
        s, p = statistics.median(rates["swift"]), statistics.median(rates["feedparser"])
        print(f"{name} per process: median Feeds {s:.1f} feeds/s ({1000 / s:.0f} ms a process), feedparser "
              f"{p:.2f} feeds/s ({1000 / p:.0f} ms); ratio {s / p:.0f}x", flush=True)


def corpus(args):
    """The corpus as a whole, in process: every feed file once per round on each side."""
    paths = sorted(
        os.path.join(root, name) for root, _, names in os.walk(args.corpus) for name in names
        if name.endswith((".xml", ".rss", ".atom", ".rdf")))
    datas = [open(path, "rb").read() for path in paths]
    total = sum(len(data) for data in datas)
    rates = {"swift": [], "feedparser": []}
    for round_ in range(args.rounds):
        out = subprocess.run([args.tool, "--iterations", "1"] + paths, check=True, capture_output=True,
                             text=True).stdout
        seconds = sum(json.loads(line)["seconds"] for line in out.splitlines())
        rates["swift"].append(len(paths) / seconds)
        start = time.perf_counter()
        for data in datas:
            feedparser.parse(data)
        rates["feedparser"].append(len(paths) / (time.perf_counter() - start))
        print(f"corpus round {round_ + 1}: Feeds {rates['swift'][-1]:.0f} feeds/s, feedparser "
              f"{rates['feedparser'][-1]:.1f} feeds/s", flush=True)
    s, p = statistics.median(rates["swift"]), statistics.median(rates["feedparser"])
    print(f"corpus: {len(paths)} feeds, {total} bytes; median Feeds {s:.0f} feeds/s ({s * total / len(paths) / 1e6:.1f}"
          f" MB/s), feedparser {p:.1f} feeds/s ({p * total / len(paths) / 1e6:.2f} MB/s); ratio {s / p:.0f}x",
          flush=True)


if __name__ == "__main__":
    main()
