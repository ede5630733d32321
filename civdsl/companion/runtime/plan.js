// plan.js: the page's `civdsl plan --json` (`planAnswer`). The planner itself is generated: the
// purchase problem, its branch and bound, --explain and the two-turn look-ahead are
// civdsl/plan/purchase.py, answer.py and horizon.py translated by the build (pu_, pa_, ph_ names:
// civdsl/companion/py2es.py), as its search, payment table and prices are (ps_, pp_, pr_). What is
// written here: the objectives (plan/objectives.py's twin, until it is translated too) and the glue
// between the page's options and the translated answer.

// --- small helpers of the objectives (dict reads, sums, user errors) -------------------------------

function creditSum(values) {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function creditHas(obj, key) {
  return obj !== null && obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key);
}

// a user error: the command line answers {"error": {"kind": "user", "message": ...}} (core.js)
function creditUserError(message) {
  return new UserError(message);
}

// --- objectives -------------------------------------------------------------------------------

const planAttributes = ["cost", "vp", "group_count", "credit_total", "specific_total", "supply"];

function planObjective(M, spec, st) {
  const advances = M.ADVANCES;
  const names = Object.keys(advances);
  if (spec === null || spec === undefined || String(spec).trim() === "") {
    spec = names.every((n) => advances[n].vp !== null || advances[n].cost === null) ? "vp" : "points";
  }
  spec = String(spec).trim();
  if (["vp", "points", "cards"].indexOf(spec.toLowerCase()) >= 0) spec = spec.toLowerCase();
  const values = {};
  if (spec === "vp") {
    const missing = names.filter((n) => advances[n].vp === null && advances[n].cost !== null);
    if (missing.length) {
      throw creditUserError("--objective vp: " + M.EDITION.name + " gives no victory points to advances (e.g. "
        + missing[0] + "); use --objective points (printed cost) or cards");
    }
    for (const n of names) values[n] = (st ? st.advanceVp(n) : advances[n].vp) || 0;
    return planObjectiveOf("vp", "VP", values, 1);
  }
  if (spec === "points") {
    for (const n of names) values[n] = advances[n].cost || 0;
    return planObjectiveOf("points", "points", values, 1);
  }
  if (spec === "cards") {
    for (const n of names) values[n] = 1;
    return planObjectiveOf("cards", "advances", values, 1);
  }
  const expr = planParseExpression(spec);
  const exact = {};
  for (const n of names) exact[n] = advances[n].cost !== null ? planEvaluateFor(M, expr, n, spec) : planQ(0);
  // a fractional objective is searched in whole units of the common denominator: every sum,
  // comparison and ratio the search makes scales alike (the Python keeps Fractions)
  const floats = names.some((n) => exact[n].f !== undefined);
  let scale = 1;
  if (!floats) for (const n of names) scale = planLcm(scale, exact[n].d);
  const isInt = {};
  for (const n of names) {
    isInt[n] = exact[n].f === undefined && exact[n].d === 1;
    values[n] = floats ? planQValue(exact[n]) : exact[n].n * (scale / exact[n].d);
  }
  const out = planObjectiveOf(spec, spec, values, scale, isInt);
  out.floats = floats;
  out.exact = exact;
  return out;
}

// what a plan maximises: the sum over the advances bought of values[name] (in units of 1/scale);
// isInt says which values Python holds as whole numbers (its bounds round those)
function planObjectiveOf(name, label, values, scale, isInt) {
  if (!isInt) {
    isInt = {};
    for (const n of Object.keys(values)) isInt[n] = true;
  }
  return {name: name, label: label, values: values, scale: scale, isInt: isInt};
}

function planObjectiveSum(obj, names) {
  let total = 0;
  for (const n of names) total += obj.values[n];
  return total;
}

// an objective quantity as the command line prints it: an integer, a fraction as "n/d", a float as
// Python writes one ("2.0"); `count` is how many advances' values it sums (none: a whole number 0)
function planNumber(obj, v, count) {
  if (obj.floats && (count === undefined || count > 0)) return pf(v);
  if (obj.scale === 1) return v;
  const g = planGcd(Math.abs(v), obj.scale);
  const n = v / g;
  const d = obj.scale / g;
  return d === 1 ? n : n + "/" + d;
}

