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
  let stopped = null;  // the limit that stopped the single-use placement ("states", "work")
  if (singleUse) [rows, gap, stopped] = creditSingleUseRows(M, holds, buys, extra || {}, work);
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
  const complete = gap === null || (gap === 0 && !taken);
  return {
    policy: policy,
    variants: creditVariants(M),
    items: rows,
    acquired: creditAcquiredWith(M, holds, buys),
    total: total,
    // false where the single-use placement stopped at its cap short of a proof (runtime.prices)
    complete: complete,
    total_at_least: gap === null || total === null ? total : Math.max(0, taken ? placed - gap - taken : total - gap),
    // where the answer is not complete, the declared limit that stopped the placement (runtime._placement_limit)
    stopped: complete ? null : stopped === "states" ? {limit: "states per held card", bound: creditPlacementCap}
      : {limit: "units of work", bound: creditPlacementWork},
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
  // the placement is placement.py's, translated (pl_ names: civdsl/companion/py2es.py)
  const [found, gap, stopped] = pl_place(...creditPlacementProblem(M, sources, priced), creditPlacementCap,
    creditPlacementWork, work || null);
  const given = {};
  priced.forEach((b, i) => {
    given[b] = found[i].map(([source, amount]) => ({from: source + " (single use)", amount: amount}));
  });
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
  return [rows, gap, stopped];
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

// the most partial placements kept after each source
const creditPlacementCap = 1000;  // runtime.SINGLE_USE_PLACEMENT_CAP
// the most work one placement does, past which it goes on with the greedy placement's state only
const creditPlacementWork = 60000;  // runtime.SINGLE_USE_PLACEMENT_WORK

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
    const left = pl_greedy_total(...creditPlacementProblem(M, sources, priced), work || null);
    if (left !== null) return [left, true, left];
  }
  const got = creditPrices(M, holds, buys, extra, work);
  return [got.total, got.complete, got.total_at_least];
}

// placement.place's plain data (pricing._placement_problem): the advances' names, printed costs
// and groups, the sources [name, group credits, specific credits] as Python's dicts, and whether
// the policy is `per_card`
function creditPlacementProblem(M, sources, priced) {
  return [priced, priced.map((b) => M.ADVANCES[b].cost), priced.map((b) => M.ADVANCES[b].groups),
    sources.map(([name, gcred, spec]) => [name, pyDict(Object.entries(gcred)), pyDict(Object.entries(spec))]),
    M.CREDIT_POLICY === "per_card"];
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
