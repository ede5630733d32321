// gamehost.js: the game page's host for the translated ledger. Every rule of play is the
// translated modules' (ledger/*, gameview: the checks, the refusals, the texts `civdsl game show`
// prints); this file only builds the rulebook they read from MODEL, and turns their Python values
// into the plain values the page's interface (page/game.js) reads, through globalThis.civdslGame.

// The compiled module as the ledger reads it: the engines' module (every MODEL constant as Python's
// values) with the trade decks, which MODEL's JSON cannot hold (their stacks are keyed by number).
function gameLedgerModule() {
  const m = Object.assign({}, engineModule());
  m.TRADE_DECKS = LEDGER_TRADE_DECKS;
  return m;
}

let gameRulebookMade = null;
function gameRulebook() {
  return gameRulebookMade || (gameRulebookMade = {module: gameLedgerModule(), name: MODEL.EDITION.name});
}

// A refusal as the page shows it: the code, the message, the choices, and where in a typed line.
function gameRefusal(exc) {
  if (exc instanceof rf_Refused) {
    return {code: exc.code, message: pyStr(exc), choices: pyPlain(exc.choices), typed: exc.typed || null,
            columns: exc.columns || null, index: exc.index === undefined ? null : exc.index};
  }
  if (exc instanceof gc_GameFileError) return {code: exc.code, message: pyStr(exc), choices: pyPlain(exc.notes || []), index: null};
  if (exc instanceof UserError) return {code: "CIV142", message: pyStr(exc), choices: [], index: null};
  throw exc;
}

// the game a set-up and its recorded events give: {game} or {refused} (the first event refused)
function gameReplay(setup, events) {
  let game;
  try {
    const [checked] = gc_checked(pyFromPlain(Object.assign({}, setup, {events: []})));
    const players = checked.get("players");
    const missing = gv_missing_deck(gameRulebook().module, MODEL.EDITION.name, pyLen(players));
    if (missing !== null) return {refused: {code: "CIV184", message: missing[0], choices: missing.slice(1), index: null}};
    game = gc_ledger_for(gameRulebook(), checked);
  } catch (exc) {
    return {refused: gameRefusal(exc)};
  }
  try {
    gv_replay_events(game, pyFromPlain(events));
  } catch (exc) {
    return {game: game, refused: gameRefusal(exc)};
  }
  return {game: game};
}

// GAME (a replay's, at its first events) taken on through EVENTS, the ones recorded after those:
// the game a replay of them all gives, without replaying the first again; {game} or {game, refused}
function gameReplayOnto(game, events) {
  try {
    gv_replay_events(game, pyFromPlain(events));
  } catch (exc) {
    return {game: game, refused: gameRefusal(exc)};
  }
  return {game: game};
}

// the events typed in LINE (several separated by `/`) added to GAME: {added} (as the file records
// them) or {refused}; after a refusal GAME may hold the events before it: the page replays its file
function gameAdd(game, line) {
  const before = game.events;
  try {
    // split as a shell splits it (civdsl/pystd/shellwords.py): a quote left open is refused
    return {added: pyPlain(gv_add_words(game, sw_typed_words(line)))};
  } catch (exc) {
    // `applied`: the events of the line before the refused one, which the game now holds
    return {refused: gameRefusal(exc), applied: game.events - before};
  }
}

// a draw for everyone, as `civdsl game draw` makes it: every player who has not drawn in this step
// draws from the stacks with SEED (null: the seed the command derives from the game's), each draw an
// event added to GAME; {added, seed} or {refused, applied} as gameAdd answers
function gameDrawForEveryone(game, seed) {
  const before = game.events;
  const used = seed === null ? gv_drawn_seed(game) : seed;
  try {
    return {added: pyPlain(gv_draw_for_everyone(game, used)), seed: used};
  } catch (exc) {
    return {refused: gameRefusal(exc), applied: game.events - before};
  }
}

// what `civdsl game show` prints, as lines: where the game stands, each player, the stacks, the log
// (each line with its rulebook line and the event behind it), the final scores, what comes next
// (PLAYER: the log's lines about him only, as `game show --player`)
function gameShown(game, player) {
  const source = MODEL.SOURCE_PATH;
  const about = player ? game.log.filter((e) => gv_names_player(e, player)) : game.log;
  return {
    heading: gv_heading(MODEL.EDITION.name, game),
    players: game.players.values().map((p) => ({name: p.name, line: gv_player_line(game, p)})),
    stacks: gv_stacks_lines(game),
    log: about.map((e) => ({text: gv_log_line(source, e), event: e.event})),
    scores: gv_score_lines(game),
    expects: gv_takes_line(game),
    kinds: lt_kinds().slice(),
    stepKinds: gv_step_events(game),
    ended: Boolean(game.ended),
  };
}

// The game file as text and back, as `civdsl game` writes and reads it (ledger/gametext, its set-up
// checked by gamecheck as gamefile.py checks it): the set-up's keys in the checked order, the format first.
function gameFileHead(setup) {
  const [checked] = gc_checked(pyFromPlain(Object.assign({}, setup, {events: []})));
  const head = pyDict([["civdsl_game", gc_FORMAT]]);
  for (const [k, v] of checked.items()) if (k !== "civdsl_game") head.setItem(k, v);
  return head;
}
function gameFileText(setup, events) {
  return gx_text(gameFileHead(setup), pyFromPlain(events));
}
// the text of the game's COUNT events and ADDED, from TEXT, its file of the COUNT events
function gameFileAppended(setup, text, count, added) {
  return gx_appended(gameFileHead(setup), text, count, pyFromPlain(added));
}
function gameFileRead(text) {
  try {
    const [setup, events] = gx_parse(text);
    const [checked, checkedEvents] = gc_checked(pyDictWith(setup, [["events", events]]));
    return {setup: pyPlain(checked), events: pyPlain(checkedEvents)};
  } catch (exc) {
    if (exc instanceof gx_TextError) {
      return {refused: {code: "CIV144", message: "line " + exc.line + ", column " + exc.column + ": " + pyStr(exc),
                        choices: [], index: null}};
    }
    return {refused: gameRefusal(exc)};
  }
}

globalThis.civdslGame = Object.freeze({
  fileText: gameFileText,
  fileAppended: gameFileAppended,
  readFile: gameFileRead,
  edition: MODEL.EDITION,
  replay: gameReplay,
  replayOnto: gameReplayOnto,
  add: gameAdd,
  drawForEveryone: gameDrawForEveryone,
  // the number of events `civdsl game show --turn N` replays, for each turn before the last
  turnEnds: function (events) { return pyPlain(gv_turn_ends(pyFromPlain(events))); },
  copy: function (game) { return game.copy(); },
  shown: gameShown,
  eventText: function (event) { return gv_event_text(pyFromPlain(event)); },
  usage: function (kind) { return wd_usage(kind); },
});
