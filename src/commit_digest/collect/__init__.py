"""The collect step: where commits and releases come from, and how a run brings the store up to date.

Two commit sources follow one protocol (``base``), so a run can use either: the GitHub REST API
(``github``, with ``retry`` deciding when to ask again) and a local git clone (``git``, reading git's
answers through ``git_commit_object`` and ``git_diff``, checking the clone is the repository named
with ``git_identity``). ``window`` decides which days a run asks for; ``fetch`` lists, details and
stores the commits one at a time; ``release_fetch`` then places the stored commits in releases.
``errors`` holds what a source raises, so the pipeline never sees a library's own exceptions.
"""
