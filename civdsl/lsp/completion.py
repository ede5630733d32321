"""Completion: keywords are the terminals the grammar accepts at the cursor (Lark's interactive
parser), names come from the index of references and the resolved rulebook, the words of the
language from `civdsl.vocabulary`: nothing is listed twice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from .. import parser, roundexplain
from .. import fields as item_fields
from .. import vocabulary as vocab
from ..references import ERRATA_TARGETS, NAMING_CALLS, Index
from .engine import Analysis
from .files import FileInfo
from .hover import advance_summary, call_signature, signature
from .incremental import PREFIX
from .tokens import Tok, block_opener, split_statements


@dataclass
class Completion:
    label: str
    kind: str  # keyword, effect, ability, function, fact, name, group, advance, calamity, commodity, value, edition
    detail: str | None = None
    doc: str | None = None
    insert: str | None = None
    replace: tuple[int, int] | None = None  # offsets in the document replaced by `insert`


# What a string names, by the word before it (or before the list `"A", "B", ` it ends): an item
# kind's own keyword (`change advance "`), a field whose value names an advance (fields.ITEM_FIELDS
# `references`), a call whose argument names an item (references.py), an errata's target.
_STRING_NAMES = {**{k: k for k in ERRATA_TARGETS},
                 **{f.word: f.references for fs in item_fields.ITEM_FIELDS.values() for f in fs
                    if f.references == "advance"}}


def string_context(toks: list[Tok], i: int) -> str | None:
    """What the string token at index i names, from the tokens before it."""
    j = _before_strings(toks, i - 1)
    if j < 0:
        return None
    prev, before = toks[j], toks[j - 1].text if j >= 1 else ""
    if prev.text == "(":
        return NAMING_CALLS.get(before)
    if prev.kind == "code":
        return "item" if before == "errata" else None
    return _STRING_NAMES.get(prev.text) if prev.kind == "kw" else None


def _before_strings(toks: list[Tok], j: int) -> int:
    """The token before a list `"A", "B", ` ending at token j (j itself when there is none)."""
    while j >= 1 and toks[j].text == "," and toks[j - 1].kind == "string":
        j -= 2
    return j


def _pool(edition, kind: str) -> dict:
    if edition is None:
        return {}
    return {"advance": edition.advances, "calamity": edition.calamities, "commodity": edition.commodities,
            "group": edition.groups, "option": edition.options}.get(kind, {})


def _known_names(analysis: Analysis, kind: str) -> dict[str, str | None]:
    """Declared names of a kind across the chain (the index of references, and the resolved
    rulebook), less those a house rule removed, with a detail line."""
    edition = analysis.edition or analysis.last_edition
    names: dict[str, str | None] = {}
    for k in (ERRATA_TARGETS if kind == "item" else (kind,)):
        for name, detail in _names_of_kind(analysis.refs(), edition, k).items():
            names.setdefault(name, detail)
    return names


def _names_of_kind(index: Index, edition, kind: str) -> dict[str, str]:
    """The names of one kind the chain declares and the rulebook still holds, with a detail line
    (without a resolved rulebook: every name declared)."""
    pool = _pool(edition, kind)
    removed = {r.name for r in index.of_kind(kind, role="remove")} if edition is not None else set()
    return {name: _detail(kind, pool.get(name), edition) for name in index.names(kind) | set(pool)
            if name in pool or name not in removed}


def _detail(kind: str, obj, edition) -> str:
    """The detail line of a completed name: an advance's summary, a calamity's stack and class."""
    say = _DETAILS.get(kind)
    return say(obj, edition) if obj is not None and say is not None else kind


def _advance_detail(adv, edition) -> str:
    return f"advance: {advance_summary(adv, edition)}"


def _calamity_detail(cal, edition) -> str:
    return f"calamity: {', '.join(x for x in (f'stack {cal.stack}', cal.klass) if x)}"


_DETAILS = {"advance": _advance_detail, "calamity": _calamity_detail}


def _effect_word(word: str) -> Completion:
    k = vocab.EFFECT_KINDS[word]
    return Completion(word, "effect", signature(k), k.doc)


def _ability_word(word: str) -> Completion:
    k = vocab.ABILITY_KINDS[word]
    return Completion(word, "ability", signature(k), k.doc)


def _function_word(word: str) -> Completion:
    f = vocab.FUNCTIONS[word]
    return Completion(word, "function", call_signature(f), f.doc)


def _fact_word(word: str) -> Completion:
    """A player fact, or a name derived from the facts."""
    f = vocab.FACTS.get(word)
    if f is None:
        return Completion(word, "fact", "derived name", vocab.DERIVED_NAMES.get(word))
    return Completion(word, "fact", f"player fact ({f.type})", f.doc)


# How each kind of word of the vocabulary is offered: its signature or type, and its doc.
_WORD_COMPLETIONS = {"effect": _effect_word, "ability": _ability_word, "function": _function_word, "fact": _fact_word}


def _vocab_completions(words: Iterable[str], kind: str) -> list[Completion]:
    return [_WORD_COMPLETIONS[kind](w) for w in words]


# The field words whose values name a group (`groups`, `credits`): from fields.ITEM_FIELDS.
_GROUP_FIELDS = frozenset(f.word for fs in item_fields.ITEM_FIELDS.values() for f in fs if f.references == "group")
_EFFECT_WORDS = ("add", "prevent", "set", "cap", "replace", "with")  # an effect kind comes next
_DECLARING = ("group", "ast", "const", "table", "option", "edition")  # a new name comes next


def _groups(analysis: Analysis) -> list[Completion]:
    return [Completion(g, "group") for g in sorted(_known_names(analysis, "group"))]


def _round_names(*kinds: str) -> Callable[[Analysis], list[Completion]]:
    """The names of these kinds the round rules declare (the index of references), in words."""
    def names(analysis: Analysis) -> list[Completion]:
        index = analysis.refs()
        return [Completion(n, "name", roundexplain.KIND_WORDS[k]) for k in kinds for n in sorted(index.names(k))]
    return names


# The round rules' names an expression reads (dice pools and event tables are rolled, not read).
_ROUND_VALUES = _round_names("stat", "flag", "choice", "threshold", "round_track")


def _editions(analysis: Analysis) -> list[Completion]:
    from ..resources import shipped_rulebooks

    return [Completion(e, "edition") for e in shipped_rulebooks()]


# Where the grammar accepts a name, the word before it says which names: {word: completions}.
_AFTER_KEYWORD: dict[str, Callable[[Analysis], list[Completion]]] = {
    "ability": lambda a: _vocab_completions(vocab.ABILITY_KINDS, "ability"),
    **{w: (lambda a: _vocab_completions(vocab.EFFECT_KINDS, "effect")) for w in _EFFECT_WORDS},
    **{w: _groups for w in _GROUP_FIELDS},
    "beneficiary": lambda a: [Completion(b, "value", d) for b, d in vocab.BENEFICIARIES.items()],
    "policy": lambda a: [Completion(b, "value", d) for b, d in vocab.CREDIT_POLICIES.items()],
    "exclude": lambda a: [Completion(r, "value") for r in vocab.EXCLUDE_ROLES] + [Completion("when", "keyword")],
    "extends": _editions,
    **{w: (lambda a: []) for w in _DECLARING},
}
# A round statement's target (rounds/grammar.lark), by its keyword: inside the round rules `set`
# and `add` name a stat, flag or track (elsewhere an effect kind follows them).
_ROUND_TARGETS: dict[str, Callable[[Analysis], list[Completion]]] = {
    "set": _round_names("stat", "flag", "round_track"), "add": _round_names("stat"),
    "roll": _round_names("pool", "event_table"), "move": _round_names("round_track"),
    "reset": _round_names("round_track", "stat", "flag")}
# The top-level statements that hold round statements.
_ROUND_BLOCKS = frozenset({"phase", "setup", "threshold", "track", "event_table"})
# After `key =` in a call: the values that parameter takes.
_AFTER_EQUALS: dict[str, Callable[[Analysis], list[Completion]]] = {
    "group": _groups,
    "color": _round_names("color"),
    "roll x =": _round_names("pool"),
    "area": lambda a: [Completion(x, "value") for x in vocab.AREAS],
    "chooser": lambda a: [Completion(x, "value") for x in vocab.CHOOSERS],
    "to": lambda a: [Completion(x, "value") for x in vocab.EFFECT_KINDS["give_cards"].param("to").choices],
}


def completions(analysis: Analysis, offset: int) -> list[Completion]:
    """What may be written at the cursor: keywords are the terminals the grammar accepts there
    (Lark's interactive parser, run over the statement up to the cursor), names come from the
    index of references and the resolved rulebook, words of the vocabulary from vocabulary.py."""
    doc = analysis.doc
    i, tok = doc.token_at(offset)
    if _in_string(tok, offset):
        return _string_completions(analysis, i, tok, offset)
    prev_i, cut = _before_word(doc, i, tok, offset)
    named = _names_after(analysis, doc.tokens, prev_i)
    if named is not None:
        return named
    accepted = _acceptable(doc, prev_i, cut)
    if accepted is None:  # the statement does not parse up to here: everything that could be meant
        return _everything(analysis)
    return _from_grammar(analysis, doc.tokens, prev_i, accepted)


def _in_string(tok: Tok | None, offset: int) -> bool:
    """Whether the cursor is inside a string: after its opening quote, before its closing one."""
    return tok is not None and tok.kind in ("string", "ustring") and tok.start < offset and (
        tok.kind == "ustring" or offset < tok.end)


def _string_completions(analysis: Analysis, i: int, tok: Tok, offset: int) -> list[Completion]:
    what = string_context(analysis.doc.tokens, i)
    if what is None:
        return []
    closed = tok.kind == "string"
    replace = (tok.start + 1, tok.end - 1 if closed else max(offset, tok.end))
    return [Completion(name, what if what != "item" else "advance", detail, None,
                       name.replace("\\", "\\\\").replace('"', '\\"') + ("" if closed else '"'), replace)
            for name, detail in sorted(_known_names(analysis, what).items())]


def _before_word(doc: FileInfo, i: int | None, tok: Tok | None, offset: int) -> tuple[int, int]:
    """(the token before the word being written at the cursor, where that word starts): the word
    is the name or keyword the cursor is in or at the end of, else nothing yet."""
    if tok is not None and tok.kind in ("name", "kw") and tok.start < offset <= tok.end:
        return i - 1, tok.start
    return _token_before(doc, i, tok, offset), offset


def _token_before(doc: FileInfo, i: int | None, tok: Tok | None, offset: int) -> int:
    import bisect

    if tok is not None and tok.end <= offset:
        return i
    return bisect.bisect_left([t.start for t in doc.tokens], offset) - 1


def _names_after(analysis: Analysis, toks: list[Tok], prev_i: int) -> list[Completion] | None:
    """The names a word before the cursor calls for (the grammar says only "a name" there)."""
    names = _names_called_for(toks, prev_i) if prev_i >= 0 else None
    return names(analysis) if names is not None else None


def _names_called_for(toks: list[Tok], j: int) -> Callable[[Analysis], list[Completion]] | None:
    """What lists the names token j calls for: a keyword (_keyword_names), the comma of a list
    of groups (`groups a, b`, `credits a 5, b 10`), the `=` of a parameter or of a roll's result."""
    prev = toks[j]
    if prev.kind == "kw":
        return _keyword_names(toks, j)
    if prev.text == ",":
        return _groups if _list_head(toks, j) in _GROUP_FIELDS else None
    return _AFTER_EQUALS.get(_assigned(toks, j)) if prev.text == "=" else None


def _keyword_names(toks: list[Tok], j: int) -> Callable[[Analysis], list[Completion]] | None:
    """What a keyword calls for: inside the round rules a statement's target, else _AFTER_KEYWORD's."""
    word = toks[j].text
    if word in _ROUND_TARGETS and _in_round_rules(toks, j):
        return _ROUND_TARGETS[word]
    return _AFTER_KEYWORD.get(word)


def _in_round_rules(toks: list[Tok], i: int) -> bool:
    """Whether token i stands in a top-level statement of the round rules (a phase, the setup, a
    threshold, a track or an event table)."""
    start = max((m for m in split_statements(toks) if m <= i), default=0)
    return toks[start].text in _ROUND_BLOCKS


def _assigned(toks: list[Tok], j: int) -> str:
    """What the `=` at token j gives a value to: a call's parameter (`group=`), or the result of a
    roll (`roll x =`, which a dice pool's name follows)."""
    if j >= 2 and toks[j - 2].kind == "kw" and toks[j - 2].text == "roll":
        return "roll x ="
    return toks[j - 1].text if j >= 1 else ""


def _list_head(toks: list[Tok], j: int) -> str | None:
    """The keyword a comma-separated list of names and numbers ending at token j follows."""
    while j >= 0 and (toks[j].kind in ("name", "int") or toks[j].text == ","):
        j -= 1
    return toks[j].text if j >= 0 and toks[j].kind == "kw" else None


def _acceptable(doc: FileInfo, prev_i: int, cut: int) -> set[str] | None:
    """The grammar's terminals acceptable at `cut`, from Lark's interactive parser run over the
    top-level statement the cursor is in (under a header, as the incremental parser parses it),
    or None when that text does not parse."""
    from lark.exceptions import LarkError

    marks = split_statements(doc.tokens)
    start = max((m for m in marks if m <= prev_i), default=0)
    head = doc.tokens[start].start if start > 0 else 0
    text = (PREFIX + "\n" if start > 0 else "") + doc.text[head:cut]
    try:
        interactive = parser.lark_parser().parse_interactive(text)
        interactive.exhaust_lexer()
        return set(interactive.accepts())
    except LarkError:
        return None


def _from_grammar(analysis: Analysis, toks: list[Tok], prev_i: int, accepted: set[str]) -> list[Completion]:
    if accepted == {"NAME"} and prev_i >= 0 and toks[prev_i].text == "when":
        # where the grammar takes a bare name after `when` (`vp tiers when`, `block ID when`, an
        # `amounts` setting's `when`) that name is a rule option's; elsewhere a condition follows
        return _options(analysis)
    keywords = parser.keyword_terminals()
    words = {keywords[t] for t in accepted if t in keywords}
    kind = _fields_kind(words)
    if kind is not None:
        return _field_completions(kind, words)
    out = [Completion(w, "keyword") for w in sorted(words)]
    if "NAME" in accepted:
        out += _names_here(analysis, toks, prev_i)
    return out


def _options(analysis: Analysis) -> list[Completion]:
    """The rule options the chain declares, with their text."""
    edition = analysis.edition or analysis.last_edition
    declared = edition.options if edition is not None else {}
    return [Completion(name, "name", "rule option", getattr(declared.get(name), "doc", None))
            for name in sorted(_known_names(analysis, "option"))]


def _field_completions(kind: str, words: set[str]) -> list[Completion]:
    """A field of an item comes next: the kind's fields the grammar accepts, with their meaning
    (fields.py)."""
    return [Completion(f.word, "keyword", f.words, f.doc) for f in item_fields.ITEM_FIELDS[kind] if f.word in words]


def _fields_kind(words: set[str]) -> str | None:
    """The item kind all of whose fields (but those only a `change` gives) the words include."""
    kinds = [k for k, fs in item_fields.ITEM_FIELDS.items() if {f.word for f in fs if not f.change_only} <= words]
    return max(kinds, key=lambda k: len(item_fields.ITEM_FIELDS[k]), default=None)


def _names_here(analysis: Analysis, toks: list[Tok], prev_i: int) -> list[Completion]:
    """Where the grammar accepts a name: an effect kind inside an effect block, else a name an
    expression may read."""
    opener = [t.text for t in block_opener(toks, prev_i + 1) if t.kind == "kw"]
    if opener and opener[0] in ("primary", "secondary", "if", "else") and toks[prev_i].text not in ("if", "when"):
        return _vocab_completions(vocab.EFFECT_KINDS, "effect")
    return _expression_names(analysis)


def _expression_names(analysis: Analysis) -> list[Completion]:
    out = _vocab_completions(vocab.FUNCTIONS, "function")
    out += _vocab_completions(list(vocab.FACTS) + list(vocab.DERIVED_NAMES), "fact")
    edition = analysis.edition or analysis.last_edition
    if edition is not None:
        out += [Completion(name, "name", "constant", c.doc) for name, c in edition.consts.items()]
        out += [Completion(name, "function", "table", t.doc) for name, t in edition.tables.items()]
        out += [Completion(name, "name", "option", o.doc) for name, o in edition.options.items()]
    return out + _ROUND_VALUES(analysis) + _groups(analysis)


def _everything(analysis: Analysis) -> list[Completion]:
    """Keywords, the vocabulary and the rulebook's own names, each once."""
    out = [Completion(k, "keyword") for k in parser.keywords()] + _vocab_completions(vocab.EFFECT_KINDS, "effect")
    seen: set[str] = set()
    return [c for c in out + _expression_names(analysis) if not (c.label in seen or seen.add(c.label))]
