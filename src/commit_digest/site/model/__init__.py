"""The read model: the store as one build sees it, read once per build and shared by every view.

``store_reading`` reads the store (``reading`` parses records in worker processes, ``summaries``
reuses what the previous build made of unchanged records, ``record_source`` reads a record again
when a page shows it); ``commit`` is a commit as the site shows it, ``index`` gathers commits into
days, months and labels, ``facts`` relates them (reverts, series, releases, operator impact),
``weeks`` summarises weeks and labels. Imports neither views nor rendering nor build machinery.
"""
