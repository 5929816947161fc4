"""The analyse step: each stored commit becomes an Analysis, paid for once.

``offline_pass`` stores the rules' analyses (``meaning.offline``) with no model; ``llm_client``
is the only importer of openai, ``prompt``/``llm_schema`` are what is asked and what a reply must
be, ``runner`` and the ``*_pass`` modules claim, send and store; ``translation`` and
``narration`` word an analysis in a second language and a week's narrative per platform.
"""
