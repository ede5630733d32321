// plan.js: the page's `civdsl plan --json` (`planAnswer`). The planner is generated: the
// purchase problem, its branch and bound, --explain and the two-turn look-ahead are
// civdsl/plan/purchase.py, answer.py and horizon.py translated by the build (pu_, pa_, ph_ names:
// civdsl/companion/py2es.py), as its objectives, search, payment table and prices are (ob_, ps_,
// pp_, pr_), and its hand's report is plan/hand.py's (hd_). What is written here is the glue
// between the page's options and the translated answer.

// --- `civdsl plan --json`: plan/answer.py's answer, translated (pa_answer) --------------------------

function planOption(options, names, fallback) {
  for (const n of names) {
    if (Object.prototype.hasOwnProperty.call(options, n) && options[n] !== null && options[n] !== undefined) return options[n];
  }
  return fallback;
}

// options: the flags of `civdsl plan` in camelCase: {holds, objective, want, avoid, top, explain,
// horizon, handLimit, option: {name: true|false} (--option NAME=on|off)}, and `among` (the Python API's: the advances considered at all)
function planAnswer(M, state, options) {
  options = options || {};
  const st = makePlayerState(state, {holds: options.holds, option: options.option});
  const obj = ob_objective(engineModule(), planOption(options, ["objective", "objectiveSpec", "objective_spec"], null), st);
  const among = planOption(options, ["among"], null);
  return pyPlain(pa_answer(engineModule(), M.EDITION.id, M.EDITION.name, st.held, st.facts, obj,
    namesOf(planOption(options, ["want"], [])), namesOf(planOption(options, ["avoid"], [])),
    among === null ? null : namesOf(among), planOption(options, ["handLimit", "hand_limit"], null),
    planOption(options, ["top"], 1), Boolean(planOption(options, ["explain"], false)), planOption(options, ["horizon"], 1)));
}
