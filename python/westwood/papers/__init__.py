"""The seed papers' figures and tables as experiments, one module per paper.

Each module defines ``EXPERIMENTS``, a list of ``westwood.experiments`` experiment objects; the
registry in ``westwood.experiments`` collects them in this order.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, List

MODULES = ("seed000", "seed001", "seed002", "seed003", "seed004", "testbed")


def experiments() -> List[Any]:
    found: List[Any] = []
    for name in MODULES:
        try:
            module = import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"{__name__}.{name}":
                continue  # that paper has no experiments yet
            raise
        found.extend(module.EXPERIMENTS)
    return found