function planGcd(a, b) {
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

function planLcm(a, b) {
  return a / planGcd(a, b) * b;
}

// --- objective expressions: the rulebook grammar's expression subset, parsed and evaluated here
// (the player types them at the table; nothing is compiled to code, nothing evaluated as script)

// exact numbers: {n, d} with d > 0 and gcd 1; a float (sqrt) as {f}
function planQ(n, d) {
  if (d === undefined) d = 1;
  if (d < 0) {
    n = -n;
    d = -d;
  }
  const g = planGcd(Math.abs(n), d) || 1;
  return {n: n / g, d: d / g};
}

function planQValue(q) {
  return q.f !== undefined ? q.f : q.n / q.d;
}

const planToken = /\s*(?:("(?:[^"\\\n]|\\.)*")|(\d+)|([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)|(==|!=|<=|>=|\/\/|[<>+\-*\/(),])|(\S))/y;

function planParseExpression(text) {
  const fail = (why) => creditUserError("--objective " + pyRepr(text) + ": " + why + " (write vp, points, cards or "
    + "an expression over " + planAttributes.join(", ") + " and group names, e.g. \"vp * 100 + cost\")");
  if (text.indexOf("\n") >= 0 || text.indexOf("\r") >= 0 || text.length > 500) {
    throw creditUserError("--objective: an expression is one line of at most 500 characters");
  }
  const tokens = [];
  planToken.lastIndex = 0;
  while (planToken.lastIndex < text.length) {
    const at = planToken.lastIndex;
    const m = planToken.exec(text);
    if (m === null) break;
    if (m[5] !== undefined) throw fail("unexpected character `" + m[5] + "`");
    if (m[1] !== undefined) tokens.push({t: "str", v: planUnquote(m[1])});
    else if (m[2] !== undefined) tokens.push({t: "int", v: m[2]});
    else if (m[3] !== undefined) {
      const word = m[3].replace(/\s+/g, "");
      const kw = ["and", "or", "not", "true", "false", "unknown", "where"];
      tokens.push(kw.indexOf(word) >= 0 ? {t: word} : {t: "name", v: word});
    } else if (m[4] !== undefined) tokens.push({t: m[4]});
    if (planToken.lastIndex === at) break;
  }
  let pos = 0;
  const peek = () => (pos < tokens.length ? tokens[pos].t : null);
  const take = (t) => {
    if (peek() !== t) throw fail(pos < tokens.length ? "unexpected `" + (tokens[pos].v || tokens[pos].t) + "`"
                                                     : "unexpected end of file");
    return tokens[pos++];
  };
  function orExpr() {
    let left = andExpr();
    while (peek() === "or") { pos++; left = {op: "or", a: left, b: andExpr()}; }
    return left;
  }
  function andExpr() {
    let left = notExpr();
    while (peek() === "and") { pos++; left = {op: "and", a: left, b: notExpr()}; }
    return left;
  }
  function notExpr() {
    if (peek() === "not") { pos++; return {op: "not", a: notExpr()}; }
    const left = sum();
    const c = peek();
    if (["==", "!=", "<", "<=", ">", ">="].indexOf(c) >= 0) { pos++; return {op: c, a: left, b: sum()}; }
    return left;
  }
  function sum() {
    let left = product();
    while (peek() === "+" || peek() === "-") { const op = tokens[pos++].t; left = {op: op, a: left, b: product()}; }
    return left;
  }
  function product() {
    let left = unary();
    while (peek() === "*" || peek() === "/" || peek() === "//") {
      const op = tokens[pos++].t;
      left = {op: op, a: left, b: unary()};
    }
    return left;
  }
  function unary() {
    if (peek() === "-") { pos++; return {op: "neg", a: unary()}; }
    return atom();
  }
  function atom() {
    const c = peek();
    if (c === "int") return {op: "num", v: tokens[pos++].v};
    if (c === "str") return {op: "str", v: tokens[pos++].v};
    if (c === "true" || c === "false") { pos++; return {op: "bool", v: c === "true"}; }
    if (c === "unknown") { pos++; return {op: "unknown"}; }
    if (c === "(") { pos++; const e = orExpr(); take(")"); return e; }
    if (c === "name") {
      const name = tokens[pos++].v;
      if (peek() === "(") {
        pos++;
        const args = [];
        if (peek() !== ")") {
          args.push(orExpr());
          while (peek() === ",") { pos++; args.push(orExpr()); }
        }
        take(")");
        return {op: "call", name: name, args: args};
      }
      return {op: "name", v: name};
    }
    throw fail(pos < tokens.length ? "unexpected `" + (tokens[pos].v || tokens[pos].t) + "`"
                                   : "unexpected end of file");
  }
  if (!tokens.length) throw fail("not a single expression");
  const e = orExpr();
  if (pos !== tokens.length) throw fail("unexpected `" + (tokens[pos].v || tokens[pos].t) + "`");
  return e;
}

// a rulebook string literal's text (its escapes: \\" \\\\ \\n \\t \\r \\0 \\uXXXX)
function planUnquote(literal) {
  return literal.slice(1, -1).replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (all, c) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return {n: "\n", t: "\t", r: "\r", "0": "\0"}[c] || c;
  });
}

