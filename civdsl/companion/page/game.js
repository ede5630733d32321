/* The game page's user interface: several named games kept in the browser's storage, each as its
   game file; the table's players and the log as `civdsl game show` prints them; events added
   through forms or typed as for `civdsl game add`; undo; export and import of game files.

   Generic and without rules: every check, refusal and text is the translated ledger's, asked
   through globalThis.civdslGame (runtime/gamehost.js); every list comes from the rulebook's MODEL.
   A form only writes the event's words, as a player would type them after `civdsl game add`.
   Rulebook and stored text reaches the page as text nodes only, never parsed as HTML. */
(function () {
  "use strict";

  const api = globalThis.civdslGame;
  const M = globalThis.civdsl.model;
  const EDITION = M.EDITION || {};
  const STORE_KEY = "civdsl-games:" + (EDITION.id || "");
  const MAX_FILE_BYTES = 1000000;  // the command line's limit on a game file

  /*DOM*/

  function field(id, label, input) {
    input.id = id;
    return el("div", {cls: "field"}, el("label", {for: id, text: label}), input);
  }

  // ---- the games kept: {games: [{name, file}], open}, each file a game file's text ------------

  function loadStore() {
    let data = null;
    try {
      data = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    } catch (e) {
      data = null;
    }
    const games = [];
    if (data && Array.isArray(data.games)) {
      for (const g of data.games) {
        if (g && typeof g.name === "string" && typeof g.file === "string" && !games.some((o) => o.name === g.name)) {
          games.push({name: g.name, file: g.file});
        }
      }
    }
    const open = data && typeof data.open === "string" && games.some((g) => g.name === data.open) ? data.open : null;
    return {games: games, open: open};
  }
  function saveStore() {
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify(store));
      return true;
    } catch (e) {
      say("The browser refused to keep the games (" + e.message + "): export them to keep them.");
      return false;
    }
  }
  function stored(name) {
    return store.games.find((g) => g.name === name) || null;
  }

  const store = loadStore();
  const LOG_LINES = 200;  // the log's lines shown at first
  const UNDO_KEPT = 30;  // the games before the last events added, kept for undo
  let showWholeLog = false;
  let logPlayer = "";  // the player whose log lines are shown ("": everyone's)
  // the open game: {name, setup, events, game (the ledger's, replayed), saved (the games before the last
  // events added here, for undo)}
  let current = null;
  // the open game at an earlier point a player looks at: {upto (its first events replayed), game}, or
  // null (the present); events are added to the present only
  let past = null;

  // the game file's text (the form `civdsl game` writes) and back: the translated reader and writer
  function fileText(setup, events) {
    return api.fileText(setup, events);
  }
  function readFile(text) {
    return api.readFile(text);
  }

  // ---- opening a game: its file read and replayed -----------------------------------------------

  function open(name) {
    const g = stored(name);
    if (g === null) return;
    let read;
    try {
      read = readFile(g.file);
    } catch (e) {
      say("Cannot read the game " + name + ": " + e.message);
      return;
    }
    if (read.refused) {
      say("Cannot read the game " + name + ": " + refusalText(read.refused));
      return;
    }
    const replayed = api.replay(read.setup, read.events);
    if (!replayed.game) {
      say("Cannot open the game " + name + ": " + refusalText(replayed.refused));
      return;
    }
    current = {name: name, setup: read.setup, events: read.events, game: replayed.game, saved: []};
    past = null;
    showWholeLog = false;
    logPlayer = "";
    store.open = name;
    saveStore();
    if (replayed.refused) {
      const at = replayed.refused.index;
      say("The game " + name + " stops at event " + (at + 1) + ", which the rules refuse: " + refusalText(replayed.refused) +
        ". The events after it are kept in the file but not shown.");
    }
    render();
  }

  // the open game's file kept in the store: written whole, or (ADDED, after the events it held) with
  // only the added events' lines appended, as the translated writer gives them (the page stores only
  // what the writer wrote; a file edited in the storage keeps its set-up's layout, export writes whole)
  function keep(added) {
    const g = stored(current.name);
    g.file = added === undefined ? fileText(current.setup, current.events)
      : api.fileAppended(current.setup, g.file, current.events.length - added.length, added);
    saveStore();
  }

  function refusalText(r) {
    return "error[" + r.code + "]: " + r.message;
  }

  // ---- the page ---------------------------------------------------------------------------------

  function say(text, lines) {
    const status = clear(byId("game-status"));
    status.appendChild(el("span", {text: text}));
    if (lines && lines.length) status.appendChild(el("ul", {cls: "reasons"}, lines.map((l) => el("li", {text: l}))));
  }

  function render() {
    renderGames();
    renderTable();
    document.documentElement.setAttribute("data-ready", "true");
  }

  function renderGames() {
    const box = clear(byId("games"));
    box.appendChild(el("h2", {id: "games-title", text: "Games"}));
    if (store.games.length) {
      const list = el("ul", {cls: "games"});
      for (const g of store.games) {
        const isOpen = current !== null && current.name === g.name;
        list.appendChild(el("li", {cls: isOpen ? "open" : null},
          el("button", {type: "button", cls: "open-game", "aria-pressed": isOpen ? "true" : "false",
                        text: g.name, on: {click: () => { open(g.name); }}})));
      }
      box.appendChild(list);
    } else {
      box.appendChild(el("p", {cls: "muted", text: "No game yet: start one below or import a game file."}));
    }
    if (current !== null) {
      const rename = el("input", {type: "text", value: current.name, autocomplete: "off"});
      box.appendChild(el("div", {cls: "row"},
        field("rename-name", "Name of this game", rename),
        el("button", {type: "button", id: "rename", text: "Rename", on: {click: () => renameGame(rename.value)}}),
        el("button", {type: "button", id: "delete", text: "Delete this game", on: {click: deleteGame}}),
        el("button", {type: "button", id: "export", text: "Export the game file", on: {click: exportGame}})));
    }
    box.appendChild(newGameForm());
    const input = el("input", {type: "file", accept: ".yaml,.yml,.json,text/yaml,application/json",
                               on: {change: () => importFile(input)}});
    box.appendChild(field("import-file", "Import a game file", input));
  }

  function gameName(wanted, except) {
    const name = wanted.trim();
    if (!name) return {error: "a game needs a name"};
    if (store.games.some((g) => g.name === name && g.name !== except)) return {error: "there is a game " + name + " already"};
    return {name: name};
  }

  function renameGame(wanted) {
    const n = gameName(wanted, current.name);
    if (n.error) {
      say("Not renamed: " + n.error + ".");
      return;
    }
    stored(current.name).name = n.name;
    say("renamed " + current.name + " to " + n.name);
    current.name = n.name;
    store.open = n.name;
    saveStore();
    render();
  }

  function deleteGame() {
    if (!window.confirm("Delete the game " + current.name + "? Export it first to keep it.")) return;
    store.games = store.games.filter((g) => g.name !== current.name);
    say("deleted " + current.name);
    current = null;
    past = null;
    store.open = null;
    saveStore();
    render();
  }

  // ---- a new game from the edition's set-up: players, civilizations, track, options ---------------

  function newGameForm() {
    const civs = Object.keys(M.CIVILIZATIONS || {});
    const tracks = Object.keys(M.AST || {});
    const options = Object.keys(M.OPTIONS || {});
    const form = el("form", {id: "new-game", on: {submit: (e) => { e.preventDefault(); createGame(form); }}});
    const seats = el("div", {cls: "seats"});
    function addSeat() {
      const i = seats.children.length + 1;
      const civ = civs.length ? el("select", {}, el("option", {value: "", text: "any"}),
        civs.map((c) => el("option", {value: c, text: c}))) : null;
      seats.appendChild(el("div", {cls: "seat row"},
        field("seat-name-" + i, "Player " + i, el("input", {type: "text", cls: "seat-name", autocomplete: "off"})),
        civ ? field("seat-civ-" + i, "Civilization of player " + i, civ) : null));
    }
    for (let i = 0; i < 3; i++) addSeat();
    form.appendChild(el("fieldset", {}, el("legend", {text: "New game"}),
      field("new-name", "Name of the game", el("input", {type: "text", autocomplete: "off"})),
      seats,
      el("button", {type: "button", id: "add-seat", text: "Another player", on: {click: addSeat}}),
      tracks.length > 1 ? field("new-track", "A.S.T. track", el("select", {}, tracks.map((t) => el("option", {value: t, text: t})))) : null,
      field("new-last-turn", "Last turn, where the players agree one (empty: none)",
        el("input", {type: "number", min: "1", max: "1000", inputmode: "numeric"})),
      field("new-seed", "Seed of the random choices", el("input", {type: "number", min: "0", value: "0", inputmode: "numeric"})),
      options.length ? el("fieldset", {cls: "options"}, el("legend", {text: "Rule options"}),
        options.map((o, i) => el("div", {cls: "check"},
          el("input", {type: "checkbox", id: "new-option-" + i, "data-option": o, checked: !!M.OPTIONS[o]}),
          el("label", {for: "new-option-" + i, text: optionText(M, o)})))) : null,
      el("button", {type: "submit", id: "create", text: "Start the game"})));
    return form;
  }

  function createGame(form) {
    const n = gameName(form.querySelector("#new-name").value);
    const players = [];
    form.querySelectorAll(".seat").forEach((seat) => {
      const name = seat.querySelector(".seat-name").value.trim();
      const civ = seat.querySelector("select");
      if (name) players.push(civ && civ.value ? {name: name, civilization: civ.value} : {name: name});
    });
    const setup = {civdsl_game: 1, edition: EDITION.id, players: players};
    const track = form.querySelector("#new-track");
    if (track) setup.ast_track = track.value;
    const last = form.querySelector("#new-last-turn").value;
    if (last !== "") setup.last_turn = Number(last);
    setup.seed = Number(form.querySelector("#new-seed").value || "0");
    const options = {};
    form.querySelectorAll("[data-option]").forEach((cb) => {
      if (cb.checked !== !!M.OPTIONS[cb.getAttribute("data-option")]) options[cb.getAttribute("data-option")] = cb.checked;
    });
    if (Object.keys(options).length) setup.options = options;
    if (n.error) {
      say("Not started: " + n.error + ".");
      return;
    }
    const started = api.replay(setup, []);
    if (!started.game) {
      say("Not started: " + refusalText(started.refused), started.refused.choices);
      return;
    }
    store.games.push({name: n.name, file: fileText(setup, [])});
    current = {name: n.name, setup: setup, events: [], game: started.game, saved: []};
    past = null;
    logPlayer = "";
    showWholeLog = false;
    store.open = n.name;
    saveStore();
    say("started " + n.name);
    render();
  }

  // ---- the table: players, what comes next, the forms, the log ----------------------------------

  function renderTable() {
    const box = clear(byId("table"));
    box.hidden = current === null;
    if (current === null) return;
    const shown = api.shown(past === null ? current.game : past.game, logPlayer);
    box.appendChild(el("h2", {id: "table-title", text: current.name}));
    if (past !== null) box.appendChild(pastNotice());
    box.appendChild(el("p", {id: "where", text: shown.heading}));
    box.appendChild(el("p", {id: "expects", cls: "expects", text: shown.expects}));
    box.appendChild(el("ul", {id: "players", cls: "players"}, shown.players.map((p) => el("li", {text: p.line.trim()}))));
    if (shown.stacks.length) box.appendChild(el("ul", {id: "stacks", cls: "muted"}, shown.stacks.map((s) => el("li", {text: s.trim()}))));
    if (shown.scores.length) {
      box.appendChild(el("h3", {text: "Final scores"}));
      box.appendChild(el("ol", {id: "scores"}, shown.scores.map((s) => el("li", {text: s.trim().replace(/^[0-9]+\. /, "")}))));
    }
    if (past === null && !shown.ended) box.appendChild(eventForms(shown));
    box.appendChild(el("div", {id: "refusal", role: "alert"}));
    if (past === null) {
      box.appendChild(el("div", {cls: "row"},
        el("button", {type: "button", id: "undo", text: "Undo the last event", disabled: current.events.length === 0,
                      on: {click: undo}})));
    }
    box.appendChild(turnPicker());
    const only = el("select", {on: {change: () => { logPlayer = only.value; renderTable(); }}},
      el("option", {value: "", text: "every player"}),
      shown.players.map((p) => el("option", {value: p.name, text: p.name, selected: p.name === logPlayer})));
    // the log's last lines (a long game's whole log is thousands), the rest on request
    const from = showWholeLog ? 0 : Math.max(shown.log.length - LOG_LINES, 0);
    const log = el("ol", {id: "log", cls: "log", start: from + 1});
    for (const line of shown.log.slice(from)) log.appendChild(el("li", {}, logButton(line)));
    box.appendChild(el("details", {open: true}, el("summary", {id: "log-title", text: "Log (" + shown.log.length + " lines)"}),
      el("p", {cls: "muted", text: "Tap a line to see the game as it was after its event."}),
      field("log-player", "The log of", only),
      from > 0 ? el("button", {type: "button", id: "whole-log", text: "Show the " + from + " earlier lines",
                               on: {click: () => { showWholeLog = true; renderTable(); }}}) : null, log));
  }

  // ---- time travel: the game after any of its events, as `civdsl game show --event N` shows it ------

  // a line of the log as a button: the game after the event behind it (a line of the game's start: none)
  function logButton(line) {
    const upto = line.event === null ? 0 : line.event + 1;
    return el("button", {type: "button", cls: "log-line", "data-upto": upto,
                         "aria-label": line.text + " (show the game after event " + upto + ")",
                         on: {click: () => lookAt(upto)}}, line.text);
  }

  // the turns to look back at: the end of each turn the game's events reach
  function turnPicker() {
    if (current.turnEnds === undefined) current.turnEnds = api.turnEnds(current.events);  // again once events change
    const at = past === null ? "" : String(past.upto);
    const pick = el("select", {on: {change: () => lookAt(pick.value === "" ? current.events.length : Number(pick.value))}},
      el("option", {value: "", text: "now"}),
      current.turnEnds.map((upto, i) => el("option", {value: String(upto),
        text: "the end of turn " + (i + 1) + " (event " + upto + ")", selected: String(upto) === at})));
    return el("div", {cls: "row"}, field("look-back", "Look at the game at", pick));
  }

  function pastNotice() {
    return el("div", {id: "past", cls: "past", role: "region", "aria-label": "An earlier point of the game"},
      el("p", {text: "You are looking at the game after event " + past.upto + " of " + current.events.length +
        ", as civdsl game show --event " + past.upto + " shows it. Events are added to the present only: " +
        "go back to the present to add one."}),
      el("button", {type: "button", id: "present", text: "Back to the present", on: {click: () => lookAt(current.events.length)}}));
  }

  // the game after its first UPTO events (all of them: the present)
  function lookAt(upto) {
    clear(byId("refusal"));
    if (upto >= current.events.length) {
      past = null;
      say("back to the present: after event " + current.events.length);
    } else {
      // a later point than the one looked at is reached from it, an earlier one replayed from the start
      const from = past !== null && past.upto <= upto ? past : null;
      past = {upto: upto, game: from === null ? api.replay(current.setup, current.events.slice(0, upto)).game
        : api.replayOnto(api.copy(from.game), current.events.slice(from.upto, upto)).game};
      say("looking at the game after event " + upto + " of " + current.events.length);
    }
    renderTable();
    const top = byId(past === null ? "table-title" : "present");
    top.scrollIntoView({block: "nearest"});
    if (past !== null) top.focus();
  }

  // each event's form: the fields it takes, written as the words `civdsl game add` reads
  // each event's form: [key, type, label] a field. A "names" field takes names separated by commas
  // (a name of several words is one name: `Drama and Poetry`), a "words" field words as typed.
  const PLAYER = ["", "player", "Player"];
  const FORMS = {
    tax: [PLAYER, ["rate", "number", "Tax rate per city"]],
    census: [PLAYER, ["cities", "number", "Cities on the board"], ["tokens", "number", "Tokens on the board"],
             ["ships", "number", "Ships on the board"], ["treasury", "number", "Treasury left after paying for ships (where this step spends it)"]],
    draw: [PLAYER, ["", "names", "Cards drawn (commas between; NAME*N for several)"],
           ["seed", "number", "Or a seed: drawn for him from the stacks"]],
    "buy-cards": [PLAYER, ["", "names", "Cards bought (commas between)"], ["stack", "text", "Or the stacks (numbers, commas between)"],
                  ["seed", "number", "and a seed"]],
    trade: [PLAYER, ["", "names", "Cards he gives (commas between)"], ["for", "player", "Traded with"],
            ["", "names", "Cards he gets (commas between)"]],
    choose: [PLAYER, ["", "calamity", "For the calamity (none: a fact of the turn)"],
             ["", "words", "Choices (KEY=VALUE, as the refusal lists them)"]],
    buy: [PLAYER, ["", "names", "Advances bought (commas between)"], ["pay", "names", "Cards paid (commas between; NAME*N for several)"],
          ["treasury", "number", "Treasury paid"]],
    discard: [PLAYER, ["", "names", "Cards discarded (commas between)"]],
    ast: [PLAYER, ["", "words", "The move (forward, stays or back)"]],
    leave: [PLAYER],
  };

  // the forms, the events this step takes first (the first of them chosen), then the others; where
  // the step draws from the trade stacks, a draw for everyone first
  function eventForms(shown) {
    const kinds = shown.kinds;
    const stepKinds = shown.stepKinds;
    const box = el("section", {id: "add-event", "aria-labelledby": "add-title"}, el("h3", {id: "add-title", text: "Add an event"}));
    if (stepKinds.includes("draw") && shown.stacks.length) box.appendChild(drawAllForm());
    const others = kinds.filter((k) => !stepKinds.includes(k));
    const choose = el("select", {},
      el("optgroup", {label: "This step"}, stepKinds.concat(others.filter((k) => k === "next")).map((k) => el("option", {value: k, text: k}))),
      el("optgroup", {label: "Other steps, or any"}, others.filter((k) => k !== "next").map((k) => el("option", {value: k, text: k}))));
    const form = el("form", {id: "event-form", on: {submit: (e) => { e.preventDefault(); addLine(formLine(choose.value, form)); }}});
    function fill() {
      clear(form);
      const usage = api.usage(choose.value);  // how the event is typed, as `game add` tells it
      if (usage) form.appendChild(el("p", {cls: "muted usage", text: usage}));
      for (const [i, spec] of (FORMS[choose.value] || []).entries()) form.appendChild(formField(choose.value, i, spec));
      form.appendChild(el("button", {type: "submit", id: "add", text: choose.value === "next" ? "End this step" : "Add"}));
    }
    choose.addEventListener("change", fill);
    box.appendChild(field("event-kind", "Event", choose));
    fill();
    box.appendChild(form);
    const typed = el("input", {type: "text", autocomplete: "off", autocapitalize: "off", spellcheck: "false"});
    box.appendChild(el("form", {id: "typed-form", on: {submit: (e) => { e.preventDefault(); addLine(typed.value); }}},
      field("typed", "Or type the event as for civdsl game add", typed),
      el("button", {type: "submit", id: "add-typed", text: "Add what I typed"})));
    return box;
  }

  function formField(kind, i, spec) {
    const [key, type, label] = spec;
    const id = "ev-" + kind + "-" + i;
    if (type === "player" || type === "calamity") {
      const names = type === "player" ? api.shown(current.game).players.map((p) => p.name) : [""].concat(Object.keys(M.CALAMITIES || {}));
      return field(id, label, el("select", {"data-key": key, "data-type": type},
        names.map((n) => el("option", {value: n, text: n || "none"}))));
    }
    return field(id, label, el("input", {type: type === "number" ? "number" : "text", min: type === "number" ? "0" : null,
      inputmode: type === "number" ? "numeric" : null, autocomplete: "off", autocapitalize: "off", spellcheck: "false",
      "data-key": key, "data-type": type}));
  }

  // a word as typed for the command line: a name of several words in quotes
  function typedWord(word) {
    return /[\s"']/.test(word) ? (word.includes('"') ? "'" + word + "'" : '"' + word + '"') : word;
  }

  // the words of the event a form describes: its kind, then each field given, as typed by hand
  function formLine(kind, form) {
    const words = [kind];
    form.querySelectorAll("[data-key]").forEach((input) => {
      const key = input.getAttribute("data-key");
      const type = input.getAttribute("data-type");
      const value = input.value.trim();
      if (!value) return;
      if (key && (type === "player" || type === "names")) words.push(key);
      if (type === "names") words.push(...value.split(",").map((n) => n.trim()).filter(Boolean).map(typedWord));
      else if (type === "words") words.push(value);
      else if (type === "player" || type === "calamity") words.push(typedWord(value));
      else if (key === "treasury" && kind === "buy") words.push(key, value);  // `buy ... treasury N`
      else words.push(key + "=" + value.replace(/\s+/g, ""));
    });
    return words.join(" ");
  }

  // a draw for everyone, as `civdsl game draw [--seed N]`: the seed typed, or the game's own
  function drawAllForm() {
    const seed = el("input", {type: "number", min: "0", inputmode: "numeric", autocomplete: "off"});
    return el("form", {id: "draw-all-form", on: {submit: (e) => { e.preventDefault(); drawAll(seed.value.trim()); }}},
      el("p", {cls: "muted", text: "Every player who has not drawn in this step draws from the stacks, in the rules' order, " +
        "as civdsl game draw does."}),
      field("draw-all-seed", "Seed of the draws (empty: the one the game gives this turn)", seed),
      el("button", {type: "submit", id: "draw-all", text: "Draw for everyone"}));
  }

  function drawAll(seed) {
    if (seed !== "" && !/^[0-9]+$/.test(seed)) {
      showRefusal(clear(byId("refusal")), {code: "CIV142", message: "a seed is a whole number", choices: []});
      return;
    }
    addWith((game) => api.drawForEveryone(game, seed === "" ? null : Number(seed)), (added, answer) =>
      added.length ? "drew for everyone with seed " + answer.seed : "every player with cities has drawn in this step");
  }

  function addLine(line) {
    if (!line.trim()) {
      clear(byId("refusal"));
      return;
    }
    addWith((game) => api.add(game, line), (added) => "added " + added.map((e) => api.eventText(e)).join(" / "));
  }

  // events added to the present game by ANSWEROF (the host's answer: {added} or {refused, applied}),
  // kept in its file, the log's lines they added shown as `game add` prints them after WORDSOF's
  function addWith(answerOf, wordsOf) {
    const refusal = clear(byId("refusal"));
    if (past !== null) {  // the forms are the present's: the past is never rewritten
      say("Nothing was added: you are looking at an earlier point of the game. Go back to the present first.");
      return;
    }
    const saved = api.copy(current.game);  // the game before the events, for an undo without a replay
    const answer = answerOf(current.game);
    if (answer.refused) {
      showRefusal(refusal, answer.refused);
      // the events before the one refused were applied: the game is the one before them again
      if (answer.applied) current.game = saved;
      return;
    }
    const before = current.events.length;
    if (answer.added.length) {
      current.saved.push({events: before, game: saved});
      if (current.saved.length > UNDO_KEPT) current.saved.shift();
      current.events = current.events.concat(answer.added);
      current.turnEnds = undefined;
      keep(answer.added);
    }
    // as `game add` prints: the log's lines the events added
    const lines = api.shown(current.game).log.filter((e) => e.event !== null && e.event >= before).map((e) => e.text);
    say(wordsOf(answer.added, answer), lines);
    render();
  }

  // as the command line shows a refusal: the code and message, the event as typed with a caret
  // under the word at fault, the choices, and that nothing changed
  function showRefusal(box, r) {
    box.appendChild(el("p", {cls: "problem", text: refusalText(r)}));
    if (r.typed && r.columns) {
      const line = r.typed.join(" ");
      const start = r.columns[0] - 1;
      const end = r.columns[1] === null ? start + 1 : r.columns[1] - 1;
      box.appendChild(el("pre", {cls: "typed"}, line + "\n" + " ".repeat(start) + "^".repeat(Math.max(end - start, 1))));
    }
    if (r.choices && r.choices.length) {
      // a choice written as an event (`choose anna Tempest tokens=N`) can be taken into the typed line
      const kinds = api.shown(current.game).kinds;
      box.appendChild(el("ul", {cls: "reasons"}, r.choices.map((c) => el("li", {}, c,
        kinds.includes(c.split(" ")[0]) ? el("button", {type: "button", cls: "take", text: "Type this",
          "aria-label": "Type this: " + c, on: {click: () => { const t = byId("typed"); t.value = c; t.focus(); }}}) : null))));
    }
    box.appendChild(el("p", {cls: "muted", text: "Nothing was added: the game is unchanged."}));
  }

  function undo() {
    if (!current.events.length) return;
    const events = current.events.slice(0, -1);
    const dropped = current.events[current.events.length - 1];
    // the game as it was before the last event, kept when it was added here, or replayed from its file
    const kept = current.saved.length ? current.saved[current.saved.length - 1] : null;
    current.saved = current.saved.filter((s) => s.events < events.length);
    current.game = kept !== null && kept.events === events.length ? kept.game : api.replay(current.setup, events).game;
    current.events = events;
    current.turnEnds = undefined;
    keep();
    say("dropped event " + (events.length + 1) + ": " + api.eventText(dropped));
    render();
  }

  // ---- export and import ------------------------------------------------------------------------

  function exportGame() {
    const text = fileText(current.setup, current.events);
    const safe = current.name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "game";
    const a = el("a", {href: "data:text/yaml;charset=utf-8," + encodeURIComponent(text), download: safe + ".yaml"});
    document.body.appendChild(a);
    a.click();
    a.remove();
    say("exported " + safe + ".yaml: civdsl game show reads it");
  }

  function importFile(input) {
    const f = input.files && input.files[0];
    input.value = "";
    if (!f) return;
    if (f.size > MAX_FILE_BYTES) {
      say("Not imported: " + f.name + " is larger than a game file can be (1,000,000 bytes).");
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const text = String(reader.result);
      let read;
      try {
        read = readFile(text);
      } catch (e) {
        say("Not imported: cannot read " + f.name + ": " + e.message + ".");
        return;
      }
      if (read.refused) {
        say("Not imported: " + f.name + ": " + refusalText(read.refused), read.refused.choices);
        return;
      }
      if (read.setup.edition !== EDITION.id) {
        say("Not imported: " + f.name + " is a game of " + read.setup.edition + ", this page keeps games of " + EDITION.name + ".");
        return;
      }
      const replayed = api.replay(read.setup, read.events);
      if (!replayed.game || replayed.refused) {
        const r = replayed.refused;
        say("Not imported: " + f.name + (r.index === null ? "" : ", event " + (r.index + 1)) + ": " + refusalText(r), r.choices);
        return;
      }
      let name = f.name.replace(/\.(ya?ml|json)$/i, "") || "game";
      for (let i = 2; stored(name) !== null; i++) name = f.name.replace(/\.(ya?ml|json)$/i, "") + " (" + i + ")";
      store.games.push({name: name, file: fileText(read.setup, read.events)});
      current = {name: name, setup: read.setup, events: read.events, game: replayed.game, saved: []};
      past = null;
      logPlayer = "";
      showWholeLog = false;
      store.open = name;
      saveStore();
      say("imported " + f.name + " as " + name);
      render();
    };
    reader.readAsText(f);
  }

  if (store.open !== null) open(store.open);
  render();
})();
