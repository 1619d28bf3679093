"""The seed papers' figures and tables as experiments, one module per paper.

Each paper module defines ``EXPERIMENTS``, a list of experiments of the kinds in
``westwood.experiments``; ``experiments()`` finds the modules of this package (those whose name
does not start with ``_``, in name order: seed000, seed001, ..., testbed) and collects their
experiments in that order. A new paper is a new module here; nothing else lists it. Importing
this package imports no paper: ``experiments()`` does.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module
from typing import Any, List


def experiments() -> List[Any]:
    found: List[Any] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "EXPERIMENTS", ()))
    return found
