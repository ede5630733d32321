"""Parse-only check of a rulebook (a stop-gap for authors until `civdsl check` covers a file)."""
import sys
from pathlib import Path

import lark

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from civdsl.resources import grammar_text  # noqa: E402  (the main grammar with its composed parts)

parser = lark.Lark(grammar_text(), parser="lalr", strict=True, propagate_positions=True)
for name in sys.argv[1:]:
    try:
        parser.parse(Path(name).read_text(encoding="utf-8"))
        print(f"{name}: parses")
    except lark.exceptions.UnexpectedInput as exc:
        print(f"{name}:{exc.line}:{exc.column}: syntax error\n{exc.get_context(Path(name).read_text())}")
        sys.exit(1)
