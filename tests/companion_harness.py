"""Both engines answer the same questions: the generated JavaScript one in Node, the Python one in-process.

`js_answers(rulebook, queries)` builds the rulebook's engine (companion.jsgen.engine_script, from the
checked edition `checked_edition` gives and its compiled module), runs
it once in Node with every query as JSON on stdin, and returns the answers as the command line's
--json prints them (parsed back, so a float stays a float: Node prints them as Python does).
`cli_answer(rulebook, query)` is the Python answer to the same query from the functions the
command line's --json output comes from. `first_difference` names the first key path where two
answers differ, comparing types strictly (1 is not 1.0 nor True).

A query: {"command": "resolve"|"epoch"|"score"|..., "state": {...}, "options": {...}} and, for
resolve, "calamity" and "role". The options are the command line's flags in camelCase: holds,
option ({name: bool}, --option), assigned (resolve), ast (epoch).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import civdsl
from civdsl.errors import RulebookError, RulebookRuntimeError, StateError

NODE = shutil.which("node") or "/usr/bin/node"


def node_available() -> bool:
    return os.path.exists(NODE) and os.access(NODE, os.X_OK)


# Reads every query from stdin, answers each with the engine, prints the answers in one JSON text
# (the engine's own `dumps`: Python's json.dumps layout and number forms).
_DRIVER = r"""
"use strict";
const before = new Set(Object.getOwnPropertyNames(globalThis));
require(process.argv[2]);
const api = globalThis.civdsl;
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((q) => {
    try {
      const o = q.options || {};
      if (q.command === "resolve") return api.resolve(q.state || {}, q.calamity, q.role || "primary", o);
      if (typeof api[q.command] !== "function") return {crash: "the engine has no `" + q.command + "`"};
      return api[q.command](q.state || {}, o);
    } catch (exc) {
      return {crash: String(exc && exc.stack || exc)};
    }
  });
  // every global the engine (and the answers) added: only `civdsl` may be new
  const added = Object.getOwnPropertyNames(globalThis).filter((n) => !before.has(n)).sort();
  process.stdout.write(api.dumps({answers: out, globals: added}));
});
"""

_SCRIPTS: dict = {}


def checked_edition(rulebook):
    """The checked edition of a shipped edition id or a rulebook file: what `civdsl build` hands
    the page's generator beside the module it compiled from it."""
    from civdsl.api import locate
    from civdsl.frontend import check_file

    path = locate(str(rulebook)).resolve()
    checked = check_file(path, reuse=True)
    if not checked.ok:
        raise RulebookError(f"{path} has errors", checked.diagnostics)
    return checked.edition


def engine(rulebook) -> str:
    """The engine script of a shipped edition id or a rulebook file (built once per compiled module)."""
    from civdsl.companion.jsgen import engine_script

    module = civdsl.load(rulebook).module
    script = _SCRIPTS.get(id(module))
    if script is None or script[0] is not module:
        script = (module, engine_script(checked_edition(rulebook), module))
        _SCRIPTS[id(module)] = script
    return script[1]


def run_engine(script: str, queries: list, globals_added: list | None = None) -> list:
    """Each query's answer from an engine script, in one Node process; `globals_added`, when
    given, receives the names of the globals the engine defined (only `civdsl` is expected)."""
    with tempfile.TemporaryDirectory(prefix="civdsl-js-") as tmp:
        engine_file = Path(tmp) / "engine.js"
        driver_file = Path(tmp) / "driver.js"
        engine_file.write_text(script, encoding="utf-8")
        driver_file.write_text(_DRIVER, encoding="utf-8")
        done = subprocess.run([NODE, str(driver_file), str(engine_file)], input=json.dumps(queries),
                              capture_output=True, text=True, encoding="utf-8", timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"node failed ({done.returncode}):\n{done.stderr[-4000:]}")
    out = json.loads(done.stdout)
    if globals_added is not None:
        globals_added.extend(out["globals"])
    return out["answers"]


def js_answers(rulebook, queries: list) -> list:
    return run_engine(engine(rulebook), queries)


def state_and_holds(query: dict) -> tuple[dict, list]:
    from civdsl.state import split_names

    options = query.get("options") or {}
    state = dict(query.get("state") or {})
    if options.get("option"):  # --option NAME=on|off: over the state file's `options`
        given = state.get("options")
        state["options"] = {**(given if isinstance(given, dict) else {}), **options["option"]}
    holds = options.get("holds")
    return state, split_names(",".join(holds) if isinstance(holds, list) else holds)


def _resolve(rb, query: dict) -> dict:
    state, holds = state_and_holds(query)
    assigned = (query.get("options") or {}).get("assigned")
    return rb.resolve(query["calamity"], query.get("role") or "primary", holds, state, assigned=assigned).to_dict()


def _epoch(rb, query: dict) -> dict:
    from civdsl.cli.questions import _check_track

    state, holds = state_and_holds(query)
    track = (query.get("options") or {}).get("ast")
    if track == "":  # `--ast` with no name lists the tracks (cli.questions._list_tracks)
        return {"tracks": [{"id": k, "name": v["name"]} for k, v in rb.module.AST.items()]}
    _check_track(rb, track)
    return {"tracks": rb.epochs(track, holds, state)}


def _score(rb, query: dict) -> dict:
    state, holds = state_and_holds(query)
    return rb.score(holds, state)


# command -> the Python answer (the data the command's --json prints after its head); cost and
# plan join here with their engine parts
PYTHON_ANSWERS = {"resolve": _resolve, "epoch": _epoch, "score": _score}


def cli_answer(rulebook, query: dict) -> dict:
    """The Python engine's answer to a query, as the command line prints it with --json (parsed)."""
    rb = civdsl.load(rulebook)
    command = query["command"]
    head = {"command": command, "rulebook": rb.id}
    try:
        data = PYTHON_ANSWERS[command](rb, query)
    except (StateError, RulebookError) as exc:
        data = {"error": {"kind": "user", "message": str(exc)}}
    except RulebookRuntimeError as exc:  # the command line adds the rule's diagnostic
        data = {"error": {"kind": "rulebook", "message": f"a rule failed while running: {exc.reason}"}}
    answer = {**head, **{k: v for k, v in data.items() if k not in head}}
    # the text the command line prints (json.dumps(default=str) as cli.common does), read back
    return json.loads(json.dumps(answer, ensure_ascii=False, default=str))


def first_difference(expected, got, path: str = "") -> str | None:
    """The first key path where two answers differ (types compared strictly), or None."""
    where = path or "(the answer)"
    if type(expected) is not type(got):
        return f"{where}: {expected!r} ({type(expected).__name__}) != {got!r} ({type(got).__name__})"
    if isinstance(expected, dict):
        for key in expected:
            if key not in got:
                return f"{path}.{key}: missing from the JavaScript answer"
            found = first_difference(expected[key], got[key], f"{path}.{key}")
            if found:
                return found
        for key in got:
            if key not in expected:
                return f"{path}.{key}: only in the JavaScript answer ({got[key]!r})"
        return None
    if isinstance(expected, list):
        for i, (a, b) in enumerate(zip(expected, got)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(got):
            return f"{where}: {len(expected)} items != {len(got)} items"
        return None
    if expected != got:
        return f"{where}: {expected!r} != {got!r}"
    return None
