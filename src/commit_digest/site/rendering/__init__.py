"""The rendering helpers every view shares: untrusted text in, escaped HTML out.

``render`` runs the Jinja templates (``templates/``) with the language's words (``i18n``, from
``words/<language>.yml``); ``escape``, ``markdown_body`` and ``sanitize`` are the one path commit
text, author names and LLM output take to a page; ``naming``, ``fragments`` and ``meaning`` build
the repeated pieces, ``context.SiteContext`` is what a page's template sees. Charts, the feed
catalogue, the commit view and the byte budgets are here too. Imports the model, never a view.
"""
