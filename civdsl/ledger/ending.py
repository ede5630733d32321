"""The end of the game as the edition's `end_game` actions declare it, and the final scores."""

from __future__ import annotations

from ..standing import AstRowUnknown, ast_rows, epoch_index
from ..stateanswers import score_of
from .play import Game
from .steps import all_of


def check_end(game: Game) -> None:
    """After a step with `end_game` rules: the game ends (or its last turn is set) as they say."""
    if game.final_turn is not None and game.turn >= game.final_turn and _is_last_end_step(game):
        return _finish(game, f"the last turn ({game.final_turn}) is over", None)
    for rule in all_of(game.current, "end_game"):
        track = game.track()
        if rule["track"] not in (None, track):
            continue
        if rule["turn_limit"] == "agreed" and game.last_turn is not None and game.turn >= game.last_turn:
            return _finish(game, f"the agreed last turn ({game.last_turn}) is over", rule["line"])
        reached = [p.name for p in game.seated() if _reached(game, p, track, rule["reach"])]
        if not reached or game.final_turn is not None:
            continue
        extra = game.quantity(rule["extra_turns"]) or 0
        what = "the last epoch" if rule["reach"] == "last_epoch" else "the last space"
        if extra:
            game.final_turn = game.turn + extra
            game.note(f"{', '.join(reached)} reached {what}: the game ends after turn {game.final_turn}", rule["line"])
        else:
            return _finish(game, f"{', '.join(reached)} reached {what}", rule["line"])


def _is_last_end_step(game: Game) -> bool:
    return bool(all_of(game.current, "end_game"))


def _reached(game: Game, p, track: str, reach: str) -> bool:
    """Whether the player's marker is on the last space or in the last epoch of his row (no row:
    not known, so not reached)."""
    try:
        rows = ast_rows(game.module, track, p.civilization)
    except AstRowUnknown:
        rows = []
    row = rows[0] if len(rows) == 1 else None
    if row is None:  # no row tells the epochs: the last space is the track's
        return reach == "last_space" and p.ast_position >= game.module.AST[track]["spaces"]
    if reach == "last_space":
        return p.ast_position >= row["spaces"]
    return epoch_index(row, p.ast_position) == len(game.module.AST[track]["epochs"]) - 1


def _finish(game: Game, why: str, line: int | None) -> None:
    game.ended = True
    game.note(f"the game ends: {why}", line)
    game.scores = final_scores(game)
    for i, s in enumerate(game.scores, 1):
        reached = " (reached the end: ranks before those who did not)" if s.get("reached") else ""
        game.note(f"{i}. {s['player']}: {s['total']} points{reached}", None)


def sole_leaders(game: Game) -> list[str]:
    """The players in the last epoch of the track (the `sole_leader` fact is true when one is)."""
    track = game.track()
    return [p.name for p in game.seated() if track and _reached(game, p, track, "last_epoch")]


def _finishers(game: Game) -> list | None:
    """Where the step's `end_game` says `winner=reached`: the players whose markers reached its
    goal, who rank before the rest; None where the score alone ranks the players."""
    track = game.track()
    rules = [r for r in all_of(game.current, "end_game")
             if r["track"] in (None, track) and r.get("winner") == "reached"]
    if not rules:
        return None
    return [p.name for p in game.seated() if any(_reached(game, p, track, r["reach"]) for r in rules)]


def final_scores(game: Game) -> list[dict]:
    """Every seated player's score with its tie-breakers, best first (the most of each, but the
    lower place of a ranking: SCORE_LOWER_FIRST); `sole_leader` is true for a player alone in the
    last epoch of the track."""
    leaders = sole_leaders(game)
    lower_first = getattr(game.module, "SCORE_LOWER_FIRST", ())
    finishers = _finishers(game)
    rows = []
    for p in game.seated():
        answer = score_of(game.module, game.state(p, {"sole_leader": leaders == [p.name]}))
        row = {"player": p.name, "total": answer["total"], "points": answer["points"],
               "tiebreaks": answer["tiebreaks"], "complete": answer["complete"]}
        if finishers is not None:
            row["reached"] = p.name in finishers
        rows.append(row)

    def key(row):
        ties = [(t["value"] or 0) if t["line"] in lower_first else -(t["value"] or 0) for t in row["tiebreaks"]]
        return [0 if row.get("reached", True) else 1, -(row["total"] or 0)] + ties

    rows.sort(key=key)
    for a, b in zip(rows, rows[1:]):
        if key(a) == key(b):
            a["tied_with"] = b["player"]
    return rows
