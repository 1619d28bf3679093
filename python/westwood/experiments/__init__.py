"""The paper experiments ``westwood reproduce`` runs, kept as data: what every kind shares
(``base.py``: the protocol, axes, series, metrics), one module per kind (``sweep``, ``trace``,
``window``, ``table``, ``testbed``), and the registry of the papers' experiments
(``registry.py``). Adding an experiment is adding it to its paper's module in
``westwood.papers``; the runner, the cache and the reports need no change."""