function planEvaluateFor(M, expr, name, text) {
  const adv = M.ADVANCES[name];
  const values = {
    cost: adv.cost, vp: adv.vp, group_count: adv.groups.length,
    credit_total: creditSum(Object.keys(adv.credits).map((g) => adv.credits[g])),
    specific_total: creditSum(Object.keys(adv.specific).map((t) => adv.specific[t])),
    supply: adv.supply || 0,
  };
  const fail = (why) => creditUserError("--objective " + pyRepr(text) + ": " + why);
  const num = (v) => {
    if (typeof v === "boolean" || v === null || typeof v !== "object") {
      const what = v === null ? "unknown" : (typeof v === "boolean" ? "true/false" : "the text " + pyRepr(v));
      throw fail("expected a number, got " + what);
    }
    return v;
  };
  const isF = (a, b) => a.f !== undefined || b.f !== undefined;
  function ev(e) {
    switch (e.op) {
      case "num": return planQ(Number(e.v));
      case "bool": return e.v;
      case "str": return e.v;
      case "unknown": return null;
      case "name": {
        if (creditHas(values, e.v)) {
          if (values[e.v] === null) throw fail("`" + e.v + "` is unknown for " + name);
          return planQ(values[e.v]);
        }
        if (creditHas(M.GROUPS, e.v)) return planQ(adv.groups.indexOf(e.v) >= 0 ? 1 : 0);
        if (creditHas(M.CONSTS, e.v)) {
          const c = M.CONSTS[e.v];
          return typeof c === "number" ? planQ(c) : c;
        }
        throw fail("unknown name `" + e.v + "` (an objective reads " + planAttributes.concat(Object.keys(M.GROUPS))
          .join(", ") + " and the rulebook's constants)");
      }
      case "not": return !planTruth(ev(e.a));
      case "and": return planTruth(ev(e.a)) && planTruth(ev(e.b));
      case "or": return planTruth(ev(e.a)) || planTruth(ev(e.b));
      case "neg": {
        const a = num(ev(e.a));
        return a.f !== undefined ? {f: -a.f} : planQ(-a.n, a.d);
      }
      case "call": {
        const arities = {floor: 1, ceil: 1, sqrt: 1, min: 2, max: 2, abs: 1};
        if (!creditHas(arities, e.name)) throw fail("`" + e.name + "` cannot be evaluated here");
        const arity = arities[e.name];
        const args = e.args.map((x) => num(ev(x)));
        if (args.length !== arity) throw fail("`" + e.name + "` takes " + arity + " argument" + (arity !== 1 ? "s" : ""));
        const a = args[0];
        if (e.name === "floor" || e.name === "ceil") {
          const v = a.f !== undefined ? a.f : a.n / a.d;
          const exactFloor = a.f !== undefined ? Math.floor(v) : Math.floor(a.n / a.d);
          if (e.name === "floor") return planQ(exactFloor);
          return planQ(a.f !== undefined ? Math.ceil(v) : (a.n % a.d === 0 ? a.n / a.d : exactFloor + 1));
        }
        if (e.name === "sqrt") {
          const v = planQValue(a);
          if (v < 0) throw fail("`sqrt` cannot be evaluated: math domain error");
          return {f: Math.sqrt(v)};
        }
        if (e.name === "abs") return a.f !== undefined ? {f: Math.abs(a.f)} : planQ(Math.abs(a.n), a.d);
        const b = args[1];
        const less = planQValue(b) < planQValue(a);
        if (e.name === "min") return less ? b : a;
        return planQValue(b) > planQValue(a) ? b : a;
      }
      default: {
        const a = ev(e.a);
        const b = ev(e.b);
        if (e.op === "==" || e.op === "!=") {
          const same = (a !== null && typeof a === "object" && b !== null && typeof b === "object")
            ? planQValue(a) === planQValue(b) : a === b;
          return e.op === "==" ? same : !same;
        }
        const x = num(a);
        const y = num(b);
        if (e.op === "+" || e.op === "-" || e.op === "*") {
          if (isF(x, y)) {
            const u = planQValue(x);
            const w = planQValue(y);
            return {f: e.op === "+" ? u + w : (e.op === "-" ? u - w : u * w)};
          }
          if (e.op === "+") return planQ(x.n * y.d + y.n * x.d, x.d * y.d);
          if (e.op === "-") return planQ(x.n * y.d - y.n * x.d, x.d * y.d);
          return planQ(x.n * y.n, x.d * y.d);
        }
        if (e.op === "/" || e.op === "//") {
          if (planQValue(y) === 0) throw fail("division by zero");
          if (isF(x, y)) {
            const r = planQValue(x) / planQValue(y);
            return e.op === "/" ? {f: r} : planQ(Math.floor(r));
          }
          const q = planQ(x.n * y.d, x.d * y.n);
          return e.op === "/" ? q : planQ(Math.floor(q.n / q.d));
        }
        const u = planQValue(x);
        const w = planQValue(y);
        return {"<": u < w, "<=": u <= w, ">": u > w, ">=": u >= w}[e.op];
      }
    }
  }
  const value = ev(expr);
  if (value === null || typeof value !== "object") {
    const shown = value === true ? "True" : (value === false ? "False" : (value === null ? "None" : pyRepr(value)));
    throw fail("gives " + shown + " for " + name + ", not a number");
  }
  return value;
}

