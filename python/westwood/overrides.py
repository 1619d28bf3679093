"""Scenario overrides: ``KEY=VALUE`` text, dicts and lists of pairs, all as ``[(str, str)]``."""

from __future__ import annotations

from .checks import describe
from .errors import UsageError

# `westwood run` parses its --set assignments here on every start: typing is imported only by
# type checkers and by modules that ask for the aliases (PEP 562 below), not by a run.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, List, Mapping, Optional, Tuple, Union

    Pairs = List[Tuple[str, str]]
    OverridesLike = Union[None, str, Mapping[str, object], Iterable[Union[str, Tuple[str, object]]]]


def __getattr__(name: str):
    """The type aliases ``Pairs`` and ``OverridesLike``, built when first asked for."""
    if name not in ("Pairs", "OverridesLike"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Iterable, List, Mapping, Tuple, Union

    aliases = {
        "Pairs": List[Tuple[str, str]],
        "OverridesLike": Union[
            None, str, Mapping[str, object], Iterable[Union[str, Tuple[str, object]]]
        ],
    }
    globals().update(aliases)
    return aliases[name]


class OverrideError(UsageError):
    """A malformed ``--set`` assignment."""


def parse_assignment(text: str, where: str = "--set") -> Tuple[str, str]:
    """``"loss=1%"`` -> ``("loss", "1%")``; OverrideError when there is no ``=`` or no key.
    ``where`` names the input in the message (the CLI's ``--set``, the API's ``override``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        example = "--set loss=1%" if where == "--set" else "'loss=1%'"
        raise OverrideError(f"{where} {text!r}: expected KEY=VALUE (for example {example})")
    return key, value.strip()


def parse_assignments(texts: Optional[Iterable[str]]) -> Pairs:
    return [parse_assignment(t) for t in (texts or [])]


def normalize(overrides: OverridesLike) -> Pairs:
    """Overrides as the API takes them, as a list of string pairs (values via str()): a mapping,
    one ``"KEY=VALUE"`` string, or an iterable of (key, value) pairs and ``"KEY=VALUE"`` strings.

    A string is one assignment, never a sequence: iterating ``"loss=1%"`` would yield its
    characters (and a two-character string would even unpack as a pair)."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [parse_assignment(overrides, "override")]
    if isinstance(overrides, (list, tuple)):  # the command line's pairs: no abc import needed
        return [_pair(item) for item in overrides]
    from collections.abc import Iterable, Mapping

    if isinstance(overrides, Mapping):
        return [(str(key), str(value)) for key, value in overrides.items()]
    if isinstance(overrides, (bytes, bytearray)) or not isinstance(overrides, Iterable):
        raise TypeError(
            "overrides must be a mapping, a 'KEY=VALUE' string or a list of (key, value) "
            f"pairs, not {describe(overrides)}"
        )
    return [_pair(item) for item in overrides]


def _pair(item: object) -> Tuple[str, str]:
    """One item of a list of overrides: a ``"KEY=VALUE"`` string or a (key, value) pair."""
    if isinstance(item, str):
        return parse_assignment(item, "override")
    try:
        key, value = item  # type: ignore[misc]
    except (TypeError, ValueError):
        raise OverrideError(
            f"override {describe(item)}: expected a (key, value) pair or a 'KEY=VALUE' string"
        ) from None
    return str(key), str(value)


def merge(*groups: OverridesLike) -> Pairs:
    """Later groups win; the result keeps the first position of each key."""
    merged: dict = {}
    for group in groups:
        for key, value in normalize(group):
            merged[key] = value
    return list(merged.items())
