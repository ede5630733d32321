"""The turn's flow: each event checked and handed to its handler (events.py), each step left
with its end-of-step actions (the hand limit, the calamity step of calamities.py, the A.S.T.) and
the end of the game (ending.py) checked, and the next step entered with its automatic actions.
The game's state (play.Game) knows none of these modules: they change it, and this one drives
them, so the ledger's imports run one way. An engine module (py2es)."""

from __future__ import annotations

from ..errors import StateError
from .calamities import resolve_step
from .decks import deal
from .ending import check_end
from .events import EVENT_KINDS, alter_ast, check_fields, check_hand_limits, check_owed_events, event_words, handle
from .events import field_kinds
from .play import Game
from .refusals import ILLEGAL, Refused
from .steps import AUTOMATIC_ACTIONS, action_of, events_of, owed_event, takes_events
from .taxes import run_automatic, waits_for_choices



def kinds() -> tuple:
    """Every event: the players' (events.EVENT_KINDS), and `next`, which ends the step."""
    return EVENT_KINDS + ("next",)


class Ledger(Game):
    """A game with its turn's flow: what `civdsl game` adds events to and replays."""

    def apply(self, event: dict, keep_on_refusal: bool = True) -> None:
        """Apply one event; on a refusal the game is left exactly as it was (unless the caller
        drops the game on a refusal anyway, as a replay does: then no copy is made)."""
        saved = self.copy() if keep_on_refusal else self
        try:
            self._apply(event)
        except StateError as exc:
            self.restore(saved)
            raise Refused(ILLEGAL, str(exc))
        except Refused:
            self.restore(saved)
            raise
        self.events = self.events + 1

    def made_like(self):
        return Ledger(self.rulebook, {}, dict(self.options), self.ast_track, self.last_turn, self.seed, self.kept,
                      self.start_credits_of)

    def _apply(self, event: dict) -> None:
        fields = self.kept.get(("event fields",))
        if fields is None:
            fields = self.kept[("event fields",)] = field_kinds()
        check_fields(event, fields)
        kind = event.get("do")
        if kind != "next" and kind not in EVENT_KINDS:
            raise Refused(ILLEGAL, f"no event `{kind}` (events: {', '.join(kinds())})", field="do")
        if self.ended:
            raise Refused(ILLEGAL, "the game is over: no event can follow the final scoring")
        if kind not in ("next", "leave"):
            action = action_of(kind)
            if action not in self.current_actions():
                where = [s["name"] for s, acts in zip(self.steps, self.step_actions) if action in acts]
                raise Refused(ILLEGAL, f"step \"{self.current['name']}\" does not take `{kind}`"
                              + (f": it belongs to step \"{where[0]}\"" if where else ""), field="step")
        if kind == "next":
            self.next_step()
        else:
            handle(self, kind, event)

    def start(self) -> None:
        """The trade-card stacks dealt, then the game's first step: its automatic actions run, and
        steps that take no event pass."""
        self.stacks = deal(self.module, len(self.seated()), {self.block(p) for p in self.seated()}, self.seed,
                                 self.options)
        self._enter()

    def next_step(self) -> None:
        """End the current step (its checks first) and move on to the next that takes events."""
        acts = self.current_actions()
        for kind in acts:
            owed = owed_event(kind)
            if owed is not None:
                check_owed_events(self, acts[kind], owed)
        for kind in self.waiting:
            run_automatic(self, kind, acts[kind])
        if "hand_limit" in acts:
            check_hand_limits(self, acts["hand_limit"])
        if "resolve_calamities" in acts:
            resolve_step(self, acts["resolve_calamities"])
        if "alter_ast" in acts:
            alter_ast(self, acts["alter_ast"])
        self._leave()
        self._enter()

    def _leave(self) -> None:
        check_end(self)
        self.done = {}
        self.waiting = []
        self.tax_rates = {}
        if self.ended:
            return
        self.step = self.step + 1
        if self.step == len(self.steps):
            if self.stacks is not None:
                self.stacks.end_turn()
            self.step = 0
            self.turn = self.turn + 1
            self.choices = {}
            self.turn_facts = {}
            self.borders = {}
            self.ast_moves = {}

    def _enter(self) -> None:
        while not self.ended:
            for kind, args, line in self.current["actions"]:
                if kind in AUTOMATIC_ACTIONS:
                    given = dict(args)
                    given["line"] = line
                    if waits_for_choices(self, kind, given):
                        self.waiting = self.waiting + [kind]
                    else:
                        run_automatic(self, kind, given)
            if self.waiting or takes_events(self.current):
                return
            self._leave()

    def expects(self) -> list[str]:
        """What the current step takes, in words."""
        if self.ended:
            return ["nothing: the game is over"]
        out = []
        for kind, args, _ in self.current["actions"]:
            if kind not in AUTOMATIC_ACTIONS or kind in self.waiting:
                out.extend(f"{ev}: {event_words(ev, args)}" for ev in events_of(kind))
        return out + ["next: this step is done, go on to the next (next)"]

