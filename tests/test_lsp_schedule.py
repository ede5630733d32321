"""The language server's scheduling: an analysis whose text an edit waiting behind it has made
stale is given up between passes, and the newer text analysed instead, so what an editor waits for
is the analysis of its latest text, not that of every text before it."""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from civdsl.lsp import Engine
from civdsl.lsp.engine import Superseded
from civdsl.lsp.protocol import Arrivals, handle_messages

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (ROOT / "rulebooks" / "civ1980.civ").read_text(encoding="utf-8")


def _framed(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_edits_read_and_not_yet_handled_are_counted():
    """While the first of two edits is handled the second is read and waiting; while the second is
    handled none waits. Other messages are not edits."""
    change = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {}}
    hover = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}}
    stdin = io.BytesIO(_framed(hover) + _framed(change) + _framed(change))
    arrivals = Arrivals()
    seen: list[tuple[str, bool]] = []

    def handle_message(message):
        if message["method"] == "textDocument/didChange" and not seen[1:]:
            deadline = time.monotonic() + 10
            while arrivals.read < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
        seen.append((message["method"], arrivals.edit_waiting()))

    protocol = SimpleNamespace(structure_message=lambda d: d, handle_message=handle_message)
    asyncio.run(handle_messages(threading.Event(), stdin, protocol, arrivals=arrivals))
    assert seen[1:] == [("textDocument/didChange", True), ("textDocument/didChange", False)]
    assert arrivals.read == arrivals.handled == 2


def test_an_analysis_given_up_keeps_the_last_and_the_next_answers_as_from_scratch():
    engine = Engine()
    doc = engine.open("untitled:a.civ", SOURCE, 1)
    first = engine.analyse(doc)
    at = SOURCE.index('advance "Pottery"')
    cost = int(re.search(r"cost (\d+)", SOURCE[at:]).group(1))
    edited = SOURCE[:at] + "\n# a line\n" + SOURCE[at:].replace(f"cost {cost}", f"cost {cost + 1}", 1)
    engine.update("untitled:a.civ", edited, 2)
    asked: list[int] = []

    def stale() -> bool:  # stale at the second pass boundary: after the parse and the resolver
        asked.append(1)
        return len(asked) >= 2

    with pytest.raises(Superseded):
        engine.analyse(doc, stale)
    assert doc.analysis is first
    again = engine.analyse(doc)
    fresh = Engine()
    scratch = fresh.analyse(fresh.open("untitled:a.civ", edited, 1))
    assert again.version == 2
    assert again.diagnostics.to_json() == scratch.diagnostics.to_json()
    assert again.edition == scratch.edition and again.edition.advances["Pottery"].cost == cost + 1
    assert again.refs().refs == scratch.refs().refs


def test_the_session_publishes_only_the_analysis_of_the_latest_text():
    """An analysis run while an edit waits publishes nothing and leaves its document pending; once
    the edit is handled the document's analysis is published, for the latest version."""
    pytest.importorskip("lsprotocol")
    from lsprotocol import types as T

    from civdsl.lsp.server import Session

    published: list = []
    arrivals = Arrivals()
    server = SimpleNamespace(arrivals=arrivals, text_document_publish_diagnostics=published.append)
    session = Session(server, T)
    session.engine.open("untitled:a.civ", SOURCE, 1)
    arrivals.read = 1  # an edit read, not yet handled
    session.pending.add("untitled:a.civ")
    session.flush()
    assert published == [] and session.pending == {"untitled:a.civ"}
    session.engine.update("untitled:a.civ", re.sub(r"cost (\d+)", "cost x", SOURCE, count=1), 2)
    arrivals.handled = 1
    session.flush()
    assert [p.version for p in published] == [2] and session.pending == set()
    assert any(d.code == "CIV001" for d in published[0].diagnostics)
