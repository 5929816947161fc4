"""Static, sharded n-gram search for the digest site: built at ``mkdocs build`` time, queried by a
small browser client (``assets/digest-search.js``) that downloads only the shards a query needs.
Imports nothing from MkDocs.

``documents`` makes each commit a search document (``model``); ``tokens`` cuts text into grams and
``query`` a query into terms; ``index`` writes the partitions, their shards (``shards``) and Bloom
filters (``bloom``), the global title index (``titles``) and the manifest; ``reader`` is the
client's matching in Python; ``page`` is the search page and its static files."""

from commit_digest.search.documents import search_documents, search_names, search_text
from commit_digest.search.index import SearchNames, search_files
from commit_digest.search.model import SearchDocument

__all__ = ["SearchDocument", "SearchNames", "search_documents", "search_files", "search_names", "search_text"]
