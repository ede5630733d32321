"""The planner's answer and a hand's value as text (`civdsl plan`, `civdsl hand` without --json)."""

from __future__ import annotations

from .payment import CHOICE_STOP, CHOOSING, PAYING, WORK
from .purchase import PurchaseProblem


# --- text output ----------------------------------------------------------------------------

def _cards_text(cards: dict) -> str:
    return ", ".join(f"{n} x{k}" for n, k in cards.items()) or "no cards"


def _plan_lines(p: dict, label: str, indent: str = "") -> list[str]:
    lines = _buy_lines(p, label, indent)
    if p["payment"]:
        lines += _payment_lines(p["payment"], indent)
    if p["buy"]:
        lines.append(_credit_line(p["credit_gained"], indent))
    return lines


def _buy_lines(p: dict, label: str, indent: str) -> list[str]:
    """What to buy, each advance's price and the credits that lowered it."""
    if not p["buy"]:
        return [f"{indent}buy nothing"]
    lines = [f"{indent}buy {', '.join(p['buy'])}: {p['objective']} {label}, total price {p['total']}"]
    width = max(len(r["advance"]) for r in p["items"])
    for row in p["items"]:
        credits = "".join(f"; -{c['amount']} {c['from']}" for c in row["credits"])
        lines.append(f"{indent}  {row['advance']:<{width}}  {row['price']:>4}  (printed {row['printed']}{credits})")
    return lines


def _payment_lines(pay: dict, indent: str) -> list[str]:
    """How to pay: cards turned into treasury first, what is handed over, what is kept."""
    lines = []
    if pay.get("converted"):
        lines.append(f"{indent}first turn {_cards_text(pay['converted'])} into {pay['converted_treasury']} treasury")
    lines.append(f"{indent}pay {_paid_text(pay)} = {pay['paid']}; overpayment {pay['overpayment']}")
    lines.append(f"{indent}keep {_cards_text(pay['kept'])} ({pay['kept_cards']} of at most {pay['hand_limit']} "
                 f"cards, worth {pay['kept_value']}) and {pay['treasury_left']} treasury")
    return lines


def _paid_text(pay: dict) -> str:
    """The cards (with a substitute card) and treasury tokens handed over."""
    parts = []
    sub = pay.get("substitute")
    if pay["cards"]:
        extra = f" + 1 {sub['card']} as {sub['set']} (substitute card)" if sub else ""
        parts.append(f"{_cards_text(pay['cards'])}{extra} (worth {pay['card_value']})")
    if pay["treasury"]:
        each = f" x {pay['treasury_value']}" if pay["treasury_value"] != 1 else ""
        parts.append(f"{pay['treasury']} treasury{each}")
    return " + ".join(parts) or "nothing"


def _credit_line(cg: dict, indent: str) -> str:
    """The credit the purchase gives for next turn."""
    bits = [f"{g} {v}" for g, v in cg["groups"].items() if v]
    bits += [f"{t} {v}" for t, v in cg["specific"].items()]
    if cg["free_credit_points"]:
        bits.append(f"{cg['free_credit_points']} free credit points")
    return f"{indent}credit for next turn: {', '.join(bits) or 'none'} (total {cg['total']})"


def render(report: dict) -> str:
    label = report["objective"]["label"]
    lines = [f"{report['edition']}: purchase plan maximising {report['objective']['name']}"]
    lines += _budget_lines(report)
    lines += [f"note: {note}" for note in report.get("notes", [])]
    plans = report["plans"]
    for p in plans:
        lines.append(f"plan {p['rank']}:" if len(plans) > 1 else "plan:")
        lines.extend(_plan_lines(p, label, "  "))
    if report["stopped"]:
        lines.append(f"the search stopped after {report['sets_examined']:,} sets of advances: the best plan "
                     f"found so far (no plan gives more than {report['total_at_most']} {label})")
    lines.extend(_payment_stopped_lines(report, label))
    if report["prices_capped"]:
        lines.append(f"{report['prices_capped']:,} sets of advances priced by the best placement of the credits "
                     f"found, maybe not the least (the placement search stopped at its limit): the best plan "
                     f"found (no plan gives more than {report['total_at_most']} {label})")
    lines += _not_considered_lines(report["not_considered"])
    lines.extend(_explain_lines(report.get("explain"), label))
    lines.extend(_horizon_lines(report.get("horizon"), label))
    return "\n".join(lines)


def _payment_stopped_lines(report: dict, label: str) -> list[str]:
    """What the payment table's work limit stopped, in the player's words."""
    stopped, limit = report.get("payment_stopped") or [], report.get("payment_work_limit")
    choice = report.get("payment_choice_limit")
    lines = []
    if PAYING in stopped:
        lines.append(f"{PAYING} stopped at its work limit ({limit:,} steps): payments turn in whole sets only; "
                     f"the best plan found with them (no plan gives more than {report['total_at_most']} {label})")
    if CHOOSING in stopped:
        lines.append(f"{CHOOSING} stopped at its work limit ({CHOICE_STOP:,} steps, or {choice:,} "
                     f"steps of {PAYING}): the payment hands over the least there is, but may keep less than the best one")
    return lines


