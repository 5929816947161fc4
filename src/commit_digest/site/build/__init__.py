"""The build machinery: writing what the views make, reusing what did not change.

``incremental`` is the manifest a build leaves for the next and what may be reused from it,
``output`` writes the search index (its partitions in worker processes), the sitemap and the
status, ``frame`` fills the theme's frame around a generated page, ``status`` is what the
footers show. The worker pool (``site.parallel``) and the digests (``site.fingerprint``) sit
beside the sub-packages: the read model uses them too.
"""
