"""Real servers the test suite starts on 127.0.0.1 in place of remote services.

Import as ``from fakes.github_server import FakeGithubServer``: a test directory with an
``__init__.py`` (like tests/sources) puts tests/ on sys.path under pytest's default import mode.
"""
