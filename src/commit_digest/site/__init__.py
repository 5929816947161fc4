"""The digest website as data: records in, pages and files out. Imports nothing from MkDocs.

model/ reads the store into one SiteIndex per build; rendering/ turns values into escaped HTML
(templates, words, Markdown, sanitizing); views/ each turn the model into pages and files; build/
writes them (incremental reuse, worker processes, the theme frame, status, sitemap).
"""
