"""`python -m westwood ...` is the `westwood` command."""

from .launch import main

raise SystemExit(main())
