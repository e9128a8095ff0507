"""The `slow` marker: full-size targets (`make test-all` runs them; `make test` runs `-m "not slow"`)."""


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: full-size targets of issue 11")
