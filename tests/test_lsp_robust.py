"""The language server survives what an editor (or a broken client) may send: malformed framing,
impossible file names, and bursts of edits. The real server, driven over a pipe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_lsp import HAVE_PYGLS, MEGACIV, ROOT, LspClient, _offset, _position


@pytest.fixture
def client():
    if not HAVE_PYGLS:
        pytest.skip("pygls is not installed (pip install 'pygls>=2'): the language server cannot run")
    lsp = LspClient(ROOT)
    lsp.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {
        "general": {"positionEncodings": ["utf-16"]}}}, timeout=120)
    lsp.notify("initialized", {})
    yield lsp
    if lsp.proc.poll() is None:
        lsp.proc.kill()
        lsp.proc.wait()


def _raw(client: LspClient, data: bytes) -> None:
    client.proc.stdin.write(data)
    client.proc.stdin.flush()


def _open(client: LspClient, uri: str, text: str, version: int = 1) -> None:
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "civdsl", "version": version,
                                                            "text": text}})


def test_a_message_without_content_length_is_dropped_and_later_requests_are_answered(client):
    body = json.dumps({"jsonrpc": "2.0", "id": 999, "method": "shutdown", "params": None}).encode()
    _raw(client, b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body)
    _raw(client, b"Content-Length: nine\r\n\r\n" + body)  # not a number: dropped too
    text = 'language 1\nedition tiny "Tiny"\n'
    uri = "untitled:tiny.civ"
    _open(client, uri, text)
    assert client.diagnostics(uri, 1, timeout=60) == []
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}, timeout=60)
    assert symbols == []
    assert client.request("shutdown", None, timeout=60) is None
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 0


def test_a_nul_in_a_uri_does_not_stop_diagnostics(client, tmp_path):
    text = MEGACIV.read_text(encoding="utf-8").replace('holds("Pottery")', 'holds("Potery")', 1)
    odd = (tmp_path / "mega.civ").as_uri().replace("mega.civ", "me%00ga.civ")
    _open(client, odd, text)
    [diag] = client.diagnostics(odd, 1, timeout=120)
    assert diag["code"] == "CIV010"
    plain = (tmp_path / "plain.civ").as_uri()
    _open(client, plain, text)
    [diag] = client.diagnostics(plain, 1, timeout=120)
    assert diag["code"] == "CIV010"


def test_a_burst_of_edits_is_analysed_once_not_edit_by_edit(client, tmp_path):
    source = MEGACIV.read_text(encoding="utf-8")
    uri = (tmp_path / "burst.civ").as_uri()
    _open(client, uri, source)
    assert client.diagnostics(uri, 1, timeout=120) == []
    at = source.index("\n") + 1  # the start of line 2
    edits = 300
    for version in range(2, edits + 2):
        # type a comment on a new line 2, one character per edit
        column = 0 if version == 2 else version - 2
        change = {"range": {"start": {"line": 1, "character": column}, "end": {"line": 1, "character": column}},
                  "text": "#\n" if version == 2 else "x"}
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
    text = source[:at] + "#" + "x" * (edits - 1) + "\n" + source[at:]
    use = _offset(text, 'holds("Calendar")', 8)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": _position(text, use)},
                           timeout=120)
    assert "**Calendar** (advance)" in hover["contents"]["value"]
    published = [m for m in client.notifications
                 if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
    # one for the opening, then a handful at most for the burst (one per pause in the stream),
    # not one per edit
    assert len(published) <= 20, len(published)
    # the hover analysed the latest text, and its diagnostics went out first
    assert published[-1]["params"]["version"] == edits + 1 and published[-1]["params"]["diagnostics"] == []


def _address_space(limit: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def test_a_huge_base_file_is_held_to_the_compilers_size_limit(tmp_path):
    """A house rule extending a 1,000 MB (sparse) base: the server places the base's CIV005 without
    reading the base whole (under a 1.5 GB address space, reading it would fail)."""
    if not HAVE_PYGLS:
        pytest.skip("pygls is not installed")
    big = tmp_path / "big.civ"
    with open(big, "wb") as fh:
        fh.truncate(1_000_000_000)
    house = tmp_path / "house.civ"
    text = 'language 1\nedition h "H" extends "big.civ"\n'
    house.write_text(text)
    lsp = LspClient(ROOT, preexec_fn=_address_space(1_500_000_000))
    try:
        lsp.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}}, timeout=120)
        lsp.notify("initialized", {})
        _open(lsp, house.as_uri(), text)
        published = lsp.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == big.resolve().as_uri(), timeout=120)
        codes = {d["code"] for d in published["params"]["diagnostics"]}
        assert "CIV005" in codes, published
    finally:
        lsp.proc.kill()
        lsp.proc.wait()


def test_a_request_whose_params_do_not_validate_gets_an_invalid_params_reply(client):
    """No silent drop: the client would wait for ever. Later requests are still answered."""
    client.send({"id": 900, "method": "textDocument/hover", "params": {"textDocument": 5, "position": "x"}})
    reply = client.wait(lambda m: m.get("id") == 900 and "method" not in m, timeout=30)
    assert reply["error"]["code"] == -32602, reply
    uri = (ROOT / "rulebooks" / "megaciv.civ").as_uri()
    _open(client, uri, MEGACIV.read_text(encoding="utf-8"))
    client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
                   timeout=120)  # answered, without an error


def test_a_burst_of_typing_in_a_rule_is_analysed_a_few_times_not_edit_by_edit(client, tmp_path):
    """Letters typed into a string change the rules (each edit needs the whole check, unlike the
    comment above): the edits that arrive while an analysis runs are applied together and
    analysed once."""
    source = MEGACIV.read_text(encoding="utf-8")
    uri = (tmp_path / "typing.civ").as_uri()
    _open(client, uri, source)
    assert client.diagnostics(uri, 1, timeout=120) == []
    at = _position(source, source.index('summary "') + len('summary "'))
    edits = 200
    for version in range(2, edits + 2):
        spot = {"line": at["line"], "character": at["character"] + version - 2}
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"range": {"start": spot, "end": spot},
                                                                     "text": "y"}]})
    client.diagnostics(uri, edits + 1, timeout=120)
    published = [m for m in client.notifications
                 if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
    assert len(published) <= 20, len(published)
