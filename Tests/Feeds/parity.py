#!/usr/bin/env python3
"""Feed parity: what `newsatlas headlines --provider feeds` shows of each feed of a corpus, against feedparser.

    python3 Tests/Feeds/parity.py BINARY [PATH ...] [--details] [--json OUT] [--min-right PCT] [--jobs N]

PATH is a corpus file, a folder (every file under it) or a glob, as given or relative to the corpus root; the
default is the whole corpus, Tests/Fixtures/feeds/corpus.
LICENSE, SOURCE.md, README.md and *.headers files are never feeds. Each feed's bytes are served as they are by a
local HTTP server (127.0.0.1, a port the system picks, in a thread of this process) with `Content-Type:
application/xml`, or with the headers of a sidecar `NAME.headers` (`Header: value` lines) when there is one. The
binary is run once a feed, `BINARY headlines --provider feeds --feed URL --format json --country fr --page-size
100 --lang en`, with XDG_CONFIG_HOME, XDG_CACHE_HOME and HOME in a new temporary folder (nothing of the user's is
read or written), no proxy, and 20 s allowed. feedparser reads the same bytes with the same Content-Type and the
URL as Content-Location (the base of relative links).

Compared, after normalisation (feedparser's values that its type says are HTML reduced to text, NewsAtlas's
text as it is; controls and white space collapsed, Unicode NFC; links with percent-escapes decoded, scheme and host lower-cased, a trailing slash
ignored):
  - per entry of feedparser's with an http(s) link (NewsAtlas leaves out, on purpose, entries without one: they
    are counted as `left out`, not as mismatches): the title (an entry without one may show its link), the link,
    the date to the second in UTC (feedparser's published, else updated, else created; an entry feedparser has no
    date for is not compared), and the summary
    (feedparser's summary, else its first content; NewsAtlas's description). Entries sharing a link are one
    article in NewsAtlas (the newest), so they are one entry here; when NewsAtlas shows its page size (100) of
    articles, the entries it left out are `beyond page size`, not mismatches. An entry NewsAtlas does not show
    counts as wrong in every field.
  - per feed: its title, which NewsAtlas shows as each article's `source.name` (the host and port when the feed
    has no title).
A file is right when the run ends normally and every compared field is right, with no article feedparser does
not have. A run that ends by a signal, with an exit status of 128 or more, hangs past the time allowed, or exits 0
without the JSON answer is a trap; one that answers an error (non-zero exit, or the answer's `error`) is a
refusal, right only when feedparser finds no entry with a link either.

Exit status: 1 when there is any trap, 2 when the share of files right is under --min-right, 64 for a bad
command line, else 0.
"""

import argparse
import calendar
import collections
import concurrent.futures
import glob
import html
import html.parser
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
import urllib.parse
import warnings

try:
    import feedparser
except ImportError:  # pragma: no cover
    sys.exit("parity.py needs feedparser: pip install feedparser")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = os.path.normpath(os.path.join(HERE, "..", "Fixtures", "feeds", "corpus"))
NOT_FEEDS = {"LICENSE", "SOURCE.md", "README.md"}
PAGE_SIZE = 100
FIELDS = ("title", "link", "date", "summary", "feed title")


# --- serving ----------------------------------------------------------------------------------------------------


class Routes:
    def __init__(self):
        self.by_path = {}

    def add(self, url_path, body, headers):
        self.by_path[url_path] = (body, headers)


def make_server(routes):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            found = routes.by_path.get(path)
            if found is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body, headers = found
            self.send_response(200)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="parity-http", daemon=True)
    thread.start()
    return server


