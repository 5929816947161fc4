"""A second reference site for the scale benchmark: the same Markdown pages built by Hugo.

    .venv/bin/python -m benchmarks.hugo_reference --docs DIR --target DIR
    cd DIR && hugo --quiet --destination public

The first reference (benchmarks/reference_docs.py) is the day and commit pages as plain Markdown
under stock mkdocs-material. Hugo is the fastest static site generator in common use (the issue
measured 15,302 pages in 10.5 s on this machine), so it is the floor: this module turns those same
Markdown files into a Hugo site — ``hugo.toml``, ``content/`` with the pages at the same paths and
a TOML ``title`` taken from each page's first ``# `` heading, and a small self-contained layout
(head with a stylesheet, header, a fixed navigation list, the page's table of contents, content,
footer; ``.md`` links resolved as MkDocs does) — so that the benchmark can time ``hugo`` alone and
print our build time as a multiple of it. Only Debian's ``hugo`` is used; no theme is downloaded.
Pages are written only for the home page, the days and the commits: taxonomies, section lists,
RSS, the sitemap and the 404 page are switched off, so Hugo writes one HTML file per Markdown page.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

CONFIG = """\
baseURL = "https://hugo-reference.example.org/"
languageCode = "zh"
defaultContentLanguage = "zh"
title = "reference (Hugo)"
hasCJKLanguage = true
uglyURLs = false
enableRobotsTXT = false
enableGitInfo = false
disableKinds = ["taxonomy", "term", "section", "RSS", "sitemap", "404"]

[markup.goldmark.renderer]
unsafe = false

[markup.tableOfContents]
startLevel = 2
endLevel = 3

[[menu.main]]
name = "首页"
url = "/"
weight = 1
[[menu.main]]
name = "仓库"
url = "https://github.com/vllm-project/vllm"
weight = 2
[[menu.main]]
name = "提交历史"
url = "https://github.com/vllm-project/vllm/commits/main"
weight = 3
[[menu.main]]
name = "发布"
url = "https://github.com/vllm-project/vllm/releases"
weight = 4
[[menu.main]]
name = "问题"
url = "https://github.com/vllm-project/vllm/issues"
weight = 5
"""

LAYOUTS = {
    "_default/baseof.html": """\
<!DOCTYPE html>
<html lang="{{ site.LanguageCode }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ if .IsHome }}{{ site.Title }}{{ else }}{{ .Title }} - {{ site.Title }}{{ end }}</title>
<link rel="stylesheet" href="{{ "css/site.css" | relURL }}">
</head>
<body>
<header class="site-header"><a href="{{ "/" | relURL }}">{{ site.Title }}</a></header>
<div class="site-body">
<nav class="site-nav" aria-label="导航">
<ul>
{{- range site.Menus.main }}
<li><a href="{{ .URL | relURL }}">{{ .Name }}</a></li>
{{- end }}
</ul>
</nav>
<aside class="toc" aria-label="目录">{{ .TableOfContents }}</aside>
<main class="content">{{ block "main" . }}{{ end }}</main>
</div>
<footer class="site-footer">{{ site.Title }} · built with Hugo {{ hugo.Version }}</footer>
</body>
</html>
""",
    "_default/single.html": '{{ define "main" }}<article>{{ .Content }}</article>{{ end }}\n',
    "_default/list.html": '{{ define "main" }}<article>{{ .Content }}</article>{{ end }}\n',
    "index.html": '{{ define "main" }}<article class="home">{{ .Content }}</article>{{ end }}\n',
    # MkDocs turns ``../days/x.md`` into the page's URL and fails a strict build on a missing one;
    # relref does the same here (an unknown page is an error). index.md is the home page's _index.md.
    "_default/_markup/render-link.html": """\
{{- $href := .Destination -}}
{{- if and (not (strings.Contains $href "://")) (strings.HasSuffix $href ".md") -}}
{{- $href = relref .Page (replaceRE `(^|/)index\\.md$` "${1}_index.md" $href) -}}
{{- end -}}
<a href="{{ $href | safeURL }}"{{ with .Title }} title="{{ . }}"{{ end }}>{{ .Text | safeHTML }}</a>
{{- /**/ -}}
""",
    # The reference's mkdocs.yml has toc with permalink: each heading gets its anchor link.
    "_default/_markup/render-heading.html": """\