function planTruth(v) {
  if (v !== null && typeof v === "object") return planQValue(v) !== 0;
  return Boolean(v);
}

// --- the host the translated planner calls (py2es.HOST_NAMES) ---------------------------------------

// objectives.Objective as the translated planner reads it: each advance's value as Python holds it
// (an int, a Fraction, a float), read from the page's objective (whose values are in whole units)
function planObjectiveValue(M, spec, st) {
  const obj = planObjective(M, spec, st);
  const values = new PyDict();
  for (const n of Object.keys(obj.values)) {
    const q = obj.exact ? obj.exact[n] : null;
    values.setItem(n, q === null ? obj.values[n] : q.f !== undefined ? pf(q.f) : q.d === 1 ? q.n : new Frac(q.n, q.d));
  }
  return {name: obj.name, label: obj.label, values: values,
    of(names) { let total = 0; for (const n of pyIterAny(names)) total = add(total, values.getItem(n)); return total; }};
}

// runtime.PlayerState(module, held, facts): the page's player state over the same facts
function playerStateOf(module, held, facts) {
  return new PlayerState(Array.from(held), pyPlain(facts));
}

// startcredits.start_credits(module, state)
function startCreditsOf(module, state) {
  const got = startCredits(state);
  return got === null ? null : pyFromPlain(got);
}

// plan/hand.py's hand_report(module, cards, state): each set's value, zero-value cards, the total
function planHandReport(module, cards, state) {
  const hand = {};
  for (const [n, k] of pyIter(cards.items())) if (k) hand[n] = k;
  const value = pyPlain(hv_hand_value(module, pyFromPlain(hand), state));
  for (const s of value.sets) s.zero_value = s.face === 0;
  value.cards = creditSum(Object.values(pyPlain(cards)));
  value.zero_value_cards = creditSum(value.sets.filter((s) => s.zero_value).map((s) => s.cards));
  return pyFromPlain(value);
}

// --- `civdsl plan --json`: plan/answer.py's answer, translated (pa_answer) --------------------------

function planOption(options, names, fallback) {
  for (const n of names) if (creditHas(options, n) && options[n] !== null && options[n] !== undefined) return options[n];
  return fallback;
}

// options: the flags of `civdsl plan` in camelCase: {holds, objective, want, avoid, top, explain,
// horizon, handLimit, option: {name: true|false} (--option NAME=on|off)}, and `among` (the Python API's: the advances considered at all)
function planAnswer(M, state, options) {
  options = options || {};
  const st = makePlayerState(state, {holds: options.holds, option: options.option});
  const obj = planObjectiveValue(M, planOption(options, ["objective", "objectiveSpec", "objective_spec"], null), st);
  const among = planOption(options, ["among"], null);
  return pyPlain(pa_answer(engineModule(), M.EDITION.id, M.EDITION.name, st.held.slice(), pyFromState(st.facts), obj,
    splitNames(planOption(options, ["want"], [])), splitNames(planOption(options, ["avoid"], [])),
    among === null ? null : splitNames(among), planOption(options, ["handLimit", "hand_limit"], null),
    planOption(options, ["top"], 1), Boolean(planOption(options, ["explain"], false)), planOption(options, ["horizon"], 1)));
}
