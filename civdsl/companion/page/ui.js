/* The companion page's user interface.

   Generic: every list, every name and every number comes from the rulebook's MODEL
   (`civdsl.model`) and from the answers of the engine API (`civdsl.resolve`, `cost`, `epoch`,
   `score`, `plan`), which return what the command line prints with --json. Nothing here names
   an edition, a card or a calamity. PAGE holds the shared vocabulary's words (facts, effect
   templates), written in by civdsl/companion/page.py.

   Rulebook text only ever reaches the page as text nodes (textContent, createTextNode) and
   attribute values set through the DOM: never innerHTML, never a string parsed as HTML. */
(function () {
  "use strict";

  const PAGE = /*PAGE*/null;

  // Every record keyed by a name from a state file, the browser's storage or the rulebook has no
  // prototype, and is read with own-property checks: a name such as `__proto__`, `constructor`
  // or `toString` is an ordinary name, never a way into Object.prototype.
  function dict() {
    return Object.create(null);
  }
  function has(obj, key) {
    return obj !== null && obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key);
  }
  function isMapping(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }
  // the facts come as rows of values, their field names once (page.py's page_words)
  PAGE.facts = PAGE.facts.rows.map(function (row) {
    const fact = dict();
    PAGE.facts.fields.forEach(function (field, i) { fact[field] = row[i]; });
    return fact;
  });
  const api = globalThis.civdsl;
  const M = api.model;
  const EDITION = M.EDITION || {};
  const STORE_KEY = "civdsl-companion:" + (EDITION.id || "");
  const FACTS = dict();
  for (const f of PAGE.facts) FACTS[f.name] = f;
  // facts the board steppers always show (the brief: cities, tokens, stock, treasury)
  const BASE_FACTS = PAGE.base_facts;

  // ---- small DOM helpers: text only, never markup -------------------------------------------

  /*DOM*/

  let uid = 0;
  function newId(prefix) {
    uid += 1;
    return prefix + "-" + uid;
  }

  function words(n, pair) {
    return String(n) === "1" ? pair[0] : pair[1];
  }

  function factLabel(name) {
    const f = has(FACTS, name) ? FACTS[name] : null;
    if (f && f.words) return f.words[1];
    return name.replace(/_/g, " ");
  }

  function listText(items) {
    if (items.length <= 1) return items.join("");
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  // ---- the model, read generically -----------------------------------------------------------

  const ADVANCES = M.ADVANCES || {};
  const ADVANCE_NAMES = Object.keys(ADVANCES);
  const GROUPS = M.GROUPS || {};
  const COMMODITIES = M.COMMODITIES || {};
  const CALAMITIES = M.CALAMITIES || {};
  const CIVS = M.CIVILIZATIONS || {};
  const TRACKS = M.AST || {};
  const SCENARIOS = M.SCENARIOS || [];
  const OPTIONS = M.OPTIONS || {};
  const ALIASES = (M.ALIASES && M.ALIASES.advance) || {};
  const HAS_VP = ADVANCE_NAMES.some((a) => Number(ADVANCES[a].vp) > 0);
  // prices and the planner come from the engine's cost and plan (pricing.py translated, plan.js): the page
  // offers them wherever the engine answers them
  const CAN_COST = typeof api.cost === "function" && ADVANCE_NAMES.length > 0;
  const CAN_PLAN = typeof api.plan === "function" && ADVANCE_NAMES.length > 0;
  // the score section only where the rulebook declares how a game is scored
  const HAS_SCORE = (M.SCORE_POINTS || []).length > 0 || (M.SCORE_TIEBREAKS || []).length > 0;

  function blocks() {
    const out = [];
    for (const c of Object.values(CIVS)) if (c && c.block && !out.includes(c.block)) out.push(c.block);
    for (const c of Object.values(COMMODITIES)) if (c && c.block && !out.includes(c.block)) out.push(c.block);
    return out;
  }

  // ---- storage: players, each with the state file the command line reads ---------------------

  const OBJECTIVES = (HAS_VP ? ["vp"] : []).concat(["points", "cards"]);

  function blankPlayer(n) {
    return {name: "Player " + n, state: dict(), basket: [], objective: ""};
  }

  // The players kept in the browser's storage, each state read as strictly as an imported file
  // (readState): what is valid is kept, what is not is listed in STORE_DROPPED for the page to
  // say, with a button that resets the saved state. Any page of the same origin can write this
  // key (in Chromium every file:// page shares one), so nothing in it is trusted.
  const STORE_DROPPED = [];
  // more players than any edition seats, and a bound on the time a damaged store takes to read
  const MAX_PLAYERS = 20;

  function loadStore() {
    let data = null;
    try {
      data = JSON.parse(window.localStorage.getItem(STORE_KEY) || "null");
    } catch (e) {
      // storage refused (a private window) or damaged text: start afresh, and say so if damaged
      if (!(e instanceof DOMException)) STORE_DROPPED.push("the saved players (not readable)");
      data = null;
    }
    if (data === null) return {version: 1, active: 0, players: [blankPlayer(1)]};
    if (!isMapping(data) || !Array.isArray(data.players)) {
      STORE_DROPPED.push("the saved players (not a list of players)");
      return {version: 1, active: 0, players: [blankPlayer(1)]};
    }
    const players = [];
    if (data.players.length > MAX_PLAYERS) {
      STORE_DROPPED.push((data.players.length - MAX_PLAYERS).toLocaleString("en-US") + " players after the first " + MAX_PLAYERS);
    }
    data.players.slice(0, MAX_PLAYERS).forEach((p, i) => {
      if (!isMapping(p)) {
        STORE_DROPPED.push("player " + (i + 1) + " (not a player)");
        return;
      }
      const name = typeof p.name === "string" && p.name.trim() ? p.name.trim().slice(0, 40) : "Player " + (i + 1);
      const read = readState(p.state === undefined || p.state === null ? dict() : p.state);
      for (const why of read.dropped) STORE_DROPPED.push(name + ": " + why);
      const basket = Array.isArray(p.basket) ? p.basket : [];
      players.push({
        name: name,
        state: read.state,
        basket: ADVANCE_NAMES.filter((a) => basket.includes(a) && !(read.state.holds || []).includes(a)),
        objective: OBJECTIVES.includes(p.objective) ? p.objective : "",
      });
    });
    if (!players.length) players.push(blankPlayer(1));
    const active = Number.isInteger(data.active) && data.active >= 0 && data.active < players.length ? data.active : 0;
    return {version: 1, active: active, players: players};
  }

  let store = null;  // loaded once the whole script is read (readState needs all of it)
  let storageProblem = "";

  function saveStore() {
    try {
      window.localStorage.setItem(STORE_KEY, JSON.stringify(store));
      storageProblem = "";
    } catch (e) {
      storageProblem = "this browser does not keep the state (storage refused): export it to keep it";
    }
  }

  function resetStore() {
    try {
      window.localStorage.removeItem(STORE_KEY);
    } catch (e) {
      // storage refused: the page starts afresh all the same
    }
    STORE_DROPPED.length = 0;
    store = {version: 1, active: 0, players: [blankPlayer(1)]};
    saveStore();
    build();
  }

  function player() {
    return store.players[store.active];
  }

  // The state file of the active player: only the facts given, in the vocabulary's order, so
  // that an export is exactly what `civdsl ... --state FILE` reads.
  function stateFile(p) {
    const s = (p || player()).state;
    const out = dict();
    for (const f of PAGE.facts) {
      const v = has(s, f.name) ? s[f.name] : null;
      if (v === undefined || v === null) continue;
      if (f.type === "int" && !Number.isInteger(v)) continue;
      if (f.type === "list") {
        if (!Array.isArray(v) || !v.length) continue;
        out[f.name] = v.slice();
      } else if (f.type === "map") {
        const m = dict();
        for (const k of Object.keys(isMapping(v) ? v : {})) if (Number.isInteger(v[k]) && v[k] > 0) m[k] = v[k];
        if (Object.keys(m).length) out[f.name] = m;
      } else {
        out[f.name] = v;
      }
    }
    if (has(s, "options") && isMapping(s.options)) {
      const o = dict();
      for (const k of Object.keys(s.options)) if (has(OPTIONS, k) && typeof s.options[k] === "boolean") o[k] = s.options[k];
      if (Object.keys(o).length) out.options = o;
    }
    return out;
  }

  // A copy of a record without a prototype, with its entries as they are.
  function copyOf(record) {
    return Object.assign(dict(), isMapping(record) ? record : {});
  }

  function setFact(name, value) {
    const s = player().state;
    if (value === undefined || value === null || (value === "" && has(FACTS, name) && FACTS[name].type !== "str")) delete s[name];
    else s[name] = value;
    changed();
  }

  // ---- a state, checked as the command line checks a state file -----------------------------

  // The engine's refusal of a state (the command line's words, its did-you-mean included), or
  // null when it accepts it.
  function stateProblem(state) {
    const answer = api.score(state, {});
    return answer && answer.error && answer.error.kind === "user" ? answer.error.message : null;
  }

  function single(key, value) {
    const one = dict();
    one[key] = value;
    return one;
  }

  // reasons listed for one state, as the command line lists a state's problems (statecheck.MAX_PROBLEMS);
  // past them every part is still checked, by name only (the engine's did-you-mean is costly per
  // name): a state file of the largest size is read in a bounded time
  const MAX_REASONS = 20;

  // DATA (a parsed state file, or a state kept in storage) as the page keeps a state: every fact
  // the engine accepts, names as the rulebook spells them; and, in the command line's words, why
  // each part left out was left out (a list's or a map's valid names are kept).
  function readState(data) {
    const state = dict();
    const dropped = [];
    let more = 0;  // parts left out past the reasons listed
    // the engine's reason for leaving out PART (a state of one fact), or null where it accepts it;
    // once the reasons are listed, a part is only checked by name (QUICK: whether it is valid)
    const problem = (part, quick) => {
      if (dropped.length < MAX_REASONS) return stateProblem(part);
      return quick() ? null : "";
    };
    const leaveOut = (why) => {
      if (dropped.length < MAX_REASONS) dropped.push(why);
      else more += 1;
    };
    if (!isMapping(data)) {
      const kind = data === null ? "empty" : Array.isArray(data) ? "a list" : "a " + typeof data;
      dropped.push("a state is a mapping of facts (name: value), not " + kind);
      return {state: state, dropped: dropped};
    }
    for (const k of Object.keys(data)) {
      const v = data[k];
      if (k === "options") {
        readOptions(v, state, dropped);
        continue;
      }
      const f = has(FACTS, k) ? FACTS[k] : null;
      const refused = f ? stateProblem(single(k, v)) : problem(single(k, v), () => false);
      if (!refused && f) {
        if (v !== null) state[k] = kept(f, v);
      } else if (f && f.type === "list" && Array.isArray(v)) {
        state[k] = [];
        for (const x of v) {
          const why = problem(single(k, [x]), () => isKnown(f, x));
          const name = why === null ? kept(f, [x])[0] : null;
          if (why !== null) leaveOut(why);
          else if (!state[k].includes(name)) state[k].push(name);
        }
      } else if (f && f.type === "map" && isMapping(v)) {
        state[k] = dict();
        for (const n of Object.keys(v)) {
          const why = problem(single(k, single(n, v[n])), () => isKnown(f, n) && Number.isInteger(v[n]) && v[n] >= 0);
          if (why !== null) leaveOut(why);
          else Object.assign(state[k], kept(f, single(n, v[n])));
        }
      } else {
        leaveOut(refused || "state: unknown key `" + k + "`");
      }
    }
    if (more) dropped.push("... and " + more.toLocaleString("en-US") + " more");
    // facts valid one by one but not together (a space beyond the finish of the chosen row):
    // leave out the one whose absence settles it, else the last ones until the rest is accepted
    const why = stateProblem(state);
    if (why !== null) {
      dropped.push(why);
      const settling = Object.keys(state).reverse().find((k) => {
        const rest = copyOf(state);
        delete rest[k];
        return stateProblem(rest) === null;
      });
      if (settling !== undefined) delete state[settling];
      for (const k of Object.keys(state).reverse()) {
        if (stateProblem(state) === null) break;
        delete state[k];
      }
    }
    return {state: state, dropped: dropped};
  }

  // Whether NAME is one the rulebook gives FACT (any case, or an `aka` name).
  function isKnown(fact, name) {
    if (typeof name !== "string" || !has(NAMED, fact.name)) return false;
    const low = name.normalize("NFC").toLowerCase();
    return NAMED[fact.name]().some((x) => x.toLowerCase() === low);
  }

  function readOptions(value, state, dropped) {
    if (value === null) return;  // `options:` with nothing under it, as the command line reads it
    if (!isMapping(value)) {
      dropped.push("state: `options` must be a mapping of rule options to on or off");
      return;
    }
    for (const o of Object.keys(value)) {
      const on = value[o];
      const why = stateProblem(single("options", single(o, on)));
      if (why || !has(OPTIONS, o)) dropped.push(why || "state: unknown option `" + o + "`");
      else {
        if (!has(state, "options")) state.options = dict();
        state.options[o] = on === true || on === "on";
      }
    }
  }

  // A value the engine accepted, its names as the rulebook spells them (any case, an `aka` name
  // as its item's own), as the page keeps it.
  function kept(fact, value) {
    const names = has(NAMED, fact.name) ? NAMED[fact.name] : null;
    if (fact.type === "list") return value.map((x) => (names ? canonical(x, names()) : x));
    if (fact.type === "map") {
      const m = dict();
      for (const n of Object.keys(value)) {
        const name = names ? canonical(n, names()) : n;
        m[name] = (has(m, name) ? m[name] : 0) + value[n];
      }
      return m;
    }
    if (fact.type === "str" && names) return canonical(value, names());
    return value;
  }

  // ---- the engine, asked safely ---------------------------------------------------------------

  function ask(fn) {
    try {
      const answer = fn();
      if (answer && answer.error) return {error: answer.error.message || String(answer.error)};
      return answer;
    } catch (e) {
      return {error: (e && e.message) || String(e)};
    }
  }

  // ---- effects in words (the vocabulary's templates; phrases.effect_text's twin) -------------

  function effectText(effect) {
    const kind = has(PAGE.effects, effect.kind) ? PAGE.effects[effect.kind] : null;
    if (!kind) return String(effect.kind).replace(/_/g, " ");
    const shown = effect.taken !== undefined && effect.taken !== null ? effect.taken : effect.amount;
    const values = dict();
    for (const [name, dflt] of Object.entries(kind.params)) {
      const v = name === "amount" ? shown : effect[name];
      values[name] = v === undefined || v === null ? dflt : v;
    }
    if (kind.params.amount !== undefined && (shown === null || shown === undefined)) values.amount = "?";
    if (kind.main === "amount" && String(values.amount) === "0") return "";
    let template = kind.text;
    for (const [param, variant] of Object.entries(kind.zero || {})) {
      if (String(values[param]) === "0") template = variant;
    }
    const one = String(values.amount) === "1";
    for (const [w, pair] of Object.entries(PAGE.plurals)) values[w] = one ? pair[0] : pair[1];
    const area = values.area === undefined || values.area === null ? "any" : String(values.area);
    values.area_text = has(PAGE.areas, area) ? PAGE.areas[area] : " (" + area + ")";
    values.area = area.replace(/_/g, " ");
    let text = template.replace(/\{(\w+)\}/g, (m, k) => (has(values, k) ? String(values[k]) : m));
    if (effect.taken !== undefined && effect.taken !== null && effect.amount !== null && effect.taken !== effect.amount) {
      text += " (the rule demands " + effect.amount + ")";
    }
    return text;
  }

  function effectsText(effects) {
    return (effects || []).map(effectText).filter((t) => t).join("; ");
  }

  function changedBy(answer) {
    const out = [];
    // a bound or a floor is no advance: its `by` names the holding, said by the trace in words
    for (const t of answer.trace || []) {
      if (t.op === "bound" || t.op === "floor") continue;
      for (const b of t.by || []) if (!out.includes(b)) out.push(b);
    }
    return out;
  }

  function traceText(t) {
    if (t.op === "floor") return "never below zero: " + (t.param ? t.param.replace(/_/g, " ") : "") + " " + t.before + " \u2192 0";
    if (t.op === "bound") return "at most what you have (" + factLabel((t.by || [])[0] || "") + "): " + t.before + " \u2192 " + t.after;
    const sign = t.op === "add" ? "+" : t.op === "prevent" ? "\u2212" : t.op === "set" ? "=" : t.op === "cap" ? "\u2264" : t.op + " ";
    const who = (t.by || []).join(", ") || "the rule";
    const param = t.param ? t.param.replace(/_/g, " ") : "";
    const kind = t.kind ? t.kind.replace(/_/g, " ") : "";
    const before = t.before === null || t.before === undefined ? "?" : t.before;
    const after = t.after === null || t.after === undefined ? "?" : t.after;
    return sign + (t.value === null || t.value === undefined ? "?" : t.value) + " " + who + ": " +
      (kind ? kind + " " : "") + param + " " + before + " \u2192 " + after + (t.line ? " (line " + t.line + ")" : "");
  }

  // ---- discovering which facts this rulebook reads -------------------------------------------

  // Asked once with an empty state: every fact an answer names as missing is one the page asks
  // for; then again with those given, for facts read only in a branch they decide.
  function factsRead() {
    const found = [];
    let probe = {};
    const add = (list) => {
      for (const f of list || []) if (has(FACTS, f) && !found.includes(f)) found.push(f);
    };
    for (let pass = 0; pass < 3; pass++) {
      const before = found.length;
      for (const c of Object.keys(CALAMITIES)) {
        for (const role of ["primary", "secondary"]) {
          const a = ask(() => api.resolve(probe, c, role, {}));
          if (a && !a.error) add(a.missing_facts);
        }
      }
      const e = ask(() => api.epoch(probe, {}));
      if (e && !e.error) for (const t of e.tracks || []) add(t.missing_facts);
      const s = ask(() => api.score(probe, {}));
      if (s && !s.error) add(s.missing_facts);
      if (found.length === before) break;
      probe = dict();
      for (const f of found) probe[f] = probeValue(FACTS[f]);
    }
    return found;
  }

  function probeValue(fact) {
    if (fact.type === "int") return Math.max(1, fact.minimum || 0);
    if (fact.type === "bool") return false;
    if (fact.type === "list") return [];
    if (fact.type === "map") return {};
    if (fact.name === "civilization") return Object.keys(CIVS)[0] || "";
    if (fact.name === "ast_track") return Object.keys(TRACKS)[0] || "";
    return "";
  }

  const READ = factsRead();

  // ---- inputs ------------------------------------------------------------------------------------

  function stepper(name, label, value, onChange, help) {
    const id = "in-" + name.replace(/[^A-Za-z0-9_-]/g, "_");
    const fact = has(FACTS, name) ? FACTS[name] : null;
    const min = fact && fact.minimum !== null && fact.minimum !== undefined ? fact.minimum : 0;
    const input = el("input", {id: id, type: "number", inputmode: "numeric", min: min, step: 1, cls: "num",
      value: Number.isInteger(value) ? String(value) : "", placeholder: "?",
      "aria-describedby": help ? id + "-help" : null});
    const set = (v) => {
      input.value = v === null ? "" : String(v);
      onChange(v);
    };
    input.addEventListener("change", () => {
      const raw = input.value.trim();
      if (raw === "") return set(null);
      const n = Math.floor(Number(raw));
      set(Number.isFinite(n) ? Math.max(min, n) : null);
    });
    const current = () => (input.value.trim() === "" ? null : Math.max(min, Math.floor(Number(input.value))));
    const less = el("button", {type: "button", cls: "step", "aria-label": "fewer " + label, text: "\u2212",
      on: {click: () => { const c = current(); set(c === null ? min : Math.max(min, c - 1)); }}});
    const more = el("button", {type: "button", cls: "step", "aria-label": "more " + label, text: "+",
      on: {click: () => { const c = current(); set(c === null ? Math.max(min, 1) : c + 1); }}});
    return el("div", {cls: "stepper"},
      el("label", {for: id, text: label}),
      el("span", {cls: "controls"}, less, input, more),
      help ? el("span", {id: id + "-help", cls: "help", text: help}) : null);
  }

  function select(id, label, choices, value, onChange) {
    const s = el("select", {id: id, on: {change: () => onChange(s.value)}});
    for (const [v, text] of choices) s.appendChild(el("option", {value: v, text: text, selected: v === value}));
    return el("div", {cls: "field"}, el("label", {for: id, text: label}), s);
  }

  function factInput(name) {
    const f = FACTS[name];
    const s = player().state;
    if (f.type === "int") return stepper(name, factLabel(name), s[name], (v) => setFact(name, v), f.doc);
    if (f.type === "bool") {
      const states = f.states || ["yes", "no"];
      const cur = s[name] === true ? "yes" : s[name] === false ? "no" : "";
      return select("in-" + name, f.doc, [["", "not given"], ["yes", states[0]], ["no", states[1]]], cur,
        (v) => setFact(name, v === "" ? null : v === "yes"));
    }
    if (f.type === "str" && f.states) {
      // a text fact that matters only as given or empty (who traded the card: a name, or none)
      const cur = s[name] === undefined ? "unset" : s[name] === "" ? "empty" : "given";
      return select("in-" + name, f.doc, [["unset", "not given"], ["given", f.states[0]], ["empty", f.states[1]]], cur,
        (v) => { if (v === "unset") { delete s[name]; changed(); } else setFact(name, v === "empty" ? "" : "another player"); });
    }
    const id = "in-" + name;
    const input = el("input", {id: id, type: "text", value: s[name] || "", autocomplete: "off",
      on: {change: () => setFact(name, input.value.trim() === "" ? null : input.value.trim())}});
    return el("div", {cls: "field"}, el("label", {for: id, text: f.doc}), input);
  }

  function section(id, title, ...children) {
    const h = newId("h");
    return el("section", {id: id, "aria-labelledby": h}, el("h2", {id: h, text: title}), ...children);
  }

  function gameSection() {
    const s = player().state;
    const parts = [];
    const civs = Object.keys(CIVS);
    if (civs.length) {
      parts.push(select("in-civilization", "Your civilization", [["", "not chosen"]].concat(civs.map((c) => [c, c])),
        s.civilization || "", (v) => setFact("civilization", v || null)));
    }
    const tracks = Object.keys(TRACKS);
    if (tracks.length > 1) {
      parts.push(select("in-ast_track", "A.S.T. track in play", [["", "not chosen"]].concat(
        tracks.map((t) => [t, (TRACKS[t] && TRACKS[t].name) || t])), s.ast_track || "", (v) => setFact("ast_track", v || null)));
    }
    if (SCENARIOS.length) {
      parts.push(select("in-scenario", "Scenario", [["", "the full game"]].concat(SCENARIOS.map((x) => [x, x])),
        s.scenario || "", (v) => setFact("scenario", v || null)));
    }
    const bl = blocks();
    if (bl.length && (READ.includes("block") || civs.length)) {
      parts.push(select("in-block", "Trade block", [["", civs.length ? "from your civilization" : "not given"]].concat(
        bl.map((b) => [b, b])), s.block || "", (v) => setFact("block", v || null)));
    }
    parts.push(stepper("players", "players in the game", s.players, (v) => setFact("players", v)));
    if (tracks.length) {
      parts.push(stepper("ast_position", "your space on the A.S.T.", s.ast_position, (v) => setFact("ast_position", v),
        "0 is the start arrow"));
    }
    const names = Object.keys(OPTIONS);
    if (names.length) {
      const box = el("fieldset", {cls: "options"}, el("legend", {text: "Rule options"}));
      for (const name of names) {
        const id = "opt-" + name.replace(/[^A-Za-z0-9_-]/g, "_");
        const cb = el("input", {type: "checkbox", id: id, checked: optionOn(s, name), on: {change: () => {
          s.options = copyOf(s.options);
          if (cb.checked === !!OPTIONS[name]) delete s.options[name];
          else s.options[name] = cb.checked;
          changed();
        }}});
        box.appendChild(el("div", {cls: "check"}, cb, el("label", {for: id, text: optionText(M, name)})));
      }
      parts.push(box);
    }
    return section("game", "Game", el("div", {cls: "fields"}, parts));
  }

  function boardSection() {
    const shown = [];
    for (const f of PAGE.facts) {
      if (f.name === "players" || f.name === "ast_position" || f.name === "civilization" || f.name === "ast_track" ||
          f.name === "scenario" || f.name === "block") continue;
      if (f.type === "list" || f.type === "map") continue;
      if (BASE_FACTS.includes(f.name) || READ.includes(f.name)) shown.push(f.name);
    }
    return section("board", "Board and situation", el("div", {cls: "fields"}, shown.map(factInput)),
      el("p", {cls: "muted", text: "A blank number is not given: answers that need it say so."}));
  }

  function handSection() {
    const s = player().state;
    const names = Object.keys(COMMODITIES);
    const parts = [];
    if (names.length) {
      const hand = has(s, "commodities") ? s.commodities : dict();
      const box = el("div", {cls: "fields hand"});
      for (const name of names) {
        const c = COMMODITIES[name] || {};
        box.appendChild(stepper("commodities." + name, name + (c.value !== undefined ? " (" + c.value + ")" : ""), has(hand, name) ? hand[name] : 0,
          (v) => {
            const m = copyOf(s.commodities);
            if (v) m[name] = v; else delete m[name];
            s.commodities = m;
            changed();
          }));
      }
      parts.push(box);
    }
    const groups = Object.keys(GROUPS);
    if (groups.length) {
      const credits = has(s, "credits") ? s.credits : dict();
      const box = el("details", {cls: "credits"}, el("summary", {text: "Credit points of your choice, by group"}));
      const inner = el("div", {cls: "fields"});
      for (const g of groups) {
        inner.appendChild(stepper("credits." + g, ((GROUPS[g] && GROUPS[g].name) || g) + " credit points", has(credits, g) ? credits[g] : 0, (v) => {
          const m = copyOf(s.credits);
          if (v) m[g] = v; else delete m[g];
          s.credits = m;
          changed();
        }));
      }
      box.appendChild(inner);
      parts.push(box);
    }
    return parts.length ? section("hand", "Commodity cards", ...parts) : null;
  }

  // Where the rulebook limits an advance's cards: how many the other players hold, so that the
  // prices and the plan know which are sold out (the `others_hold` fact; none given: not checked).
  function othersHoldBox() {
    const s = player().state;
    const limited = ADVANCE_NAMES.filter((a) => ADVANCES[a].supply !== null && ADVANCES[a].supply !== undefined);
    if (!limited.length) return null;
    const taken = has(s, "others_hold") ? s.others_hold : dict();
    const inner = el("div", {cls: "fields"});
    for (const a of limited) {
      inner.appendChild(stepper("others_hold." + a, a + " (" + ADVANCES[a].supply + " in the box)", has(taken, a) ? taken[a] : 0,
        (v) => {
          const m = copyOf(s.others_hold);
          if (v) m[a] = v; else delete m[a];
          if (Object.keys(m).length) s.others_hold = m; else delete s.others_hold;
          changed();
        }));
    }
    return el("details", {id: "others-hold", cls: "credits"},
      el("summary", {text: "Cards the other players hold"}), inner);
  }

  // ---- advances: held ticks, prices after credits, the basket ---------------------------------

  const rows = new Map();  // advance -> {row, held checkbox, price cell, buy button}

  function advancesSection() {
    const s = player().state;
    const held = new Set(s.holds || []);
    const search = el("input", {type: "search", id: "adv-search", placeholder: "name", autocomplete: "off",
      on: {input: () => filterAdvances(search.value)}});
    const lists = el("div", {cls: "groups"});
    const order = Object.keys(GROUPS);
    const buckets = new Map(order.map((g) => [g, []]));
    buckets.set("", []);
    for (const a of ADVANCE_NAMES) {
      const g = (ADVANCES[a].groups || [])[0];
      buckets.get(g !== undefined && buckets.has(g) ? g : "").push(a);
    }
    for (const [g, names] of buckets) {
      if (!names.length) continue;
      const info = GROUPS[g] || {};
      const legendId = newId("g");
      const box = el("fieldset", {cls: "group"}, el("legend", {id: legendId},
        el("span", {cls: "swatch", "aria-hidden": "true"}), g ? (info.name || g) : "Other advances"));
      if (info.color) box.style.setProperty("--group", info.color);
      for (const a of names) box.appendChild(advanceRow(a, held.has(a)));
      lists.appendChild(box);
    }
    return section("advances", "Advances",
      el("div", {cls: "field search"}, el("label", {for: "adv-search", text: "Find an advance"}), search),
      el("p", {cls: "muted", text: "Tick the advances you hold" + (CAN_COST ? "; the price is what each costs you now, "
        + "after credits. Add advances to the basket to price a purchase." : ".")}),
      lists, othersHoldBox());
  }

  function advanceRow(a, isHeld) {
    const adv = ADVANCES[a];
    const id = "adv-" + ADVANCE_NAMES.indexOf(a);
    const cb = el("input", {type: "checkbox", id: id, checked: isHeld, on: {change: () => toggleHeld(a, cb.checked)}});
    const facts = [];
    if (adv.cost !== undefined && adv.cost !== null) facts.push(String(adv.cost));
    const chips = el("span", {cls: "chips", "aria-hidden": "true"});
    for (const g of adv.groups || []) {
      const chip = el("span", {cls: "chip", title: (GROUPS[g] && GROUPS[g].name) || g});
      if (GROUPS[g] && GROUPS[g].color) chip.style.setProperty("--group", GROUPS[g].color);
      chips.appendChild(chip);
    }
    const price = el("span", {cls: "price", id: id + "-price"});
    const vp = el("span", {cls: "muted vp"});  // under the rule options in play (renderPrices)
    const buy = el("button", {type: "button", cls: "buy", "aria-pressed": "false", "aria-label": "buy " + a,
      "aria-describedby": id + "-price", text: "buy", on: {click: () => toggleBasket(a)}});
    const row = el("div", {cls: "adv", "data-name": a},
      cb, el("label", {for: id}, chips, el("span", {cls: "name", text: a}), el("span", {cls: "muted", text: " " + facts.join(" \u00b7 ")}),
        vp), price, buy);
    rows.set(a, {row: row, cb: cb, price: price, buy: buy, vp: vp});
    return row;
  }

  function filterAdvances(text) {
    const q = text.normalize("NFC").trim().toLowerCase();
    const aliases = new Map();  // advance -> its `aka` names, lower case
    for (const alias of Object.keys(ALIASES)) {
      const name = ALIASES[alias];
      if (!aliases.has(name)) aliases.set(name, []);
      aliases.get(name).push(alias.toLowerCase());
    }
    let shown = 0;
    for (const [a, r] of rows) {
      const hit = !q || a.toLowerCase().includes(q) || (aliases.get(a) || []).some((x) => x.includes(q));
      r.row.hidden = !hit;
      if (hit) shown += 1;
    }
    for (const box of document.querySelectorAll("#advances fieldset.group")) {
      box.hidden = !Array.from(box.querySelectorAll(".adv")).some((r) => !r.hidden);
    }
    const status = byId("adv-count");
    if (status) status.textContent = q ? shown + " of " + ADVANCE_NAMES.length + " advances" : "";
  }

  function toggleHeld(a, on) {
    const s = player().state;
    const holds = (s.holds || []).filter((x) => x !== a);
    if (on) holds.push(a);
    // in the rulebook's order, as a state file written by the command line lists them
    s.holds = ADVANCE_NAMES.filter((x) => holds.includes(x));
    player().basket = player().basket.filter((x) => x !== a);
    changed();
  }

  function toggleBasket(a) {
    const p = player();
    if (p.basket.includes(a)) p.basket = p.basket.filter((x) => x !== a);
    else p.basket = ADVANCE_NAMES.filter((x) => x === a || p.basket.includes(x));
    changed();
  }

  // An advance's victory points under the state's rule options (runtime.PlayerState.advance_vp):
  // the first `vp tiers when OPTION` reading switched on that gives another figure.
  function advanceVp(a, st) {
    for (const [option, vp] of ADVANCES[a].vp_when || []) if (optionOn(st, option)) return vp;
    return ADVANCES[a].vp;
  }

  // whether a rule option is on in state S: as the state switches it, else the rulebook's default
  function optionOn(s, name) {
    const given = has(s, "options") && s.options && has(s.options, name) && typeof s.options[name] === "boolean"
      ? s.options[name] : null;
    return given === null ? !!OPTIONS[name] : given;
  }

  function renderPrices(st) {
    const held = new Set(st.holds || []);
    const basket = new Set(player().basket);
    for (const a of ADVANCE_NAMES) {
      const r = rows.get(a);
      if (!r) continue;
      r.cb.checked = held.has(a);
      if (HAS_VP) r.vp.textContent = (ADVANCES[a].cost !== undefined && ADVANCES[a].cost !== null ? " \u00b7 " : " ") +
        advanceVp(a, st) + " VP";
      r.buy.hidden = held.has(a);
      r.buy.setAttribute("aria-pressed", basket.has(a) ? "true" : "false");
      r.buy.textContent = basket.has(a) ? "in basket" : "buy";
      r.row.classList.toggle("held", held.has(a));
      if (!CAN_COST) {
        r.buy.hidden = true;
        r.price.textContent = held.has(a) ? "held" : "";
        continue;
      }
      if (held.has(a)) {
        r.price.textContent = "held";
        r.price.title = "";
        continue;
      }
      const ans = ask(() => api.cost(st, {buy: [a]}));
      if (ans.error) {
        r.price.textContent = "?";
        r.price.title = ans.error;
        continue;
      }
      const item = (ans.items || [])[0];
      const price = item && item.price !== null && item.price !== undefined ? item.price : null;
      r.price.textContent = price === null ? "?" : String(price);
      const why = (item && item.credits || []).map((c) => "\u2212" + c.amount + " " + c.from);
      const bad = (ans.illegal || []).map(illegalText);
      r.price.title = why.concat(bad).join("; ");
      r.row.classList.toggle("illegal", bad.length > 0);
    }
  }

  // An illegal purchase as the command line says it: the advance, where it names one, and why.
  function illegalText(x) {
    return (x.advance ? x.advance + ": " : "") + x.why;
  }

  // ---- results ---------------------------------------------------------------------------------

  function answerProblem(ans) {
    if (ans.error) return el("p", {cls: "problem", text: ans.error});
    const missing = ans.missing_facts || [];
    if (missing.length) {
      return el("p", {cls: "incomplete", text: "incomplete: give " + listText(missing.map(factLabel))});
    }
    return null;
  }

  function renderBasket(st) {
    const out = clear(byId("basket-body"));
    const basket = player().basket.filter((a) => !(st.holds || []).includes(a));
    if (!basket.length) {
      out.appendChild(el("p", {cls: "muted", text: "The basket is empty: press \u201cbuy\u201d beside an advance."}));
      return null;
    }
    const ans = ask(() => api.cost(st, {buy: basket}));
    if (ans.error) {
      out.appendChild(answerProblem(ans));
      return null;
    }
    const list = el("ul", {cls: "items"});
    for (const item of ans.items || []) {
      const credits = (item.credits || []).map((c) => "\u2212" + c.amount + " " + c.from);
      list.appendChild(el("li", {}, el("span", {cls: "name", text: item.advance}), " ",
        el("span", {cls: "num", text: item.price === null ? "?" : String(item.price)}),
        credits.length ? el("span", {cls: "muted", text: " (" + item.printed + " " + credits.join(", ") + ")"}) : null));
    }
    out.appendChild(list);
    out.appendChild(el("p", {cls: "total"}, "Total: ", el("strong", {id: "basket-total", text: ans.total === null ? "?" : String(ans.total)})));
    if (ans.complete === false) {
      // the single-use placement stopped at a declared limit (civdsl cost prints the same line)
      out.appendChild(el("p", {id: "cost-capped", cls: "incomplete", text: "The best placement of the credits found, "
        + "maybe not the least (the placement search stopped at its limit of "
        + ans.stopped.bound.toLocaleString("en-US") + " " + ans.stopped.limit + "): no placement pays less than "
        + ans.total_at_least + "."}));
    }
    for (const x of ans.illegal || []) {
      out.appendChild(el("p", {cls: "problem", text: "not allowed: " + illegalText(x)}));
    }
    for (const n of ans.notes || []) out.appendChild(el("p", {cls: "muted", text: typeof n === "string" ? n : JSON.stringify(n)}));
    if (CAN_PLAN) {
      // the payment is asked for on the click only: under a strict credit policy a large basket's
      // plan takes as long as its price, and every tick would pay for it twice
      out.appendChild(el("button", {type: "button", id: "bought", text: "I bought these: mark them held and pay",
        on: {click: () => bought(basketPlan(st, basket))}}));
      out.appendChild(el("p", {id: "bought-status", cls: "problem", role: "status"}));
    }
    return ans.total;
  }

  // The planner's answer for exactly the basket (`plan` with the basket as `want` and `among`):
  // its payment, the one "I bought these" applies; or why it cannot be paid.
  function basketPlan(st, basket) {
    const ans = ask(() => api.plan(st, {want: basket, among: basket, objective: "cards", top: 1}));
    const best = ans.error ? null : (ans.plans || []).find((p) => p.buy.length === basket.length && basket.every((a) => p.buy.includes(a)));
    return {best: best || null, why: ans.error || "these cannot be paid with the cards and treasury given"};
  }

  // The best plan's payment: "Hand in 3 x Grain and 11 treasury." and what is kept.
  function paymentNodes(out, pay) {
    const cards = Object.entries(pay.cards || {}).map(([c, n]) => n + " \u00d7 " + c);
    const parts = [];
    if (cards.length) parts.push(listText(cards));
    if (pay.treasury) parts.push(pay.treasury + " treasury");
    out.appendChild(el("p", {id: "plan-pay", text: "Hand in " + (parts.length ? listText(parts) : "nothing") +
      (pay.overpayment ? " (overpaying " + pay.overpayment + ")" : "") + "."}));
    const kept = Object.entries(pay.kept || {}).map(([c, n]) => n + " \u00d7 " + c);
    if (kept.length || pay.treasury_left) {
      out.appendChild(el("p", {cls: "muted", text: "Kept: " + (kept.length ? listText(kept) : "no cards") +
        (pay.treasury_left !== undefined ? ", " + pay.treasury_left + " treasury" : "") + "."}));
    }
  }

  // What `civdsl plan --save` writes after a purchase (cli/plan.py state_after): the advances
  // held, the cards kept and the treasury left, every other fact as it was. The payment is the
  // planner's for exactly this basket, so the cards and treasury handed in are the ones the
  // next plan no longer counts.
  function bought(paid) {
    const best = paid.best;
    if (!best) {
      byId("bought-status").textContent = "Not marked: " + paid.why + ". Give your cards and treasury, or tick the advances you hold.";
      return;
    }
    const s = player().state;
    const holds = new Set((s.holds || []).concat(best.buy));
    s.holds = ADVANCE_NAMES.filter((x) => holds.has(x));
    const pay = best.payment;
    if (pay) {
      const kept = dict();
      for (const c of Object.keys(pay.kept || {})) if (pay.kept[c]) kept[c] = pay.kept[c];
      s.commodities = kept;
      if (pay.treasury_left !== undefined && pay.treasury_left !== null) s.treasury = pay.treasury_left;
    }
    player().basket = [];
    changed();
  }

  let planTimer = null;
  let planSerial = 0;
  let lastPlanMs = 0;

  // The planner is exact, and on some rulebooks and hands (a strict credit policy, many cards)
  // it takes seconds: while it answers within the budget it runs after every change, once the
  // other answers are on screen; after a slower answer it waits for the player to ask.
  function schedulePlan(st) {
    const out = byId("plan-body");
    if (!out) return;
    planSerial += 1;
    const serial = planSerial;
    if (planTimer !== null) clearTimeout(planTimer);
    planTimer = null;
    if (lastPlanMs > globalThis.civdslPage.planBudgetMs) {
      out.removeAttribute("aria-busy");
      for (const old of out.querySelectorAll(".plan-answer")) old.classList.add("stale");
      const askBox = byId("plan-ask") || out.insertBefore(el("div", {id: "plan-ask"}), out.firstChild);
      clear(askBox).appendChild(el("p", {cls: "muted", text: "The last search took " + (lastPlanMs / 1000).toFixed(1) +
        " s, so it runs when you ask" + (out.querySelector(".plan-answer") ? "; the plan below is for your state before the last change." : ".")}));
      askBox.appendChild(el("button", {type: "button", id: "plan-run", text: "Find the best purchase", on: {click: () => {
        const button = byId("plan-run");
        button.disabled = true;
        button.textContent = "Searching\u2026";
        out.setAttribute("aria-busy", "true");
        // let the browser paint "Searching" before the search holds the page
        setTimeout(() => renderPlan(stateFile()), 30);
      }}}));
      return;
    }
    out.setAttribute("aria-busy", "true");
    planTimer = setTimeout(() => {
      planTimer = null;
      if (serial === planSerial) renderPlan(st);
    }, 0);
  }

  function renderPlan(st) {
    const out = clear(byId("plan-body"));
    const objective = player().objective || (HAS_VP ? "vp" : "points");
    const started = performance.now();
    const ans = ask(() => api.plan(st, {objective: objective, top: 1}));
    lastPlanMs = performance.now() - started;
    out.removeAttribute("aria-busy");
    const box = el("div", {cls: "plan-answer"});
    out.appendChild(box);
    renderPlanAnswer(box, ans, objective);
  }

  function renderPlanAnswer(out, ans, objective) {
    if (ans.error) {
      out.appendChild(answerProblem(ans));
      return;
    }
    const budget = ans.budget;
    if (budget && budget.total !== null && budget.total !== undefined) {
      const hand = budget.hand && budget.hand.total !== null && budget.hand.total !== undefined ? budget.hand.total : "?";
      out.appendChild(el("p", {id: "plan-budget", cls: "muted", text: "To spend: cards worth " + hand + " and " +
        budget.treasury + " treasury, " + budget.total + " in all."}));
    }
    const best = (ans.plans || [])[0];
    if (!best) {
      out.appendChild(el("p", {cls: "muted", text: "Nothing can be bought with this hand and treasury."}));
      for (const n of ans.notes || []) out.appendChild(el("p", {cls: "muted", text: typeof n === "string" ? n : JSON.stringify(n)}));
      return;
    }
    const label = (ans.objective && ans.objective.label) || objective;
    out.appendChild(el("p", {}, "Buy ", el("strong", {id: "plan-buy", text: best.buy.length ? listText(best.buy) : "nothing"}),
      " for " + best.total + " (" + label + " " + best.objective + ")."));
    if (ans.stopped) {
      // the search stopped at its work limit (planner.render prints the same line)
      out.appendChild(el("p", {id: "plan-stopped", cls: "incomplete", text: "The search stopped after " +
        ans.sets_examined.toLocaleString("en-US") + " sets of advances: the best plan found so far (no plan gives more than " +
        ans.total_at_most + " " + label + ")."}));
    }
    if (ans.prices_capped) {
      // some prices are a capped placement's (planner.render prints the same line)
      out.appendChild(el("p", {id: "plan-capped", cls: "incomplete", text: ans.prices_capped.toLocaleString("en-US") +
        " sets of advances priced by the best placement of the credits found, maybe not the least (the placement " +
        "search stopped at its limit): the best plan found (no plan gives more than " + ans.total_at_most + " " +
        label + ")."}));
    }
    if (ans.payment_stopped && ans.payment_stopped.length) {
      // the payment table stopped at its work limit (planner._payment_stopped_lines)
      out.appendChild(el("p", {id: "plan-payment-stopped", cls: "incomplete", text: ans.payment_stopped.join(" and ") +
        " stopped at a work limit of the payment table: the best plan found (no plan gives more than " +
        ans.total_at_most + " " + label + "); the payment hands over the least, but may keep less than the best one."}));
    }
    if (best.payment) paymentNodes(out, best.payment);
    if (best.buy.length) {
      out.appendChild(el("button", {type: "button", text: "Put this plan in the basket", on: {click: () => {
        player().basket = best.buy.slice();
        changed();
      }}}));
    }
  }

  // ---- epochs: the command line's words (cli/questions.py's epoch answer) ---------------------

  // what a counted requirement asks for ("at least 2 needed")
  function needed(r) {
    const text = String(r.needs || "");
    const cut = text.indexOf(" ");
    const op = cut < 0 ? text : text.slice(0, cut);
    return has(PAGE.needed, op) ? PAGE.needed[op].replace("{}", text.slice(cut + 1)) + " needed" : text;
  }

  function known(value) {
    return value === null || value === undefined ? "?" : String(value);
  }

  function yesNo(value) {
    return value === null || value === undefined ? "?" : value ? "yes" : "no";
  }

  // One part of an "or": the player's count in the fact's own noun and what is needed
  // ("5 cities (at least 2 needed)", "Wonder of the World: no").
  function countText(r) {
    if (r.needs === "true") return r.requirement + ": " + yesNo(r.value);
    const nouns = has(FACTS, r.requirement) && FACTS[r.requirement].words ? FACTS[r.requirement].words
      : has(PAGE.derived_words, r.requirement) ? PAGE.derived_words[r.requirement] : null;
    if (nouns && r.value !== null && r.value !== undefined) return r.value + " " + words(r.value, nouns) + " (" + needed(r) + ")";
    return r.requirement + ": " + known(r.value) + " (" + needed(r) + ")";
  }

  // a fact counted with what held advances add (cli/questions.py counted_text)
  function countedText(c) {
    const nouns = has(FACTS, c.fact) && FACTS[c.fact].words ? FACTS[c.fact].words : [c.fact, c.fact];
    const adds = c.adds.map((a) => " + " + a.delta + " for " + a.advance).join("");
    return "Counted for the A.S.T.: " + known(c.value) + " " + words(c.value, nouns) + " (" + known(c.given) + " given" +
      adds + ").";
  }

  function requirementNodes(req) {
    const mark = req.met === true ? "ok" : req.met === false ? "missing" : "?";
    const li = el("li", {cls: "req " + (req.met === true ? "met" : req.met === false ? "unmet" : "unknown")},
      el("span", {cls: "mark", text: mark}), " ");
    if (req.alternatives && req.alternatives.length) {
      li.appendChild(document.createTextNode(req.requirement + ": either"));
      const alts = el("ul", {cls: "alts"});
      req.alternatives.forEach((alt, i) => {
        const met = alt.every((r) => r.met === true) ? "met" : alt.some((r) => r.met === false) ? "unmet" : "unknown";
        alts.appendChild(el("li", {cls: "alt " + met, text: (i ? "or " : "") + alt.map(countText).join(" and ")}));
      });
      li.appendChild(alts);
    } else if (req.needs === "true") {
      li.appendChild(document.createTextNode(req.requirement + ": " + yesNo(req.value)));
    } else {
      li.appendChild(document.createTextNode(req.requirement + ": " + known(req.value) + " (" + needed(req) + ")"));
    }
    return li;
  }

  function renderEpoch(st) {
    const out = clear(byId("epoch-body"));
    const tracks = Object.keys(TRACKS);
    const track = has(st, "ast_track") && has(TRACKS, st.ast_track) ? st.ast_track : tracks[0];
    const ans = ask(() => api.epoch(st, {ast: track}));
    if (ans.error) {
      out.appendChild(answerProblem(ans));
      return null;
    }
    const t = (ans.tracks || [])[0];
    if (!t) return null;
    const m = t.marker;
    const summary = m && m.epoch !== null && m.epoch !== undefined ? markerAnswer(out, t, m, track) : epochsReached(out, t, m, track);
    for (const c of t.counted || []) out.appendChild(el("p", {cls: "counted", text: countedText(c)}));
    const problem = answerProblem(t);
    if (problem) out.appendChild(problem);
    return summary;
  }

  // Where the marker's epoch is not known (no civilization's row, no space given): the engine's
  // reason, then the epochs the player's advances and cities reach, each with its requirements.
  function epochsReached(out, t, m, track) {
    const name = t.name || track;
    if (m && m.unknown && m.space !== null && m.space !== undefined) {
      out.appendChild(el("p", {id: "epoch-unknown", cls: "incomplete", text: "The epoch of your marker is not known: " + m.unknown + "."}));
    } else {  // no space given: the page's own controls say what to give
      const civ = Object.keys(CIVS).length && !has(player().state, "civilization") ? " and choose your civilization" : "";
      out.appendChild(el("p", {cls: "incomplete", text: "Set your space on the A.S.T." + civ + " to see your next step."}));
    }
    out.appendChild(el("p", {cls: "where", text: name + ": " + (t.reached ? "your advances and cities reach the " + t.reached : "no epoch reached yet") + "."}));
    const list = el("ul", {cls: "reqs epochs"});
    for (const e of t.epochs || []) {
      const item = el("li", {cls: "req " + (e.met === true ? "met" : e.met === false ? "unmet" : "unknown")},
        el("span", {cls: "mark", text: e.met === true ? "reached" : e.met === false ? "not yet" : "?"}), " " + e.epoch);
      if ((e.requirements || []).length) {
        const reqs = el("ul", {cls: "reqs"});
        for (const r of e.requirements) reqs.appendChild(requirementNodes(r));
        item.appendChild(reqs);
      }
      list.appendChild(item);
    }
    out.appendChild(list);
    if (t.moves_backward === true) out.appendChild(el("p", {cls: "verdict", text: "The marker moves back a step."}));
    else if (t.moves_backward === null) out.appendChild(el("p", {cls: "verdict incomplete", text: "Whether the marker moves back is not known."}));
    if (m && m.space !== null && m.space !== undefined) return "space " + m.space + ", epoch not known";
    return t.reached ? "reached " + t.reached : null;
  }

  // The player's own row: the space and its epoch, what the next space needs, where the marker goes.
  function markerAnswer(out, t, m, track) {
    out.appendChild(el("p", {cls: "where", text: (t.name || track) + (m.civilization ? " (" + m.civilization + ")" : "") +
      ": your marker is on space " + m.space + " (" + m.epoch + ")" + (m.next_space === null || m.next_space === undefined ? ": the finish." : ".")}));
    if (m.next_space !== null && m.next_space !== undefined) {
      out.appendChild(el("p", {id: "epoch-next", text: "To move to space " + m.next_space + " (" + m.next_epoch + ") you need:"}));
      const list = el("ul", {cls: "reqs"});
      for (const r of m.needs || []) list.appendChild(requirementNodes(r));
      if (!(m.needs || []).length) list.appendChild(el("li", {text: "nothing"}));
      out.appendChild(list);
      const lacking = (m.needs || []).filter((r) => r.met === false).map((r) => r.requirement);
      out.appendChild(el("p", {cls: "verdict" + (m.meets === null || m.meets === undefined ? " incomplete" : ""),
        text: m.meets === true ? "You meet it." : m.meets === false ? "You lack " + listText(lacking) + "."
          : "Whether you meet it depends on facts not given."}));
    }
    const move = m.move === "forward" ? "The marker moves to space " + m.next_space + "."
      : m.move === "stays" ? "The marker stays on space " + m.space + "."
        : m.move === "back" ? "The marker moves back to space " + m.back_to + " (" + (m.back_rules || []).map((r) => r.requirement).join("; ") + ")."
          : null;
    if (move) out.appendChild(el("p", {id: "epoch-move", cls: "verdict", text: move}));
    if (m.backward_exempt && (t.backward_rules || []).some((b) => b.met)) {
      out.appendChild(el("p", {cls: "muted", text: "No step back in the " + m.epoch + "."}));
    }
    if (m.next_space === null || m.next_space === undefined) return "space " + m.space + ", the finish";
    return m.move === "forward" ? "moves to " + m.next_space : m.move === "back" ? "moves back to " + m.back_to
      : m.move === "stays" ? "stays on " + m.space : "space " + m.space + ", next step not decided";
  }

  function renderScore(st) {
    const out = clear(byId("score-body"));
    const ans = ask(() => api.score(st, {}));
    if (ans.error) {
      out.appendChild(answerProblem(ans));
      return null;
    }
    const table = el("table", {cls: "score"}, el("caption", {cls: "sr", text: "Score by line"}));
    const body = el("tbody");
    for (const p of ans.points || []) {
      body.appendChild(el("tr", {}, el("th", {scope: "row", text: p.label}), el("td", {cls: "num", text: p.points === null ? "?" : String(p.points)})));
    }
    body.appendChild(el("tr", {cls: "total"}, el("th", {scope: "row", text: "Total"}),
      el("td", {cls: "num", id: "score-total", text: ans.total === null || ans.total === undefined ? "?" : String(ans.total)})));
    table.appendChild(body);
    out.appendChild(table);
    if ((ans.tiebreaks || []).length) {
      const d = el("details", {}, el("summary", {text: "Tie-breakers"}));
      const ul = el("ul", {});
      for (const t of ans.tiebreaks) ul.appendChild(el("li", {text: t.label + ": " + (t.value === null ? "?" : t.value)}));
      d.appendChild(ul);
      out.appendChild(d);
    }
    const problem = answerProblem(ans);
    if (problem) out.appendChild(problem);
    return ans.total;
  }

  function outcomeCell(ans, role) {
    const cell = el("td", {cls: "outcome"});
    if (ans.error) {
      cell.appendChild(el("span", {cls: "problem", text: ans.error}));
      return cell;
    }
    let text = ans.immune ? "immune" : ans.cancelled === true ? "no effect (cancelled)" : effectsText(ans.effects);
    // no effect known yet because a fact decides which apply: undecided (the lines below name the
    // facts), never "nothing"
    const undecided = !text && ((ans.undecided || []).length > 0 || ans.cancelled === null);
    if (!text) text = undecided ? "undecided" : "nothing";
    cell.appendChild(el("span", {cls: "effects" + (undecided ? " incomplete" : ""), text: text}));
    if (role === "primary" && ans.secondary && ans.secondary.count) {
      cell.appendChild(el("span", {cls: "muted", text: "assigns to " + ans.secondary.count + " other " +
        words(ans.secondary.count, ["player", "players"])}));
    }
    const by = changedBy(ans);
    if (by.length) cell.appendChild(el("span", {cls: "by", text: "changed by " + listText(by)}));
    for (const o of ans.options || []) {
      cell.appendChild(el("span", {cls: "option", text: "or instead: " + effectText(Object.assign({kind: o.kind}, o.args || {})) +
        (o.each ? " each" : "")}));
    }
    for (const u of ans.undecided || []) {
      cell.appendChild(el("span", {cls: "incomplete", text: "undecided: " + u.what + " (give " + listText((u.depends_on || []).map(factLabel)) + ")"}));
    }
    if ((ans.trace || []).length) {
      const d = el("details", {cls: "trace"}, el("summary", {text: "how"}));
      const ul = el("ul", {});
      for (const t of ans.trace) ul.appendChild(el("li", {text: traceText(t)}));
      d.appendChild(ul);
      cell.appendChild(d);
    }
    return cell;
  }

  function renderCalamities(st) {
    const body = clear(byId("calamity-rows"));
    let missing = [];
    for (const c of Object.keys(CALAMITIES)) {
      const info = CALAMITIES[c] || {};
      const primary = ask(() => api.resolve(st, c, "primary", {}));
      const secondary = ask(() => api.resolve(st, c, "secondary", {}));
      for (const a of [primary, secondary]) for (const f of a.missing_facts || []) if (!missing.includes(f)) missing.push(f);
      const head = el("th", {scope: "row"}, el("span", {cls: "name", text: c}));
      const meta = [];
      if (info.stack !== undefined && info.stack !== null) meta.push("stack " + info.stack);
      if (info["class"]) meta.push(String(info["class"]));
      if (meta.length) head.appendChild(el("span", {cls: "muted", text: " " + meta.join(", ")}));
      body.appendChild(el("tr", {}, head, outcomeCell(primary, "primary"), outcomeCell(secondary, "secondary")));
    }
    const note = clear(byId("calamity-missing"));
    if (missing.length) note.textContent = "Some outcomes are incomplete: give " + listText(missing.map(factLabel)) + ".";
  }

  // ---- the page's frame: tabs, export, import ---------------------------------------------------

  function renderTabs() {
    const list = clear(byId("tabs"));
    store.players.forEach((p, i) => {
      const tab = el("button", {type: "button", role: "tab", id: "tab-" + i, cls: "tab", "aria-selected": i === store.active ? "true" : "false",
        "aria-controls": "player", tabindex: i === store.active ? "0" : "-1", text: p.name,
        on: {click: () => switchTo(i), keydown: (ev) => tabKeys(ev, i)}});
      list.appendChild(tab);
    });
    list.appendChild(el("button", {type: "button", cls: "tab add", id: "add-player", "aria-label": "add a player", text: "+",
      on: {click: addPlayer}}));
    byId("player").setAttribute("aria-labelledby", "tab-" + store.active);
  }

  function tabKeys(ev, i) {
    const n = store.players.length;
    let to = null;
    if (ev.key === "ArrowRight") to = (i + 1) % n;
    else if (ev.key === "ArrowLeft") to = (i + n - 1) % n;
    else if (ev.key === "Home") to = 0;
    else if (ev.key === "End") to = n - 1;
    if (to === null) return;
    ev.preventDefault();
    switchTo(to);
    byId("tab-" + to).focus();
  }

  function switchTo(i) {
    store.active = i;
    saveStore();
    build();
  }

  function addPlayer() {
    store.players.push(blankPlayer(store.players.length + 1));
    store.active = store.players.length - 1;
    saveStore();
    build();
    byId("tab-" + store.active).focus();
  }

  function playerBar() {
    const p = player();
    const name = el("input", {type: "text", id: "player-name", value: p.name, autocomplete: "off", maxlength: 40,
      on: {change: () => {
        p.name = name.value.trim() || p.name;
        saveStore();
        renderTabs();
      }}});
    const file = el("input", {type: "file", id: "import-file", accept: ".json,.yaml,.yml,application/json", cls: "sr",
      tabindex: "-1", "aria-label": "state file to import", on: {change: () => importFile(file)}});
    return el("div", {cls: "player-bar"},
      el("div", {cls: "field"}, el("label", {for: "player-name", text: "Player name"}), name),
      el("div", {cls: "actions"},
        el("button", {type: "button", id: "export", text: "Export state", on: {click: exportState}}),
        el("button", {type: "button", id: "import", text: "Import state", on: {click: () => file.click()}}),
        file,
        el("button", {type: "button", id: "remove-player", text: "Remove player", disabled: store.players.length < 2,
          on: {click: removePlayer}})),
      el("p", {id: "io-status", cls: "muted", role: "status"}));
  }

  // The last player removed, until the next removal: "Undo" puts them back where they were.
  let removed = null;

  function removePlayer() {
    if (store.players.length < 2) return;
    const index = store.active;
    removed = {player: store.players[index], index: index};
    store.players.splice(index, 1);
    store.active = Math.max(0, index - 1);
    saveStore();
    build();
    say("Removed " + removed.player.name + ".", [], [["undo-remove", "Undo", undoRemove]]);
  }

  function undoRemove() {
    if (!removed) return;
    const index = Math.min(removed.index, store.players.length);
    store.players.splice(index, 0, removed.player);
    store.active = index;
    const name = removed.player.name;
    removed = null;
    saveStore();
    build();
    say(name + " is back.");
  }

  // A message in the player bar's status line: a sentence, a list of reasons, buttons.
  function say(text, reasons, actions) {
    const status = clear(byId("io-status"));
    status.appendChild(el("span", {text: text}));
    if (reasons && reasons.length) {
      const list = el("ul", {cls: "reasons"});
      for (const r of reasons) list.appendChild(el("li", {text: r}));
      status.appendChild(list);
    }
    for (const [id, label, fn] of actions || []) status.appendChild(el("button", {type: "button", id: id, text: label, on: {click: fn}}));
  }

  function exportState() {
    const text = JSON.stringify(stateFile(), null, 2) + "\n";
    const safe = (EDITION.id + "-" + player().name).replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "state";
    const a = el("a", {href: "data:application/json;charset=utf-8," + encodeURIComponent(text), download: safe + ".json"});
    document.body.appendChild(a);
    a.click();
    a.remove();
    say("exported " + safe + ".json: civdsl reads it with --state");
  }

  // the command line's limit on a state file (state.MAX_STATE_BYTES)
  const MAX_STATE_BYTES = 1000000;

  // A state file replaces the player's state only when all of it is right: a file with a
  // mistake (a misspelt name, a wrong value, text that is not a state file) is refused with the
  // command line's words and its did-you-mean, and the state stays as it was; the player may
  // still take the rest of it, knowingly.
  function importFile(input) {
    const f = input.files && input.files[0];
    input.value = "";  // choosing the same file again is a new import
    if (!f) return;
    if (f.size > MAX_STATE_BYTES) {
      say("Not imported: " + f.name + " is larger than a state file can be (1,000,000 bytes). Your state is as it was.");
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      let data;
      try {
        data = parseStateText(String(reader.result));
      } catch (e) {
        say("Not imported: cannot read " + f.name + ": " + e.message + ". Your state is as it was.");
        return;
      }
      const read = readState(data);
      if (!read.dropped.length) {
        applyState(read.state);
        say("imported " + f.name);
        return;
      }
      const rest = Object.keys(read.state).length;
      say("Not imported: " + f.name + " has " + words(read.dropped.length, ["a mistake", read.dropped.length + " mistakes"]) +
        ". Your state is as it was.", read.dropped, rest ? [["import-rest", "Import the rest anyway", () => {
        applyState(read.state);
        say("imported " + f.name + " without what it got wrong", read.dropped);
      }]] : []);
    };
    reader.readAsText(f);
  }

  function applyState(state) {
    player().state = state;
    player().basket = [];
    saveStore();
    build();
  }

  // A state file's mapping as the player's state, keeping what this rulebook accepts; returns
  // what it left out (the command line's words).
  function importState(data) {
    const read = readState(data);
    applyState(read.state);
    return read.dropped;
  }

  // The names each fact may hold, from the model (an advance also by its `aka` names).
  const NAMED = Object.assign(dict(), {
    holds: () => ADVANCE_NAMES.concat(Object.keys(ALIASES)),
    commodities: () => Object.keys(COMMODITIES).concat(Object.keys(COMMODITY_ALIASES)),
    credits: () => Object.keys(GROUPS),
    others_hold: () => ADVANCE_NAMES.concat(Object.keys(ALIASES)),
    start_credits_used: () => Object.keys(GROUPS),
    civilization: () => Object.keys(CIVS),
    ast_track: () => Object.keys(TRACKS),
    scenario: () => [""].concat(SCENARIOS),
    block: () => blocks(),
  });
  const COMMODITY_ALIASES = (M.ALIASES && M.ALIASES.commodity) || {};

  // `name` as the rulebook spells it (any case, accents composed or not, an alias as its item's
  // own name); the name itself where the rulebook has no such name.
  function canonical(name, known) {
    if (typeof name === "string") name = name.normalize("NFC");
    const low = String(name).toLowerCase();
    const hit = known.find((x) => x === name) || known.find((x) => x.toLowerCase() === low);
    if (hit === undefined) return name;
    if (has(ALIASES, hit)) return ALIASES[hit];
    return has(COMMODITY_ALIASES, hit) ? COMMODITY_ALIASES[hit] : hit;
  }

  // JSON, or the plain YAML a state file is written in (what `civdsl plan --save` writes):
  // `key: value` lines, block lists and maps one level deep, flow [..] and {..}, comments.
  // Anything else is refused with its line (never half read); every mapping is made without a
  // prototype, so a key such as `__proto__` is an ordinary key.
  function parseStateText(text) {
    const trimmed = text.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) return withoutPrototypes(JSON.parse(trimmed));
    const out = dict();
    let key = null;
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const where = "line " + (i + 1);
      const line = stripComment(lines[i], where);
      if (!line.trim() || line.trim() === "---") continue;
      if (/^\s*\t/.test(line)) throw new Error(where + ": a tab in the indentation (YAML indents with spaces)");
      const indented = /^\s/.test(line);
      const t = line.trim();
      if (indented || t === "-" || t.startsWith("- ")) {
        if (key === null) throw new Error(where + ": indented text outside a key");
        if (t === "-" || t.startsWith("- ")) {
          if (out[key] === null) out[key] = [];
          if (!Array.isArray(out[key])) throw new Error(where + ": a list item under `" + key + "`, which has a value");
          out[key].push(flow(t.slice(1).trim(), where));
        } else {
          const m = KEY_VALUE.exec(t);
          if (!m) throw new Error(where + ": expected key: value");
          if (out[key] === null) out[key] = dict();
          if (!isMapping(out[key])) throw new Error(where + ": `key: value` under `" + key + "`, which has a value");
          setOnce(out[key], unquote(m[1].trim(), where), flow((m[2] || "").trim(), where), where);
        }
        continue;
      }
      const m = KEY_VALUE.exec(t);
      if (!m) throw new Error(where + ": expected key: value");
      key = unquote(m[1].trim(), where);
      setOnce(out, key, (m[2] || "").trim() === "" ? null : flow(m[2].trim(), where), where);
    }
    return out;
  }

  const KEY_VALUE = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^:"'][^:]*):(?:\s+(.*))?$/;

  function setOnce(record, key, value, where) {
    if (has(record, key)) throw new Error(where + ": `" + key + "` is given twice");
    record[key] = value;
  }

  // JSON.parse's objects are ordinary ones (whose own `__proto__` key is safe only until a copy
  // assigns it): the same data, every mapping without a prototype.
  function withoutPrototypes(value) {
    if (Array.isArray(value)) return value.map(withoutPrototypes);
    if (!isMapping(value)) return value;
    const out = dict();
    for (const k of Object.keys(value)) out[k] = withoutPrototypes(value[k]);
    return out;
  }

  function stripComment(line, where) {
    let quote = null;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quote === "\"" && ch === "\\") { i += 1; continue; }  // an escape inside "..."
      if (quote) { if (ch === quote) quote = null; continue; }
      if (ch === "\"" || ch === "'") quote = ch;
      else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
    }
    if (quote) throw new Error(where + ": a " + quote + " that never closes");
    return line;
  }

  function unquote(s, where) {
    if (s[0] === "\"" || s[0] === "'") {
      if (s.length < 2 || s[s.length - 1] !== s[0]) throw new Error(where + ": a " + s[0] + " that never closes");
      if (s[0] === "'") return s.slice(1, -1).replace(/''/g, "'");
      try {
        return JSON.parse(s);
      } catch (e) {
        throw new Error(where + ": cannot read the quoted text " + s.slice(0, 40));
      }
    }
    return s;
  }

  // A plain value as the command line's YAML reader (YAML 1.1) reads it: `yes`, `on` and `true`
  // are true, `~` and `null` nothing; a number it would read otherwise than in decimal (`010` is
  // 8 there, `0x1F`, `1_000`) is refused rather than read differently.
  function scalar(s, where) {
    if (/^(|~|null|Null|NULL)$/.test(s)) return null;
    if (/^(true|True|TRUE|yes|Yes|YES|on|On|ON)$/.test(s)) return true;
    if (/^(false|False|FALSE|no|No|NO|off|Off|OFF)$/.test(s)) return false;
    if (/^-?(0|[1-9][0-9]*)$/.test(s)) return Number(s);
    if (/^[-+]?(0[0-7xob]|[0-9][0-9_:]*$)/.test(s)) throw new Error(where + ": `" + s.slice(0, 20) + "`: write a whole number in plain digits");
    if (/^[&*!|>%@`]/.test(s)) throw new Error(where + ": `" + s.slice(0, 20) + "`: a state file holds plain values");
    if (/^[\]}]/.test(s) || /^[\[{]/.test(s)) throw new Error(where + ": a " + s[0] + " that does not match");
    return unquote(s, where);
  }

  function splitFlow(s, where) {
    const parts = [];
    let depth = 0, quote = null, cur = "", escaped = false;
    for (const ch of s) {
      if (escaped) { cur += ch; escaped = false; continue; }
      if (quote === "\"" && ch === "\\") { cur += ch; escaped = true; continue; }
      if (quote) { cur += ch; if (ch === quote) quote = null; continue; }
      if (ch === "\"" || ch === "'") { quote = ch; cur += ch; continue; }
      if (ch === "[" || ch === "{") depth += 1;
      if (ch === "]" || ch === "}") depth -= 1;
      if (depth < 0) throw new Error(where + ": a " + ch + " that does not match");
      if (ch === "," && depth === 0) { parts.push(cur.trim()); cur = ""; continue; }
      cur += ch;
    }
    if (depth !== 0 || quote) throw new Error(where + ": a bracket or quote that never closes");
    if (cur.trim()) parts.push(cur.trim());
    if (parts.some((p) => p === "")) throw new Error(where + ": an empty item between commas");
    return parts;
  }

  function flow(s, where) {
    const open = s[0], close = s[s.length - 1];
    if (open === "[" || open === "{") {
      if (close !== (open === "[" ? "]" : "}")) throw new Error(where + ": a " + open + " that never closes");
      const parts = splitFlow(s.slice(1, -1), where);
      if (open === "[") return parts.map((p) => flow(p, where));
      const o = dict();
      for (const part of parts) {
        const m = KEY_VALUE.exec(part);
        if (!m) throw new Error(where + ": cannot read " + part.slice(0, 40));
        setOnce(o, unquote(m[1].trim(), where), flow((m[2] || "").trim(), where), where);
      }
      return o;
    }
    return scalar(s, where);
  }

  // ---- putting it together -------------------------------------------------------------------

  function build() {
    const app = clear(byId("app"));
    rows.clear();
    renderTabs();
    const inputs = el("div", {cls: "inputs"}, gameSection(), boardSection(), handSection(),
      ADVANCE_NAMES.length ? advancesSection() : null);
    const results = el("div", {cls: "results"},
      CAN_COST ? section("purchase", "Purchase",
        el("h3", {text: "Basket"}), el("div", {id: "basket-body", "aria-live": "polite"}),
        CAN_PLAN ? el("h3", {text: "Best purchase"}) : null,
        CAN_PLAN ? select("in-objective", "Objective", (HAS_VP ? [["vp", "victory points"]] : []).concat(
          [["points", "printed cost (most points of advances)"], ["cards", "most advances"]]),
        player().objective || (HAS_VP ? "vp" : "points"), (v) => { player().objective = v; changed(); }) : null,
        CAN_PLAN ? el("div", {id: "plan-body", "aria-live": "polite"}) : null) : null,
      Object.keys(TRACKS).length ? section("epoch", "Epoch", el("div", {id: "epoch-body", "aria-live": "polite"})) : null,
      HAS_SCORE ? section("score", "Score", el("div", {id: "score-body", "aria-live": "polite"})) : null,
      Object.keys(CALAMITIES).length ? section("calamities", "Calamities",
        el("p", {cls: "muted", text: "What each calamity does to you now, as primary and as secondary victim, and the advances that change it."}),
        el("p", {id: "calamity-missing", cls: "incomplete"}),
        el("div", {cls: "scroll"}, el("table", {cls: "calamities"},
          el("caption", {cls: "sr", text: "Calamity outcomes"}),
          el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Calamity"}), el("th", {scope: "col", text: "As primary victim"}),
            el("th", {scope: "col", text: "As secondary victim"}))),
          el("tbody", {id: "calamity-rows"})))) : null);
    if (STORE_DROPPED.length) app.appendChild(storeNotice());
    app.appendChild(playerBar());
    app.appendChild(jumps(inputs, results));
    app.appendChild(el("div", {cls: "columns"}, inputs, results));
    if (byId("adv-search")) byId("adv-search").parentNode.appendChild(el("p", {id: "adv-count", cls: "muted", role: "status"}));
    recompute();
  }

  // What the saved state held that the page could not use, left out, and the way to start afresh.
  function storeNotice() {
    const list = el("ul", {cls: "reasons"});
    for (const why of STORE_DROPPED.slice(0, 20)) list.appendChild(el("li", {text: why}));
    if (STORE_DROPPED.length > 20) list.appendChild(el("li", {text: "... and " + (STORE_DROPPED.length - 20) + " more"}));
    return el("div", {id: "store-notice", cls: "notice", role: "alert"},
      el("p", {text: "This browser's saved state for this page held things it cannot use; they were left out:"}), list,
      el("div", {cls: "actions"},
        el("button", {type: "button", id: "keep-store", text: "Keep the rest", on: {click: () => {
          STORE_DROPPED.length = 0;
          saveStore();
          build();
        }}}),
        el("button", {type: "button", id: "reset-store", text: "Reset the saved state", on: {click: resetStore}})));
  }

  // On a phone the answers are far below the inputs: one button per section goes there.
  function jumps(...columns) {
    const bar = el("nav", {cls: "jump", "aria-label": "Sections"});
    for (const column of columns) {
      for (const sec of column.querySelectorAll("section")) {
        const heading = sec.querySelector("h2");
        bar.appendChild(el("button", {type: "button", text: heading.textContent, on: {click: () => {
          sec.scrollIntoView({block: "start"});
          heading.setAttribute("tabindex", "-1");
          heading.focus({preventScroll: true});
        }}}));
      }
    }
    return bar;
  }

  function changed() {
    saveStore();
    recompute();
  }

  function recompute() {
    const st = stateFile();
    renderPrices(st);
    const basketTotal = CAN_COST ? renderBasket(st) : null;
    const epoch = Object.keys(TRACKS).length ? renderEpoch(st) : null;
    const score = HAS_SCORE ? renderScore(st) : null;
    if (Object.keys(CALAMITIES).length) renderCalamities(st);
    schedulePlan(st);
    const summary = [];
    if (score !== null && score !== undefined) summary.push("score " + score);
    if (basketTotal !== null && basketTotal !== undefined) summary.push("basket " + basketTotal);
    if (epoch) summary.push("A.S.T.: " + epoch);
    if (storageProblem) summary.push(storageProblem);
    byId("summary").textContent = summary.join(" \u00b7 ");
  }

  // what a benchmark or a test may ask: the page's own recompute and planner, timed from outside
  // planBudgetMs: a plan slower than this waits for the player to ask for the next one
  globalThis.civdslPage = {recompute: recompute, plan: () => renderPlan(stateFile()), stateFile: () => stateFile(),
    importState: importState, parseStateText: parseStateText, readyAt: null, planBudgetMs: 300};
  store = loadStore();
  try {
    build();
  } catch (e) {
    // never a blank page: say what failed and offer to start afresh
    const app = clear(byId("app"));
    app.appendChild(el("p", {cls: "problem", role: "alert", text: "The page could not show this state: " + ((e && e.message) || String(e))}));
    app.appendChild(el("button", {type: "button", id: "reset-store", text: "Reset the saved state", on: {click: resetStore}}));
  }
  globalThis.civdslPage.readyAt = performance.now();
  document.documentElement.setAttribute("data-ready", "true");
})();
