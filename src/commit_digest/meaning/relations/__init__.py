"""How the store's commits relate: reverts, fixes, follow-ups, mentions and numbered series.

A commit page answers "is this commit still there?" (reverted, restored, fixed later, part of a
series) and links the related commits, across days and across the store's repositories. Pure:
``relate`` reads commits and returns a ``Relations``; nothing here touches the store or the site.

Rules, in short:

- A commit reverts another when its message says ``This reverts commit <sha>.`` (a 7–40 hex
  prefix, resolved in its own repository first, then in any; an ambiguous prefix resolves to
  nothing), else when its title is ``Revert "<title>"``: the newest commit of its repository that
  landed before it with that title, else the one whose pull request the quoted title names, else
  GitHub's "Reverts owner/repo#N" line. A revert of a revert restores the original.
- ``Fixes #N`` (and fix/close/resolve in any form), "follow-up to #N" and, in a title only, any
  other ``#N`` refer to pull request N; ``owner/repo#N`` and GitHub issue and pull request URLs
  too. A reference resolves to the stored commit of that pull request; otherwise it stays a
  (repository, number) the page can link to GitHub. The title of a revert is quoted text and is
  not read for references.
- A numbered series is one per (repository, ``series_part`` key).

``relate`` runs at every site build over the whole store, so it is linear in the text it reads:
a message is read up to ``SCAN_LIMIT`` characters, and templates are stripped only from messages
that hold a reference at all.

The modules, from the bottom up:

- ``relation``: one relation (``Relation``, ``RelationKind``) and what relating reads of a
  commit (``CommitHeader``).
- ``references``: pull request and issue references in a title or message (``#N``,
  ``owner/repo#N``, GitHub URLs) and whether they fix, follow up or mention.
- ``commit_index``: the store's commits looked up by sha prefix, pull request and title.
- ``reverts``: what a revert says it reverts, which commit that is, and which reverts stand.
- ``links``: what a commit's message says of others, before any lookup (``CommitLinks``).
- ``series``: numbered series, from a title's part marker to the store's ``Series``.
- ``relate``: ``relate`` and its answer, ``Relations``.
"""
