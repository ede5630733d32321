// epoch.js: epochs by position and per-civilization A.S.T. rows; the twin of runtime.epochs,
// marker and ast_standing. The generated requirement functions (RULES.ast) call requirement,
// requirementBool and requirementAny.

function met(value) {
  return value instanceof Unknown ? null : truthy(value);
}

function requirement(text, left, op, right, line, eachStep) {
  const out = {requirement: text, met: met(compare(op, left, right)), value: number(left),
    needs: op + " " + pyStr(number(right)), line: line, each_step: !!eachStep};
  const needs = unknownOf(left, right).facts;
  if (needs.length) out.depends_on = needs;
  return out;
}

function requirementBool(text, value, line, eachStep) {
  const out = {requirement: text, met: met(value), value: met(value), needs: "true", line: line, each_step: !!eachStep};
  if (value instanceof Unknown) out.depends_on = value.facts.slice();
  return out;
}

function allMet(values) {
  if (values.some(function (v) { return v === false; })) return false;
  return values.some(function (v) { return v === null; }) ? null : true;
}

function anyMet(values) {
  if (values.some(function (v) { return v === true; })) return true;
  return values.some(function (v) { return v === null; }) ? null : false;
}

function requirementAny(text, alternatives, line, eachStep) {
  const m = anyMet(alternatives.map(function (alt) { return allMet(alt.map(function (p) { return p.met; })); }));
  return {requirement: text, met: m, value: null, needs: "any", line: line, each_step: !!eachStep,
    alternatives: alternatives};
}

function epochsOf(track, state) {
  const t = MODEL.AST[track], rules = RULES.ast.get(track);
  const [countedState, counted] = astCounted(state);
  const out = [];
  let reached = null, still = true;
  for (const [name, fn] of rules.epochs) {
    const reqs = fn(countedState);
    const m = allMet(reqs.map(function (r) { return r.met; }));
    still = still && m === true;
    if (still) reached = name;
    out.push({epoch: name, met: m, requirements: reqs});
  }
  const backward = rules.backward.map(function (b) { return b(state); });
  const position = own(state.facts, "ast_position") ? state.fact("ast_position") : new Unknown(["ast_position"]);
  const result = {track: track, name: t.name, epochs: out, reached: reached,
    moves_backward: goesBack(track, state, position, backward), backward_rules: backward, counted: counted};
  if (MARKER_FACTS.some(function (n) { return own(state.facts, n); })) {
    result.marker = marker(track, state, out, backward, result.moves_backward);
  }
  result.missing_facts = state.missing.slice();
  result.complete = state.complete;
  return result;
}

// runtime.ast_counted: [the state the epoch requirements read, how each counted fact was counted]
function astCounted(state) {
  let counted = state;
  const shown = [];
  for (const fact of Object.keys(MODEL.AST_COUNTED_FACTS || {})) {
    const kind = MODEL.AST_COUNTED_FACTS[fact], adds = [];
    for (const name of state.held) {
      for (const args of abilityArgs(name, kind)) adds.push({advance: name, delta: args.delta});
    }
    if (!adds.length) continue;
    const given = state.fact(fact);
    const value = adds.reduce(function (t, a) { return add(t, a.delta); }, given);
    shown.push({fact: fact, given: number(given), value: number(value), adds: adds});
    if (!(value instanceof Unknown)) {
      if (counted === state) {  // shares missing and undecided with STATE
        counted = Object.assign(Object.create(Object.getPrototypeOf(state)), state);
        counted.facts = Object.assign({}, state.facts);
      }
      counted.facts[fact] = value;
    }
  }
  return [counted, shown];
}

// the facts that place the marker on a track: with any of them the answer is about the player's marker
const MARKER_FACTS = ["ast_position", "civilization", "ast_epoch"];

class AstRowUnknown extends Error {}