def _budget_lines(report: dict) -> list[str]:
    """The budget (the hand's sets and the treasury) and the hand and card limits."""
    b = report["budget"]
    hand = b["hand"]
    sets = ", ".join(f"{s['commodity']} x{s['cards']} = {s['value']}" for s in hand["sets"]) or "no cards"
    tv = f" x {b['treasury_value']}" if b["treasury_value"] != 1 else ""
    hl = report["hand_limit"]
    limit = f"hand limit {hl['limit']} ({hl['from']}, before this turn's advances)"
    if report["card_limit"] is not None:
        limit += f"; card limit {report['card_limit']} (room for {report['card_room']} more)"
    return [f"budget {b['total']}: hand {hand['total']} ({sets}) + treasury {b['treasury']}{tv}", limit]


def _not_considered_lines(excluded: list[dict]) -> list[str]:
    if not excluded:
        return []
    return ["not considered:"] + [f"  {e['advance']}: {e['why']}" for e in excluded]


def _explain_lines(ex: dict | None, label: str) -> list[str]:
    if not ex:
        return []
    lines = ["why this plan:"]
    if not ex["complete"]:
        lines.append("  (not proven: the search stopped at its limit or priced some sets by the best placement "
                     "of the credits found within its limit)")
    if ex.get("not_worked_out"):
        lines.append(f"  ({ex['not_worked_out']} advances left out not worked out: the explanation's searches "
                     f"reached their work limit of {ex['work_limit']:,} sets of advances"
                     + (f" and {ex['programme_limit']} programmes over price of {ex['programme_cell_limit']:,} cells "
                        "in all" if ex.get("programme_limit") else "")
                     + ")")
    for r in ex["runners_up"]:
        lines.append(f"  not {', '.join(r['buy']) or 'buying nothing'}: {r['why_not']}")
    return lines + _not_bought_lines(ex, label)


def _not_bought_lines(ex: dict, label: str, most: int = 8) -> list[str]:
    """The advances left out, at most `most` of them; those whose best purchase is one of the
    plans above need no second line."""
    shown = [r["buy"] for r in ex["runners_up"]]
    rest = [e for e in ex["advances_not_bought"] if e.get("best_with_it") not in shown]
    lines = [f"  not {e['advance']} ({e['objective']} {label}): {e['why_not']}" for e in rest[:most]]
    if len(rest) > most:
        lines.append(f"  ... and {len(rest) - most} more advances (see --json)")
    return lines


def _horizon_lines(hz: dict | None, label: str) -> list[str]:
    if not hz:
        return []
    if hz["this_turn"] is None:
        return ["two-turn look-ahead: the search stopped at its work limit before it priced any pair of "
                f"purchases ({hz['turn_one_sets']:,} sets of this turn's advances examined): no estimate"]
    lines = ["two-turn look-ahead (an ESTIMATE: " + hz["assumes"] + "):", "  this turn:"]
    lines.extend(_plan_lines(hz["this_turn"], label, "    "))
    lines.append("  next turn (estimate):")
    lines.extend(_plan_lines(hz["next_turn"], label, "    "))
    lines.append(f"  total over two turns: {hz['total']} {label} (the one-turn plan "
                 f"{', '.join(hz['one_turn_best']) or 'buying nothing'} gives {hz['one_turn_best_objective']} this turn)")
    if hz.get("payment_stopped"):
        lines.append(f"  {' and '.join(hz['payment_stopped'])} stopped at the work limit of the payment table "
                     f"({WORK:,} steps): the best pair found"
                     + (", with no bound" if PAYING in hz["payment_stopped"] else ""))
    if hz["prices_capped"]:
        lines.append(f"  {hz['prices_capped']:,} sets of advances were priced by the best placement of the credits "
                     "found within its limit (their least price is not proven): the best pair found, with no bound")
    elif hz.get("next_turn_stopped"):
        lines.append(f"  {hz['next_turn_stopped']:,} of next turn's searches stopped at the work limit of the answer "
                     f"({PurchaseProblem.single_use_work:,} units of credit-placement work in all): the best pair "
                     "found, with no bound")
    elif hz["stopped"]:
        bound = (f" (no pair gives more than {hz['total_at_most']} {label})" if hz["total_at_most"] is not None
                 else ", with no bound")
        lines.append(f"  the look-ahead stopped after {hz['turn_one_sets']:,} sets of this turn's advances: "
                     f"the best pair found so far{bound}")
    return lines


def render_hand(report: dict, name: str) -> str:
    lines = [f"{name}: hand of {report['cards']} commodity card{'s' if report['cards'] != 1 else ''}"]
    for s in report["sets"]:
        note = "  (worth nothing)" if s["zero_value"] else ""
        note += "  (outside its trade block)" if s.get("off_block") else ""
        lines.append(f"  {s['commodity']} x{s['cards']} (face {s['face']}): {s['value']}{note}")
    for c in report.get("calamities", []):
        lines.append(f"  {c['calamity']} x{c['cards']} (calamity card): {c['value']}"
                     + ("  (worth nothing in trade)" if c["value"] == 0 else ""))
    lines.append(f"total: {report['total']}")
    return "\n".join(lines)
