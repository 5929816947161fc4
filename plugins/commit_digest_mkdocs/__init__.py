"""MkDocs adapter of commit-digest: the only code that imports MkDocs."""
