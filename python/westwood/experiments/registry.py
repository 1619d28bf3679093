"""Every experiment ``westwood reproduce`` knows: those the paper modules define
(``westwood.papers``), by id, in the papers' order."""

from __future__ import annotations

from typing import Dict, List, Sequence

from .. import papers
from ..errors import UsageError
from .base import ExperimentKind


def _collect() -> Dict[str, ExperimentKind]:
    found: Dict[str, ExperimentKind] = {}
    for experiment in papers.experiments():
        if experiment.id in found:
            raise RuntimeError(f"experiment id {experiment.id!r} registered twice")
        found[experiment.id] = experiment
    return found


EXPERIMENTS: Dict[str, ExperimentKind] = _collect()


def get(ids: Sequence[str], quick: bool = False) -> List[ExperimentKind]:
    """The experiments named; without ``ids``, all of them in registry order, or with ``quick``
    only the headline ones (the README's main job must stay short)."""
    if not ids:
        return [e for e in EXPERIMENTS.values() if e.headline or not quick]
    unknown = [i for i in ids if i not in EXPERIMENTS]
    if unknown:
        known = ", ".join(EXPERIMENTS)
        raise UsageError(f"unknown experiment {', '.join(unknown)} (known: {known})")
    seen: List[ExperimentKind] = []
    for i in ids:
        if EXPERIMENTS[i] not in seen:
            seen.append(EXPERIMENTS[i])
    return seen
