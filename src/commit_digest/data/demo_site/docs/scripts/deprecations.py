"""mkdocs-gen-files script: a page listing the deprecations and removals of the latest month.

An example of a site owner's own page built on commit_digest.api. Every piece of commit or
analysis text goes through api.text, the same escaping path the generated pages use.
"""

from __future__ import annotations

import mkdocs_gen_files

from commit_digest import api

PAGE = "deprecations.md"
WORDS = {
    "zh": {
        "title": "弃用与移除",
        "intro": "{month} 的弃用与移除类变更（本站最新有数据的月份）。",
        "empty": "该月没有弃用或移除类变更。",
        "no_data": "存储中还没有提交。",
        "columns": "| 日期 | 标题 | 摘要 |",
    },
    "en": {
        "title": "Deprecations and removals",
        "intro": "Deprecations and removals of {month} (the latest month with data).",
        "empty": "No deprecation or removal that month.",
        "no_data": "The store holds no commits yet.",
        "columns": "| Date | Title | Summary |",
    },
}

plugin = mkdocs_gen_files.config.plugins["commit-digest"]
directory_urls = mkdocs_gen_files.config.use_directory_urls
words = WORDS[plugin.settings.language]
lines = [f"# {words['title']}", ""]
# The running build's digest: the store is read once for the whole build.
digest = plugin.digest()
months = digest.months()
if not months:
    lines.append(words["no_data"])
else:
    month = months[0]
    lines += [words["intro"].format(month=month), ""]
    found = digest.deprecations(month)
    if not found:
        lines.append(words["empty"])
    else:
        lines += [words["columns"], "| --- | --- | --- |"]
        for item in found:
            summary = item.analysis.summary[0] if item.analysis else ""
            target = api.link(PAGE, digest.commit_page(item), directory_urls=directory_urls)
            title = api.text(item.record.commit.title)
            lines.append(f"| {item.day.isoformat()} | [{title}]({target}) | {api.text(summary)} |")

with mkdocs_gen_files.open(PAGE, "w") as page:
    page.write("\n".join(lines) + "\n")
