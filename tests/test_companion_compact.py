"""The companion page embeds its scripts compacted (comments, indentation and blank lines gone,
companion.page.compact_script): the program must stay the same. Checked on tricky snippets
(strings and regular expressions holding `//`, `/*` and quotes, divisions, template literals),
then minified (minify_script: the spaces and line breaks no token or statement needs), and on
every shipped engine in Node: the compacted and minified engine answers every question exactly
as the engine jsgen wrote."""

from __future__ import annotations

import subprocess

import pytest

from civdsl.companion.page import compact_css, compact_script, minify_script, ui_script
from civdsl.resources import shipped_house_rules, shipped_rulebooks

from companion_harness import NODE, engine, node_available, run_engine


@pytest.mark.parametrize("source, expected", [
    ("  // a comment\n  const a = 1;  \n\n\n  return a;\n", "const a = 1;\nreturn a;\n"),
    ('const s = "http://x /* not a comment */";\n', 'const s = "http://x /* not a comment */";\n'),
    ("const s = 'it\\'s // here';\n", "const s = 'it\\'s // here';\n"),
    ("const r = /\\/\\/[\"']/g; // strip\n", "const r = /\\/\\/[\"']/g;\n"),
    ("const r = x.replace(/[/*]/, \"\");\n", "const r = x.replace(/[/*]/, \"\");\n"),
    ("const d = a / b / c; /* two\nlines */ f();\n", "const d = a / b / c;\nf();\n"),
    ("if (a) return /x/.test(b);\n", "if (a) return /x/.test(b);\n"),
    ("const   wide    = 1;\n", "const wide = 1;\n"),
    ("a /* inline */ + b;\n", "a + b;\n"),
])
def test_compaction_keeps_tokens_and_lines(source, expected):
    assert compact_script(source) == expected


@pytest.mark.parametrize("source", [
    "const t = `a // b\n  c`;\n",          # a template literal: left to a real parser
    'const s = "never closed;\n',           # not scannable: unchanged
    "/* never closed\n",
])
def test_what_it_cannot_scan_is_left_as_it_is(source):
    assert compact_script(source) == source


@pytest.mark.parametrize("source, expected", [
    ("const a = b + c;\nreturn a;\n", "let a=b+c;return a;\n"),   # `let`: the same binding, lighter
    ("for (const k of o.const) x.constant = {const: $const};\n",
     "for(let k of o.const)x.constant={const:$const};\n"),   # only the keyword
    ('s = "const x";\n', 's="const x";\n'),
    ("x = a + +b - -c + -d;\n", "x=a+ +b- -c+-d;\n"),        # `+ +` and `- -` would fuse into ++ / --
    ("y = 1 .toString() + a . b;\n", "y=1 .toString()+a.b;\n"),  # `1.` would be a number
    ("z = a / b / c;\n", "z=a / b / c;\n"),                  # spaces around `/` stay (comments, regex flags)
    ("if (a) return /x/ .test(b);\n", "if(a)return /x/ .test(b);\n"),
    ('s = "a  b" + \'c ; d\';\n', 's="a  b"+\'c ; d\';\n'),  # strings as they are
    ("f(a,\n  b);\ng();\n", "f(a,b);g();\n"),               # after `,` and `;` a break never ends a statement
    ("if (a) {\n  b();\n}\nc();\n", "if(a){b();}c();\n"),  # after `}` a word never goes on a line
    ("function f() {\n}\nfunction g() {\n}\n", "function f(){}function g(){}\n"),  # no expression goes on with
    ("if (a) {\n  b();\n}\nreturn c;\n", "if(a){b();}return c;\n"),         # `function` or `return`
    ("if (a) {\n}\nfunctional();\n", "if(a){}functional();\n"),           # any word: the same or no program
    ("f = function () {\n}\n(g)();\n", "f=function(){}\n(g)();\n"),       # before `(`: kept
    ("function f() {\n  return\n  x;\n}\n", "function f(){return\nx;}\n"),  # ASI after return: kept
    ("a = b\n++c;\n", "a=b\n++c;\n"),                        # a restricted production: kept
    ("a = b +\n+c;\n", "a=b+ +c;\n"),
    ("x = a < !--b;\n", "x=a< !--b;\n"),                      # never `<!--`
    ("p.then(f)\n  .catch(g);\n", "p.then(f).catch(g);\n"),
    ("const t = `a  b`;\n", "const t = `a  b`;\n"),           # a template literal: left as it is (const too)
])
def test_minify_drops_only_spaces_and_breaks_no_token_needs(source, expected):
    assert minify_script(source) == expected


