// resolve.js: what a calamity does to one victim; the twin of runtime.Resolution's parts and of the
// procedures codegen's calamity functions call (bounds, select-then-unselect, reduce until
// supported, least over, discard by value). What a victim loses once the amounts are known (the
// floor, immunity, the support count, the least loss, the cheapest discard) and the answer as
// data are not written here: they are civdsl/losses.py and calamity_answer.py translated (ls_*,
// ca_*). Effects are [kind, args, line], trace entries [op, kind, param, value, before, after,
// by, line, path], options
// [instead_of, kind, args, each, by, line, path], the assignment [count, share, effects, line].

function resolution(calamity, role, state, effects, assignment, trace, options, immune, cancelReason, excluded) {
  return {calamity: calamity, role: role, state: state, effects: effects, assignment: assignment, trace: trace,
    options: options, immune: immune, cancelReason: cancelReason, excluded: excluded};
}

function cancelled(calamity, role, state, line, why, path) {
  return resolution(calamity, role, state, [["cancelled", {}, line]], null, [], [], false, [line, why, path], null);
}

// a modifier operation whose condition held: the parameter's new value, traced (runtime.change)
function change(trace, op, kind, param, value, old, by, line, path) {
  let after;
  if (op === "add") after = add(old, value);
  else if (op === "prevent") after = sub(old, value);
  else if (op === "cap") after = min_(old, value);
  else after = value;
  trace.push([op, kind, param, value, old, after, by, line, path]);
  return after;
}

// the stages of `amounts { order }` under the question's options: ORDERS is [the options that
// switch the order, {the switched-on ones joined by "|": the order}]
function stageOrder(s, orders) {
  return orders[1][orders[0].filter((n) => truthy(s.option(n))).join("|")];
}

// the edition's `floor zero` over a finished effect list (runtime.floor_effects)
function floorEffects(effects, trace, mains, line, path) {
  for (const e of effects) {
    const param = get(mains, e[0], null);
    if (param !== null) e[1][param] = ls_floor_step(trace, e[0], param, e[1][param], line, path);
  }
}

function assignedAmount(s, most, kind) {
  if (!(most instanceof Unknown) && truthy(gt(s.assigned, most))) {
    throw new UserError("--assigned " + s.assigned + ": a secondary victim of this calamity suffers at most " +
      pyStr(most) + " (" + kind.split("_").join(" ") + ")");
  }
  return s.assigned;
}

function boundFact(bounds, kind, args) {
  const byArea = get(bounds, kind, null);
  if (!byArea || !Object.keys(byArea).length) return undefined;
  return get(byArea, get(args, "area", "any"), get(byArea, "*", null));
}

// nothing beyond what the player has (runtime.bound_effects); `city`: a city's unit points for
// this calamity where it declares its own
function boundEffects(s, effects, trace, bounds, path, city) {
  effects.forEach(function (effect, i) {
    const [kind, args, line] = effect;
    const fact = boundFact(bounds, kind, args);
    if (fact === undefined) return;
    const demanded = get(args, "amount", null);
    if (fact === null || demanded === null || demanded instanceof Unknown) return;
    const have = s.holding(fact, city);
    const next = Object.assign({}, args);
    next.bound = fact;
    if (have !== null) {
      const taken = truthy(le(demanded, have)) ? demanded : have;
      next.taken = taken;
      if (truthy(lt(taken, demanded)) && !own(args, "unselected")) {
        trace.push(["bound", kind, "amount", have, demanded, taken, [fact], line, path]);
      }
    }
    effects[i] = [kind, next, line];
  });
}

// select, then unselect (runtime.unselect)
function unselect(s, effects, trace, bounds, path) {
  effects.forEach(function (effect, i) {
    const [kind, args, line] = effect;
    if (!own(args, "unselected")) return;
    const next = Object.assign({}, args);
    const wanted = next.selected, prevented = next.unselected;
    delete next.selected;
    delete next.unselected;
    if (wanted instanceof Unknown || prevented instanceof Unknown) {
      effects[i] = [kind, next, line];
      return;
    }
    const byArea = get(bounds, kind, {});
    const fact = get(byArea, get(args, "area", "any"), get(byArea, "*", null));
    const have = fact !== null ? s.holding(fact) : null;
    const selected = have === null ? max_(wanted, 0) : max_(min_(wanted, have), 0);
    const unselected = min_(max_(prevented, 0), selected);
    delete next.taken;
    next.select = {selected: selected, unselected: unselected};
    next.taken = sub(selected, unselected);
    if (have !== null && truthy(gt(wanted, have))) trace.push(["bound", kind, "amount", have, wanted, selected, [fact], line, path]);
    effects[i] = [kind, next, line];
  });
}

