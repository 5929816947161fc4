"""What a commit means, read from the commit and the store by rules alone (no LLM, no network).

- ``taxonomy``: the platforms and subsystems a commit concerns, from rules that are data
  (``label_rules``, ``label_words`` and ``taxonomy_file`` beside it).
- ``impact``: what a commit changes for those who run the software (environment variables, CLI
  flags, engine arguments, dependencies, deprecations), read from its diff.
- ``relations``: how commits relate (reverts, fixes, follow-ups, mentions, numbered series).
- ``releases``: the first release that carries each commit.
- ``pr_template``: PR-template boilerplate, taken out of a message before anything reads it.
- ``vocabulary``: the names of change types and importance levels in each output language.
- ``offline``: a complete analysis of a commit without an LLM (its judgements in ``offline_rules``,
  its sentences in ``offline_words/<language>.yml``).
"""
