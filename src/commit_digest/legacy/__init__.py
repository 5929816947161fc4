"""Importing the legacy script's daily Markdown reports: parse (text → structure), vocabulary and
mapping (structure → Analysis), importer (files → records → store), reconcile (placeholders →
real commits)."""
