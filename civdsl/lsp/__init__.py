"""`civdsl lsp`: a language server for rulebooks (Language Server Protocol over stdio, pygls).

What an editor gets:

- diagnostics on open and on every change: the same codes, messages and spans as `civdsl check`,
  for any rulebook including house rules (the open buffer is checked; its `extends` chain is read
  from disk, as `check` reads it);
- hover on an advance, calamity, commodity, group, A.S.T. track or epoch name: a one-line summary
  generated from the resolved rules (never the rulebook's prose) and where it is declared across the
  extends chain; on an effect kind, ability, function or player fact: its signature and doc;
- go to definition and find references for every name the index of references knows (advances,
  calamities, commodities, civilizations, groups, constants, tables, options, tracks, epochs,
  editions, and the round rules' stats, flags, choices, thresholds, dice pools, tracks, event
  tables, deck, phases and suit colours), across the extends chain: `civdsl.references`, the index
  the validator uses too; hover on a round name is `civdsl.roundexplain`'s line on it;
- completion of advance, calamity and commodity names inside quotes, of effect kinds, abilities,
  groups, keywords and the other names of the vocabulary: the keywords are the terminals the
  grammar accepts at the cursor (Lark's interactive parser), the names come from the index and the
  resolved rulebook, the kinds from `civdsl.vocabulary`: nothing is listed twice;
- rename of an advance, calamity, commodity, civilization, epoch, group, constant, table, option,
  track or round name: its declarations and uses across the chain, from the same index;
- document formatting through `civdsl.fmt` and an outline (document symbols).

The package, one job a module, each importing only those above it in this list:

- `tokens`: the grammar's lexer line by line, statement starts, enclosing blocks;
- `files`: a file of the chain as the editor sees it (lines, offsets, tokens, symbols);
- `incremental`: the parse of a buffer again and again, reusing each unchanged statement's;
- `splice`: the resolved edition after an edit of advances, calamities or commodities, made
  from the last one;
- `engine`: documents, their extends chains and analyses (no pygls: the benchmark and tests
  drive it directly as well as over a pipe), and where each diagnostic is shown;
- `navigation`, `hover`, `completion`, `outline`: the features, as plain data;
- `protocol`: positions in the client's units and the stdio message loop;
- `server`: the pygls server, wiring requests to the features and scheduling analyses.

Speed (docs/editors.md, "How fast"): a buffer's lines, tokens and statements are kept from edit
to edit and found again only around the change; each statement is parsed on its own and cached
by its text, a statement that moved keeps its parse with its spans shifted, and any statement
that fails to parse on its own sends the buffer through `parser.parse`, so syntax errors are
reported exactly as `check` reports them. An edit of advances, calamities or commodities that
keeps their names is resolved and indexed from the last analysis (`splice`,
`references.Index.after_edit`). The chain's bases are parsed once per change on disk.
An edit is analysed as soon as no message of the editor is waiting.
"""

from .completion import Completion, completions
from .engine import Analysis, Document, Engine, diagnostic_range, diagnostics_by_file, uri_to_path
from .files import FileInfo, Symbol
from .hover import hover_text
from .incremental import IncrementalParser
from .navigation import definitions, references, rename_edits, target_at
from .outline import format_document, outline
from .server import Session, build_server, warm_up
from .tokens import Tok, tokenize

__all__ = ["Analysis", "Completion", "Document", "Engine", "FileInfo", "IncrementalParser", "Symbol",
           "Tok", "build_server", "completions", "definitions", "diagnostic_range", "diagnostics_by_file",
           "format_document", "hover_text", "outline", "references", "rename_edits", "Session", "target_at", "tokenize",
           "uri_to_path", "warm_up"]
