// api.js: the contract. globalThis.civdsl answers each question with exactly the object the
// command line prints with --json (the same keys, lists and numbers): resolve, epoch and score
// here (the generated standing.py), cost here too (the generated pricing.py), plan from plan.js when it is part
// of the engine.

function answer(command, compute) {
  const head = {command: command, rulebook: MODEL.EDITION.id};
  try {
    const data = compute();
    for (const k of Object.keys(data)) if (!own(head, k)) head[k] = data[k];
    return head;
  } catch (exc) {
    if (exc instanceof UserError) {
      head.error = {kind: "user", message: exc.message};
    } else if (exc instanceof RuleError) {
      const reason = exc.kind === "ZeroDivisionError" ? "a division by zero" : exc.message;
      head.error = {kind: "rulebook", message: "a rule failed while running: " + reason};
    } else {
      // a failure of the engine itself (a bug, or a page that altered the built-in objects):
      // still an answer, never an exception for the caller
      head.error = {kind: "engine", message: "the engine failed: " + engineFailure(exc)};
    }
    return head;
  }
}

function engineFailure(exc) {
  try {
    return String(exc && exc.message || exc).slice(0, 300);
  } catch (again) {
    return "an error that cannot be shown";
  }
}

// A state whose own key `__proto__` a copy would turn into its prototype (Object.assign does)
// is refused as the command line refuses any unknown key, before the engine copies it.
// names as an option gives them: a list as it is, or a text of comma-separated names (state.split_names)
function namesOf(names) {
  return Array.isArray(names) ? names.slice() : tx_split_names(names === undefined ? null : names);
}

function ownState(state) {
  if (state !== null && typeof state === "object" && Object.prototype.hasOwnProperty.call(state, "__proto__")) {
    throw new UserError("state: unknown key `__proto__`");
  }
  return state;
}

function resolveAnswer(state, calamity, role, options) {
  options = options || {};
  role = role === undefined || role === null ? "primary" : role;
  const name = sa_calamity_asked(engineModule(), calamity, role);
  const st = makePlayerState(ownState(state), options);
  const assigned = get(options, "assigned", null);
  if (assigned !== null) st.assigned = sc_assigned_amount(role, pyFromState(assigned));
  const r = RULES.calamities.get(name)(st, role);
  return pyPlain(ca_resolution_dict(r.calamity, r.role, r.state, pyFromPlain(r.effects), pyFromPlain(r.assignment),
    pyFromPlain(r.trace), pyFromPlain(r.options), r.immune, r.cancelReason, r.excluded));
}

function epochAnswer(state, options) {
  options = options || {};
  const track = get(options, "ast", null);
  if (track === "") return {tracks: pyPlain(sa_track_list(engineModule()))};  // `--ast` with no name
  sc_check_track(engineModule(), track);
  const tracks = sa_tracks_asked(engineModule(), track, get(state || {}, "ast_track", null));
  return {tracks: tracks.map(function (t) {
    return pyPlain(st_epochs(engineModule(), t, makePlayerState(ownState(state), options)));
  })};
}

function scoreAnswer(state, options) {
  return pyPlain(st_score(engineModule(), makePlayerState(ownState(state), options || {})));
}

// The player state of a question: the state's mapping with the command line's choices
// (options.holds as --holds, options.option as --option NAME=on|off), made by the generated
// stateanswers.player_for as api.Rulebook.state makes it
function makePlayerState(state, options) {
  const facts = Object.assign({}, state || {});
  options = options || {};
  if (options.option) facts.options = Object.assign({}, isMap(facts.options) ? facts.options : {}, options.option);
  return sa_player_for(engineModule(), engineFacts(), namesOf(options.holds), pyFromState(facts));
}

