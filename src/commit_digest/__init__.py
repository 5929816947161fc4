"""commit-digest: a daily, analysed, searchable digest of a repository's commits."""

__version__ = "0.1.0"
