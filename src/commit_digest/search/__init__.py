"""Static, sharded n-gram search for the digest site: built at ``mkdocs build`` time, queried by a
small browser client (``assets/digest-search.js``) that downloads only the shards a query needs.
Imports nothing from MkDocs."""

from commit_digest.search.documents import search_documents, search_names, search_text
from commit_digest.search.index import SearchDocument, SearchNames, search_files

__all__ = ["SearchDocument", "SearchNames", "search_documents", "search_files", "search_names", "search_text"]
