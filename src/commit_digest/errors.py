"""Domain errors. Each adapter converts its library's errors into one of these, once,
with a message that names what was wrong and where; the CLI and the MkDocs plugin turn
them into an exit code or a PluginError."""


class CommitDigestError(Exception):
    """Base of every error this package raises on purpose."""


class StoreError(CommitDigestError):
    """The store could not be opened, read or written, or holds data that does not validate."""


class InputError(CommitDigestError):
    """A file, line or option given by the user is not what it should be."""


class TaxonomyError(CommitDigestError):
    """The taxonomy (built in or overridden) is malformed."""
