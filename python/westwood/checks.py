"""Checking the numbers the public API takes (``seed``, ``seeds``, ``jobs``).

Python lets through what these must not accept: ``True`` is an int (so ``seed=True`` would
silently run seed 1) and a string of digits fails deep inside with a bare ``TypeError``
(``'<' not supported between 'str' and 'int'``). These checks reject both with a message that
names the argument and what it takes.
"""

from __future__ import annotations

import operator

from .errors import UsageError

TYPE_CHECKING = False  # typing is not imported at run time: `westwood run` imports this module
if TYPE_CHECKING:
    from typing import Any

# How much of a rejected value a message quotes: enough to recognise it, never a whole file.
QUOTED_CHARS = 60


def describe(value: Any) -> str:
    """``str '2'``, ``bool True``: the type and a short repr of a rejected value."""
    text = repr(value)
    if len(text) > QUOTED_CHARS:
        text = text[:QUOTED_CHARS] + "…"
    return f"{type(value).__name__} {text}"


def integer(value: Any, name: str) -> int:
    """``value`` as an int: ints and numpy integers are; bools, floats and strings are not
    (TypeError), since each of them is more likely a mistake than a number meant."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, not {describe(value)}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {describe(value)}") from None


def count(value: Any, name: str) -> int:
    """A positive integer such as ``seeds`` or ``jobs``: TypeError as ``integer``, ValueError
    (a ``UsageError``, reported by the CLI as bad input) below 1."""
    number = integer(value, name)
    if number < 1:
        raise UsageError(f"{name} must be at least 1, not {number}")
    return number