def sidecar_headers(path):
    """The headers of `path.headers`, else `Content-Type: application/xml`."""
    sidecar = path + ".headers"
    headers = []
    if os.path.exists(sidecar):
        with open(sidecar, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if line and not line.startswith("#") and ":" in line:
                    name, value = line.split(":", 1)
                    headers.append((name.strip(), value.strip()))
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers.insert(0, ("Content-Type", "application/xml"))
    return headers


# --- normalisation ----------------------------------------------------------------------------------------------

BLOCK = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}
HIDDEN = {"script", "style", "template", "noscript", "head", "title", "applet"}


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self.hidden += 1
        elif tag in BLOCK:
            self.parts.append(" ")

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def html_text(value):
    if not value:
        return ""
    if "<" not in value and "&" not in value:
        return value
    parser = _Text()
    try:
        parser.feed(value)
        parser.close()
    except Exception:
        return html.unescape(value)
    return "".join(parser.parts)


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPACE = re.compile(r"\s+")


def norm_text(value):
    # Plain text on both sides: NewsAtlas shows text, and feedparser's HTML values were made text in reference().
    text = value or ""
    text = _BIDI.sub("", _CONTROLS.sub(" ", text))
    text = unicodedata.normalize("NFC", text)
    return _SPACE.sub(" ", text).strip()


def norm_link(value):
    value = (value or "").strip()
    if not value:
        return ""
    try:
        parts = urllib.parse.urlsplit(value)
        netloc = parts.netloc.lower()
        if parts.scheme.lower() == "http" and netloc.endswith(":80"):
            netloc = netloc[:-3]
        if parts.scheme.lower() == "https" and netloc.endswith(":443"):
            netloc = netloc[:-4]
        path = urllib.parse.unquote(parts.path) or "/"
        value = urllib.parse.urlunsplit(
            (parts.scheme.lower(), netloc, path, urllib.parse.unquote(parts.query), urllib.parse.unquote(parts.fragment))
        )
    except ValueError:
        pass
    value = _SPACE.sub(" ", value)
    return value.rstrip("/")


def is_web(link):
    return (link or "").strip().lower().startswith(("http://", "https://"))


def fp_date(entry):
    for key in ("published_parsed", "updated_parsed", "created_parsed"):
        value = entry.get(key)
        if value:
            try:
                return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(calendar.timegm(value)))
            except (OverflowError, ValueError, TypeError):
                return None
    return None


def short(value, limit=160):
    value = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value if len(value) <= limit else value[: limit - 1] + "…"


# --- feedparser's side ------------------------------------------------------------------------------------------


def reference(body, headers, url):
    response = {name.lower(): value for name, value in headers}
    response["content-location"] = url
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = feedparser.parse(body, response_headers=response)
    def text(value, detail):
        # feedparser's value as a reader sees it: HTML (its detail's type says so) made text, other text as it is.
        kind = (detail or {}).get("type", "text/html")
        return html_text(value) if kind in ("text/html", "application/xhtml+xml") else value

    entries = []
    for index, entry in enumerate(parsed.entries):
        summary, detail = entry.get("summary"), entry.get("summary_detail")
        if not summary and entry.get("content"):
            summary, detail = entry["content"][0].get("value"), entry["content"][0]
        elif detail is None and entry.get("content"):
            detail = entry["content"][0]  # the summary feedparser copied from the content, without its detail
        entries.append({
            "index": index,
            "title": text(entry.get("title", ""), entry.get("title_detail")),
            "link": (entry.get("link") or "").strip(),
            "date": fp_date(entry),
            "summary": text(summary or "", detail),
            "guidislink": bool(entry.get("guidislink")) and not entry.get("links"),
        })
    return {
        "title": text(parsed.feed.get("title", ""), parsed.feed.get("title_detail")),
        "entries": entries,
        "bozo": bool(parsed.get("bozo")),
        "version": parsed.get("version", ""),
        "encoding": parsed.get("encoding", ""),
    }


# --- NewsAtlas's side -------------------------------------------------------------------------------------------


