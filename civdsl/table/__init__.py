"""Every player at one table, for the calamity phase (`civdsl table`, the game ledger's
calamity step).

- `tablefile.py`: the table file (YAML: the players, who borders whom, this turn's calamities)
  read and checked by hand, with its schema;
- `seating.py`: the table's players, ranks and borders, and the seat one player takes for one
  calamity;
- `resolving.py`: each calamity of the phase by the rulebook's declared limits, order and
  beneficiary rules (the game ledger's calamity step resolves through it too);
- `calamity_phase.py`: the calamity phase of a table file and its answer.
"""

from .calamity_phase import resolve_phase
from .tablefile import load_table, table_schema

__all__ = ["load_table", "resolve_phase", "table_schema"]
