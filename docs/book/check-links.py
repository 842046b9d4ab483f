#!/usr/bin/env python3
"""Fails (exit 1) on a broken internal link: in the built book (every href/src of its pages,
files and #anchors), and in the Markdown beside it (README.md, infra/README.md, docs/*.md,
docs/benchmarks/*.md: relative links to files, and #anchors into Markdown files).

usage: check-links.py BUILT_BOOK_DIR   (run from the repository's root)
"""
import glob
import html.parser
import os
import re
import sys
import urllib.parse

SKIP_PAGES = {"print.html", "404.html", "toc.html"}
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def parse(path, cache={}):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def check_book(root):
    bad = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.html"), recursive=True)):
        if os.path.basename(path) in SKIP_PAGES:
            continue
        for link in parse(path).links:
            if not link or EXTERNAL.match(link):
                continue
            target, _, frag = urllib.parse.unquote(link).partition("#")
            target = target.split("?")[0]
            dest = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            if os.path.isdir(dest):
                dest = os.path.join(dest, "index.html")
            if not os.path.exists(dest):
                bad.append(f"{os.path.relpath(path, root)}: {link}: no such file")
            elif frag and dest.endswith(".html") and frag not in parse(dest).ids:
                bad.append(f"{os.path.relpath(path, root)}: {link}: no such anchor")
    return bad


def slug(heading):
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(md):
    with open(md, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    seen, out = {}, set()
    for h in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
        s = slug(re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", h))
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def check_markdown():
    bad = []
    files = ["README.md", "infra/README.md"] + sorted(glob.glob("docs/*.md")) + sorted(
        glob.glob("docs/benchmarks/*.md"))
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        links = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
        for link in links:
            if EXTERNAL.match(link):
                continue
            target, _, frag = link.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), target)) if target else md
            if not os.path.exists(dest):
                bad.append(f"{md}: {link}: no such file")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{md}: {link}: no such anchor")
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bad = check_book(sys.argv[1]) + check_markdown()
    for b in bad:
        print(f"broken link: {b}", file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f"links ok: the book in {sys.argv[1]} and the Markdown beside it")


main()
