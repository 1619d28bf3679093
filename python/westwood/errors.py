"""Errors the CLI reports as ``westwood: error: <message>`` (exit status 2)."""


class UsageError(ValueError):
    """Bad input from the user that is not a scenario problem (those are ScenarioError)."""
