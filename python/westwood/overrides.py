"""Scenario overrides: ``KEY=VALUE`` text, dicts and lists of pairs, all as ``[(str, str)]``."""

from __future__ import annotations

from typing import Iterable, List, Mapping, Optional, Tuple, Union

from .errors import UsageError

Pairs = List[Tuple[str, str]]
OverridesLike = Union[None, Mapping[str, object], Iterable[Tuple[str, object]]]


class OverrideError(UsageError):
    """A malformed ``--set`` assignment."""


def parse_assignment(text: str) -> Tuple[str, str]:
    """``"loss=1%"`` -> ``("loss", "1%")``; OverrideError when there is no ``=`` or no key."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise OverrideError(f"--set {text!r}: expected KEY=VALUE (for example --set loss=1%)")
    return key, value.strip()


def parse_assignments(texts: Optional[Iterable[str]]) -> Pairs:
    return [parse_assignment(t) for t in (texts or [])]


def normalize(overrides: OverridesLike) -> Pairs:
    """A dict or an iterable of (key, value) pairs as a list of string pairs (values via str())."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    pairs: Pairs = []
    for item in items:
        try:
            key, value = item
        except (TypeError, ValueError):
            raise OverrideError(f"override {item!r}: expected a (key, value) pair") from None
        pairs.append((str(key), str(value)))
    return pairs


def merge(*groups: OverridesLike) -> Pairs:
    """Later groups win; the result keeps the first position of each key."""
    merged: dict = {}
    for group in groups:
        for key, value in normalize(group):
            merged[key] = value
    return list(merged.items())