@pytest.mark.parametrize("source, expected", [
    ("/* c */\na  b {\n  color: red;\n  margin: 0 1px;\n}\n", "a b{color:red;margin:0 1px}"),
    ('a::before { content: "x ;  } y: z"; }', 'a::before{content:"x ;  } y: z"}'),
    ("nav :focus, p a:hover { x: 1 }", "nav :focus,p a:hover{x:1}"),     # a descendant's space stays
    ("@media (max-width: 699px) { a { b: c; } }", "@media (max-width:699px){a{b:c}}"),
])
def test_compact_css(source, expected):
    assert compact_css(source) == expected


needs_node = pytest.mark.skipif(not node_available(), reason="Node (apt-get install nodejs) runs the engines")


@needs_node
def test_the_compacted_ui_is_valid_javascript(tmp_path):
    path = tmp_path / "ui.js"
    path.write_text(minify_script(compact_script(ui_script())), encoding="utf-8")
    done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _queries(module) -> list[dict]:
    """Every calamity in both roles, the epochs, the score, a purchase of four advances and a
    plan, on an empty state and on a mid-game one."""
    advances = list(module.ADVANCES)
    hand = {name: 2 for name in list(module.COMMODITIES)[:5]}
    states = [{}, {"holds": advances[:3], "cities": 4, "tokens": 20, "treasury": 25, "players": 5, "commodities": hand,
                   "coastal_cities": 1, "unit_points": 30}]
    out = []
    for state in states:
        for calamity in module.CALAMITIES:
            for role in ("primary", "secondary"):
                out.append({"command": "resolve", "state": state, "calamity": calamity, "role": role, "options": {}})
        out += [{"command": "epoch", "state": state, "options": {}}, {"command": "score", "state": state, "options": {}},
                {"command": "cost", "state": state, "options": {"buy": advances[3:7]}},
                {"command": "plan", "state": state, "options": {"top": 2}}]
    return out


@needs_node
@pytest.mark.parametrize("rulebook", list(shipped_rulebooks()) + [str(p) for p in shipped_house_rules()],
                         ids=lambda r: r.rsplit("/", 1)[-1])
def test_the_compacted_engine_answers_as_the_engine(rulebook):
    import civdsl

    script = engine(rulebook)
    compact = minify_script(compact_script(script))
    assert len(compact) < len(script)
    queries = _queries(civdsl.load(rulebook).module)
    assert run_engine(compact, queries) == run_engine(script, queries)


@pytest.mark.parametrize("rulebook", ["megaciv", "civ1981"])
def test_the_engine_minified_part_by_part_is_the_whole_engine_minified(rulebook):
    """A build minifies the runtime files once and joins each page's parts as minify_script joins
    lines: the page's engine is byte for byte the whole engine minified."""
    import civdsl
    from civdsl.companion.jsgen import engine_parts
    from civdsl.companion.page import minified_parts
    from companion_harness import checked_edition

    module = civdsl.load(rulebook).module
    parts = engine_parts(checked_edition(rulebook), module)
    whole = "\n".join(parts) + "\n"
    assert minified_parts(parts, whole) == minify_script(compact_script(whole))


@pytest.mark.parametrize("parts", [
    ["a = 1", "/x/.test(b) && f()"],   # a part opening with a regex: only the whole tells
    ["a = b", "/ c"],                  # ... or with a division
    ["x = `template`", "y = 2"],       # a part the scanner cannot read
    ["a = 1 +", "+b", "c()"],          # lines that join across parts
    ["f(", ")", "// only a comment", "g()"],
])
def test_parts_minify_as_their_whole(parts):
    from civdsl.companion.page import minified_parts

    whole = "\n".join(parts) + "\n"
    assert minified_parts(parts, whole) == minify_script(compact_script(whole))
