// credits.js: prices under every credit policy and variant the rulebook declares, legality of a
// purchase, start credits, trade cards bought for treasury and the value of a hand of commodity
// cards; `costAnswer` is `civdsl cost --json`. The JavaScript twin of civdsl/runtime.py's
// "credits and prices" and "commodities" parts and of Rulebook.cost (civdsl/api.py): the same
// rows, in the same order, with the same numbers. Nothing here names an edition or a card: every
// rule comes from MODEL (the compiled module's data) and the compiled rulebook functions.

// --- small helpers shared with plan.js -------------------------------------------------------

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

// Python's max(items, key=...): the first item whose key is largest
function creditMaxBy(items, key) {
  let best = null;
  let bestKey = null;
  for (const item of items) {
    const k = key(item);
    if (best === null || creditCmp(k, bestKey) > 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
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
  return canonicalNames(kind, names, option, true);
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

// --- credits and prices (runtime.py) ---------------------------------------------------------

function creditGroupCredits(M, holds, extra) {
  const credits = {};
  for (const g of Object.keys(M.GROUPS)) credits[g] = 0;
  for (const name of holds) {
    const given = M.ADVANCES[name].credits;
    for (const g of Object.keys(given)) credits[g] = creditGet(credits, g, 0) + given[g];
  }
  if (extra) {
    for (const g of Object.keys(extra)) credits[g] = creditGet(credits, g, 0) + Math.trunc(extra[g]);
  }
  return credits;
}

function creditAbility(M, name, kind) {
  const out = [];
  for (const pair of M.ADVANCES[name].abilities) {
    if (pair[0] === kind) out.push(pair[1]);
  }
  return out;
}

function creditVariants(M) {
  return M.CREDIT_VARIANTS ? Array.from(M.CREDIT_VARIANTS) : [];
}

// Price of each advance bought this turn after credits, with a breakdown (runtime.prices).
// WORK, if given ([n]), counts the states the single-use placement makes (the planner's budget).
function creditPrices(M, holds, buys, extra, work) {
  const policy = M.CREDIT_POLICY;
  holds = Array.from(holds);
  buys = Array.from(buys);
  let rows = [];
  let gap = null;  // how much more the best single-use placement could save (null: never capped)
  const credits = policy === "best_group" ? creditGroupCredits(M, holds, extra) : null;
  const singleUse = creditVariants(M).indexOf("single_use") >= 0;
  for (const name of (singleUse ? [] : buys)) {
    const adv = M.ADVANCES[name];
    const row = {advance: name, printed: adv.cost, credits: [], price: null};
    if (adv.cost === null) {
      row.note = "the printed cost is unknown in this rulebook";
      rows.push(row);
      continue;
    }
    if (policy === "best_group") {
      if (adv.groups.length) {
        const best = creditMaxBy(adv.groups, (g) => [creditGet(credits, g, 0), -adv.groups.indexOf(g)]);
        if (creditGet(credits, best, 0)) row.credits.push({from: best + " credits", amount: credits[best]});
      }
      for (const held of holds) {
        const amount = creditGet(M.ADVANCES[held].specific, name, 0);
        if (amount) row.credits.push({from: held, amount: amount});
      }
    } else if (policy === "per_card") {
      for (const held of holds) {
        const h = M.ADVANCES[held];
        let groupPart = 0;
        for (const g of adv.groups) groupPart = Math.max(groupPart, creditGet(h.credits, g, 0));
        const special = creditGet(h.specific, name, 0);
        const amount = Math.max(groupPart, special);
        if (amount) {
          const kind = special >= groupPart ? "special credit" : "group credit";
          row.credits.push({from: held + " (" + kind + ")", amount: amount});
        }
      }
      for (const g of Object.keys(extra || {})) {
        const amount = extra[g];
        if (adv.groups.indexOf(g) >= 0 && amount) row.credits.push({from: g + " credits", amount: Math.trunc(amount)});
      }
    } else {
      throw new Error("unknown credit policy " + policy);
    }
    row.price = adv.cost - creditSum(row.credits.map((c) => c.amount));
    rows.push(row);
  }
  if (singleUse) [rows, gap] = creditSingleUseRows(M, holds, buys, extra || {}, work);
  // after the credits, before what follows, and the most what follows could take off any
  // placement (runtime.prices)
  const placed = rows.every((r) => r.price !== null) ? creditSum(rows.map((r) => r.price)) : null;
  const taken = gap === null ? 0 : creditMostTaken(M, rows.filter((r) => r.price !== null).map((r) => r.advance),
    holds, buys);
  // an advance a held or bought card acquires automatically costs nothing; this comes first, so
  // a one-time discount of the same purchase goes to an advance that is still paid for
  const acquirers = [];
  for (const source of holds.concat(buys)) {
    for (const args of creditAbility(M, source, "acquire_all")) acquirers.push([source, args]);
  }
  if (acquirers.length) {
    for (const row of rows) {
      const adv = M.ADVANCES[row.advance];
      for (const pair of acquirers) {
        const source = pair[0];
        const args = pair[1];
        if (source !== row.advance && row.price && adv.groups.indexOf(args.group) >= 0
            && adv.cost !== null && adv.cost < args.cost_below) {
          row.credits.push({from: source + " (acquired automatically)", amount: row.price});
          row.price = 0;
        }
      }
    }
  }
  creditSameTurnAbilities(M, rows);
  for (const row of rows) {
    if (row.price !== null) row.price = Math.max(0, row.price);
  }
  const known = rows.filter((r) => r.price !== null).map((r) => r.price);
  let treasuryValue = null;
  for (const h of holds) {
    for (const a of creditAbility(M, h, "treasury_value")) {
      treasuryValue = treasuryValue === null ? a.value : Math.max(treasuryValue, a.value);
    }
  }
  const total = known.length === rows.length ? creditSum(known) : null;
  return {
    policy: policy,
    variants: creditVariants(M),
    items: rows,
    acquired: creditAcquiredWith(M, holds, buys),
    total: total,
    // false where the single-use placement stopped at its cap short of a proof (runtime.prices)
    complete: gap === null || (gap === 0 && !taken),
    total_at_least: gap === null || total === null ? total : Math.max(0, taken ? placed - gap - taken : total - gap),
    unknown: rows.filter((r) => r.price === null).map((r) => r.advance),
    treasury_value: treasuryValue === null ? 1 : treasuryValue,
  };
}

// the most that advances acquired automatically, the one-time discounts and the free advances
// could take off the prices of PRICED under any placement of the credits (runtime._most_taken)
function creditMostTaken(M, priced, holds, buys) {
  let taken = 0;
  for (const source of holds.concat(buys)) {
    for (const [kind, args] of M.ADVANCES[source].abilities) {
      if (kind === "discount" && buys.indexOf(source) >= 0) {
        taken += args.amount;
      } else if (kind === "acquire_all" || (kind === "free_advance" && buys.indexOf(source) >= 0)) {
        const costs = priced.filter((n) => n !== source && M.ADVANCES[n].groups.indexOf(args.group) >= 0
          && M.ADVANCES[n].cost !== null && M.ADVANCES[n].cost < args.cost_below).map((n) => M.ADVANCES[n].cost);
        taken += kind === "acquire_all" ? creditSum(costs) : (costs.length ? Math.max(...costs) : 0);
      }
    }
  }
  return taken;
}

// The strict reading (variant `single_use`): each held card's credit, and each group's free
// credit tokens, count toward one advance of the turn only; the placement with the largest total
// saving (runtime._single_use_rows), and how much more the best placement could save.
function creditSingleUseRows(M, holds, buys, extra, work) {
  const [sources, priced] = creditSingleUseSources(M, holds, buys, extra);
  const [given, gap] = creditPlaceSingleUse(M, sources, priced, work);
  const rows = [];
  for (const name of buys) {
    const adv = M.ADVANCES[name];
    if (adv.cost === null) {
      rows.push({advance: name, printed: null, credits: [], price: null,
                 note: "the printed cost is unknown in this rulebook"});
      continue;
    }
    const credits = given[name];
    rows.push({advance: name, printed: adv.cost, credits: credits,
               price: adv.cost - creditSum(credits.map((c) => c.amount))});
  }
  return [rows, gap];
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

// [name, group credits, specific credits, the most it gives one advance] for each source that can
// discount one of the N priced advances, in the sources' order (runtime._useful_sources)
function creditUsefulSources(sources, n, options) {
  const useful = [];
  for (const source of sources) {
    let most = 0;
    for (let i = 0; i < n; i++) {
      for (const opt of options(source[1], source[2], i, null)) most = Math.max(most, opt[0]);
    }
    if (most > 0) useful.push([source[0], source[1], source[2], most]);
  }
  return useful;
}

// the states of one placement the search can reach (START, then the state after each source):
// each source, taken in ORDER (indices of USEFUL), goes to the advance it saves most on; then the
// sources are placed so in their own order, as the search places them (runtime._greedy_path)
function creditGreedyPath(start, useful, options, order) {
  const target = useful.map(() => null);  // the advance each source went to in ORDER
  let path = null;
  for (const sequence of [order, useful.map((_, j) => j)]) {
    const left = start[0].slice();
    const chosen = start[1].slice();
    path = [start];
    for (const j of sequence) {
      let best = null;
      for (let i = 0; i < left.length; i++) {
        if (target[j] !== null && i !== target[j]) continue;
        for (const opt of options(useful[j][1], useful[j][2], i, chosen[i])) {
          const gain = Math.min(opt[0], left[i]);
          if (best === null || gain > best[0]) best = [gain, i, opt[1]];
        }
      }
      if (best[0] > 0) {
        left[best[1]] -= best[0];
        chosen[best[1]] = best[2];
        target[j] = best[1];
      }
      path.push([left.slice(), chosen.slice()]);
    }
  }
  return path;
}

// [reach, most]: reach(k, state), whether STATE, after the first k + 1 useful sources, can still
// save GREEDY (a greedy placement's saving); most(k, state), the most any placement through it
// saves (runtime._within_reach)
function creditWithinReach(start, useful, greedy) {
  const total = creditSum(start[0]);
  const rest = new Array(useful.length + 1).fill(0);  // rest[k]: the most sources k, k + 1, ... give together
  for (let k = useful.length - 1; k >= 0; k--) rest[k] = rest[k + 1] + useful[k][3];
  const most = (k, state) => {
    const toPay = creditSum(state[0]);
    return total - toPay + Math.min(toPay, rest[k + 1]);
  };
  return [(k, state) => most(k, state) >= greedy, most];
}

// the most partial placements kept after each source
const creditPlacementCap = 1000;  // runtime.SINGLE_USE_PLACEMENT_CAP

// past creditPlacementCap states, the states to go on with (in the order found) and the dropped
// ones: the greedy placement's state first, then the least left to pay, then the first found
// (runtime._keep_within_cap)
function creditKeepWithinCap(stepStates, greedyKey) {
  const listed = Array.from(stepStates.entries());
  const rank = listed.map(([key, state], i) => [key === greedyKey ? 0 : 1, creditSum(state[0]), i]);
  rank.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const kept = rank.slice(0, creditPlacementCap).map((r) => r[2]).sort((a, b) => a - b);
  return [new Map(kept.map((i) => listed[i])), rank.slice(creditPlacementCap).map((r) => listed[r[2]][1])];
}

// [the credit sources (each held card, then each group's free tokens), the advances of BUYS with a
// price in rulebook order] (runtime._single_use_sources)
function creditSingleUseSources(M, holds, buys, extra) {
  const sources = holds.map((h) => [h, M.ADVANCES[h].credits, M.ADVANCES[h].specific]);
  for (const g of Object.keys(extra).sort(creditCmpStr)) {
    if (extra[g]) {
      const one = {};
      one[g] = Math.trunc(extra[g]);
      sources.push([g + " credits", one, {}]);
    }
  }
  const order = creditOrder(M);
  return [sources, buys.filter((b) => M.ADVANCES[b].cost !== null).sort((a, b) => order[a] - order[b])];
}

// [total, complete, total_at_least] of creditPrices, without the placement's search where a
// greedy placement provably saves the most and nothing after the credits depends on where they
// went (runtime.purchase_total)
function creditPurchaseTotal(M, holds, buys, extra, work) {
  if (creditVariants(M).indexOf("single_use") >= 0 && !creditMostTaken(M, buys, holds, buys)
      && buys.every((b) => M.ADVANCES[b].cost !== null)) {
    const [sources, priced] = creditSingleUseSources(M, holds, buys, extra || {});
    const options = creditOptionsOf(M, priced);
    const start = [priced.map((b) => M.ADVANCES[b].cost), priced.map(() => null)];
    const useful = creditUsefulSources(sources, priced.length, options);
    creditGreedyWork(work, sources, useful, priced);
    const greedy = creditGreedyPlacement(start, useful, options);
    const printed = creditSum(start[0]);
    const saved = printed - creditSum(greedy[greedy.length - 1][0]);
    if (saved === Math.min(printed, creditSum(useful.map((u) => u[3])))) return [printed - saved, true, printed - saved];
  }
  const got = creditPrices(M, holds, buys, extra, work);
  return [got.total, got.complete, got.total_at_least];
}

// the (source, advance) pairs the useful sources and the greedy placements weigh, counted in the
// planner's shared work (runtime._count_greedy_work)
function creditGreedyWork(work, sources, useful, priced) {
  if (work) work[0] += priced.length * (sources.length + 4 * useful.length);
}

// the states of the better of two greedy placements, the first of equals (runtime._greedy_placement)
function creditGreedyPlacement(start, useful, options) {
  const inOrder = useful.map((_, j) => j);
  const byCredit = inOrder.slice().sort((a, b) => useful[b][3] - useful[a][3]);
  let greedy = null;
  for (const order of [inOrder, byCredit]) {
    const path = creditGreedyPath(start, useful, options, order);
    if (greedy === null || creditSum(path[path.length - 1][0]) < creditSum(greedy[greedy.length - 1][0])) greedy = path;
  }
  return greedy;
}

// options(gcred, spec, i, chosen): [credit, group it fixes] for each way a source can discount
// PRICED[i] already discounted by the group CHOSEN (runtime._credit_options)
function creditOptionsOf(M, priced) {
  const perCard = M.CREDIT_POLICY === "per_card";
  const groups = priced.map((b) => M.ADVANCES[b].groups);
  return function options(gcred, spec, i, chosen) {
    const b = priced[i];
    if (perCard) {
      let g = 0;
      for (const x of groups[i]) g = Math.max(g, creditGet(gcred, x, 0));
      return [[Math.max(g, creditGet(spec, b, 0)), null]];
    }
    if (chosen !== null) return [[creditGet(gcred, chosen, 0) + creditGet(spec, b, 0), chosen]];
    const found = [];
    for (const g of groups[i]) {
      if (creditGet(gcred, g, 0)) found.push([gcred[g] + creditGet(spec, b, 0), g]);
    }
    return found.length ? found : [[creditGet(spec, b, 0), null]];
  };
}

function creditPlaceSingleUse(M, sources, priced, work) {
  const options = creditOptionsOf(M, priced);
  const keyOf = (s) => JSON.stringify(s);
  const start = [priced.map((b) => M.ADVANCES[b].cost), priced.map(() => null)];
  const useful = creditUsefulSources(sources, priced.length, options);
  creditGreedyWork(work, sources, useful, priced);
  const greedy = creditGreedyPlacement(start, useful, options);
  const total = creditSum(start[0]);
  const [reach, most] = creditWithinReach(start, useful, total - creditSum(greedy[greedy.length - 1][0]));
  let beyond = null;  // the most a state dropped at the cap could still save (null: none dropped)
  const layers = [];  // per useful source: state key -> [previous state, index of the advance or null]
  let states = new Map([[keyOf(start), start]]);
  useful.forEach((source, placed) => {
    const gcred = source[1];
    const spec = source[2];
    const step = new Map();
    const stepStates = new Map();
    for (const state of states.values()) {
      const left = state[0];
      const chosen = state[1];
      const k = keyOf(state);
      if (!step.has(k)) {
        step.set(k, [state, null]);
        stepStates.set(k, state);
      }
      for (let i = 0; i < priced.length; i++) {
        if (left[i] <= 0) continue;
        for (const opt of options(gcred, spec, i, chosen[i])) {
          const credit = opt[0];
          if (credit <= 0) continue;
          const nleft = left.slice();
          nleft[i] = Math.max(0, left[i] - credit);
          const nchosen = chosen.slice();
          nchosen[i] = opt[1];
          const after = [nleft, nchosen];
          const ak = keyOf(after);
          if (!step.has(ak)) {
            step.set(ak, [state, i]);
            stepStates.set(ak, after);
          }
        }
      }
    }
    if (work) work[0] += step.size;
    // a state that cannot reach the greedy placement's saving is dropped (runtime._within_reach)
    for (const [key, state] of stepStates) {
      if (!reach(placed, state)) {
        step.delete(key);
        stepStates.delete(key);
      }
    }
    if (stepStates.size > creditPlacementCap) {
      const [kept, dropped] = creditKeepWithinCap(stepStates, keyOf(greedy[placed + 1]));
      for (const state of dropped) beyond = beyond === null ? most(placed, state) : Math.max(beyond, most(placed, state));
      for (const key of stepStates.keys()) if (!kept.has(key)) step.delete(key);
      states = kept;
    } else {
      states = stepStates;
    }
    layers.push([source[0], step]);
  });
  let state = null;
  let stateKey = null;
  for (const s of states.values()) {
    const k = [creditSum(s[0]), s[0]];
    if (state === null || creditCmp(k, stateKey) < 0) {
      state = s;
      stateKey = k;
    }
  }
  const gap = beyond === null ? null : Math.max(0, beyond - (total - creditSum(state[0])));
  const given = {};
  for (const b of priced) given[b] = [];
  for (let l = layers.length - 1; l >= 0; l--) {
    const name = layers[l][0];
    const back = layers[l][1].get(keyOf(state));
    const previous = back[0];
    const i = back[1];
    if (i !== null) given[priced[i]].push({from: name + " (single use)", amount: previous[0][i] - state[0][i]});
    state = previous;
  }
  for (const b of priced) given[b].reverse();
  return [given, gap];
}

// Trade cards bought for treasury (runtime.trade_card_prices).
function creditTradeCardPrices(M, holds, stacks, treasury) {
  const offers = new Map();
  const limits = [];
  const offer = (stack, entry) => {
    if (!offers.has(stack)) offers.set(stack, []);
    offers.get(stack).push(entry);
  };
  for (const item of (M.ABILITIES || [])) {
    const kind = item[0];
    const args = item[1];
    const doc = item[2];
    if (kind === "trade_card_purchase") offer(args.stack, [args.price, doc || "the rulebook"]);
    else if (kind === "trade_card_purchase_limit") limits.push([args.cards, doc || "the rulebook"]);
  }
  for (const name of holds) {
    for (const args of creditAbility(M, name, "trade_card_purchase")) offer(args.stack, [args.price, name]);
  }
  const sortedStacks = Array.from(offers.keys()).sort((a, b) => a - b);
  const rows = [];
  const illegal = [];
  for (const stack of stacks) {
    const list = offers.get(stack) || [];
    let best = null;
    for (const o of list) if (best === null || creditCmp(o, best) < 0) best = o;
    if (best === null) {
      const sellers = sortedStacks.map(String).join(", ") || "none";
      illegal.push({stack: stack, why: "no rule sells cards from stack " + stack + " to this player "
                                       + "(stacks on sale: " + sellers + ")"});
      rows.push({stack: stack, price: null, from: null});
    } else {
      rows.push({stack: stack, price: best[0], from: best[1]});
    }
  }
  for (const limit of limits) {
    if (stacks.length > limit[0]) {
      illegal.push({stack: null, why: stacks.length + " trade cards, but at most " + limit[0]
                                      + " may be bought a turn (" + limit[1] + ")"});
    }
  }
  const known = rows.filter((r) => r.price !== null).map((r) => r.price);
  const total = known.length === rows.length ? creditSum(known) : null;
  if (treasury !== null && treasury !== undefined && total !== null && total > treasury) {
    illegal.push({stack: null, why: total + " treasury needed, " + treasury + " held"});
  }
  const listed = {};
  for (const s of sortedStacks) listed[String(s)] = offers.get(s).slice().sort(creditCmp);
  return {items: rows, total: total, illegal: illegal, offers: listed};
}

// Why a purchase is not allowed, advance by advance (runtime.purchase_problems).
function creditPurchaseProblems(M, holds, buys) {
  const held = new Set(holds);
  const out = [];
  const seen = new Set();
  for (const name of buys) {
    const adv = M.ADVANCES[name];
    if (held.has(name)) {
      out.push({advance: name, why: "already held"});
    } else if (seen.has(name)) {
      out.push({advance: name, why: "named twice: one copy of each advance"});
    } else {
      const missing = adv.requires.filter((r) => !held.has(r));
      if (missing.length) {
        const alongside = missing.filter((r) => buys.indexOf(r) >= 0);
        let why = "needs " + missing.join(", ") + " held before this turn";
        if (alongside.length) why += " (bought in the same turn does not count)";
        out.push({advance: name, why: why});
      }
    }
    seen.add(name);
  }
  const limit = creditGet(M.CONSTS, "card_limit", null);
  const after = new Set(held);
  for (const s of seen) after.add(s);
  if (limit !== null && after.size > limit) {
    out.push({advance: null, why: after.size + " advances held after the purchase, but the card limit is " + limit});
  }
  return out;
}

// Advances gained at no cost with an advance bought that has `acquire_all` (runtime.acquired_with).
function creditAcquiredWith(M, holds, buys) {
  const owned = new Set(holds.concat(buys));
  const out = [];
  for (const source of buys) {
    for (const args of creditAbility(M, source, "acquire_all")) {
      for (const name of Object.keys(M.ADVANCES)) {
        const adv = M.ADVANCES[name];
        if (!owned.has(name) && adv.groups.indexOf(args.group) >= 0 && adv.cost !== null
            && adv.cost < args.cost_below) {
          owned.add(name);
          out.push({advance: name, printed: adv.cost, price: 0,
                    credits: [{from: source + " (acquired automatically)", amount: adv.cost}]});
        }
      }
    }
  }
  return out;
}

function creditSameTurnAbilities(M, rows) {
  for (const row of rows) {
    const name = row.advance;
    for (const args of creditAbility(M, name, "discount")) {
      const others = rows.filter((r) => r.advance !== name && r.price !== null && r.price > 0);
      if (others.length) {
        const target = creditMaxBy(others, (r) => [r.price, r.advance]);
        target.credits.push({from: name + " (one-time discount)", amount: args.amount});
        target.price -= args.amount;
      }
    }
    for (const args of creditAbility(M, name, "free_advance")) {
      const eligible = rows.filter((r) => r.advance !== name && r.price !== null && r.price > 0
        && M.ADVANCES[r.advance].groups.indexOf(args.group) >= 0 && M.ADVANCES[r.advance].cost < args.cost_below);
      if (eligible.length) {
        const target = creditMaxBy(eligible, (r) => [r.price, r.advance]);
        target.credits.push({from: name + " (free advance)", amount: target.price});
        target.price = 0;
      }
    }
  }
}

// --- `civdsl cost --json` (cli/questions.cost, api.Rulebook.cost and trade_cards) ---------------

// "9x2, 3" -> [9, 9, 3]
function creditStacks(text) {
  if (Array.isArray(text)) return text.map((x) => Math.trunc(x));
  const out = [];
  for (const part of splitNames(text)) {
    const bare = part.replace(/ /g, "");
    const at = bare.indexOf("x");
    const stack = at < 0 ? bare : bare.slice(0, at);
    const n = at < 0 ? "" : bare.slice(at + 1);
    if (!/^[0-9]+$/.test(stack) || (n && !/^[0-9]+$/.test(n)) || stack.length > 3 || n.length > 3) {
      throw creditUserError("--trade-cards: `" + part + "` is not a stack number (optionally xN)");
    }
    const count = n ? parseInt(n, 10) : 1;
    for (let i = 0; i < count; i++) out.push(parseInt(stack, 10));
  }
  return out;
}

// options: {buy, holds, tradeCards, option} as the flags of `civdsl cost` (--buy, --holds,
// --trade-cards, --option NAME=on|off: {name: true}); --set and --state are the state itself.
// With --trade-cards and no --buy the answer is the trade cards' (the command line prints that
// object alone); with both it prints two objects, and this gives the purchase's.
function costAnswer(M, state, options) {
  options = options || {};
  const buyText = options.buy;
  const trade = options.tradeCards === undefined ? options.trade_cards : options.tradeCards;
  const buyGiven = Array.isArray(buyText) ? buyText.length > 0 : Boolean(buyText);
  const tradeGiven = Array.isArray(trade) ? trade.length > 0 : Boolean(trade);
  if (!buyGiven && !tradeGiven) throw creditUserError("give --buy ADVANCES or --trade-cards STACKS");
  const view = {holds: options.holds, option: options.option};
  if (tradeGiven && !buyGiven) {
    const stacks = creditStacks(trade);
    const st = makePlayerState(state, view);
    return creditTradeCardPrices(M, st.held, stacks, creditGet(st.facts, "treasury", null));
  }
  const st = makePlayerState(state, view);
  const buy = creditCanonical(M, "advance", splitNames(buyText), "--buy");
  const already = buy.filter((b) => st.heldSet.has(b));
  if (already.length) throw creditUserError("--buy: already held: " + already.join(", "));
  const result = creditPrices(M, st.held, buy, creditGet(st.facts, "credits", null));
  result.illegal = creditPurchaseProblems(M, st.held, buy);
  result.start_credits = st.startCredits;
  const notes = [];
  if (Object.keys(M.ADVANCES).some((n) => M.ADVANCES[n].supply)) {
    notes.push("supply (cards of each advance in the box) is not checked: the state does not say what "
      + "other players hold");
  }
  const sc = st.startCredits;
  if (sc !== null && sc !== undefined && sc.per_group === null) {
    const need = sc.missing.map((m) => "`" + m + "`").join(", ");
    notes.push(need ? "start credits are not counted: they depend on " + need
      : "start credits are not counted: " + sc.problem);
  }
  result.notes = notes;
  return result;
}
