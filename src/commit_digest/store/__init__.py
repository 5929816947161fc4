"""The store: every commit with its analysis, the weeks' narratives and the releases, kept twice.

The working copy is a diskcache directory (SQLite underneath, safe for several processes at
once) that CI caches may lose. ``rows`` alone opens it and reads its rows as JSON text, never
pickles (``disk`` refuses any other row unread), and turns a damaged file into one error naming
the way back; ``analysis_store`` makes typed values of those rows. What survives is the durable
form (``durable``): JSON Lines, a repository's records by month of landing (narratives by year,
releases by repository), committed to a data branch, from which ``restore`` rebuilds a lost
store with no LLM calls; ``exchange`` reads and writes the same lines for export and import.
Where two copies of a record meet, ``merge`` keeps the paid-for analysis; ``hygiene`` removes
control characters from every record that enters; ``leases`` keep two runs from paying for one
commit twice; ``narratives`` is the checked form of a week's narrative.
"""