// reduce until supported (runtime.reduce_until_supported)
function reduceUntilSupported(s, effects, kinds) {
  effects.forEach(function (effect, i) {
    const [kind, args, line] = effect;
    const what = get(kinds, kind, null);
    const amount = get(args, "amount", null);
    if (what === null || amount === null || amount instanceof Unknown) return;
    const cities = s.fact("cities"), tokens = s.fact("tokens");
    if (cities instanceof Unknown || tokens instanceof Unknown) return;
    const base = citySupport(s);
    const rate = what === "rate" ? add(base, amount) : base;
    const withheld = what === "withheld" ? min_(tokens, amount) : 0;
    const left = citiesLeft(s, cities, sub(tokens, withheld), rate);
    if (left === null) return;
    const support = {rate: rate, withheld: withheld, reduced: cities - left, cities_left: left};
    effects[i] = [kind, Object.assign({}, args, {support: support}), line];
  });
}

function citySupport(s) {
  let base = get(MODEL.CONSTS, "city_support", 2);
  for (const name of Array.from(s.heldSet).sort(pyCompareStrings)) {
    if (own(MODEL.ADVANCES, name)) {
      for (const a of abilityArgs(name, "city_support")) base = add(base, get(a, "delta", 0));
    }
  }
  return base;
}

// runtime._cities_left: without reduced_city_tokens, only a count that does not depend on it
function citiesLeft(s, cities, available, rate) {
  const leave = get(s.facts, "reduced_city_tokens", null);
  if (leave !== null) return ls_cities_supported(cities, available, rate, leave);
  const fewest = ls_cities_supported(cities, available, rate, 0);
  if (fewest === ls_cities_supported(cities, available, rate, Math.max(rate, 0) * cities)) return fewest;
  s.fact("reduced_city_tokens");
  return null;
}

// a loss of unit points met exactly or exceeded by as little as possible (runtime.least_over)
function leastOver(s, effects, kinds, city) {
  const cities = get(s.facts, "cities", null), tokens = get(s.facts, "tokens", null);
  if (cities === null || tokens === null) return;
  const value = city === undefined ? MODEL.UNIT_POINTS.city : city;  // a calamity's own city value
  effects.forEach(function (effect, i) {
    const [kind, args, line] = effect;
    if (kinds.indexOf(kind) < 0 || get(args, "area", "any") !== "any") return;
    const need = get(args, "taken", get(args, "amount", null));
    if (need === null || need instanceof Unknown || !truthy(gt(need, 0))) return;
    const loss = pyPlain(ls_least_loss(need, cities, tokens, value));
    effects[i] = [kind, Object.assign({}, args, {loss: loss}), line];
  });
}

// discard by value: the least excess, then the fewest cards (runtime.discard_by_value)
function discardByValue(s, effects, kinds) {
  const hand = get(s.facts, "commodities", null);
  if (hand === null) return;
  const cards = [];
  for (const name of Object.keys(hand).sort(pyCompareStrings)) for (let k = 0; k < hand[name]; k++) cards.push(name);
  effects.forEach(function (effect, i) {
    const [kind, args, line] = effect;
    const need = get(args, "taken", get(args, "amount", null));
    if (kinds.indexOf(kind) < 0 || need === null || need instanceof Unknown) return;
    const [chosen, value] = ls_cheapest_discard(cards, engineModule().COMMODITIES, need);
    const over = sub(value, need);
    const discard = {cards: pyPlain(chosen), face_value: value, over: truthy(gt(over, 0)) ? over : 0};
    effects[i] = [kind, Object.assign({}, args, {discard: discard}), line];
  });
}
