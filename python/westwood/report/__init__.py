"""What results look like to a reader: result tables as plain columns (``tables.py``), figures
(``plots.py``; ``runplot.py`` for a run directory) and the HTML/Markdown index of a results
directory with each experiment's claims (``html.py``)."""
