"""Executing runs: the store of runs and their keys (``store.py``), where they execute
(``executors.py``: local processes or Dask), and the engine that plans what is missing and
drives it (``runner.py``). ``westwood sweep`` and ``westwood reproduce`` share all three.

(``runs``, not ``run``: ``westwood.run`` is the function that runs one scenario.)"""