function astRows(track, civilization) {
  const t = MODEL.AST[track];
  const civs = MODEL.CIVILIZATIONS;
  if (civilization !== null) {
    const civ = get(civs, civilization, null);
    const row = civ === null ? null : get(civ.rows, track, null);
    if (row === null) throw new AstRowUnknown("the rulebook gives no row on " + t.name + " for " + civilization);
    return [row];
  }
  const rows = [];
  for (const name of Object.keys(civs)) if (own(civs[name].rows, track)) rows.push(civs[name].rows[track]);
  if (!rows.length) throw new AstRowUnknown("the rulebook gives no civilization's row on " + t.name);
  return rows;
}

function epochIndex(row, position) {
  let index = 0;
  row.starts.forEach(function (start, i) {
    if (position >= start) index = i + 1;
  });
  return index;
}

function epochNames(track) {
  return RULES.ast.get(track).epochs.map(function (e) { return e[0]; });
}

// runtime.epochs_possible: [the epochs the marker may be in, the fact that would tell which or null]
function epochsPossible(track, state, position) {
  const names = epochNames(track);
  const given = get(state.facts, "ast_epoch", null);
  if (given !== null) {
    if (names.indexOf(given) < 0) {
      const shown = given.length <= 80 ? given : given.slice(0, 77) + "...";
      throw new UserError("ast_epoch: `" + shown + "` is no epoch of " + MODEL.AST[track].name + "; it has: " + names.join(", "));
    }
    return [[names.indexOf(given)], null];
  }
  const all = names.map(function (_, i) { return i; });
  if (position instanceof Unknown) return [all, "ast_position"];
  if (position === 0) return [[0], null];
  let possible, tell;
  try {
    const rows = astRows(track, get(state.facts, "civilization", null));
    possible = Array.from(new Set(rows.map(function (r) { return epochIndex(r, position); })));
    tell = "civilization";
  } catch (exc) {
    if (!(exc instanceof AstRowUnknown)) throw exc;
    const finish = MODEL.AST[track].spaces, last = names.length - 1;
    possible = all.filter(function (i) { return i <= position && (finish === null || last - i <= finish - position); });
    tell = "ast_epoch";
  }
  return [possible, possible.length > 1 ? tell : null];
}

function goesBack(track, state, position, backward) {
  const back = anyMet(backward.map(function (b) { return b.met; }));
  if (back === false || (!(position instanceof Unknown) && position === 0)) return false;
  const names = epochNames(track);
  const exempt = MODEL.AST[track].backward_except.map(function (n) { return names.indexOf(n); })
    .filter(function (i) { return i >= 0; });
  const [possible, tell] = epochsPossible(track, state, position);
  const isExempt = function (i) { return exempt.indexOf(i) >= 0; };
  if (possible.every(isExempt)) return false;
  if (back === null) return null;
  if (possible.some(isExempt)) {
    state.fact(tell);
    return null;
  }
  return true;
}

function agreed(values, what) {
  const distinct = Array.from(new Set(values));
  if (distinct.length > 1) throw new AstRowUnknown(what + " differs by civilization: give `civilization`");
  return distinct[0];
}

function stepNeeds(reqs, inside) {
  return inside ? reqs.filter(function (r) { return r.each_step; }) : reqs;
}

function stepsPossible(track, state, position) {
  try {
    const rows = astRows(track, get(state.facts, "civilization", null));
    if (!own(state.facts, "ast_epoch")) {
      return rows.map(function (r) { return [epochIndex(r, position), epochIndex(r, position + 1)]; });
    }
  } catch (exc) {
    if (!(exc instanceof AstRowUnknown)) throw exc;
  }
  const last = epochNames(track).length - 1;
  const out = [];
  for (const h of epochsPossible(track, state, position)[0]) {
    for (const n of [h, h + 1]) if (n <= last) out.push([h, n]);
  }
  return out;
}

