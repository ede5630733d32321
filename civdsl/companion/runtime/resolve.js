// resolve.js: the host's part of what a calamity does to one victim: the record the rules' functions
// return (runtime.Resolution's parts), a cancellation and the order of the stages. A modifier's
// change and the amount assigned to a secondary victim are losses.py's (ls_change, ls_assigned). The passes over the effect list (floor,
// bound, unselect, reduce until supported, least over, discard by value) are civdsl/effectlist.py
// translated (ef_*); what a victim loses and the answer as data are losses.py and
// calamity_answer.py (ls_*, ca_*). Effects are [kind, args (a PyDict), line], trace entries [op,
// kind, param, value, before, after, by, line, path], options [instead_of, kind, args, each, by,
// line, path], the assignment [count, share, effects, line].

function resolution(calamity, role, state, effects, assignment, trace, options, immune, cancelReason, excluded) {
  return {calamity: calamity, role: role, state: state, effects: effects, assignment: assignment, trace: trace,
    options: options, immune: immune, cancelReason: cancelReason, excluded: excluded};
}

function cancelled(calamity, role, state, line, why, path) {
  return resolution(calamity, role, state, [["cancelled", new PyDict(), line]], null, [], [], false, [line, why, path], null);
}

// the stages of `amounts { order }` under the question's options: ORDERS is [the options that
// switch the order, {the switched-on ones joined by "|": the order}]
function stageOrder(s, orders) {
  return orders[1][orders[0].filter((n) => truthy(s.option(n))).join("|")];
}

// sourcemap.resolve as the translated engines call it (table/resolving.py, the game ledger's
// calamity step): the rules' function of the calamity for one role of a player state, read with
// runtime.Resolution's names (effects as kind, args and line; the assignment's parameters as dicts)
function calamityResolution(module, calamity, role, state) {
  const r = RULES.calamities.get(calamity)(state, role);
  return {calamity: r.calamity, role: r.role, state: r.state, assignment: pyFromPlain(r.assignment),
    excluded: r.excluded, is_cancelled: r.cancelReason !== null,
    effects: r.effects.map((e) => ({kind: e[0], args: e[1], line: e[2]}))};
}