def run_binary(binary, url, timeout):
    home = tempfile.mkdtemp(prefix="parity-")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and not k.startswith("NEWSATLAS")}
    env.update(XDG_CONFIG_HOME=os.path.join(home, "config"), XDG_CACHE_HOME=os.path.join(home, "cache"), HOME=home,
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost", LC_ALL="C.UTF-8", LANG="C.UTF-8")
    command = [binary, "headlines", "--provider", "feeds", "--feed", url, "--format", "json", "--country", "fr",
               "--page-size", str(PAGE_SIZE), "--lang", "en"]
    started = time.monotonic()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            out, err = process.communicate(timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = process.communicate()
            hung = True
        return {"status": process.returncode, "stdout": out, "stderr": err.decode("utf-8", "replace"), "hung": hung,
                "seconds": round(time.monotonic() - started, 3)}
    finally:
        shutil.rmtree(home, ignore_errors=True)


# --- comparison -------------------------------------------------------------------------------------------------


REFUSALS = [
    (r"XML declaration allowed only at the start", "white space before the XML declaration"),
    (r"root element is <(\w+)>, not", None),
    (r"Entity '[^']+' not defined", "an HTML entity the document does not declare"),
    (r"EntityRef|xmlParseEntityRef", "a bare & or an entity without its ;"),
    (r"not proper UTF-8|Bytes: 0x", "bytes not in the encoding read (undeclared Latin-1 or windows-1252)"),
    (r"Premature end of data|Extra content at the end|Opening and ending tag mismatch", "not well-formed (unclosed or extra elements)"),
    (r"Namespace prefix \S+ on \S+ is not defined", "an undeclared namespace prefix"),
    (r"declares an XML entity", "a DTD entity declaration (refused on purpose)"),
    (r"Unsupported encoding", "an unknown encoding label"),
    (r"invalid Char value", "control characters in the text"),
    (r"Document is empty|StartTag: invalid element name", "UTF-16 without a BOM or charset"),
    (r"feed is empty", "an empty document"),
]


def refusal_kind(message, version=""):
    for pattern, label in REFUSALS:
        found = re.search(pattern, message or "")
        if found:
            if label is None:
                root = found.group(1)
                if root == "feed" and version == "atom03":
                    return "refused: an Atom 0.3 feed"
                if root == "feed":
                    return "refused: a <feed> without the Atom namespace"
                if root == "entry":
                    return "refused: a lone Atom <entry>"
                return f"refused: root <{root}> (feedparser reads it as {version or 'a feed'})"
            return "refused: " + label
    return "refused: " + short(re.sub(r"http://127\.0\.0\.1:\d+/\S+", "URL", message or "no message"), 80)


def _undouble(text):
    """`text` read again as UTF-8 from its Latin-1/windows-1252 bytes (UTF-8 decoded twice), else None."""
    for encoding in ("latin-1", "cp1252"):
        try:
            return text.encode(encoding).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
    return None


def classify(field, ours, theirs):
    """A short name for the kind of a mismatch, to count them."""
    o, t = ours or "", theirs or ""
    if field == "date":
        if not o:
            return "date: none"
        try:
            delta = calendar.timegm(time.strptime(o, "%Y-%m-%dT%H:%M:%SZ")) - calendar.timegm(
                time.strptime(t, "%Y-%m-%dT%H:%M:%SZ"))
        except ValueError:
            return "date: other"
        if delta % 1800 == 0 and abs(delta) <= 26 * 3600:
            return "date: off by a time-zone offset"
        if abs(delta) > 26 * 3600:
            return "date: ours another day (a date not read: the feed's date or the time read)"
        return "date: ours another time of the day (a date read in part)"
    if field == "link":
        if not o:
            return "link: none"
        if o.split("#")[0] == t.split("#")[0]:
            return "link: fragment differs"
        if "127.0.0.1" in o or "127.0.0.1" in t:
            return "link: relative resolution"
        return "link: another of the item's links"
    if ours is None:
        return f"{field}: not shown (no articles)"
    no, nt = norm_text(o), norm_text(t)
    if field == "feed title" and re.fullmatch(r"127\.0\.0\.1(:\d+)?", no):
        return "feed title: ours the host (no title read)"
    if not no and nt:
        return f"{field}: ours empty"
    if no and not nt:
        return f"{field}: ours has text, feedparser none"
    redone = _undouble(no)
    if redone is not None and redone != no and norm_text(redone) == nt:
        return f"{field}: UTF-8 decoded twice in the feed (feedparser repairs it, ours shows Ã©)"
    if "\ufffd" in no or re.search("[ÃÂÄÅâ][\x80-\xbf€-™ ]", no):
        return f"{field}: UTF-8 decoded twice in the feed (feedparser repairs it, ours shows Ã©)"
    if "&" in no and html.unescape(no) != no:
        return f"{field}: entity left in ours"
    markup = re.compile(r"<[a-zA-Z!/][^>]*>")
    if markup.search(no) and not markup.search(nt):
        return f"{field}: markup shown as text in ours"
    if markup.search(nt) and not markup.search(no):
        return f"{field}: escaped markup feedparser shows as text, ours drops"
    if nt.startswith(no) or no.startswith(nt):
        return f"{field}: one is a prefix of the other"
    return f"{field}: differs"


def compare(name, ref, answer, url):
    result = {"file": name, "status": "ok", "fields": {f: [0, 0] for f in FIELDS}, "mismatches": [],
              "left_out": 0, "beyond_page": 0, "extra": 0, "date_not_compared": 0, "space_only": 0,
              "entries_expected": 0, "entries_shown": 0, "fp_bozo": ref["bozo"], "fp_version": ref["version"]}

    def count(field, right, ours=None, theirs=None, where=""):
        result["fields"][field][1] += 1
        if right:
            result["fields"][field][0] += 1
        elif field in ("link", "date") or not isinstance(ours, str):
            result["mismatches"].append({"field": field, "where": where, "ours": ours,
                                         "feedparser": norm_text(theirs) if field == "feed title" else theirs,
                                         "kind": classify(field, ours, theirs)})
        else:
            a, b = norm_text(ours), norm_text(theirs)
            # Long texts are shown from a little before where they part.
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            start = max(0, first - 80) if max(len(a), len(b)) > 300 else 0
            cut = lambda v: ("…" if start else "") + short(v[start:], 300)
            result["mismatches"].append({"field": field, "where": where, "ours": cut(a), "feedparser": cut(b),
                                         "kind": classify(field, ours, theirs)})

    def same_text(ours, theirs):
        a, b = norm_text(ours), norm_text(theirs)
        if a == b:
            return True
        if a.replace(" ", "") == b.replace(" ", ""):
            result["space_only"] += 1
            return True
        return False

    # feedparser's entries with a web link, one per link (the newest, as NewsAtlas keeps), in document order.
    groups = collections.OrderedDict()
    for entry in ref["entries"]:
        if not is_web(entry["link"]):
            result["left_out"] += 1
            continue
        key = norm_link(entry["link"])
        kept = groups.get(key)
        if kept is None or ((entry["date"] or "") > (kept["date"] or "")):
            groups[key] = entry
    expected = list(groups.values())
    articles = answer.get("articles", []) if answer else []
    result["entries_shown"] = len(articles)

    # Match: by link, then by title among the rest, then in order.
    by_link = collections.defaultdict(list)
    for i, article in enumerate(articles):
        by_link[norm_link(article.get("url"))].append(i)
    used, pairs, unmatched = set(), {}, []
    for entry in expected:
        candidates = [i for i in by_link.get(norm_link(entry["link"]), []) if i not in used]
        if candidates:
            pairs[entry["index"]] = candidates[0]
            used.add(candidates[0])
        else:
            unmatched.append(entry)
    rest = []
    for entry in unmatched:
        title = norm_text(entry["title"])
        candidates = [i for i, a in enumerate(articles) if i not in used and title and norm_text(a.get("title")) == title]
        if candidates:
            pairs[entry["index"]] = candidates[0]
            used.add(candidates[0])
        else:
            rest.append(entry)
    leftover = [i for i in range(len(articles)) if i not in used]
    truncated = len(articles) >= PAGE_SIZE and len(expected) > len(articles)
    if not truncated:
        for entry, i in zip(list(rest), list(leftover)):
            pairs[entry["index"]] = i
            used.add(i)
            rest.remove(entry)
            leftover.remove(i)

    for entry in expected:
        where = f"entry {entry['index'] + 1}"
        i = pairs.get(entry["index"])
        if i is None:
            if truncated:
                result["beyond_page"] += 1
                continue
            result["entries_expected"] += 1
            if entry["guidislink"]:
                why = "its link is only its id or guid (feedparser takes it)"
            elif urllib.parse.urlsplit(url).netloc in entry["link"]:
                why = "a relative link feedparser resolves against the feed's URL"
            else:
                why = f"a link ours does not read (feedparser: {ref['version'] or 'unknown format'})"
            result["mismatches"].append({"field": "entry", "where": where, "ours": None,
                                         "feedparser": {"title": norm_text(entry["title"]), "link": entry["link"]},
                                         "kind": "entry missing: " + why})
            for field in ("title", "link", "summary"):
                result["fields"][field][1] += 1
            if entry["date"]:
                result["fields"]["date"][1] += 1
            continue
        result["entries_expected"] += 1
        article = articles[i]
        ours_title = article.get("title") or ""
        title_right = same_text(ours_title, entry["title"]) or (
            not norm_text(entry["title"]) and norm_link(ours_title) in (norm_link(entry["link"]), ""))
        count("title", title_right, ours_title, entry["title"] or "", where)
        count("link", norm_link(article.get("url")) == norm_link(entry["link"]), article.get("url"), entry["link"], where)
        if entry["date"]:
            count("date", article.get("publishedAt") == entry["date"], article.get("publishedAt"), entry["date"], where)
        else:
            result["date_not_compared"] += 1
        ours_summary = article.get("description") or ""
        count("summary", same_text(ours_summary, entry["summary"]), ours_summary, entry["summary"], where)
    for i in leftover:
        result["extra"] += 1
        result["mismatches"].append({"field": "entry", "where": f"article {i + 1}", "ours": {
            "title": articles[i].get("title"), "url": articles[i].get("url")}, "feedparser": None,
            "kind": "article feedparser has not"})

    # The feed's title, once, when either side has an article to show it on.
    if articles or expected:
        shown = articles[0]["source"]["name"] if articles else None
        host = urllib.parse.urlsplit(url).netloc
        right = shown is not None and (same_text(shown, ref["title"]) or (not norm_text(ref["title"]) and shown == host))
        count("feed title", right, shown, ref["title"], "feed")
    return result


def judge(name, path, body, headers, url, binary, timeout):
    ref = reference(body, headers, url)
    run = run_binary(binary, url, timeout)
    status = run["status"]
    answer = None
    message = None
    if run["hung"]:
        kind = "trap"
        message = f"no answer in {timeout:g} s"
    elif status < 0 or status >= 128:
        kind = "trap"
        message = f"signal {-status}" if status < 0 else f"exit status {status}"
        message += ": " + short(run["stderr"].strip().splitlines()[-1] if run["stderr"].strip() else "(no message)")
    else:
        try:
            answer = json.loads(run["stdout"].decode("utf-8"))["results"][0]
        except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
            answer = None
        error = answer.get("error") if isinstance(answer, dict) else None
        if error or status != 0:
            kind = "refusal"
            if error:
                message = f"{error.get('kind')}: {error.get('message')}"
            else:
                lines = run["stderr"].strip().splitlines()
                message = lines[-1] if lines else f"exit status {status}, no message"
        elif answer is None:
            kind = "trap"
            message = "exit 0 without the JSON answer: " + short(run["stdout"].decode("utf-8", "replace"))
        else:
            kind = "ok"
    result = compare(name, ref, answer if kind == "ok" else None, url)
    if kind != "ok":
        label = refusal_kind(message, ref["version"]) if kind == "refusal" else "trap"
        result["refusal_kind"] = label
        for m in result["mismatches"]:
            if m["field"] == "entry":
                m["kind"] = f"entry missing: {label}"
            elif m["field"] == "feed title":
                m["kind"] = f"feed title: not shown ({label})"
    result["status"] = kind
    result["exit"] = None if run["hung"] else status
    result["seconds"] = run["seconds"]
    if message:
        result["message"] = message
    linked = sum(1 for e in ref["entries"] if is_web(e["link"]))
    if kind == "refusal":
        # Right only when feedparser has nothing to show either.
        result["right"] = linked == 0
    else:
        result["right"] = kind == "ok" and not result["mismatches"]
    return result


# --- the run ----------------------------------------------------------------------------------------------------


def fail(message):
    print(f"parity.py: {message}", file=sys.stderr)
    sys.exit(64)


def collect(paths, corpus):
    files = []
    for pattern in paths or [corpus]:
        matches = glob.glob(pattern, recursive=True) if any(c in pattern for c in "*?[") else [pattern]
        if not matches or (len(matches) == 1 and not os.path.exists(matches[0])):
            # A path or glob relative to the corpus root.
            inside = os.path.join(corpus, pattern)
            matches = glob.glob(inside, recursive=True) if any(c in pattern for c in "*?[") else (
                [inside] if os.path.exists(inside) else matches)
        if not matches:
            fail(f"nothing matches {pattern}")
        for match in matches:
            if os.path.isdir(match):
                for root, dirs, names in os.walk(match):
                    dirs.sort()
                    for n in sorted(names):
                        files.append(os.path.join(root, n))
            elif os.path.isfile(match):
                files.append(match)
            else:
                fail(f"no such file or folder: {match}")
    seen, result = set(), []
    for f in files:
        base = os.path.basename(f)
        if base in NOT_FEEDS or base.endswith(".headers") or base.startswith("."):
            continue
        real = os.path.realpath(f)
        if real not in seen:
            seen.add(real)
            result.append(real)
    return result


def display_name(path, corpus):
    real_corpus = os.path.realpath(corpus)
    if path.startswith(real_corpus + os.sep):
        return os.path.relpath(path, real_corpus)
    return os.path.relpath(path)


def main():
    parser = argparse.ArgumentParser(description="NewsAtlas feed parity with feedparser.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("binary", help="the newsatlas binary")
    parser.add_argument("paths", nargs="*", help="corpus files, folders or globs (default: the whole corpus)")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="the corpus root (names are shown relative to it)")
    parser.add_argument("--details", action="store_true", help="print every mismatch")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--min-right", type=float, metavar="PCT", help="fail when fewer files than PCT %% are right")
    parser.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1), help="runs at once (default 8)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds allowed a run (default 20)")
    parser.add_argument("--kinds", type=int, default=10, help="how many kinds of mismatch to list (default 10)")
    options = parser.parse_args()

    binary = shutil.which(options.binary) or options.binary
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        fail(f"{options.binary} is not an executable file")
    files = collect(options.paths, options.corpus)
    if not files:
        fail("no feed files")

    routes = Routes()
    server = make_server(routes)
    port = server.server_address[1]
    jobs = []
    for n, path in enumerate(files):
        name = display_name(path, options.corpus)
        rel = name if not name.startswith("..") else f"ext/{n}/{os.path.basename(path)}"
        url_path = "/" + urllib.parse.quote(rel.replace(os.sep, "/"))
        with open(path, "rb") as handle:
            body = handle.read()
        headers = sidecar_headers(path)
        routes.add(url_path, body, headers)
        jobs.append((name, path, body, headers, f"http://127.0.0.1:{port}{url_path}"))

    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            futures = [pool.submit(judge, name, path, body, headers, url, binary, options.timeout)
                       for name, path, body, headers, url in jobs]
            for future in futures:
                results.append(future.result())
    finally:
        server.shutdown()
        server.server_close()

    report(results, options, binary)


