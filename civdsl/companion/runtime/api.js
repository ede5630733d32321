// api.js: the contract. globalThis.civdsl answers each question with exactly the object the
// command line prints with --json (the same keys, lists and numbers): resolve, epoch and score
// here (the generated standing.py), cost and plan from credits.js and plan.js when those are part of the engine.

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
function ownState(state) {
  if (state !== null && typeof state === "object" && Object.prototype.hasOwnProperty.call(state, "__proto__")) {
    throw new UserError("state: unknown key `__proto__`");
  }
  return state;
}

function resolveAnswer(state, calamity, role, options) {
  options = options || {};
  role = role === undefined || role === null ? "primary" : role;
  if (role !== "primary" && role !== "secondary") throw new UserError("role must be primary or secondary, not " + pyRepr(role));
  const name = sc_canonical_names(engineModule(), "calamity", [calamity], "calamity")[0];
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
  if (track === "") {  // `--ast` with no name: the rulebook's tracks
    return {tracks: Object.keys(MODEL.AST).map(function (t) { return {id: t, name: MODEL.AST[t].name}; })};
  }
  sc_check_track(engineModule(), track);
  // without --ast, the track the state says the game uses (runtime: api.epochs)
  const inPlay = get(state || {}, "ast_track", null);
  const tracks = track !== null ? [track] : typeof inPlay === "string" && own(MODEL.AST, inPlay) ? [inPlay]
    : Object.keys(MODEL.AST);
  return {tracks: tracks.map(function (t) {
    return pyPlain(st_epochs(engineModule(), t, makePlayerState(ownState(state), options)));
  })};
}

function scoreAnswer(state, options) {
  return pyPlain(st_score(engineModule(), makePlayerState(ownState(state), options || {})));
}

// The compiled module as the generated engines read it (the names and shapes of the Python module
// codegen writes), made once from MODEL and RULES.
let engineModuleMade = null;
function engineModule() {
  if (engineModuleMade !== null) return engineModuleMade;
  const tracks = new PyDict();
  for (const track of Object.keys(MODEL.AST)) {
    const t = pyFromPlain(MODEL.AST[track]);
    t.setItem("epochs", RULES.ast.get(track).epochs);
    t.setItem("backward", RULES.ast.get(track).backward);
    tracks.setItem(track, t);
  }
  engineModuleMade = {AST: tracks, CIVILIZATIONS: pyFromPlain(MODEL.CIVILIZATIONS || {}),
    AST_COUNTED_FACTS: pyFromPlain(MODEL.AST_COUNTED_FACTS || {}), SCORE_AST: MODEL.SCORE_AST || [],
    SCORE_POINTS: RULES.score.points, SCORE_TIEBREAKS: RULES.score.tiebreaks,
    COMMODITIES: pyFromPlain(MODEL.COMMODITIES), ADVANCES: pyFromPlain(MODEL.ADVANCES), CALAMITIES: byName(MODEL.CALAMITIES),
    GROUPS: byName(MODEL.GROUPS), EDITION: pyFromPlain(MODEL.EDITION), CONSTS: pyFromPlain(MODEL.CONSTS), UNIT_POINTS: pyFromPlain(MODEL.UNIT_POINTS),
    BOUNDS: pyFromPlain(MODEL.BOUNDS), OPTIONS: byName(MODEL.OPTIONS), ALIASES: pyFromPlain(MODEL.ALIASES || {}), set_value: RULES.setValue, SCENARIOS: MODEL.SCENARIOS || [],
    START_CREDITS: pyFromPlain(MODEL.START_CREDITS === undefined ? null : MODEL.START_CREDITS),
    OFF_BLOCK: MODEL.OFF_BLOCK === undefined || MODEL.OFF_BLOCK === null ? null
      : pyDict([["value", RULES.offBlock.value], ["when", RULES.offBlock.when]])};
  return engineModuleMade;
}

// a table of the model by name as a dict (its entries left as they are: only the names are read)
function byName(table) {
  return pyDict(Object.keys(table || {}).map(function (k) { return [k, table[k]]; }));
}

// the vocabulary's facts (vocabulary.FACTS) as statecheck reads them: name -> {type, minimum}
let engineFactsMade = null;
function engineFacts() {
  return engineFactsMade || (engineFactsMade = byName(RULES.facts));
}

// pricing.ability: the arguments of each ability of KIND the advance NAME carries
function abilityOf(module, name, kind) {
  return MODEL.ADVANCES[name].abilities.filter(function (a) { return a[0] === kind; })
    .map(function (a) { return pyFromPlain(a[1]); });
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
  // the answer as the command line prints it (json.dumps(indent=2): floats as "2.0")
  dumps: function (value) {
    return pyDumps(value);
  },
};
// cost and plan are jscost's (credits.js, plan.js): offered only when the engine includes them
if (typeof costAnswer === "function") {
  civdslApi.cost = function (state, options) {
    return answer("cost", function () { return costAnswer(MODEL, ownState(state), options || {}); });
  };
}
if (typeof planAnswer === "function") {
  civdslApi.plan = function (state, options) {
    return answer("plan", function () { return planAnswer(MODEL, ownState(state), options || {}); });
  };
}
// Every text a question is asked with (a name, a state's lists and mappings) in NFC, as the
// command line reads it (state.nfc) and as the rulebook's names are: one name however its accents
// were typed. Mappings keep their prototype and an own `__proto__` key stays an own key.
const NFC_DEPTH = 8;  // a state is a few levels deep; deeper (or cyclic) values are passed as they are

function nfcValue(value, depth) {
  if (typeof value === "string") return value.normalize("NFC");
  if (depth >= NFC_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(function (v) { return nfcValue(v, depth + 1); });
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out = Object.create(proto);
  for (const k of Object.keys(value)) {
    Object.defineProperty(out, k.normalize("NFC"), {value: nfcValue(value[k], depth + 1), enumerable: true,
                                                   writable: true, configurable: true});
  }
  return out;
}

for (const command of ["resolve", "epoch", "score", "cost", "plan"]) {
  const ask = civdslApi[command];
  if (typeof ask !== "function") continue;
  civdslApi[command] = function () {
    let args = Array.from(arguments);
    try {
      args = args.map(function (a) { return nfcValue(a, 0); });
    } catch (exc) {
      // a value whose reading throws (a getter): the question answers from the value as given
    }
    return ask.apply(null, args);
  };
}
globalThis.civdsl = Object.freeze(civdslApi);
