"""The views: each turns the read model into pages (with the digest of their inputs, for the
incremental build) and files, through ``base.View``'s two methods. One module per view — home,
days, commits, archive, weeks, impact, releases, series, feeds (with the subscribe page), labels
— importing the model and the rendering helpers, never another view; ``registry.VIEWS`` lists
them, and ``registry.SiteViews`` is what a site generator drives.
"""