// The compiled module as the generated engines read it: each constant of MODEL as Python's values
// (mappings as PyDicts), and the rule functions codegen writes into its data put back from RULES
// (the rules' JavaScript): a track's epochs, the score's lines, a set's value, the start credits'
// amount, the off-block value. Made once, at the page's first question.
let engineModuleMade = null;
function engineModule() {
  if (engineModuleMade !== null) return engineModuleMade;
  const m = {};
  for (const key of Object.keys(MODEL)) m[key] = pyFromPlain(MODEL[key]);
  for (const [track, t] of m.AST.items()) {
    t.setItem("epochs", RULES.ast.get(track).epochs);
    t.setItem("backward", RULES.ast.get(track).backward);
  }
  m.SCORE_POINTS = RULES.score.points;
  m.SCORE_TIEBREAKS = RULES.score.tiebreaks;
  m.set_value = RULES.setValue;
  if (m.START_CREDITS !== null) {
    m.START_CREDITS.setItem("amount", RULES.startCredits.amount);
    m.START_CREDITS.setItem("unless", RULES.startCredits.unless);
  }
  if (m.OFF_BLOCK !== null) {
    m.OFF_BLOCK.setItem("value", RULES.offBlock.value);
    m.OFF_BLOCK.setItem("when", RULES.offBlock.when);
  }
  return (engineModuleMade = m);
}

// the vocabulary's facts (vocabulary.FACTS) as statecheck reads them: name -> {type, minimum}
let engineFactsMade = null;
function engineFacts() {
  return engineFactsMade || (engineFactsMade = pyDict(Object.entries(RULES.facts)));
}

// --- `civdsl cost --json` (cli/questions.cost: stateanswers.cost_for and trade_cards_for) -------

// options: {buy, holds, tradeCards, option} as the flags of `civdsl cost` (--buy, --holds,
// --trade-cards, --option NAME=on|off: {name: true}); --set and --state are the state itself.
// With --trade-cards and no --buy the answer is the trade cards' (the command line prints that
// object alone); with both it prints two objects, and this gives the purchase's.
function costAnswer(state, options) {
  options = options || {};
  const buyText = options.buy;
  const trade = options.tradeCards === undefined ? options.trade_cards : options.tradeCards;
  const buyGiven = Array.isArray(buyText) ? buyText.length > 0 : Boolean(buyText);
  const tradeGiven = Array.isArray(trade) ? trade.length > 0 : Boolean(trade);
  sa_cost_asked(buyGiven, tradeGiven);
  const view = {holds: options.holds, option: options.option};
  if (tradeGiven && !buyGiven) {
    const stacks = Array.isArray(trade) ? trade.map((x) => Math.trunc(x)) : sa_trade_card_stacks(trade);
    return pyPlain(sa_trade_cards_for(engineModule(), makePlayerState(state, view), stacks));
  }
  return pyPlain(sa_cost_for(engineModule(), makePlayerState(state, view), namesOf(buyText)));
}

const civdslApi = {
  edition: MODEL.EDITION,
  model: MODEL,
  resolve: function (state, calamity, role, options) {
    return answer("resolve", function () { return resolveAnswer(state, calamity, role, options); });
  },
  epoch: function (state, options) {
    return answer("epoch", function () { return epochAnswer(state, options); });
  },
  score: function (state, options) {
    return answer("score", function () { return scoreAnswer(state, options); });
  },
  cost: function (state, options) {
    return answer("cost", function () { return costAnswer(ownState(state), options || {}); });
  },
  // the answer as the command line prints it (json.dumps(indent=2): floats as "2.0"), by
  // civdsl/pystd/reprs.py translated
  dumps: function (value) {
    return rp_dumps(pyFromPlain(value));
  },
};
// plan is jscost's (plan.js): offered only when the engine includes it
if (typeof planAnswer === "function") {
  civdslApi.plan = function (state, options) {
    return answer("plan", function () { return planAnswer(MODEL, ownState(state), options || {}); });
  };
}
globalThis.civdsl = Object.freeze(civdslApi);
