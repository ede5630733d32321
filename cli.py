#!/usr/bin/env python3
"""Run civdsl from a checkout without installing it: `python cli.py check`."""

import sys

try:
    from civdsl.cli import main
except ModuleNotFoundError as error:  # click itself missing: the group's own message cannot run
    if not error.name or error.name.split(".")[0] == "civdsl":
        raise
    sys.exit(f"error: civdsl needs the Python package `{error.name.split('.')[0]}`, which this interpreter "
             f"({sys.executable}) does not have: install civdsl with its dependencies (`pip install -e .`, "
             "see the README's Quick start)")

if __name__ == "__main__":
    main()
