"""Pass 3: syntax trees of an extends chain -> one resolved `Edition`.

Files are applied base first. Inside one file a second declaration of the same thing is an
error; in a later file of the chain it replaces the base's (that is how house rules work), and
`remove` / `change` edit single items. Only the shape of the data is settled here; whether the
data is right is the validator's job.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import functools

from . import fields as item_fields
from . import vocabulary as vocab
from .diagnostics import Diagnostics, Span, suggestion
from .expressions import EvalError, evaluate, unparse
from .references import advances_named
from .loader import LoadedFile
from .sublanguages import registered
from .applied_bases import APPLIED
from .model import (Citation, DeckLayer, TradeDeck, TurnStep, Ability, Advance, Assertion, Law, Overrule, Ruling, AstRow, AstTrack, Band, Calamity, Civilization, Commodity, Const,
                    Deck, Edition, Effect, EffectBranch, Epoch, Errata, Exclusion, Group, Modifier, Option,
                    Requirement, Score, ScoreLine, Secondary, SpecificCredit, StartCredits, Table)
from .syntax import Branch, Call, EffectCall, Field, Item, Name, Num, Neg, Str

# which block fields may appear only once per item
# fields an item may give once (fields.ITEM_FIELDS: not repeatable); a second is CIV021
_SINGLE = item_fields.single_keys()


class _NotConstant(EvalError):
    """A constant reads something other than constants (player facts): compiled, not folded."""


def resolve(chain: list[LoadedFile], diags: Diagnostics, memo: dict | None = None) -> Edition | None:
    """The chain's edition. `memo`, kept by a caller that resolves one buffer again and again (the
    language server), keeps each item declared whole with its model object (`_Applier._read`): an
    item whose syntax object is the same as last time, at the same place, is not read again."""
    if not chain:
        return None
    last = chain[-1].ast
    subs = registered()
    edition = Edition(id=last.edition, name=last.display_name, language=last.language, span=last.edition_span,
                      extensions={s.name: s.model() for s in subs})
    # a house rule's bases applied before in this process (the same syntax trees): start from a
    # copy of what they made, and apply only the files after them
    first = len(diags.items)  # where what applying the chain reports begins, the bases' replayed
    start, inherited = (0, {}) if memo is not None else APPLIED.start(chain, subs, edition, diags)
    edition.files = [f.display for f in chain]
    edition.bases = [f.ast.edition for f in chain[:-1]]
    read: dict | None = None if memo is None else {}
    for index, loaded in enumerate(chain[start:], start):
        _applier_class(subs)(edition, diags, is_extension=index > 0, memo=(memo, read)).apply(loaded.ast.items)
    if memo is not None:
        memo.clear()
        memo.update(read)
    else:
        APPLIED.keep(chain, subs, edition, diags.items[first:])
    _tier_vp(edition, inherited)
    if edition.credit_policy is None and edition.advances:
        diags.error("CIV022", "the rulebook declares advances but no `credit policy`", edition.span,
                    help="add `credit policy best_group` or `credit policy per_card`")
    return edition


# the items declared whole (`_Applier._whole_item`): each sets one entry of its collection, read
# from its own syntax alone
WHOLE_ITEMS = ("advance", "calamity", "commodity")

# nested citations searched for one by one before the starts of all statements are listed
_SEARCHES_UNLISTED = 32


def _start(item: Item) -> tuple[int, int]:
    return item.span.line, item.span.column


def _tier_vp(edition: Edition, inherited: dict[int, Advance]) -> None:
    """The victory points of each advance without a printed figure, as the tier rule gives them,
    and under each option's reading of the tiers where that differs (a printed figure is the
    card's under every reading; the validator checks it against the rule). An advance `inherited`
    from a base applied before (by id) is shared with that base's edition: it is copied, not
    edited, where this edition's tiers give it other figures."""
    for name, adv in edition.advances.items():
        if adv.vp_explicit:
            continue
        vp, vp_when = tier_figures(edition, adv)
        if inherited.get(id(adv)) is adv:
            if adv.vp == vp and adv.vp_when == vp_when:
                continue
            adv = edition.advances[name] = copy.copy(adv)
        adv.vp, adv.vp_when = vp, vp_when


def tier_figures(edition: Edition, adv: Advance) -> tuple[int | None, list[tuple[str, int]]]:
    """An advance's victory points as the edition's tier rule gives them, and the options whose
    reading of the tiers gives other figures (with theirs)."""
    vp = edition.tier_vp(adv.cost)
    return vp, [(option, when) for option, (tiers, _, _) in edition.vp_tiers_when.items()
                if (when := edition.tier_vp(adv.cost, tiers)) is not None and when != vp]


def citation_of(cited, at: Span, owner: Item) -> Citation:
    """The citation of a `cites` (`cited`, its value) placed at `at` in the statement `owner`."""
    # a house rule's `change calamity "X"` holds statements of the calamity X
    kind = owner.value if owner.kind == "change" else owner.kind
    return Citation(cited.clauses, cited.span, at, owner.span, kind, owner.name)


def applier(edition: Edition, diags: Diagnostics, is_extension: bool,
            memo: tuple[dict | None, dict | None] = (None, None)) -> "_Applier":
    """What applies one file's items to `edition` (`_Applier`, with the sub-languages' items)."""
    return _applier_class(registered())(edition, diags, is_extension, memo)


@functools.lru_cache(maxsize=4)
def _applier_class(subs: tuple) -> type:
    """The applier of the main language with each sub-language's items (its `applier` mixin)."""
    return type("_Applier", (*(s.applier for s in subs), _Applier), {}) if subs else _Applier


