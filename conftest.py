"""Root pytest configuration: shared fixtures live in tests/support/*, one concern per module."""

pytest_plugins = [
    "tests.support.services",
    "tests.support.llm",
    "tests.support.labelstudio",
]
