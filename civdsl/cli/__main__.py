"""`python -m civdsl.cli`: the command line without the installed `civdsl` script."""

from .main import main

main()