class _Applier:
    """Applies one file's items (`_item_<kind>`); a sub-language's items are applied by its mixin."""

    def __init__(self, edition: Edition, diags: Diagnostics, is_extension: bool,
                 memo: tuple[dict | None, dict | None] = (None, None)):
        self.ed = edition
        self.diags = diags
        self.is_extension = is_extension
        self.memo, self.read = memo  # the items read last time, and those read this time (`resolve`)
        self.seen: dict[tuple[str, str], Span] = {}  # declarations in this file
        # the top-level statements (`_cites`): the statements, each one's place among them, and
        # where each starts (listed once many citations need it) with the searches made before
        self._starts: list | None = None

    def _once(self, kind: str, name: str, span: Span, what: str) -> bool:
        key = (kind, name)
        if key in self.seen:
            self.diags.error("CIV020", f"{what} declared twice", span, item=name,
                             notes=[f"first declared at {self.seen[key]}"])
            return False
        self.seen[key] = span
        return True

    def apply(self, items: list[Item]) -> None:
        previous = None
        for item in items:
            if item.kind == "cites":
                self._cites(item, previous, items)
                continue
            getattr(self, f"_item_{item.kind}")(item)
            previous = item

    # --- the printed clauses
    def _cites(self, item: Item, previous: Item | None, items: list[Item]) -> None:
        """A `cites`: a top-level one (no target yet) cites the statement before it; a nested one the
        statement its target starts, inside the top-level statement that starts last before it."""
        cited = item.value
        if cited.target is None:
            if previous is None:
                self.diags.error("CIV160", "`cites` comes before any statement it could cite", item.span,
                                 help="write `cites` right after the statement that implements the clause")
                return
            owner, at = previous, previous.span
        else:
            if self._starts is None:  # the top-level statements in file order (nested citations come last)
                statements = [i for i in items if i.kind != "cites"]
                self._starts = [statements, {id(i): k for k, i in enumerate(statements)}, None, 0]
            statements, place, keys, searched = self._starts
            known = self._kept_citation(item, statements, place)
            if known is not None:
                self.ed.citations.append(known[3])
                if self.read is not None:
                    self.read[id(item)] = known
                return
            at = cited.target
            if keys is None and searched >= _SEARCHES_UNLISTED:
                keys = self._starts[2] = [_start(i) for i in statements]
            if keys is not None:
                index = bisect.bisect_right(keys, (at.line, at.column)) - 1
            else:
                # the few citations an edit leaves to find read where only the statements the
                # search visits start (a kept statement's line is computed from its anchor,
                # lsp.incremental.AnchoredSpan), not where every statement does
                self._starts[3] = searched + 1
                index = bisect.bisect_right(statements, (at.line, at.column), key=_start) - 1
            if index < 0:
                return
            owner = statements[index]
        citation = citation_of(cited, at, owner)
        self.ed.citations.append(citation)
        if self.read is not None and cited.target is not None:
            following = statements[index + 1] if index + 1 < len(statements) else None
            self.read[id(item)] = (item, owner, following, citation)

    def _kept_citation(self, item: Item, statements: list[Item], place: dict[int, int]) -> tuple | None:
        """A nested `cites` found last time (with a memo) in the same statement, whose owner is
        still followed by the same statement: its target lies between the two as before (a
        `cites` nested in a statement moves with it), so its citation is the same. None else."""
        known = self.memo.get(id(item)) if self.memo is not None else None
        if known is None or known[0] is not item:
            return None
        k = place.get(id(known[1]))
        if k is None or statements[k] is not known[1]:
            return None
        following = statements[k + 1] if k + 1 < len(statements) else None
        return known if following is known[2] else None

    def _item_clause(self, item: Item) -> None:
        self.ed.acknowledgements.append(item.value)

    # --- edition-wide
    def _item_source(self, item: Item) -> None:
        self.ed.source = item.value

    def _item_turn(self, item: Item) -> None:
        if self._once("turn", "", item.span, "the sequence of play (`turn`)"):
            self.ed.turn = [TurnStep(name, when, span, actions) for name, when, span, actions in item.value]
            self.ed.turn_title = item.name

    def _item_note(self, item: Item) -> None:
        self.ed.notes.append((item.value, item.span))

    def _item_const(self, item: Item) -> None:
        expr, doc = item.value
        if self._once("const", item.name, item.span, f"constant `{item.name}`"):
            const = Const(item.name, expr, doc, item.span)
            try:
                const.value = evaluate(expr, self._const_lookup)
            except _NotConstant:
                const.value = None  # reads player facts: compiled, not folded; checked by the validator
            except EvalError as exc:
                const.value = None
                self.diags.error("CIV043", f"constant `{item.name}` cannot be evaluated: {exc}", exc.span,
                                 item=item.name)
            self.ed.consts[item.name] = const

    def _const_lookup(self, name: Name):
        const = self.ed.consts.get(name.parts[0])
        if const is not None and const.value is not None:
            return const.value
        raise _NotConstant(f"`{name.dotted}` is not a constant", name.span)

    def _item_group(self, item: Item) -> None:
        v = item.value
        if self._once("group", item.name, item.span, f"group `{item.name}`"):
            self.ed.groups[item.name] = Group(item.name, v["name"], v.get("color"), v.get("symbol"), item.span)

    def _item_credit_policy(self, item: Item) -> None:
        if item.name not in vocab.CREDIT_POLICIES:
            self.diags.error("CIV019", f"unknown credit policy `{item.name}`", item.value,
                             help=suggestion(item.name, vocab.CREDIT_POLICIES)
                             or f"policies: {', '.join(vocab.CREDIT_POLICIES)}")
            return
        if self._once("policy", "credit", item.span, "the credit policy"):
            self.ed.credit_policy = item.name
            self.ed.credit_policy_span = item.span
            self.ed.credit_variants = []  # a redeclared policy replaces the base's variants too
            for f in item.fields:
                self._credit_variant(f)

    def _credit_variant(self, f: Field) -> None:
        """A variant of the credit policy, one the vocabulary knows, kept once."""
        if f.value not in vocab.CREDIT_VARIANTS:
            self.diags.error("CIV019", f"unknown credit policy variant `{f.value}`", f.span,
                             help=suggestion(f.value, vocab.CREDIT_VARIANTS)
                             or f"variants: {', '.join(vocab.CREDIT_VARIANTS)}")
        elif f.value not in self.ed.credit_variants:
            self.ed.credit_variants.append(f.value)

    def _item_amounts(self, item: Item) -> None:
        for setting in self._amount_settings(item.value):
            name, values, doc, span, option = setting
            if option is not None:
                if self._amount_when(self.ed, name, values, span, option) and doc:
                    self.ed.amounts_notes.append((name, doc, span))
                    self.ed.notes.append((doc, span))
                continue
            if self._once("amounts", name, span, f"`amounts {name}`"):
                self.ed.amounts[name] = values
                self.ed.amounts_spans[name] = span
                if doc:  # the reading chosen, shown with the edition's other notes
                    self.ed.amounts_notes.append((name, doc, span))
                    self.ed.notes.append((doc, span))

    def _item_resolution(self, item: Item) -> None:
        for name, values, doc, span, value_spans in self._resolution_settings(item.value, edition=True):
            if self._once("resolution", name, span, f"`resolution {name}`"):
                self.ed.resolution[name] = values
                self.ed.resolution_spans[name] = value_spans
                if doc:  # the reading chosen, shown with the edition's other notes
                    self.ed.notes.append((doc, span))

    def _resolution_settings(self, fields: list, edition: bool) -> list:
        """Checked `resolution` settings: (name, values, doc, span, value spans); problems are
        CIV085. A value naming a constant or a fact is checked by the validator, which knows every
        declaration."""
        out = []
        for name, values, doc, span, key_span, value_spans in fields:
            spec = vocab.RESOLUTION_SETTINGS.get(name)
            if spec is None or (not edition and not spec.per_calamity):
                self._misplaced_resolution_setting(name, spec, edition, key_span)
            elif self._resolution_values_fit(name, values, spec, value_spans):
                out.append((name, tuple(values), doc, span, tuple(value_spans)))
        return out

    def _misplaced_resolution_setting(self, name: str, spec, edition: bool, key_span: Span) -> None:
        """CIV085: a setting `resolution` does not have, or an edition-wide one inside a calamity."""
        known = [n for n, x in vocab.RESOLUTION_SETTINGS.items() if edition or x.per_calamity]
        if spec is None:
            self.diags.error("CIV085", f"unknown resolution setting `{name}`", key_span, help=suggestion(name, known))
        else:
            self.diags.error("CIV085", f"edition-wide resolution setting `{name}` inside a calamity", key_span,
                             help=f"a calamity may set: {', '.join(known)}")

    def _resolution_values_fit(self, name: str, values: list, spec, value_spans: list) -> bool:
        """Whether a resolution setting's values are ones it can take, as many as it takes, each
        once; CIV085 for the first that is not."""
        bad = [v for v in values if v not in spec.values] if isinstance(spec.values, tuple) else []
        if bad:
            self.diags.error("CIV085", f"`{name}` cannot be `{bad[0]}`", value_spans[values.index(bad[0])],
                             help=suggestion(bad[0], spec.values) or f"values: {', '.join(spec.values)}")
            return False
        if not spec.many and len(values) != 1:
            self.diags.error("CIV085", f"`{name}` takes one value", value_spans[0])
            return False
        if len(set(values)) != len(values):
            self.diags.error("CIV085", f"`{name}` lists a value twice", value_spans[0])
            return False
        return True

    def _amount_when(self, scope, name: str, values: tuple, span: Span, option: tuple) -> bool:
        """A setting that holds while a rule option is on: once per option and setting (CIV020);
        the validator checks that the option is declared (CIV080)."""
        option_name, option_span = option
        settings = scope.amounts_when.setdefault(option_name, {})
        if name in settings:
            self.diags.error("CIV020", f"`amounts {name} when {option_name}` declared twice", span)
            return False
        settings[name] = values
        scope.amounts_when_spans.setdefault(option_name, option_span)
        return True

    def _amount_settings(self, fields: list) -> list:
        """Checked `amounts` settings: (name, values, doc, span, (option, its span) or None);
        problems are CIV080."""
        out = []
        for name, values, doc, span, key_span, value_span, option in fields:
            spec = vocab.AMOUNT_SETTINGS.get(name)
            if spec is None:
                self.diags.error("CIV080", f"unknown amounts setting `{name}`", key_span,
                                 help=suggestion(name, vocab.AMOUNT_SETTINGS)
                                 or f"settings: {', '.join(vocab.AMOUNT_SETTINGS)}")
            elif self._amount_values_fit(name, values, spec[0], value_span):
                out.append((name, tuple(values), doc, span, option))
        return out

    def _amount_values_fit(self, name: str, values: list, allowed, value_span: Span) -> bool:
        """Whether an amounts setting's values are ones it can take (a constant's name: the
        validator checks it), `order` each of its words once, any other one value; CIV080 for
        the first problem."""
        bad = [] if allowed == "const" else [v for v in values if v not in allowed]
        if bad:
            self.diags.error("CIV080", f"`{name}` cannot be `{bad[0]}`", value_span,
                             help=suggestion(bad[0], allowed) or f"values: {', '.join(allowed)}")
            return False
        if name == "order" and not vocab.amount_order_fits(values):
            self.diags.error("CIV080", "`order` lists add and prevent (together as add_prevent, or apart), set and "
                             "cap each exactly once, and floor at most once", value_span)
            return False
        if name != "order" and len(values) != 1:
            self.diags.error("CIV080", f"`{name}` takes one value", value_span)
            return False
        return True

    def _item_scenario(self, item: Item) -> None:
        if self._once("scenario", item.name, item.span, f"scenario `{item.name}`"):
            self.ed.scenarios[item.name] = (item.value, item.span)

    def _item_ability(self, item: Item) -> None:
        call, doc = item.value
        self.ed.abilities.append((self._ability(call, self.ed.id), doc))

    def _item_start_credits(self, item: Item) -> None:
        if self._once("start_credits", "", item.span, "`start credits`"):
            v = item.value
            self.ed.start_credits = StartCredits(v["amount"], v["unless"], v["once"], v["doc"], item.span)

    def _item_vp_tiers(self, item: Item) -> None:
        if item.name is not None:  # `vp tiers when OPTION`
            if self._once("tiers", f"vp when {item.name}", item.span, f"vp tiers when {item.name}"):
                self.ed.vp_tiers_when[item.name] = ([(below, vp) for below, vp, _ in item.value], item.span,
                                                    item.name_span)
            return
        if self._once("tiers", "vp", item.span, "vp tiers"):
            self.ed.vp_tiers = [(below, vp) for below, vp, _ in item.value]
            self.ed.vp_tiers_span = item.span

    def _item_table(self, item: Item) -> None:
        if self._once("table", item.name, item.span, f"table `{item.name}`"):
            bands = [Band(lo, hi, expr, span) for lo, hi, expr, span in item.value["bands"]]
            self.ed.tables[item.name] = Table(item.name, item.value["doc"], bands, item.span)

    def _item_option(self, item: Item) -> None:
        if self._once("option", item.name, item.span, f"option `{item.name}`"):
            self.ed.options[item.name] = Option(item.name, item.value["doc"], item.value["on"], item.span)

    def _item_set_value_off_block(self, item: Item) -> None:
        if self._once("set_value_off_block", "", item.span, "set_value off_block"):
            self.ed.set_value_off_block = (item.value[0], item.value[1], item.span)

    def _item_set_value(self, item: Item) -> None:
        if self._once("set_value", "", item.span, "set_value"):
            self.ed.set_value = item.value

    def _item_deck(self, item: Item) -> None:
        stack, size = item.value
        if self._once("deck", str(stack), item.span, f"deck stack {stack}"):
            self.ed.decks[stack] = Deck(stack, size, item.span)

    def _item_setup_players(self, item: Item) -> None:
        low, high, doc = item.value
        if self._once("setup_players", item.name, item.span, f'setups "{item.name}" for'):
            self.ed.setup_players[item.name] = (low, high, doc, item.span)

    def _item_trade_deck(self, item: Item) -> None:
        v = item.value
        if not self._once("trade_deck", item.name, item.span, f"trade_deck \"{item.name}\""):
            return
        stacks: dict[int, list[DeckLayer]] = {}
        for number, layers, span in v["stacks"]:
            if number in stacks:
                self.diags.error("CIV020", f"stack {number} of trade_deck \"{item.name}\" declared twice", span,
                                 item=item.name)
                continue
            stacks[number] = [DeckLayer(layer["cards"], layer["clear"], layer["span"]) for layer in layers]
        low, high = v["players"]
        if high is not None and high < low:
            self.diags.error("CIV146", f"trade_deck \"{item.name}\" is for {low}..{high} players: the range is "
                             "empty", v["range_span"], item=item.name, help=f"write {high}..{low}")
        self.ed.trade_decks[item.name] = TradeDeck(item.name, low, high, v["block"], dict(sorted(stacks.items())),
                                                   item.span, v["notes"], v["block_span"])

    def _item_assert(self, item: Item) -> None:
        expr, message = item.value
        self.ed.asserts.append(Assertion(expr, message, item.span))

    def _item_ruling(self, item: Item) -> None:
        question, calls = item.value
        if self._once("ruling", item.name, item.span, f"ruling `{item.name}`"):
            self.ed.rulings[item.name] = Ruling(item.name, question, calls, item.span, item.name_span)

    def _item_overrules(self, item: Item) -> None:
        if self._once("overrules", item.name, item.span, f"overrules `{item.name}`"):
            self.ed.overrules[item.name] = Overrule(item.name, item.value, item.span, item.name_span)

    def _item_law(self, item: Item) -> None:
        text, calls = item.value
        if self._once("law", item.name, item.span, f"law `{item.name}`"):
            self.ed.laws[item.name] = Law(item.name, text, calls, item.span, item.name_span)

    def _item_drop_law(self, item: Item) -> None:
        if self._once("drop_law", item.name, item.span, f"drop law `{item.name}`"):
            self.ed.dropped_laws[item.name] = Overrule(item.name, item.value, item.span, item.name_span)

    def _item_errata(self, item: Item) -> None:
        target, reason, span = item.value
        if self._once("errata", f"{item.name}:{target}", item.span, f"errata {item.name} for `{target}`"):
            self.ed.errata.append(Errata(item.name, target, reason, item.span))

    def _item_score(self, item: Item) -> None:
        if not self._once("score", "", item.span, "score"):
            return
        score = Score([], [], item.span)
        for f in item.fields:
            if f.key == "points":
                score.points.append(ScoreLine(f.value[0], f.value[1], f.span))
            elif f.key == "tiebreak":
                score.tiebreaks.append(ScoreLine(f.value[0], f.value[1], f.span))
        self.ed.score = score

    def _item_ast(self, item: Item) -> None:
        if not self._once("ast", item.name, item.span, f"A.S.T. track `{item.name}`"):
            return
        track = AstTrack(item.name, item.value, [], [], [], item.span)
        names: dict[str, Span] = {}
        for f in item.fields:
            if f.key == "epoch":
                self._epoch(track, f, names)
            elif f.key == "backward":
                expr, except_ = f.value
                track.backward.append((expr, f.span))
                track.backward_except.extend(except_)
            elif f.key in ("spaces", "step_points"):
                if getattr(track, f.key) is not None:
                    self.diags.error("CIV021", f"`{f.key.replace('_', ' ')}` given twice for track `{item.name}`",
                                     f.span, item=item.name)
                setattr(track, f.key, f.value)
            elif f.key == "note":
                track.notes.append(f.value)
        self.ed.asts[item.name] = track

    def _epoch(self, track: AstTrack, f: Field, names: dict[str, Span]) -> None:
        """An epoch of an A.S.T. track, unless the track already has one of its name (CIV020)."""
        name, reqs = f.value
        if name in names:
            self.diags.error("CIV020", f"epoch `{name}` declared twice in track `{track.id}`", f.span,
                             item=name, notes=[f"first declared at {names[name]}"])
            return
        names[name] = f.span
        track.epochs.append(Epoch(name, [Requirement(e, why, s, each) for e, why, s, each in reqs], f.span))

    def _item_civilization(self, item: Item) -> None:
        if not self._once("civilization", item.name, item.span, f"civilization `{item.name}`"):
            return
        civ = Civilization(item.name, item.span)
        for f in item.fields:
            if f.key == "row":
                track, track_span, spaces, starts = f.value
                if track in civ.rows:
                    self.diags.error("CIV021", f"a row on track `{track}` given twice for `{item.name}`", f.span,
                                     item=item.name, notes=[f"first given at {civ.rows[track].span}"])
                    continue
                civ.rows[track] = AstRow(track, track_span, spaces, starts, f.span)
            else:  # the fields that hold their value as it is: the table says where it goes
                spec = item_fields.field("civilization", f.key)
                if spec is not None and spec.repeatable:
                    getattr(civ, spec.model_attr).append(f.value)
                    civ.field_spans.setdefault(f.key, f.span)
                elif spec is not None:
                    self._field_once(civ, f, item.name)
                    setattr(civ, spec.model_attr, f.value)
        # a house rule that redeclares a civilization replaces it whole, like an advance
        self.ed.civilizations[item.name] = civ

    # --- advances, calamities, commodities (WHOLE_ITEMS)
    def _item_advance(self, item: Item) -> None:
        self._whole_item("advance", item, Advance, self._advance_fields, self.ed.advances)

    def _item_calamity(self, item: Item) -> None:
        self._whole_item("calamity", item, Calamity, self._calamity_fields, self.ed.calamities)

    def _item_commodity(self, item: Item) -> None:
        self._whole_item("commodity", item, Commodity, self._commodity_fields, self.ed.commodities)

    def _whole_item(self, kind: str, item: Item, cls, read_fields, collection: dict) -> None:
        """An item declared whole: once per file, replacing an inherited one (with a warning)."""
        if self._once(kind, item.name, item.span, f"{kind} `{item.name}`"):
            self._replaces_base(kind, item)
            collection[item.name] = self._read(item, cls, read_fields)

    def _read(self, item: Item, cls, read_fields):
        """The model object of an item declared whole. It and what reading its fields reports
        depend on the item's syntax alone, so with a memo an item read before (the same syntax
        object) gives its object and reports again. A statement the language server keeps moves
        with its spans (lsp.incremental.AnchoredSpan), so a moved item is not read again unless it
        reported something (a note may name one of its lines). Only one buffer's successive
        editions share an object, each replacing the last (later passes only read it; `_tier_vp`
        sets its victory points again for each)."""
        known = self.memo.get(id(item)) if self.memo is not None else None
        if known is not None and known[0] is item and (not known[3] or known[1] == item.span.line):
            self.diags.items.extend(copy.copy(d) for d in known[3])
            obj = known[2]
        else:
            first = len(self.diags.items)
            obj = cls(item.name, item.span)
            read_fields(obj, item.fields)
            known = (item, item.span.line, obj, [copy.copy(d) for d in self.diags.items[first:]])
        if self.read is not None:
            self.read[id(item)] = known
        return obj

    def _replaces_base(self, kind: str, item: Item) -> None:
        """CIV101 (a warning): a house rule declaring an inherited item whole replaces the base's
        item, so every field it does not repeat is gone; `change` edits single fields."""
        base = self._collection(kind).get(item.name) if self.is_extension else None
        if base is None:
            return
        lost = _dropped_fields(base, item)
        notes = [f"the base declares {kind} `{item.name}` at {base.span}"]
        if lost:
            notes.append(f"fields of the base's that this declaration drops: {', '.join(lost)}")
        self.diags.warning("CIV101", f"this declares {kind} `{item.name}` whole: it replaces the base's {kind} "
                           f"`{item.name}`", item.span, item=item.name, notes=notes,
                           help=f"to edit some of its fields and keep the rest, write "
                                f"`change {kind} \"{item.name}\" {{ ... }}`")

    def _collection(self, kind: str) -> dict:
        return {"advance": self.ed.advances, "calamity": self.ed.calamities, "commodity": self.ed.commodities}[kind]

    def _item_remove(self, item: Item) -> None:
        coll = self._collection(item.value)
        if not self._require_extension(item, "remove"):
            return
        if item.name not in coll:
            self.diags.error("CIV011", f"there is no {item.value} `{item.name}` to remove", item.name_span or item.span,
                             item=item.name, help=suggestion(item.name, coll))
            return
        del coll[item.name]
        if item.value in ("calamity", "commodity"):
            self._drop_from_trade_decks(item.name)

    def _drop_from_trade_decks(self, card: str) -> None:
        """A card removed from the game leaves every trade deck that deals it: the base's decks are
        copied, never edited, since the base's edition may be shared with other house rules."""
        for name, deck in list(self.ed.trade_decks.items()):
            if not any(c == card for layers in deck.stacks.values() for layer in layers for c, _n, _s in layer.cards):
                continue
            stacks = {number: [dataclasses.replace(layer, cards=[e for e in layer.cards if e[0] != card])
                               for layer in layers]
                      for number, layers in deck.stacks.items()}
            self.ed.trade_decks[name] = dataclasses.replace(deck, stacks=stacks)

    def _item_change(self, item: Item) -> None:
        coll = self._collection(item.value)
        if not self._require_extension(item, "change"):
            return
        if item.name not in coll:
            self.diags.error("CIV011", f"there is no {item.value} `{item.name}` to change", item.name_span or item.span,
                             item=item.name, help=suggestion(item.name, coll))
            return
        base = coll[item.name]
        target = _editable_copy(base, item.value)
        getattr(self, f"_change_{item.value}")(base, target, item.fields)
        self._stale_summary(item, base, target)
        coll[item.name] = target

    def _change_advance(self, base: Advance, target: Advance, fields: list[Field]) -> None:
        # a field a change gives that replaces the base's whole list (fields.ITEM_FIELDS:
        # `replace_all`) empties that list first, so the change's lines are all there is
        for key in {f.key for f in fields}:
            spec = item_fields.field("advance", key)
            if spec is not None and spec.change == "replace_all":
                setattr(target, spec.model_attr, type(getattr(target, spec.model_attr))())
        self._advance_fields(target, fields)

    def _change_calamity(self, base: Calamity, target: Calamity, fields: list[Field]) -> None:
        self._calamity_fields(target, fields)
        self._stacked_modifiers(base, target)

    def _change_commodity(self, base: Commodity, target: Commodity, fields: list[Field]) -> None:
        self._commodity_fields(target, fields)

    def _stacked_modifiers(self, base: Calamity, changed: Calamity) -> None:
        """A modifier a change adds with exactly the condition and role of one the base keeps
        applies on top of it (both fire): usually a house rule meant to replace the base's."""
        from_base = {id(m) for m in base.modifiers}
        # the base's modifiers the change keeps, by role and condition (the first of each)
        kept = {(m.role, unparse(m.condition)): m for m in reversed(changed.modifiers) if id(m) in from_base}
        for new in changed.modifiers:
            text = unparse(new.condition)
            same = kept.get((new.role, text))
            if same is not None and id(new) not in from_base:
                role = "" if new.role == "any" else f" for {new.role}"
                self.diags.warning("CIV131", f"`{changed.name}` already has a modifier `when {text}`{role}: "
                                             "both will apply", new.span, item=changed.name,
                                   notes=[f"the base's modifier is at {same.span}"],
                                   help=f"to replace it, `drop when {text}` first in this change; to apply "
                                        "both, drop it and write one modifier with the operations of both")

    def _stale_summary(self, item: Item, base, changed) -> None:
        """A change that alters what an item does (its effects or abilities) but keeps the base's
        `summary` leaves a summary that may now describe the old rule."""
        if getattr(base, "summary", None) is None or any(f.key == "summary" for f in item.fields):
            return
        altered = [f for f in item.fields if f.key in _WHAT_IT_DOES.get(item.value, ())]
        if not altered or _what_it_does(base) == _what_it_does(changed):
            return
        self.diags.warning("CIV132", f"this change alters what {item.value} `{item.name}` does but keeps the base's "
                                     "summary, which may now be wrong", altered[0].span, item=item.name,
                           notes=[f"the base's summary: \"{base.summary}\""],
                           help="give the changed item its own `summary \"...\"` in this change")

    def _require_extension(self, item: Item, verb: str) -> bool:
        if not self.is_extension:
            self.diags.error("CIV060", f"`{verb}` only works in a rulebook that `extends` another", item.span,
                             item=item.name)
            return False
        return True

    def _field_once(self, obj, f: Field, name: str) -> None:
        seen = obj.__dict__.get("_seen_fields")
        if seen is None:
            seen = obj.__dict__["_seen_fields"] = set()
        elif f.key in _SINGLE and f.key in seen:
            self.diags.error("CIV021", f"`{f.key}` given twice for `{name}`", f.span, item=name,
                             notes=[f"first given at {obj.field_spans[f.key]}"])
        seen.add(f.key)
        obj.field_spans[f.key] = f.span

    def _advance_fields(self, adv: Advance, fields: list[Field]) -> None:
        # one handler per field of fields.ITEM_FIELDS["advance"] (`_advance_<key>`; a test checks
        # that each has one); a field that holds its value as it is needs none
        for f in fields:
            self._field_once(adv, f, adv.name)
            _apply_field(self, "advance", adv, f)
        adv.__dict__.pop("_seen_fields", None)

    def _advance_cost(self, adv: Advance, f: Field) -> None:
        adv.cost = f.value
        adv.cost_known = f.value is not None

    def _advance_groups(self, adv: Advance, f: Field) -> None:
        adv.groups = [g for g, _ in f.value]
        adv.field_spans["group_spans"] = [s for _, s in f.value]

    def _advance_vp(self, adv: Advance, f: Field) -> None:
        adv.vp, adv.vp_explicit = f.value, True

    def _advance_credits(self, adv: Advance, f: Field) -> None:
        for group, amount, span in f.value:
            adv.credits[group] = adv.credits.get(group, 0) + amount
            adv.field_spans[f"credit:{group}"] = span

    def _advance_credit(self, adv: Advance, f: Field) -> None:
        target, amount, span = f.value
        adv.specific.append(SpecificCredit(target, amount, span))

    def _advance_requires(self, adv: Advance, f: Field) -> None:
        adv.requires.extend(name for name, _ in f.value)
        for name, span in f.value:
            adv.field_spans[f"requires:{name}"] = span

    def _advance_ability(self, adv: Advance, f: Field) -> None:
        adv.abilities.append(self._ability(f.value, adv.name))

    def _ability(self, call: Call, owner: str) -> Ability:
        args: dict = {}
        kind = vocab.ABILITY_KINDS.get(call.name)
        names = [p.name for p in kind.params] if kind else []
        for i, a in enumerate(call.args):
            key = names[i] if i < len(names) else f"#{i}"
            args[key] = _literal(a)
        for key, a in call.kwargs.items():
            args[key] = _literal(a)
        return Ability(call.name, args, call, call.span)

    def _calamity_fields(self, cal: Calamity, fields: list[Field]) -> None:
        # one handler per field of fields.ITEM_FIELDS["calamity"] (`_calamity_<key>`), as for advances
        for f in fields:
            self._field_once(cal, f, cal.name)
            _apply_field(self, "calamity", cal, f)
        cal.__dict__.pop("_seen_fields", None)

    def _calamity_beneficiary(self, cal: Calamity, f: Field) -> None:
        cal.beneficiary = f.value[0]
        cal.field_spans["beneficiary_name"] = f.value[1]

    def _calamity_primary(self, cal: Calamity, f: Field) -> None:
        cal.primary = _effects(f.value)

    def _calamity_secondary(self, cal: Calamity, f: Field) -> None:
        specs, block = f.value
        spec = dict(specs)
        cal.secondary = Secondary(spec.get("count"), spec.get("share"), _effects(block), f.span)

    def _calamity_exclude(self, cal: Calamity, f: Field) -> None:
        how, value, span = f.value
        cal.exclusions.append(Exclusion(value if how == "role" else None, value if how == "when" else None, span))

    def _calamity_cancel(self, cal: Calamity, f: Field) -> None:
        cal.cancel.append((f.value, f.span))

    def _calamity_amounts(self, cal: Calamity, f: Field) -> None:
        cal.amounts = dict(cal.amounts)
        cal.amounts_spans = dict(cal.amounts_spans)
        cal.amounts_when = {k: dict(v) for k, v in cal.amounts_when.items()}
        cal.amounts_when_spans = dict(cal.amounts_when_spans)
        for name, values, doc, span, option in self._amount_settings(f.value):
            if option is not None:
                if self._amount_when(cal, name, values, span, option) and doc:
                    cal.notes.append(doc)
                continue
            cal.amounts[name] = values
            cal.amounts_spans[name] = span
            if doc:
                cal.notes.append(doc)

    def _calamity_resolution(self, cal: Calamity, f: Field) -> None:
        cal.resolution = dict(cal.resolution)
        cal.resolution_spans = dict(cal.resolution_spans)
        for name, values, doc, span, value_spans in self._resolution_settings(f.value, edition=False):
            cal.resolution[name] = values
            cal.resolution_spans[name] = value_spans
            if doc:
                cal.notes.append(doc)

    def _calamity_modifier(self, cal: Calamity, f: Field) -> None:
        m = f.value
        cal.modifiers.append(Modifier(m.condition, m.role, m.priority, list(m.ops), m.span,
                                      advances_named(m.condition)))

    def _calamity_drop(self, cal: Calamity, f: Field) -> None:
        self._drop(cal, f)

    def _drop(self, cal: Calamity, f: Field) -> None:
        from .expressions import unparse
        condition, role = f.value
        text = unparse(condition)
        kept = [m for m in cal.modifiers if not (unparse(m.condition) == text and (role == "any" or m.role == role))]
        if len(kept) == len(cal.modifiers):
            self._nothing_to_drop(cal, f, text, role)
        cal.modifiers = kept

    def _nothing_to_drop(self, cal: Calamity, f: Field, text: str, role: str) -> None:
        """CIV061, naming the role asked for; the help never offers back what was written: the
        same condition under the roles it does have, else the closest other condition."""
        asked = f"when {text}" + (f" for {role}" if role != "any" else "")
        notes, help_ = self._drop_hint(cal, text)
        self.diags.error("CIV061", f"`{cal.name}` has no modifier `{asked}` to drop", f.span, item=cal.name,
                         notes=notes, help=help_)

    @staticmethod
    def _drop_hint(cal: Calamity, text: str) -> tuple[list[str], str | None]:
        """(notes, help) of a drop that matches nothing: the roles the condition does have, else
        the closest other condition."""
        roles = sorted({m.role for m in cal.modifiers if unparse(m.condition) == text})
        notes, help_ = [], None
        if "any" in roles:  # written without `for`: one modifier for every role, dropped whole
            notes.append(f"`{cal.name}` has `when {text}` for every role (written without `for`); a drop "
                         f"cannot keep it for some roles only")
            help_ = f"write `drop when {text}` to drop it, then add back a modifier `for` the roles to keep"
        elif roles:
            notes.append(f"`{cal.name}` has `when {text}` only for {' and '.join(roles)}")
            help_ = " or ".join(f"`drop when {text} for {r}`" for r in roles)
            help_ = f"write {help_}" + (", or leave out `for ...` to drop it for every role" if len(roles) > 1 else "")
        else:
            others = [c for c in dict.fromkeys(unparse(m.condition) for m in cal.modifiers) if c != text]
            help_ = suggestion(text, others)
            if not others:
                notes.append(f"`{cal.name}` has no modifiers at all")
        return notes, help_

    def _commodity_fields(self, com: Commodity, fields: list[Field]) -> None:
        for f in fields:
            self._field_once(com, f, com.name)
            _apply_field(self, "commodity", com, f)  # every commodity field holds its value as it is
        com.__dict__.pop("_seen_fields", None)


