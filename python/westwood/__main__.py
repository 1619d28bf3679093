"""`python -m westwood ...` is the `westwood` command."""

from .cli import main

raise SystemExit(main())
