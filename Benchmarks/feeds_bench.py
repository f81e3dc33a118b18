#!/usr/bin/env python3
"""The feeds parser (Sources/Feeds, libxml2) against Python's feedparser on the same 1 MB feeds.

Writes two feeds of about 1 MB (RSS 2.0 shaped like Le Monde's, with CDATA, HTML descriptions and entities;
Atom with xml:base, relative links and type="html" summaries) from a fixed seed, then alternates rounds: the
Swift tool (`feedsbench`, release build, which times its own loop after a warm-up, so process start is not
counted) and feedparser in this process, each parsing each file N times. Prints feeds per second per round,
the medians and the ratio. Needs feedparser (PyPI) in the Python that runs it.

    swift build -c release --product feedsbench           # in Benchmarks/
    /path/to/venv/bin/python feeds_bench.py --rounds 5 --iterations 10
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
    finally:
        for path in files.values():
            os.unlink(path)
        os.rmdir(folder)


if __name__ == "__main__":
    main()