def _dropped_fields(base, item: Item) -> list[str]:
    """The fields the base's item gives that a whole redeclaration of it does not."""
    kept = {f.key for f in item.fields}
    # field_spans holds every field key given (_field_once) and a few finer spans besides:
    # one per target (`credit:sciences`), `group_spans`, `beneficiary_name`
    given = dict.fromkeys(k for k in (getattr(base, "field_spans", {}) or {})
                          if ":" not in k and not k.endswith(("_spans", "_name")))
    return [k for k in given if k not in kept]


def _editable_copy(item, kind: str):
    """A copy of an item that a `change` may edit without touching the base's: a shallow copy
    whose lists and dicts of the repeatable fields (fields.ITEM_FIELDS), shared with the base
    otherwise, and field spans are copied too."""
    target = copy.copy(item)
    for attr in item_fields.list_attrs(kind):
        value = getattr(target, attr, None)
        if isinstance(value, (list, dict)):
            setattr(target, attr, type(value)(value))
    target.field_spans = dict(target.field_spans)
    return target


_HANDLERS: dict[tuple[type, str, str], object] = {}


def _handler(cls: type, kind: str, key: str):
    """The method `_<kind>_<key>` of the applier's class, or None: looked up once per class and
    field (every field of every item comes here)."""
    try:
        return _HANDLERS[cls, kind, key]
    except KeyError:
        found = _HANDLERS[cls, kind, key] = getattr(cls, f"_{kind}_{key}", None)
        return found


