// plan.js: the purchase planner, `planAnswer` being `civdsl plan --json`. The JavaScript twin of
// civdsl/plan/purchase.py and civdsl/plan/horizon.py, step for step: the same candidates, the same
// branch and bound (visited in the same order, so `sets_examined` agrees), the same hand-over to
// the dynamic programme over price (which is not a twin: `ps_search`, plan/search.py translated by
// the build, civdsl/companion/py2es.py), the same payment table, the same explanation and
// two-turn look-ahead. Dict orders of the Python are kept with Map (insertion order); Python's tuple
// order is creditCmp (below); prices are pricing.py's, translated (pr_prices, pr_purchase_total).

// --- small helpers of the planner's twin (Python's order, dict reads, user errors) -------------

// Python's string order (code points; the same as UTF-16 code units for every name a rulebook
// can hold outside the astral planes)
function creditCmpStr(a, b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Python's tuple order over arrays of numbers, strings and nested arrays; null (None) sorts first
function creditCmp(a, b) {
  if (Array.isArray(a)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = creditCmp(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

function creditSum(values) {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function creditHas(obj, key) {
  return obj !== null && obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key);
}

function creditGet(obj, key, fallback) {
  return creditHas(obj, key) ? obj[key] : fallback;
}

// a user error: the command line answers {"error": {"kind": "user", "message": ...}} (core.js)
function creditUserError(message) {
  return new UserError(message);
}

// a number a rule computed (core.js keeps Python's int, Fraction and float apart) as a plain number
// for the payment's arithmetic
function creditPlain(v) {
  return v instanceof Frac ? v.n / v.d : +v;
}

// the items named, by their own names (any declared name or `aka`, in any case)
function creditCanonical(M, kind, names, option) {
  return sc_canonical_names(engineModule(), kind, names, option);
}

// a fresh player state over the same facts (runtime.PlayerState(module, held, facts))
function creditProbe(M, holds, facts) {
  return new PlayerState(holds, facts);
}

function creditSetValue(M, n, face) {
  return creditPlain(RULES.setValue(n, face));
}

function creditOffBlockValue(M, n, face) {
  return creditPlain(RULES.offBlock.value(n, face));
}

function creditVariants(M) {
  return M.CREDIT_VARIANTS ? Array.from(M.CREDIT_VARIANTS) : [];
}

// each advance's position in the rulebook
function creditOrder(M) {
  if (!M.__creditOrder) {
    const order = {};
    Object.keys(M.ADVANCES).forEach((name, i) => { order[name] = i; });
    Object.defineProperty(M, "__creditOrder", {value: order, enumerable: false});
  }
  return M.__creditOrder;
}

// pricing.prices, translated (pr_prices), its answer as plain objects for the planner's twin
function planPrices(M, holds, buys, extra) {
  return pyPlain(pr_prices(engineModule(), holds, buys, pyFromPlain(extra)));
}

const planSameTurnKinds = ["discount", "free_advance", "acquire_all"];
const planBbCap = 3000;
const planSingleUseCap = 3000;  // PurchaseProblem.single_use_cap
const planSingleUseWork = 120000;  // PurchaseProblem.single_use_work
// sets --explain's searches may examine in all
const planExplainCap = 4000;  // PurchaseProblem.explain_cap
const planExplainProgrammes = 4;  // PurchaseProblem.explain_programmes
// sets the two-turn look-ahead may examine over both turns
const planHorizonWork = 2000;  // PurchaseProblem.horizon_work
const planStop = {stopped: true};  // thrown to stop a search (planner._SearchStopped)

// --- objectives: plan/objectives.py, generated (ob_ names: civdsl/companion/py2es.py) ------------

// The objective's values in the hand-written planner's units until plan/purchase.py is generated: a
// fractional objective in whole units of its common denominator (every sum, comparison and ratio the
// search makes scales alike), a float one as numbers
function planObjective(M, spec, st) {
  const obj = ob_objective(engineModule(), spec === undefined ? null : spec, st || null);
  const names = Object.keys(M.ADVANCES);
  const exact = {};
  for (const n of names) exact[n] = obj.values.getItem(n);
  const floats = names.some((n) => exact[n] instanceof PyFloat);
  let scale = 1;
  if (!floats) for (const n of names) if (exact[n] instanceof Frac) scale = planLcm(scale, exact[n].d);
  const values = {};
  const isInt = {};
  for (const n of names) {
    const v = exact[n];
    isInt[n] = typeof v === "number";
    values[n] = floats ? +v : (v instanceof Frac ? v.n * (scale / v.d) : v * scale);
  }
  const out = planObjectiveOf(obj.name, obj.label, values, scale, isInt);
  out.floats = floats;
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

// --- the payment table: plan/payment.py, generated (pp_ names: civdsl/companion/py2es.py) ---------

// the payment table of a hand (cards: commodity -> count) and treasury
function planPayments(M, cards, treasury, treasuryValue, state, rate, substitute, paying) {
  return new pp_PaymentTable(engineModule(), pyFromPlain(cards), treasury, treasuryValue, state, rate, substitute,
    paying);
}

function planBisectLeft(list, x) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function planBisectRight(list, x) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (x < list[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// --- the hand and the limits -------------------------------------------------------------------

function planHandReport(M, cards, state) {
  const hand = {};
  for (const n of Object.keys(cards)) if (cards[n]) hand[n] = cards[n];
  const value = pyPlain(hv_hand_value(engineModule(), pyFromPlain(hand), state));
  for (const s of value.sets) s.zero_value = s.face === 0;
  value.cards = creditSum(Object.keys(cards).map((n) => cards[n]));
  value.zero_value_cards = creditSum(value.sets.filter((s) => s.zero_value).map((s) => s.cards));
  return value;
}

function planLookup(bands, x) {
  for (const band of bands) {
    if (x >= band[0] && (band[1] === null || x <= band[1])) return band[2];
  }
  throw creditUserError("no band of the table covers " + x);
}

function planBaseHandLimit(M, facts, override) {
  if (override !== null && override !== undefined) return [Math.trunc(override), "--hand-limit"];
  const table = creditGet(M.TABLES, "hand_limit_by_players", null);
  if (table !== null && creditHas(facts, "players")) {
    return [Math.trunc(planLookup(table, facts.players)), "the rulebook's limit for " + facts.players + " players"];
  }
  if (creditHas(M.CONSTS, "hand_limit")) return [Math.trunc(M.CONSTS.hand_limit), "the rulebook's limit"];
  if (table !== null) {
    throw creditUserError("the hand limit depends on the number of players: give the number of players, "
      + "or the hand limit itself");
  }
  throw creditUserError(M.EDITION.name + " declares no hand limit (const hand_limit or table "
    + "hand_limit_by_players): pass --hand-limit N");
}

function planInfo(M) {
  if (!M.__planInfo) {
    const info = {};
    for (const name of Object.keys(M.ADVANCES)) {
      const adv = M.ADVANCES[name];
      const byKind = {};
      for (const pair of adv.abilities) {
        if (!creditHas(byKind, pair[0])) byKind[pair[0]] = [];
        byKind[pair[0]].push(pair[1]);
      }
      info[name] = {
        abilities: byKind,
        hand_delta: creditSum((byKind.hand_limit || []).map((a) => a.delta)),
        free_credits: creditSum((byKind.free_credits || []).map((a) => a.amount)),
        group_credit: creditSum(Object.keys(adv.credits).map((g) => adv.credits[g])),
      };
    }
    Object.defineProperty(M, "__planInfo", {value: info, enumerable: false});
  }
  return M.__planInfo;
}

function planAbilities(M, name, kind) {
  return planInfo(M)[name].abilities[kind] || [];
}

function planHandDelta(M, name) {
  return planInfo(M)[name].hand_delta;
}

// --- the purchase problem (planner.PurchaseProblem) --------------------------------------------

function planProblem(M, holds, facts, obj, opts) {
  opts = opts || {};
  const want0 = opts.want || [];
  const avoid0 = opts.avoid || [];
  const among0 = opts.among === undefined ? null : opts.among;
  const handLimit = opts.hand_limit === undefined ? null : opts.hand_limit;
  this.M = M;
  this.options = {want: want0.slice(), avoid: avoid0.slice(), among: among0, hand_limit: handLimit};
  this.holds = holds.slice();
  this.held = new Set(this.holds);
  this.facts = facts;
  this.objective = obj;
  this.extra = Object.assign({}, facts.credits || {});
  this.extraCredits = pyFromPlain(this.extra);  // as the translated pricing reads them
  // single_use: the sets priced by a placement stopped at its cap -> the least price it proves;
  // the best objective of those that price would make affordable (planner.capped_least, unsure)
  this.cappedLeast = new Map();
  this.unsure = null;
  this.stoppedAtCap = false;
  // the states the single-use credit placements have made, shared by the answer's problems
  // (planner.PurchaseProblem.work)
  this.work = opts.work || [0];
  // what-can-be-paid's work in every payment table of the answer (planner.PurchaseProblem.paying)
  this.paying = opts.paying || [0];
  const advances = M.ADVANCES;
  this.order = creditOrder(M);
  const want = creditCanonical(M, "advance", want0, "--want");
  const avoid = new Set(creditCanonical(M, "advance", avoid0, "--avoid"));
  const among = among0 === null ? null : creditCanonical(M, "advance", among0, "among");
  this.excluded = [];
  const cands = [];
  for (const name of Object.keys(advances)) {
    const adv = advances[name];
    if (this.held.has(name) || (among !== null && among.indexOf(name) < 0)) continue;
    let why = null;
    if (avoid.has(name)) why = "avoided (--avoid)";
    else if (adv.cost === null) why = "its cost is unknown in this rulebook: never bought";
    else {
      const missing = adv.requires.filter((r) => !this.held.has(r));
      if (missing.length) why = "needs " + missing.join(", ") + " held before this turn";
    }
    if (why) this.excluded.push({advance: name, why: why});
    else cands.push(name);
  }
  for (const w of want) {
    if (this.held.has(w)) throw creditUserError("--want: " + w + " is already held");
    if (cands.indexOf(w) < 0) {
      const e = this.excluded.find((x) => x.advance === w);
      throw creditUserError("--want: " + w + " cannot be bought: " + (e ? e.why : "not a candidate"));
    }
  }
  this.candidates = cands;
  this.want = Array.from(new Set(want)).sort((a, b) => this.order[a] - this.order[b]);
  this.cardLimit = creditGet(M.CONSTS, "card_limit", null);
  this.maxNew = this.cardLimit === null ? null : Math.max(0, this.cardLimit - this.holds.length);
  if (this.maxNew !== null && this.want.length > this.maxNew) {
    throw creditUserError("--want: " + this.want.length + " advances, but the card limit (" + this.cardLimit
      + ") leaves room for " + this.maxNew);
  }
  this.singleUse = creditVariants(M).indexOf("single_use") >= 0;
  const special = cands.filter((n) => this.singleUse || planSameTurnKinds.some((k) => planAbilities(M, n, k).length));
  const specialSet = new Set(special);
  const plain = cands.filter((n) => !specialSet.has(n));
  this.base = {};
  if (plain.length) {
    for (const row of planPrices(M, this.holds, plain, this.extra).items) this.base[row.advance] = Math.max(0, row.price);
  }
  for (const n of special) {
    // a lower bound, as the search needs (a placement stopped at its cap proves one)
    const priced = planPrices(M, this.holds, [n], this.extra);
    this.base[n] = Math.max(0, priced.complete ? priced.items[0].price : priced.total_at_least);
  }
  this.treasuryValue = planPrices(M, this.holds, [], this.extra).treasury_value;
  this.sameTurn = specialSet;
  this.discounts = {};
  this.frees = {};
  this.alls = {};
  for (const n of special) {
    this.discounts[n] = planAbilities(M, n, "discount").map((a) => a.amount);
    this.frees[n] = planAbilities(M, n, "free_advance").map((a) => [a.group, a.cost_below]);
    this.alls[n] = planAbilities(M, n, "acquire_all").map((a) => [a.group, a.cost_below]);
  }
  const limit = planBaseHandLimit(M, facts, handLimit);
  this.limit0 = limit[0] + creditSum(this.holds.map((h) => planHandDelta(M, h)));
  this.limitSource = limit[1];
  const cards = {};
  for (const n of Object.keys(facts.commodities || {})) cards[n] = Math.trunc(facts.commodities[n]);
  this.cards = cards;
  this.treasury = Math.trunc(facts.treasury || 0);
  let rate = 0;
  let substitute = false;
  for (const h of this.holds) {
    for (const a of planAbilities(M, h, "card_treasury")) rate = Math.max(rate, a.rate);
    if (planAbilities(M, h, "substitute_card").length) substitute = true;
  }
  const key = this.treasuryValue + "," + rate + "," + substitute;
  const payments = opts.payments;
  if (payments && payments.has(key)) {
    this.payments = payments.get(key);
  } else {
    this.payments = planPayments(M, cards, this.treasury, this.treasuryValue,
      creditProbe(M, this.holds, facts), rate, substitute, this.paying);
    if (payments) payments.set(key, this.payments);
  }
  this.prepare();
}

planProblem.prototype.sortByOrder = function (names) {
  const order = this.order;
  return names.slice().sort((a, b) => order[a] - order[b]);
};

planProblem.prototype.exactPrice = function (names) {
  names = this.sortByOrder(names);
  if (this.singleUse) {
    const [total, complete, least] = pr_purchase_total(engineModule(), this.holds, names, this.extraCredits, this.work);
    if (!complete) this.cappedLeast.set(JSON.stringify(names), least);
    return total;
  }
  let any = false;
  for (const n of names) if (this.sameTurn.has(n)) { any = true; break; }
  if (!any) {
    let total = 0;
    for (const n of names) total += this.base[n];
    return total;
  }
  const adv = this.M.ADVANCES;
  const count = names.length;
  const price = names.map((n) => this.base[n]);
  for (const name of names) {
    for (const gb of (this.alls[name] || [])) {
      for (let r = 0; r < count; r++) {
        const other = names[r];
        if (other !== name && adv[other].groups.indexOf(gb[0]) >= 0 && adv[other].cost < gb[1]) price[r] = 0;
      }
    }
  }
  // the dearest other advance with a price above 0 (by price, then name), or -1
  const dearest = (name, group, below) => {
    let at = -1;
    for (let r = 0; r < count; r++) {
      const other = names[r];
      if (other === name || price[r] <= 0) continue;
      if (group !== null && !(adv[other].groups.indexOf(group) >= 0 && adv[other].cost < below)) continue;
      if (at < 0 || price[r] > price[at] || (price[r] === price[at] && other > names[at])) at = r;
    }
    return at;
  };
  for (const name of names) {
    for (const amount of (this.discounts[name] || [])) {
      const at = dearest(name, null, 0);
      if (at >= 0) price[at] -= amount;
    }
    for (const gb of (this.frees[name] || [])) {
      const at = dearest(name, gb[0], gb[1]);
      if (at >= 0) price[at] = 0;
    }
  }
  let total = 0;
  for (const p of price) total += Math.max(0, p);
  return total;
};

planProblem.prototype.handLimit = function (names) {
  return this.limit0 + creditSum(names.map((n) => planHandDelta(this.M, n)));
};

planProblem.prototype.credit = function (names) {
  const info = planInfo(this.M);
  const advances = this.M.ADVANCES;
  const chosen = new Set(names);
  let total = 0;
  for (const n of names) {
    total += info[n].group_credit + info[n].free_credits;
    const spec = advances[n].specific;
    for (const t of Object.keys(spec)) {
      if (!this.held.has(t) && !chosen.has(t)) total += spec[t];
    }
  }
  return total;
};

planProblem.prototype.creditBound = function (name) {
  const i = planInfo(this.M)[name];
  const spec = this.M.ADVANCES[name].specific;
  let total = i.group_credit + i.free_credits;
  for (const t of Object.keys(spec)) if (!this.held.has(t)) total += spec[t];
  return total;
};

planProblem.prototype.withWant = function (names) {
  const clone = Object.create(planProblem.prototype);
  Object.assign(clone, this);
  const want = new Set(this.want);
  for (const n of names) want.add(n);
  clone.want = Array.from(want).sort((a, b) => this.order[a] - this.order[b]);
  clone.options = Object.assign({}, this.options, {want: clone.want});
  clone._searchCandidates = undefined;
  clone.prepare();
  return clone;
};

planProblem.prototype.maxReduction = function (name) {
  const adv = this.M.ADVANCES;
  let total = creditSum(this.discounts[name] || []);
  for (const gb of (this.frees[name] || [])) {
    let most = 0;
    for (const c of this.candidates) {
      if (c !== name && adv[c].groups.indexOf(gb[0]) >= 0 && adv[c].cost < gb[1]) most = Math.max(most, this.base[c]);
    }
    total += most;
  }
  for (const gb of (this.alls[name] || [])) {
    for (const c of this.candidates) {
      if (c !== name && adv[c].groups.indexOf(gb[0]) >= 0 && adv[c].cost < gb[1]) total += this.base[c];
    }
  }
  return total;
};

planProblem.prototype.prepare = function () {
  const obj = this.objective.values;
  const M = this.M;
  const wantSet = new Set(this.want);
  const pool = this.candidates.filter((n) => !wantSet.has(n));
  const eff = {};
  for (const n of this.candidates) eff[n] = this.base[n] - (this.sameTurn.has(n) ? this.maxReduction(n) : 0);
  this.eff = eff;
  const order = this.order;
  const byRatio = (x, y) => {
    const vx = obj[x];
    const bx = Math.max(0, eff[x]);
    const vy = obj[y];
    const by = Math.max(0, eff[y]);
    const cx = vx <= 0 ? 2 : (bx === 0 ? 0 : 1);
    const cy = vy <= 0 ? 2 : (by === 0 ? 0 : 1);
    if (cx !== cy) return cx - cy;
    if (cx === 1 && vx * by !== vy * bx) return vx * by > vy * bx ? -1 : 1;
    return order[x] - order[y];
  };
  this.items = pool.slice().sort(byRatio);
  const n = this.items.length;
  this.b = this.items.map((x) => this.base[x]);
  this.e = this.items.map((x) => eff[x]);
  this.o = this.items.map((x) => obj[x]);
  this.cub = this.items.map((x) => this.creditBound(x));
  this.hd = this.items.map((x) => planHandDelta(M, x));
  this.negSuf = new Array(n + 1).fill(0);
  this.hposSuf = new Array(n + 1).fill(0);
  this.cubSuf = new Array(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    this.negSuf[i] = this.negSuf[i + 1] + Math.max(0, -this.e[i]);
    this.hposSuf[i] = this.hposSuf[i + 1] + Math.max(0, this.hd[i]);
    this.cubSuf[i] = this.cubSuf[i + 1] + Math.max(0, this.cub[i]);
  }
  this.npos = this.o.filter((v) => v > 0).length;
  this.cumB = [0];
  this.cumO = [0];
  for (let i = 0; i < this.npos; i++) {
    this.cumB.push(this.cumB[this.cumB.length - 1] + Math.max(0, this.e[i]));
    this.cumO.push(this.cumO[this.cumO.length - 1] + this.o[i]);
  }
  this.intObjective = this.items.every((x) => this.objective.isInt[x]);
  this.start = [
    creditSum(this.want.map((w) => this.base[w])), creditSum(this.want.map((w) => eff[w])),
    planObjectiveSum(this.objective, this.want), creditSum(this.want.map((w) => Math.max(0, this.creditBound(w)))),
    creditSum(this.want.map((w) => planHandDelta(M, w))), this.want.some((w) => this.sameTurn.has(w)),
  ];
  this.limitMax = this.limit0 + this.hposSuf[0] + creditSum(this.want.map((w) => Math.max(0, planHandDelta(M, w))));
  this.budgetMax = this.payments.budget(this.limitMax);
};

// an upper bound of the objective any purchase reaches within BUDGET (planner.PurchaseProblem.root_bound)
planProblem.prototype.rootBound = function (budget) {
  const cap = budget - (this.start[1] - this.negSuf[0]);
  return cap >= 0 ? this.start[2] + this.ratioBound(0, cap) : this.start[2];
};

// floor(a / b) for whole numbers (Python's //)
function planFloorDiv(a, b) {
  return Math.floor(a / b);
}

planProblem.prototype.ratioBound = function (q, cap) {
  if (q >= this.npos) return 0;
  const target = this.cumB[q] + cap;
  const m = planBisectRight(this.cumB, target) - 1;
  let gain = this.cumO[m] - this.cumO[q];
  if (m < this.npos) {
    const rest = target - this.cumB[m];
    if (this.intObjective && Number.isInteger(rest)) {
      const scale = this.objective.scale;
      gain += scale * planFloorDiv(rest * this.o[m], Math.max(0, this.e[m]) * scale);
    } else {
      gain += this.o[m];
    }
  }
  return gain;
};

planProblem.prototype.leastCost = function (q, need) {
  if (need <= 0) return 0;
  if (q >= this.npos) return null;
  const target = this.cumO[q] + need;
  const m = planBisectLeft(this.cumO, target);
  if (m > this.npos) return null;
  const whole = this.cumB[m - 1] - this.cumB[q];
  const rest = target - this.cumO[m - 1];
  const i = m - 1;
  if (this.intObjective && rest % this.objective.scale === 0) return whole + planFloorDiv(rest * Math.max(0, this.e[i]), this.o[i]);
  return whole;
};

// the ranking key: (objective, -spent, credit, -advances, -positions in rulebook order)
planProblem.prototype.key = function (names, price, spent) {
  const ranked = names.map((n) => this.order[n]).sort((a, b) => a - b);
  return [planObjectiveSum(this.objective, names), -spent, this.credit(names), -names.length, ranked.map((i) => -i)];
};

planProblem.prototype.walk = function (visit, prune) {
  const items = this.items;
  const b = this.b;
  const e = this.e;
  const o = this.o;
  const cub = this.cub;
  const hd = this.hd;
  const n = items.length;
  const budget = this.budgetMax;
  const negSuf = this.negSuf;
  const maxNew = this.maxNew;
  const names = this.want.slice();
  const sameTurn = this.sameTurn;
  const self = this;
  const open = this.open = [];  // per level of the walk, the bound of the branch it is in (for a stop)
  function dfs(q, sumb, sume, objective, cubs, hch, same) {
    if (maxNew !== null && names.length >= maxNew) return;
    open.push(null);
    for (let j = q; j < n; j++) {
      const ne = sume + e[j];
      if (ne - negSuf[j + 1] > budget) continue;
      const lbp = sume - negSuf[j];
      const cap = budget - lbp;
      const ub = objective + self.ratioBound(j, cap);
      if (prune(j, ub, lbp, objective, cubs + self.cubSuf[j], self.limit0 + hch + self.hposSuf[j])) break;
      open[open.length - 1] = ub;
      const name = items[j];
      names.push(name);
      const nsame = same || sameTurn.has(name);
      visit(names, sumb + b[j], nsame, hch + hd[j], objective + o[j]);
      dfs(j + 1, sumb + b[j], ne, objective + o[j], cubs + cub[j], hch + hd[j], nsame);
      names.pop();
    }
    open.pop();
  }
  const s = this.start;
  visit(names, s[0], s[5], s[4], s[2]);
  dfs(0, s[0], s[1], s[2], s[3], s[4], s[5]);
};

planProblem.prototype.priceAndSpent = function (names, sumb, same, hdelta) {
  if (this.maxNew !== null && names.length > this.maxNew) return null;
  const price = same ? this.exactPrice(names) : sumb;
  const limit = this.limit0 + hdelta;
  const spent = this.payments.spent(price, limit);
  if (spent === null) {
    this.maybeAffordable(names, limit);
    return null;
  }
  return [price, spent, limit];
};

// a set priced by a capped placement that its least price would make affordable (planner._maybe_affordable)
planProblem.prototype.maybeAffordable = function (names, limit) {
  const key = JSON.stringify(this.sortByOrder(names));
  if (!this.cappedLeast.has(key) || this.payments.spent(this.cappedLeast.get(key), limit) === null) return;
  let objective = 0;
  for (const n of names) objective += this.objective.values[n];
  this.unsure = this.unsure === null ? objective : Math.max(this.unsure, objective);
};

// some sets were priced by a placement stopped at its cap: not proven (planner._capped_prices)
planProblem.prototype.cappedPrices = function (found) {
  const best = !this.complete ? this.totalAtMost : (found.length ? found[0].objective : 0);
  this.complete = false;
  this.totalAtMost = this.unsure === null ? best : Math.max(best, this.unsure);
};

// a Choice: {key, buys, price, spent, objective, credit, hand_limit}
function planChoice(key, buys, price, spent, limit) {
  return {key: key, buys: buys, price: price, spent: spent, objective: key[0], credit: key[2], hand_limit: limit};
}

planProblem.prototype.search = function (top) {
  top = Math.max(1, Math.trunc(top || 1));
  this.complete = true;
  this.totalAtMost = null;
  if (this.singleUse) {
    this.method = "branch and bound";
    const found = this.branchAndBound(top, planSingleUseCap)[0];
    if (this.cappedLeast.size) this.cappedPrices(found);
    return found;
  }
  let floor = null;
  if (planBbCap) {
    const got = this.branchAndBound(top, planBbCap);
    if (got[0] !== null) {
      this.method = "branch and bound";
      return got[0];
    }
    floor = got[1];
  }
  return this.programme(top, floor);
};

// the top best sets by plan/search.py's programme, from the objective a branch and bound reached (planner.programme)
planProblem.prototype.programme = function (top, floor) {
  this.method = "dynamic programme";
  // the programme is plan/search.py's search, generated from the Python (ps_ names: civdsl/companion/py2es.py);
  // a float objective crosses as Python's float (PyFloat) and comes back a number
  const found = ps_search(this.searchCandidates(), pySetOf(this.want), (bought) => this.machineFor(bought),
    this.sortByOrder(Array.from(this.sameTurn)), this.budgetMax, this.maxNew,
    (price, limit) => this.payments.spent(price, limit), this.limit0, top, this.searchNumber(floor));
  this.visited = planBbCap + 1;
  return found.map((f) => planChoice([+f[0][0]].concat(f[0].slice(1)), this.sortByOrder(f[1]), f[2], f[3], f[4]));
};

planProblem.prototype.searchCandidates = function () {
  if (this._searchCandidates) return this._searchCandidates;
  const advances = this.M.ADVANCES;
  const cands = new Set(this.candidates);
  const out = [];
  for (const n of this.candidates) {
    const links = new Map();
    const spec = advances[n].specific;
    for (const t of Object.keys(spec)) {
      if (cands.has(t) && t !== n && spec[t]) links.set(t, (links.get(t) || 0) + spec[t]);
    }
    for (const o of this.candidates) {
      const v = creditGet(advances[o].specific, n, 0);
      if (o !== n && v) links.set(o, (links.get(o) || 0) + v);
    }
    out.push(new ps_Candidate(n, this.order[n], this.base[n], this.searchNumber(this.objective.values[n]),
      this.creditBound(n), planHandDelta(this.M, n), pyDict(Array.from(links))));
  }
  this._searchCandidates = out;
  return out;
};

// an objective value as the generated search reads it: a float objective's values are Python floats
planProblem.prototype.searchNumber = function (v) {
  return this.objective.floats && v !== null && v !== undefined ? pf(v) : v;
};

planProblem.prototype.machineFor = function (bought) {
  // one machine per set bought, kept with what it has learnt (planner.PurchaseProblem.machine_for)
  const id = bought.join("\u0000");
  if (!this._machines) this._machines = new Map();
  if (!this._machines.has(id)) this._machines.set(id, this.newMachine(bought));
  return this._machines.get(id);
};

planProblem.prototype.newMachine = function (bought) {
  const advances = this.M.ADVANCES;
  const boughtSet = new Set(bought);
  const pool = this.candidates.filter((n) => !this.sameTurn.has(n) || boughtSet.has(n));
  const base = Object.assign({}, this.base);
  for (const card of bought) {
    for (const gb of (this.alls[card] || [])) {
      for (const n of pool) {
        if (n !== card && advances[n].groups.indexOf(gb[0]) >= 0 && advances[n].cost < gb[1]) base[n] = 0;
      }
    }
  }
  const abilities = [];
  for (const card of bought) {
    for (const amount of (this.discounts[card] || [])) {
      abilities.push([card, "discount", amount, pySetOf(pool.filter((n) => n !== card))]);
    }
    for (const gb of (this.frees[card] || [])) {
      abilities.push([card, "free_advance", null, pySetOf(pool.filter((n) => n !== card
        && advances[n].groups.indexOf(gb[0]) >= 0 && advances[n].cost < gb[1]))]);
    }
  }
  return new ps_SameTurnMachine(abilities, pyDict(Object.keys(base).map((n) => [n, base[n]])));
};

// a min-heap of entries ordered by `cmp` (heapq's heappush, heapreplace)
function planHeapPush(heap, item, cmp) {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (cmp(heap[i], heap[parent]) >= 0) break;
    const t = heap[i];
    heap[i] = heap[parent];
    heap[parent] = t;
    i = parent;
  }
}

function planHeapReplace(heap, item, cmp) {
  heap[0] = item;
  let i = 0;
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < n && cmp(heap[l], heap[m]) < 0) m = l;
    if (r < n && cmp(heap[r], heap[m]) < 0) m = r;
    if (m === i) break;
    const t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

const planEntryCmp = (x, y) => creditCmp(x[0], y[0]);

planProblem.prototype.branchAndBound = function (top, cap) {
  const heap = [];
  let kth = null;
  let counter = 0;
  const pay = this.payments;
  const self = this;
  const visit = (names, sumb, same, hdelta, objective) => {
    counter += 1;
    if (cap !== null && counter > cap) throw planStop;
    // the work is shared with the answer's other searches: the wanted set is always examined
    if (self.singleUse && heap.length && self.work[0] > planSingleUseWork) throw planStop;
    if (kth !== null && objective < kth[0]) return;  // cannot rank, so not priced
    const got = self.priceAndSpent(names, sumb, same, hdelta);
    if (got === null) return;
    const key = self.key(names, got[0], got[1]);
    const entry = [key, self.sortByOrder(names), got[0], got[1], got[2]];
    if (heap.length < top) planHeapPush(heap, entry, planEntryCmp);
    else if (creditCmp(key, heap[0][0]) > 0) planHeapReplace(heap, entry, planEntryCmp);
    else return;
    if (heap.length === top) kth = heap[0][0].slice(0, 3);
  };
  const prune = (q, ub, lbp, objective, creditUb, handUb) => {
    if (lbp > self.budgetMax) return true;
    if (kth === null) return false;
    const bestObj = kth[0];
    if (ub !== bestObj) return ub < bestObj;
    const extra = self.leastCost(q, bestObj - objective);
    if (extra === null) return true;
    const spent = pay.spent(Math.max(0, lbp + extra), handUb);
    if (spent === null) return true;
    return creditCmp([-spent, creditUb], [kth[1], kth[2]]) < 0;
  };
  try {
    this.walk(visit, prune);
  } catch (exc) {
    if (exc !== planStop) throw exc;
    if (!this.singleUse) return [null, heap.length === top ? heap[0][0][0] : null];
    this.stopped(heap, counter - 1);
  }
  if (this.complete) this.visited = counter;
  const out = heap.slice().sort((x, y) => -planEntryCmp(x, y));
  return [out.map((e) => planChoice(e[0], e[1], e[2], e[3], e[4])), null];
};

// the branch and bound stopped after EXAMINED sets (single_use): planner._stopped (objectives in
// units of 1/scale)
planProblem.prototype.stopped = function (heap, examined) {
  this.visited = examined;
  this.complete = false;
  this.stoppedAtCap = true;
  const scale = this.objective.scale;
  let atMost = heap.length ? Math.max(...heap.map((e) => e[0][0])) : 0;
  for (const bound of this.open) if (bound !== null) atMost = Math.max(atMost, Math.ceil(bound / scale) * scale);
  this.totalAtMost = atMost;
};

planProblem.prototype.planDict = function (choice, rank) {
  const M = this.M;
  const obj = this.objective;
  const priced = planPrices(M, this.holds, choice.buys, this.extra);
  if (priced.total !== choice.price) {
    throw new Error("planner bug: " + choice.buys.join(", ") + " priced " + choice.price + " by the search but "
      + priced.total + " by the credit engine");
  }
  const payment = pyPlain(this.payments.best(choice.price, choice.hand_limit));
  const groups = {};
  const specific = {};
  let free = 0;
  const owned = new Set(this.holds.concat(choice.buys));
  for (const n of choice.buys) {
    const adv = M.ADVANCES[n];
    for (const g of Object.keys(adv.credits)) groups[g] = creditGet(groups, g, 0) + adv.credits[g];
    for (const t of Object.keys(adv.specific)) if (!owned.has(t)) specific[t] = creditGet(specific, t, 0) + adv.specific[t];
    free += creditSum(planAbilities(M, n, "free_credits").map((a) => a.amount));
  }
  const out = {};
  if (rank !== null && rank !== undefined) out.rank = rank;
  out.buy = choice.buys.slice();
  out.objective = planNumber(obj, choice.objective, choice.buys.length);
  out.items = priced.items.map((row) => Object.assign({}, row, {objective: planNumber(obj, obj.values[row.advance])}));
  out.total = choice.price;
  out.spent = choice.spent;
  out.payment = payment;
  out.credit_gained = {groups: groups, specific: specific, free_credit_points: free, total: choice.credit};
  out.hand_limit = choice.hand_limit;
  return out;
};

// --- explaining (planner._explain) -------------------------------------------------------------

function planCompare(obj, best, other, label) {
  const o1 = planNumber(obj, other.objective, other.buys.length);
  const o0 = planNumber(obj, best.objective, best.buys.length);
  if (other.objective !== best.objective) return o1 + " " + label + " against " + o0;
  let same = "the same " + o0 + " " + label;
  if (other.spent !== best.spent) return same + ", but hands over " + other.spent + " against " + best.spent;
  same += " for the same " + best.spent + " handed over";
  if (other.credit !== best.credit) {
    return same + ", but " + other.credit + " credit points for later turns against " + best.credit;
  }
  if (other.buys.length !== best.buys.length) {
    return same + " and credit, but " + other.buys.length + " advances against " + best.buys.length + " (fewer come first)";
  }
  return same + " and credit; the plan merely comes first in rulebook order";
}

function planExplain(problem, choices) {
  const obj = problem.objective;
  const best = choices[0];
  const label = obj.label;
  const runners = choices.slice(1).map((c) => ({buy: c.buys.slice(), objective: planNumber(obj, c.objective, c.buys.length),
    spent: c.spent, credit: c.credit, why_not: planCompare(obj, best, c, label)}));
  const others = [];
  const budget = problem.budgetMax;
  let stopped = 0;  // searches stopped at the work limit the answer shares (planner.explain_stopped)
  let examined = 0;  // sets the searches examined, against planExplainCap (planner.explain_sets)
  let unsearched = 0;  // advances left out that the limit left unexplained (planner.explain_unsearched)
  const room = problem.maxNew === null || problem.want.length < problem.maxNew;
  let pending = 0;  // searches still to make (planner.explain_pending)
  let runs = 0;  // dynamic programmes run, against planExplainProgrammes (planner.explain_runs)
  for (const name of problem.candidates) {
    if (best.buys.indexOf(name) < 0 && room && !choices.some((c) => c.buys.indexOf(name) >= 0)) pending += 1;
  }
  for (const name of problem.candidates) {
    if (best.buys.indexOf(name) >= 0) continue;
    const entry = {advance: name, objective: planNumber(obj, obj.values[name]), price: problem.base[name]};
    const listed = choices.find((c) => c.buys.indexOf(name) >= 0);
    let got;
    if (listed !== undefined) got = [listed];
    else if (problem.maxNew === null || problem.want.length < problem.maxNew) {
      // a branch and bound within an even share of the sets left, then, where it stops short and prices
      // add up, the plan's own programme from what it reached (planner._best_with)
      const share = Math.floor((planExplainCap - examined) / Math.max(1, pending));
      pending -= 1;
      const clone = problem.withWant([name]);
      let floor = null;
      got = null;
      if (share > 0) {
        clone.complete = true;
        clone.stoppedAtCap = false;
        const bb = clone.branchAndBound(1, clone.singleUse ? Math.min(share, planSingleUseCap) : share);
        got = bb[0];
        floor = bb[1];
        examined += got === null ? share : clone.visited;
        if (got !== null && clone.stoppedAtCap) stopped += 1;
      }
      if (got === null && !clone.singleUse && runs < planExplainProgrammes) {
        runs += 1;
        got = clone.programme(1, floor);
      }
    } else got = [];
    if (got === null) {
      const limit = "the explanation's searches reached their work limit (" + planExplainCap.toLocaleString("en-US")
        + " sets of advances" + (problem.singleUse ? "" : " and " + planExplainProgrammes + " programmes over price") + ")";
      const clone = problem.withWant([name]);
      const bound = clone.rootBound(clone.budgetMax);
      if (bound < best.objective) {
        entry.why_not = "no purchase with it gives more than " + planNumber(obj, bound) + " " + label + " against "
          + planNumber(obj, best.objective, best.buys.length) + " (" + limit + ")";
      } else {
        unsearched += 1;
        entry.why_not = "not worked out: " + limit;
      }
    } else if (!got.length) {
      if (problem.eff[name] > problem.budgetMax) {
        entry.why_not = "costs " + problem.base[name] + " after credits; the budget is " + budget;
      } else {
        entry.why_not = "costs " + problem.base[name] + " after credits; no purchase that includes it (and every "
          + "--want) fits the budget of " + budget + " and the card limit";
      }
    } else {
      const c = got[0];
      entry.best_with_it = c.buys.slice();
      entry.why_not = "the best purchase with it (" + c.buys.join(", ") + ") gives " + planCompare(obj, best, c, label);
      Object.defineProperty(entry, "__rank", {value: c.key, enumerable: false});
    }
    entry.__value = obj.values[name];
    others.push(entry);
  }
  const near = others.filter((e) => e.__rank !== undefined).sort((x, y) => -creditCmp(x.__rank, y.__rank));
  const far = others.filter((e) => e.__rank === undefined).sort((x, y) =>
    creditCmp([-x.__value, x.price, problem.order[x.advance]], [-y.__value, y.price, problem.order[y.advance]]));
  for (const e of others) delete e.__value;
  // proven only when the ranking is and no search here priced a set by a capped placement (planner._explain)
  return {runners_up: runners, advances_not_bought: near.concat(far),
    complete: problem.complete && problem.cappedLeast.size === 0 && stopped === 0 && unsearched === 0,
    work_limit: planExplainCap, sets_examined: examined, programme_limit: problem.singleUse ? null : planExplainProgrammes,
    programmes_run: runs, not_worked_out: unsearched};
}

// --- two turns (planner._two_turns) -------------------------------------------------------------

function planTwoTurns(first, maxSets, found) {
  if (maxSets === undefined) maxSets = 3000;
  const M = first.M;
  const obj = first.objective;
  const payments = new Map();
  const opts = Object.assign({}, first.options, {want: []});
  const among = opts.among;
  const avoid = new Set(opts.avoid);
  const advances = M.ADVANCES;
  const unheld = Object.keys(advances).filter((n) => !first.held.has(n) && advances[n].cost !== null
    && !avoid.has(n) && (among === null || among.indexOf(n) >= 0));
  const price1 = {};
  for (const n of unheld) if (creditHas(first.base, n)) price1[n] = first.base[n];
  const locked = unheld.filter((n) => !creditHas(price1, n));
  for (const n of locked) price1[n] = Math.max(0, planPrices(M, first.holds, [n], first.extra).items[0].price);
  const worth = unheld.filter((n) => obj.values[n] > 0);
  // a turn-one advance h's own credit to a next-turn advance i: its specific credit, and all of i's
  // cost where h's acquire_all covers i (held, h makes i free: pricing.prices)
  const specificOf = (h, i) => {
    const acquires = h !== i && planAbilities(M, h, "acquire_all").some((a) => advances[i].groups.indexOf(a.group) >= 0
      && advances[i].cost < a.cost_below);
    return creditGet(advances[h].specific, i, 0) + (acquires ? advances[i].cost : 0);
  };
  const gives = {};
  for (const h of first.candidates) {
    gives[h] = {};
    for (const i of worth) {
      let g = 0;
      for (const x of advances[i].groups) g = Math.max(g, creditGet(advances[h].credits, x, 0));
      gives[h][i] = g + specificOf(h, i);
    }
  }
  // the most an advance's own same-turn abilities take off next turn's other purchases: a discount
  // its amount, a free advance the dearest eligible price, acquire_all every eligible price
  const reduction = {};
  for (const n of worth) {
    const eligible = (a) => unheld.filter((c) => c !== n && advances[c].groups.indexOf(a.group) >= 0
      && advances[c].cost < a.cost_below).map((c) => price1[c]);
    let r = creditSum(planAbilities(M, n, "discount").map((a) => a.amount));
    for (const a of planAbilities(M, n, "free_advance")) r += Math.max(0, ...eligible(a));
    for (const a of planAbilities(M, n, "acquire_all")) r += creditSum(eligible(a));
    reduction[n] = r;
  }
  const whole = worth.every((n) => obj.isInt[n]);
  const tvOf = {};
  for (const h of first.candidates) {
    let v = 0;
    for (const a of planAbilities(M, h, "treasury_value")) v = Math.max(v, a.value);
    tvOf[h] = v;
  }
  let cardValue = first.payments.most_turned_in();
  const either = first.holds.concat(first.candidates);
  let rate = 0;
  let substitute = false;
  for (const h of either) {
    for (const a of planAbilities(M, h, "card_treasury")) rate = Math.max(rate, a.rate);
    if (planAbilities(M, h, "substitute_card").length) substitute = true;
  }
  if (rate || substitute) {
    let tvMax = first.treasuryValue;
    for (const h of Object.keys(tvOf)) tvMax = Math.max(tvMax, tvOf[h]);
    const wide = planPayments(M, first.cards, 0, tvMax, first.payments.state, rate, substitute, null);
    cardValue = Math.max(cardValue, wide.budget(wide.total_cards));
  }
  const W = worth.length;
  const giveRow = {};
  for (const h of first.candidates) giveRow[h] = worth.map((i) => gives[h][i]);
  const ratioObj = worth.map((i) => obj.values[i]);
  const floorPrice = worth.map((i) => price1[i] - reduction[i]);
  const scale = obj.scale;

  // rows: [ratio, objective, price]; a bound of the objective in scaled units
  const ratioSort = (rows) => rows.sort((x, y) => (x[0] === y[0] ? 0 : (x[0] > y[0] ? -1 : 1)));

  function quickRows(credit, excluded, tv) {
    let room = cardValue + first.treasury * tv;
    const rows = [];
    for (let k = 0; k < W; k++) {
      if (excluded.has(worth[k])) continue;
      const p = floorPrice[k] - credit[k];
      if (p <= 0) {
        room -= p;
        rows.push([Infinity, ratioObj[k], 0]);
      } else {
        rows.push([ratioObj[k] / p, ratioObj[k], p]);
      }
    }
    ratioSort(rows);
    return [rows, room];
  }

  // the part of v that fits in room of p, rounded down in the objective's own units when whole
  function part(v, room, p) {
    if (whole) return scale * Math.floor(v * room / (p * scale));
    return v * room / p;
  }

  function quickBound(rows, room) {
    let total = 0;
    for (const r of rows) {
      if (r[2] > room) {
        total += part(r[1], room, r[2]);
        break;
      }
      total += r[1];
      room -= r[2];
    }
    return total;
  }

  function leastPrice(rows, need) {
    let cost = 0;
    for (const r of rows) {
      if (need <= 0) break;
      if (r[1] >= need) {
        const x = r[2] * need / r[1];
        return cost + (whole ? Math.floor(r[2] * need / r[1]) : x);
      }
      cost += r[2];
      need -= r[1];
    }
    return need <= 0 ? cost : null;
  }

  const followUp = (buys) => new planProblem(M, first.holds.concat(buys), first.facts, obj,
    Object.assign({}, opts, {payments: payments, work: first.work, paying: first.paying}));

  let best = null;
  const examined = [0, 0];
  let capped = 0;  // next turn's sets priced by a capped placement (plan_horizon.capped)
  let nextStopped = 0;  // next turn's searches stopped at the shared work limit (plan_horizon.next_stopped)
  let work = 0;  // sets examined over both turns, against planHorizonWork (plan_horizon.work)

  function evaluate(c1) {
    examined[1] += 1;
    const p2 = followUp(c1.buys);
    const got = p2.search(1);
    work += Math.max(1, p2.visited);
    capped += p2.cappedLeast.size;
    if (p2.stoppedAtCap) nextStopped += 1;
    if (!got.length) return;
    const c2 = got[0];
    const key = [c1.objective + c2.objective, -(c1.spent + c2.spent), c1.credit + c2.credit, c1.buys.length, c1.key[4]];
    if (best === null || creditCmp(key, best.key) > 0) best = {key: key, c1: c1, c2: c2, p2: p2};
  }

  // what the payment tables of both turns stopped at their work limit (plan_horizon._payment_stopped)
  const paymentStopped = () => {
    const stops = [];
    for (const table of [first.payments, ...payments.values()]) {
      for (const what of table.stopped) if (!stops.includes(what)) stops.push(what);
    }
    return stops;
  };
  const assumes = "next turn's commodity cards and treasury are the same as now, and credit points of "
    + "free choice (free_credits) are not allocated";
  // the searches stopped at their work limit before they priced any pair (plan_horizon._no_pair)
  const noPair = () => ({
    estimate: true, assumes: assumes, this_turn: null, next_turn: null, total: null, total_at_most: null,
    one_turn_best: one.length ? one[0].buys.slice() : null,
    one_turn_best_objective: one.length ? planNumber(obj, one[0].objective, one[0].buys.length) : null,
    complete: false, stopped: true, prices_capped: capped + first.cappedLeast.size,
    payment_stopped: paymentStopped(), next_turn_stopped: nextStopped,
    turn_one_sets: examined[0] + (one.length ? 1 : 0), turn_one_sets_priced_for_next_turn: examined[1],
  });
  const one = found && found.length ? found.slice(0, 1) : first.search(1);
  if (!one.length) return noPair();
  evaluate(one[0]);
  const freeNow = first.maxNew === null ? first.items.filter((n) => first.base[n] === 0 && obj.values[n] >= 0
    && !first.sameTurn.has(n) && planHandDelta(M, n) >= 0) : [];
  const pp = freeNow.length ? first.withWant(freeNow) : first;

  const items = pp.items;
  const nItems = items.length;
  const suffixCredit = [];
  const suffixTv = new Array(nItems + 1).fill(0);
  suffixCredit[nItems] = new Array(W).fill(0);
  for (let j = nItems - 1; j >= 0; j--) {
    const row = giveRow[items[j]];
    suffixCredit[j] = suffixCredit[j + 1].map((x, k) => x + row[k]);
    suffixTv[j] = Math.max(suffixTv[j + 1], tvOf[items[j]]);
  }
  const oneBuys = one[0].buys.join("\u0000");

  function visit(names, sumb, same, hdelta, objective, credit, tv) {
    examined[0] += 1;
    work += 1;
    if (examined[0] > maxSets || work > planHorizonWork) throw planStop;
    if (pp.singleUse && pp.work[0] > planSingleUseWork) throw planStop;  // the answer's shared work limit
    const got = pp.priceAndSpent(names, sumb, same, hdelta);
    if (got === null) return;
    const price = got[0];
    const spent = got[1];
    const limit = got[2];
    const buys = pp.sortByOrder(names);
    if (buys.join("\u0000") === oneBuys) return;
    const qr = quickRows(credit, new Set(names), tv);
    if (beaten(objective + quickBound(qr[0], qr[1]), objective, spent, qr[0])) return;
    evaluate(planChoice(pp.key(names, price, spent), buys, price, spent, limit));
  }

  const position = new Map(items.map((n, j) => [n, j]));
  const groups = Object.keys(M.GROUPS);
  const weight = pp.e.map((x) => Math.max(0, x));
  const groupCredit = {};
  const groupOrder = {};
  for (const g of groups) {
    groupCredit[g] = items.map((n) => creditGet(advances[n].credits, g, 0));
    const ranked = [];
    for (let j = 0; j < nItems; j++) if (groupCredit[g][j] > 0) ranked.push(j);
    const keyOf = (j) => (weight[j] === 0 ? [0, 0] : [1, -groupCredit[g][j] / weight[j]]);
    ranked.sort((x, y) => creditCmp(keyOf(x), keyOf(y)));
    groupOrder[g] = ranked;
  }
  const specificSuffix = [];
  specificSuffix[nItems] = new Array(W).fill(0);
  for (let j = nItems - 1; j >= 0; j--) {
    specificSuffix[j] = specificSuffix[j + 1].map((x, k) => x + specificOf(items[j], worth[k]));
  }
  const worthGroups = worth.map((i) => advances[i].groups);

  function groupGain(g, j, cap) {
    let total = 0;
    for (const at of groupOrder[g]) {
      if (at < j) continue;
      const w = weight[at];
      const c = groupCredit[g][at];
      if (w <= cap) {
        total += c;
        cap -= w;
      } else {
        return total + planFloorDiv(c * cap, w) + 1;
      }
    }
    return total;
  }

  function pairBound(j, cap1, credit, tv, names) {
    const gain = {};
    for (const g of groups) gain[g] = groupGain(g, j, cap1);
    credit = credit.map((x, k) => {
      let s = 0;
      for (const g of worthGroups[k]) s += gain[g];
      return x + Math.min(suffixCredit[j][k], s + specificSuffix[j][k]);
    });
    let room2 = cardValue + first.treasury * Math.max(tv, suffixTv[j]);
    let room = cap1 + room2;
    const rows = [];
    const rows2 = [];
    const chosen = new Set(names);
    for (let k = 0; k < W; k++) {
      const n = worth[k];
      if (chosen.has(n)) continue;
      let p = floorPrice[k] - credit[k];
      if (p <= 0) {
        room -= p;
        room2 -= p;
        p = 0;
      }
      rows2.push([p === 0 ? Infinity : ratioObj[k] / p, ratioObj[k], p]);
      const at = position.get(n);
      if (at !== undefined && at >= j) p = Math.min(p, Math.max(0, e[at]));
      rows.push([p === 0 ? Infinity : ratioObj[k] / p, ratioObj[k], p]);
    }
    ratioSort(rows);
    ratioSort(rows2);
    return [Math.min(quickBound(rows, room), pp.ratioBound(j, cap1) + quickBound(rows2, room2)), rows];
  }

  // whether a branch whose pairs reach at most `bound` and already spend at least `spent` cannot
  // beat the best pair: below its objective, or equal to it while the least price of the objective
  // still missing (rows: each advance at its least price over what is left of both turns) already
  // makes both turns hand over more
  function beaten(bound, objective, spent, rows) {
    const total = best.key[0];
    if (bound !== total) return bound < total;
    const least = leastPrice(rows, total - objective);
    return least === null || spent + least > -best.key[1];
  }

  const e = pp.e;
  const b = pp.b;
  const o = pp.o;
  const hd = pp.hd;
  const budget = pp.budgetMax;
  const negSuf = pp.negSuf;
  const maxNew = pp.maxNew;
  const names = pp.want.slice();

  // per level of the walk, the bound of the branch it is in
  const open = [];

  function dfs(q, sumb, sume, objective, hch, same, credit, tv) {
    if (maxNew !== null && names.length >= maxNew) return;
    open.push(null);
    for (let j = q; j < nItems; j++) {
      const ne = sume + e[j];
      if (ne - negSuf[j + 1] > budget) continue;
      const lbp = sume - negSuf[j];
      if (lbp > budget) break;
      const [bound, rows] = pairBound(j, budget - lbp, credit, tv, names);
      if (beaten(objective + bound, objective, lbp, rows)) break;
      open[open.length - 1] = objective + bound;
      const name = items[j];
      names.push(name);
      const row = giveRow[name];
      const ncredit = credit.map((x, k) => x + row[k]);
      const ntv = Math.max(tv, tvOf[name]);
      const nsame = same || pp.sameTurn.has(name);
      visit(names, sumb + b[j], nsame, hch + hd[j], objective + o[j], ncredit, ntv);
      dfs(j + 1, sumb + b[j], ne, objective + o[j], hch + hd[j], nsame, ncredit, ntv);
      names.pop();
    }
    open.pop();
  }

  const s = pp.start;
  const credit0 = new Array(W).fill(0);
  for (const w of pp.want) giveRow[w].forEach((x, k) => { credit0[k] += x; });
  let tv0 = first.treasuryValue;
  for (const w of pp.want) tv0 = Math.max(tv0, tvOf[w]);
  let complete = true;
  try {
    visit(names, s[0], s[5], s[4], s[2], credit0, tv0);
    dfs(0, s[0], s[1], s[2], s[4], s[5], credit0, tv0);
  } catch (exc) {
    if (exc !== planStop) throw exc;
    complete = false;
    examined[0] -= 1;
  }
  if (best === null) return noPair();
  const total = best.c1.objective + best.c2.objective;
  // stopped: no pair the walk left unexamined gives more than the bound of the branch each level
  // was in (a whole number above it, so that both engines print it alike; objectives here are in
  // units of 1/scale)
  let atMost = total;
  if (!complete) {
    for (const bound of open) if (bound !== null) atMost = Math.max(atMost, Math.ceil(bound / scale) * scale);
  }
  // a capped price may be above the least: no bound is proven (plan_horizon._answer)
  capped += first.cappedLeast.size;
  const unproven = capped + nextStopped;
  const thisTurn = first.planDict(best.c1, null);
  const nextTurn = best.p2.planDict(best.c2, null);
  // a payment table stopped at its work limit (plan_horizon._answer)
  const stops = paymentStopped();
  return {
    estimate: true,
    assumes: assumes,
    this_turn: thisTurn,
    next_turn: nextTurn,
    total: planNumber(obj, total, best.c1.buys.length + best.c2.buys.length),
    total_at_most: unproven || stops.includes(pp_PAYING) ? null
      : planNumber(obj, atMost, best.c1.buys.length + best.c2.buys.length),
    one_turn_best: one[0].buys.slice(),
    one_turn_best_objective: planNumber(obj, one[0].objective, one[0].buys.length),
    complete: complete && !unproven && !stops.length,
    stopped: !complete || nextStopped > 0,
    payment_stopped: stops,
    prices_capped: capped,
    next_turn_stopped: nextStopped,
    turn_one_sets: examined[0] + 1,
    turn_one_sets_priced_for_next_turn: examined[1],
  };
}

// --- `civdsl plan --json` (planner.plan) ---------------------------------------------------------

function planNotes(problem) {
  const M = problem.M;
  const notes = [];
  if (problem.cardLimit !== null && problem.holds.length > problem.cardLimit) {
    notes.push("the state holds " + problem.holds.length + " advances, more than the card limit");
  }
  if (problem.treasuryValue !== 1) {
    notes.push("treasury counts " + problem.treasuryValue + " per token (an advance held); it may exceed "
      + "the price by at most " + (problem.treasuryValue - 1));
  }
  if (problem.payments.rate) {
    notes.push("commodity cards may first be turned into " + problem.payments.rate + " treasury per face-value "
      + "point (card_treasury, an advance held); tokens not needed stay in the treasury; the "
      + "stock of tokens is not checked");
  }
  if (problem.payments.substitute) {
    notes.push("one card of at least the same face value may complete an incomplete set "
      + "(substitute_card, an advance held)");
  }
  const names = Object.keys(M.ADVANCES);
  if (names.some((n) => M.ADVANCES[n].supply)) {
    notes.push("supply (cards of each advance in the box) is not checked: the state does not say "
      + "what other players hold");
  }
  if (names.some((n) => M.ADVANCES[n].requires.length)) notes.push("prerequisites must be held before this turn");
  return notes;
}

function planMissingNotes(M, held, facts, hand) {
  const notes = [];
  const start = startCredits(new PlayerState(held, facts));
  if (start !== null && start.per_group === null) {
    notes.push("start credits are not counted: they depend on "
      + (start.missing.map((m) => "`" + m + "`").join(", ") || start.problem || "?"));
  }
  if ((hand.missing_facts || []).indexOf("block") >= 0) {
    notes.push("sets are valued in their native trade block: the state does not give `block` "
      + "(or `civilization`)");
  }
  return notes;
}

function planOption(options, names, fallback) {
  for (const n of names) if (creditHas(options, n) && options[n] !== null && options[n] !== undefined) return options[n];
  return fallback;
}

// options: the flags of `civdsl plan` in camelCase: {holds, objective, want, avoid, top, explain,
// horizon, handLimit, option: {name: true|false} (--option NAME=on|off)}, and `among` (the Python API's: the advances considered at all)
function planAnswer(M, state, options) {
  options = options || {};
  const st = makePlayerState(state, {holds: options.holds, option: options.option});
  const held = st.held;
  const facts = st.facts;
  const obj = planObjective(M, planOption(options, ["objective", "objectiveSpec", "objective_spec"], null), st);
  const horizon = planOption(options, ["horizon"], 1);
  if (horizon !== 1 && horizon !== 2) {
    throw creditUserError("--horizon is 1 (this turn) or 2 (this turn and an estimate of the next)");
  }
  const top = Math.trunc(planOption(options, ["top"], 1));
  const explain = Boolean(planOption(options, ["explain"], false));
  const among = planOption(options, ["among"], null);
  const problem = new planProblem(M, held, facts, obj, {
    want: splitNames(planOption(options, ["want"], [])), avoid: splitNames(planOption(options, ["avoid"], [])),
    among: among === null ? null : splitNames(among),
    hand_limit: planOption(options, ["handLimit", "hand_limit"], null),
  });
  const shown = Math.max(top, explain ? 5 : 1);
  const choices = problem.search(shown);
  const hand = planHandReport(M, problem.cards, new PlayerState(held, facts));
  const budgetTotal = problem.payments.budget(problem.limitMax);
  const report = {
    rulebook: M.EDITION.id,
    edition: M.EDITION.name,
    objective: {name: obj.name, label: obj.label},
    holds: held.slice(),
    budget: {hand: hand, treasury: problem.treasury, treasury_value: problem.treasuryValue, total: budgetTotal},
    hand_limit: {limit: problem.limit0, from: problem.limitSource,
                 note: "after this turn's purchases; advances bought with a hand_limit ability change it"},
    card_limit: problem.cardLimit,
    card_room: problem.maxNew,
    credit_policy: M.CREDIT_POLICY,
    plans: [],
    not_considered: problem.excluded,
    candidates: problem.candidates.length,
    sets_examined: problem.visited,
    search: problem.method,
    complete: problem.complete,
    total_at_most: null,
    stopped: problem.stoppedAtCap,
    prices_capped: problem.cappedLeast.size,
    notes: planNotes(problem).concat(planMissingNotes(M, held, facts, hand)),
  };
  if (!choices.length) {
    const need = problem.exactPrice(problem.want);
    throw creditUserError("--want: " + problem.want.join(", ") + " cost " + need + " together after credits; "
      + "the hand and treasury pay at most " + budgetTotal);
  }
  report.plans = choices.slice(0, Math.max(1, top)).map((c, i) => problem.planDict(c, i + 1));
  let atMost = problem.complete ? choices[0].objective : problem.totalAtMost;
  report.total_at_most = planNumber(obj, atMost, choices[0].buys.length);
  if (explain) report.explain = planExplain(problem, choices);
  if (horizon === 2) report.horizon = planTwoTurns(problem, undefined, choices.slice(0, 1));
  // the payment table's work limit and what it stopped (planner._payment_limit)
  const pay = problem.payments;
  report.payment_work_limit = pp_WORK;
  report.payment_choice_limit = pp_CHOICE_WORK;
  report.payment_stopped = pay.stopped.slice();
  if (pay.stopped.length) {
    report.complete = false;
    if (pay.stopped.includes(pp_PAYING)) {
      atMost = Math.max(atMost, problem.rootBound(pay.most_payable()));
      report.total_at_most = planNumber(obj, atMost, choices[0].buys.length);
    }
  }
  return report;
}