def report(results, options, binary):
    totals = {f: [0, 0] for f in FIELDS}
    for r in results:
        for f in FIELDS:
            totals[f][0] += r["fields"][f][0]
            totals[f][1] += r["fields"][f][1]
    traps = [r for r in results if r["status"] == "trap"]
    refusals = [r for r in results if r["status"] == "refusal"]
    right_files = sum(1 for r in results if r["right"])
    pct = lambda a, b: (100.0 * a / b) if b else 100.0

    if options.details:
        for r in results:
            for m in r["mismatches"]:
                print(f"{r['file']}  [{m['where']}] {m['field']} ({m['kind']})")
                print(f"    ours:       {short(m['ours'], 300)}")
                print(f"    feedparser: {short(m['feedparser'], 300)}")
        print()

    print(f"NewsAtlas {binary} against feedparser {feedparser.__version__}: {len(results)} files")
    print()
    print(f"{'field':<12} {'right':>7} {'total':>7} {'%':>7}")
    for f in FIELDS:
        a, b = totals[f]
        print(f"{f:<12} {a:>7} {b:>7} {pct(a, b):>6.1f}%")
    all_a = sum(totals[f][0] for f in FIELDS)
    all_b = sum(totals[f][1] for f in FIELDS)
    print(f"{'all fields':<12} {all_a:>7} {all_b:>7} {pct(all_a, all_b):>6.1f}%")
    print(f"{'files right':<12} {right_files:>7} {len(results):>7} {pct(right_files, len(results)):>6.1f}%")
    print()
    sums = lambda key: sum(r[key] for r in results)
    print(f"entries compared {sums('entries_expected')}; left out, no http(s) link {sums('left_out')}; beyond page size "
          f"{sums('beyond_page')}; articles feedparser has not {sums('extra')}; dates not compared (feedparser has none) "
          f"{sums('date_not_compared')}; texts equal but for spaces {sums('space_only')}")
    print(f"refusals {len(refusals)} ({sum(1 for r in refusals if r['right'])} where feedparser finds no linked entry "
          f"either); traps {len(traps)}")
    for r in traps:
        print(f"  TRAP     {r['file']}: {r.get('message')}")
    for r in refusals:
        print(f"  refusal  {r['file']}{'' if r['right'] else ' (feedparser has entries)'}: {short(r.get('message'), 200)}")

    kinds = collections.Counter()
    kind_files = collections.defaultdict(set)
    example = {}
    for r in results:
        for m in r["mismatches"]:
            kinds[m["kind"]] += 1
            kind_files[m["kind"]].add(r["file"])
            example.setdefault(m["kind"], (r["file"], m))
    if kinds:
        print()
        print(f"most common kinds of mismatch, by files (of {sum(kinds.values())} mismatches; a feed title not shown "
              "is left out):")
        # A feed title not shown follows from the file's other mismatches: not ranked.
        ranked = sorted((k for k in kinds if not k.startswith("feed title: not shown")),
                        key=lambda k: (-len(kind_files[k]), -kinds[k], k))
        for kind in ranked[: options.kinds]:
            file, m = example[kind]
            print(f"  {len(kind_files[kind]):>4} files {kinds[kind]:>5}x  {kind}   e.g. {file} [{m['where']}]")
            print(f"         ours: {short(m['ours'], 140)}")
            print(f"         feedparser: {short(m['feedparser'], 140)}")

    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump({
                "binary": binary, "feedparser": feedparser.__version__, "files": len(results),
                "fields": {f: {"right": a, "total": b} for f, (a, b) in totals.items()},
                "files_right": right_files, "traps": [r["file"] for r in traps],
                "refusals": [r["file"] for r in refusals],
                "kinds": {k: {"mismatches": kinds[k], "files": len(kind_files[k])} for k in kinds},
                "results": results,
            }, handle, ensure_ascii=False, indent=1)

    if traps:
        sys.exit(1)
    if options.min_right is not None and pct(right_files, len(results)) < options.min_right:
        print(f"files right {pct(right_files, len(results)):.1f}% < {options.min_right:g}%")
        sys.exit(2)


if __name__ == "__main__":
    main()