function unknownMove(out, state, track, position, goes, epochsOut, backward) {
  if (goes === true) {
    out.move = "back";
    out.back_to = position - 1;
    out.back_rules = backward.filter(function (b) { return b.met; });
    return;
  }
  if (goes === null) {
    out.move = "unknown";
    return;
  }
  if (position === MODEL.AST[track].spaces) {
    out.move = "finished";
    return;
  }
  const meets = new Set(stepsPossible(track, state, position).map(function (s) {
    return allMet(stepNeeds(epochsOut[s[1]].requirements, s[0] === s[1]).map(function (r) { return r.met; }));
  }));
  if (meets.size === 1 && !meets.has(null)) {
    out.move = meets.has(true) ? "forward" : "stays";
    return;
  }
  const tell = epochsPossible(track, state, position)[1];
  if (tell !== null) state.fact(tell);
  out.move = "unknown";
}

function marker(track, state, epochsOut, backward, goes) {
  const t = MODEL.AST[track];
  const names = epochNames(track);
  const civ = get(state.facts, "civilization", null);
  const position = state.fact("ast_position");
  const out = {civilization: civ, space: number(position), epoch: null, next_space: null, next_epoch: null,
    needs: [], meets: null, move: null, finish: null, row: null, unknown: null};
  if (position instanceof Unknown) {
    out.unknown = "the state does not give ast_position";
    return out;
  }
  if (t.spaces !== null && position > t.spaces) {
    out.unknown = "space " + position + " is beyond the finish of " + t.name + " (space " + pyStr(t.spaces) + ")";
    return out;
  }
  let rows, finish, here, there = null;
  try {
    rows = astRows(track, civ);
    finish = agreed(rows.map(function (r) { return r.spaces; }), "the last space of " + t.name);
    if (position > finish) throw new AstRowUnknown("space " + position + " is beyond the finish of " + t.name + " (space " + pyStr(finish) + ")");
    here = agreed(rows.map(function (r) { return epochIndex(r, position); }), "the epoch of space " + position);
    if (position < finish) {
      there = agreed(rows.map(function (r) { return epochIndex(r, position + 1); }), "the epoch of space " + (position + 1));
    }
  } catch (exc) {
    if (!(exc instanceof AstRowUnknown)) throw exc;
    out.unknown = exc.message;
    unknownMove(out, state, track, position, goes, epochsOut, backward);
    return out;
  }
  if (rows.length === 1) {
    const starts = {};
    names.slice(1).forEach(function (n, i) {
      if (i < rows[0].starts.length) starts[n] = rows[0].starts[i];
    });
    out.row = {spaces: rows[0].spaces, starts: starts};
  }
  out.finish = finish;
  out.epoch = names[here];
  const exempt = t.backward_except.indexOf(names[here]) >= 0;
  out.backward_exempt = exempt;
  const back = anyMet(backward.map(function (b) { return b.met; }));
  if (back === null && !exempt && position > 0) out.move = "unknown";
  if (back === true && !exempt && position > 0) {
    out.move = "back";
    out.back_to = position - 1;
    out.back_rules = backward.filter(function (b) { return b.met; });
  }
  if (there === null) {
    out.move = out.move || "finished";
    return out;
  }
  out.next_space = position + 1;
  out.next_epoch = names[there];
  out.needs = stepNeeds(epochsOut[there].requirements, there === here);
  out.meets = allMet(out.needs.map(function (r) { return r.met; }));
  if (out.move === null) out.move = out.meets === true ? "forward" : out.meets === false ? "stays" : "unknown";
  return out;
}

function astStanding(state) {
  const tracks = Object.keys(MODEL.AST);
  let chosen = get(state.facts, "ast_track", null);
  if (chosen === null) {
    const values = new Set(tracks.map(function (t) { return MODEL.AST[t].step_points; }));
    if (tracks.length === 1 || values.size === 1) chosen = tracks.length ? tracks[0] : null;
  }
  if (chosen === null) {
    state.fact("ast_track");
    return null;
  }
  const points = MODEL.AST[chosen].step_points;
  if (points === null) return null;
  const position = state.fact("ast_position");
  return {track: chosen, space: position, points: mul(position, points), per_step: points};
}