def _apply_field(applier, kind: str, obj, f: Field) -> None:
    """Apply field `f` of an item of `kind`: its handler `_<kind>_<key>` where the field needs
    decoding, else (a field that holds its value as it is) append it to the model attribute
    fields.ITEM_FIELDS names, or set it."""
    handler = _handler(type(applier), kind, f.key)
    if handler is not None:
        handler(applier, obj, f)
        return
    spec = item_fields.field(kind, f.key)
    if spec is None:
        return
    if spec.repeatable:
        getattr(obj, spec.model_attr).append(f.value)
    else:
        setattr(obj, spec.model_attr, f.value)


# fields of a `change` that alter what an item does (its effects or abilities)
_WHAT_IT_DOES = {kind: tuple(f.key for f in fs if f.what_it_does) for kind, fs in item_fields.ITEM_FIELDS.items()}


def _what_it_does(obj) -> list[str]:
    """An item's effects and abilities as text, to tell whether a change altered them."""
    out = [unparse(a.call) for a in getattr(obj, "abilities", [])]
    out += _effect_texts(getattr(obj, "primary", []))
    secondary = getattr(obj, "secondary", None)
    if secondary is not None:
        out.append(f"secondary {unparse(secondary.count) if secondary.count is not None else ''} "
                   f"{unparse(secondary.share) if secondary.share is not None else ''}")
        out += _effect_texts(secondary.effects)
    return out