<h{{ .Level }} id="{{ .Anchor | safeURL }}">{{ .Text | safeHTML }}<a class="headerlink" \
href="#{{ .Anchor | safeURL }}" title="Permanent link">¶</a></h{{ .Level }}>
{{- /**/ -}}
""",
}

STYLESHEET = """\
body { margin: 0; font-family: system-ui, "Noto Sans CJK SC", sans-serif; line-height: 1.6; color: #222; }
.site-header { background: #3f51b5; color: #fff; padding: 0.8rem 1.2rem; font-size: 1.2rem; }
.site-header a { color: inherit; text-decoration: none; }
.site-body { display: grid; grid-template-columns: 12rem minmax(0, 1fr) 14rem; gap: 1.5rem; padding: 1rem; }
.site-nav { grid-column: 1; grid-row: 1; }
.site-nav ul, .toc ul { list-style: none; padding-left: 0.8rem; margin: 0; }
.content { grid-column: 2; grid-row: 1; }
.toc { grid-column: 3; grid-row: 1; font-size: 0.85rem; }
.headerlink { margin-left: 0.3em; opacity: 0; text-decoration: none; }
h2:hover .headerlink, h3:hover .headerlink { opacity: 1; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ddd; padding: 0.2rem 0.5rem; }
.site-footer { border-top: 1px solid #ddd; padding: 1rem; font-size: 0.8rem; color: #666; }
@media (max-width: 60rem) { .site-body { display: block; } .toc { display: none; } }
"""


def hugo_available() -> str | None:
    """The path of the ``hugo`` executable, or None when it is not installed."""
    return shutil.which("hugo")


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string. JSON's escapes (\\" \\\\ \\n \\t \\uXXXX ...) are all valid
    TOML escapes; TOML also forbids a raw DEL, which JSON leaves alone."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def page_title(markdown: str, fallback: str) -> str:
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or fallback
    return fallback


def write_hugo_site(docs: Path, target: Path) -> int:
    """Writes a Hugo site into ``target`` whose content is every ``*.md`` page under ``docs`` at the
    same path (``index.md`` becomes the home page, ``content/_index.md``), with a TOML front matter
    title from the page's first ``# `` heading; returns the number of pages written."""
    content = target / "content"
    shutil.rmtree(content, ignore_errors=True)  # no page left over from an earlier run
    target.mkdir(parents=True, exist_ok=True)
    (target / "hugo.toml").write_text(CONFIG, encoding="utf-8")
    for name, text in LAYOUTS.items():
        path = target / "layouts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (target / "static" / "css").mkdir(parents=True, exist_ok=True)
    (target / "static" / "css" / "site.css").write_text(STYLESHEET, encoding="utf-8")
    pages = 0
    made: set[Path] = set()
    for source in sorted(docs.rglob("*.md")):
        relative = source.relative_to(docs)
        if relative == Path("index.md"):
            relative = Path("_index.md")
        destination = content / relative
        if destination.parent not in made:
            destination.parent.mkdir(parents=True, exist_ok=True)
            made.add(destination.parent)
        markdown = source.read_text(encoding="utf-8")
        title = page_title(markdown, source.stem)
        destination.write_text(f"+++\ntitle = {toml_string(title)}\n+++\n\n{markdown}", encoding="utf-8")
        pages += 1
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=Path, required=True, help="the reference pages (benchmarks.reference_docs)")
    parser.add_argument("--target", type=Path, required=True, help="the Hugo site to write")
    args = parser.parse_args()
    print(f"{write_hugo_site(args.docs, args.target)} pages into {args.target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
