#!/usr/bin/env python3
"""Run civdsl from a checkout without installing it: `python cli.py check`."""

from civdsl.cli import main

if __name__ == "__main__":
    main()