def _effect_texts(effects: list) -> list[str]:
    out = []
    for e in effects:
        if isinstance(e, EffectBranch):
            out.append(f"if {unparse(e.condition)}")
            out += _effect_texts(e.then) + ["else"] + _effect_texts(e.otherwise)
        else:
            out.append(unparse(e.call))
    return out


def _literal(e):
    """Ability arguments are literal data: numbers, strings, bare words."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg) and isinstance(e.operand, Num):
        return -e.operand.value
    if isinstance(e, Str):
        return e.value
    if isinstance(e, Name) and len(e.parts) == 1:
        return e.parts[0]
    return e  # left as an expression; the validator reports it


def _effects(stmts: list) -> list:
    out = []
    for s in stmts:
        if isinstance(s, EffectCall):
            call = s.call
            out.append(Effect(call.name, _effect_args(call), call, s.span))
        elif isinstance(s, Branch):
            out.append(EffectBranch(s.condition, _effects(s.then), _effects(s.otherwise), s.span))
    return out


def _effect_args(call: Call) -> dict:
    kind = vocab.EFFECT_KINDS.get(call.name)
    names = [p.name for p in kind.params] if kind else []
    args = {}
    for i, a in enumerate(call.args):
        args[names[i] if i < len(names) else f"#{i}"] = a
    args.update(call.kwargs)
    return args
