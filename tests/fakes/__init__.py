"""Real servers the test suite starts on 127.0.0.1 in place of remote services
(``tests.fakes.github_server``, ``tests.fakes.openai_server``)."""
