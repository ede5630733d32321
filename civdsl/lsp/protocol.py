"""The editor's side of the pipe: positions in the client's units, and the stdio message loop
(pygls's, made to survive malformed framing)."""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Callable

from .files import FileInfo

log = logging.getLogger("civdsl.lsp")

def to_units(info: FileInfo, line: int, column: int, units: Callable[[str], int]) -> tuple[int, int]:
    """(line, code-point column) of the normalised text -> (line, client units) of the buffer."""
    if 0 <= line < len(info.lines):
        n = units(info.lines[line][:column])
        if line == 0 and info.bom:
            n += units("\ufeff")
        return line, n
    return line, column


def from_units(info: FileInfo, line: int, character: int, units: Callable[[str], int]) -> int:
    """A client position -> an offset in the normalised text."""
    if line >= len(info.lines):
        return len(info.text)
    text = info.lines[line]
    if line == 0 and info.bom:
        character = max(0, character - units("\ufeff"))
    count = 0
    col = 0
    for ch in text:
        if count >= character:
            break
        count += units(ch)
        col += 1
    return info.offset(line, col)


# A message longer than this is not one an editor sends (a rulebook is at most 2 MB, 12 MB as
# JSON-escaped UTF-16 at worst): its header is dropped like a malformed one.
MAX_MESSAGE = 64 * 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*\r?\n\Z", re.IGNORECASE)


def read_messages(stdin, deliver) -> None:
    """Read framed messages from `stdin` (blocking; run in a thread of its own), handing each body
    to `deliver`, then None at the end of the stream.

    pygls reads header lines until an empty one and then a body of Content-Length bytes. A
    header block without Content-Length made it skip the empty line and read the body and every
    later message as header lines, so that no request was ever answered again (`exit`
    included). Here such a message is dropped: its body (which cannot be delimited) runs into
    the next message's header line, and a line that *ends* with a Content-Length header starts
    a new message, so the stream is back in step at the next message."""
    length = None
    try:
        while True:
            line = stdin.readline()
            if not line:
                break
            header = _CONTENT_LENGTH.search(line)
            if header is not None:
                length = _announced(int(header.group(1)))
            elif line.strip():
                continue  # another header (Content-Type), or what is left of a dropped message
            elif length is None:
                log.warning("dropped a message without Content-Length")
            else:
                body = stdin.read(length)
                length = None
                if not body:
                    break
                deliver(body)
    finally:
        deliver(None)


_EDIT = b'"textDocument/didChange"'


class Arrivals:
    """The edits read from the editor and not yet handled: the reading thread counts those it
    reads, the event loop those it hands on, each writing its own count. An analysis running
    while an edit waits answers for a text that is already stale (`edit_waiting`)."""

    def __init__(self):
        self.read = 0
        self.handled = 0

    def edit_waiting(self) -> bool:
        return self.read > self.handled


async def handle_messages(stop_event, stdin, protocol, on_error=None, arrivals: Arrivals | None = None) -> None:
    """Handle the editor's messages in order as they arrive (read by a thread of their own, so
    that they queue up while an analysis runs). The loop yields to callbacks the handlers
    scheduled (the server's analyses) only once no message is waiting: a burst of edits (typing,
    a paste, a find-and-replace) that arrived during an analysis is applied whole and analysed
    once, while an edit that finds the server idle is analysed at once. A body that is not JSON,
    or not a message, is logged and dropped as pygls does."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue = asyncio.Queue()
    arrivals = arrivals if arrivals is not None else Arrivals()

    def deliver(body: bytes | None) -> None:
        if body is not None and _EDIT in body:
            arrivals.read += 1
        loop.call_soon_threadsafe(inbox.put_nowait, body)

    threading.Thread(target=read_messages, args=(stdin, deliver), name="civdsl-lsp-reader", daemon=True).start()
    while not stop_event.is_set():
        body = await inbox.get()
        if body is None:
            break
        if _EDIT in body:
            arrivals.handled += 1
        _handle(body, protocol, on_error)


def _announced(length: int) -> int | None:
    """A message's announced length; None (the message is dropped) for one no editor sends."""
    if length > MAX_MESSAGE:
        log.warning("dropped a message announcing %d bytes", length)
        return None
    return length


def _handle(body: bytes, protocol, on_error) -> None:
    """Hand one message to pygls; one that is not JSON, or not a message, is logged and dropped,
    and a request among them answered with a JSON-RPC error (the editor would wait for ever)."""
    try:
        protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))
    except Exception as exc:
        log.exception("dropped a message that could not be handled")
        _refuse_request(body, exc, protocol)
        if on_error is not None:
            on_error(exc, None)


def _refuse_request(body: bytes, exc: Exception, protocol) -> None:
    """Answer a request that could not be handled: -32602 (invalid params) when its params do not
    validate, -32600 (invalid request) when it is not a request pygls can read."""
    from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest

    try:
        message = json.loads(body)
    except ValueError:
        return
    if not isinstance(message, dict) or "method" not in message or not isinstance(message.get("id"), (int, str)):
        return  # a notification, or not a message: nothing to answer
    if not isinstance(exc, JsonRpcException):
        exc = JsonRpcInvalidRequest()
    if isinstance(exc, JsonRpcInvalidParams):
        exc = JsonRpcInvalidParams(f"the params of `{str(message['method'])[:80]}` do not validate")
    try:
        protocol._send_response(message["id"], error=exc.to_response_error())
    except Exception:
        log.exception("could not answer the refused request")


def _own_stdin():
    """A reader of its own over standard input: the reading thread may still wait in it when the
    interpreter exits, and waiting in `sys.stdin`'s own would hold the lock the exit takes."""
    import os

    return open(os.dup(sys.stdin.fileno()), "rb")


def framing_tolerant(server_class):
    """`server_class` whose stdio loop is `handle_messages`."""
    from pygls.io_ import StdoutWriter

    class Server(server_class):
        arrivals = None  # the edits read and not yet handled (`Arrivals`), while the stdio loop runs

        def start_io(self, stdin=None, stdout=None):
            import asyncio
            import threading

            self._stop_event = threading.Event()
            self.arrivals = Arrivals()
            self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
            try:
                asyncio.run(handle_messages(self._stop_event, stdin or _own_stdin(), self.protocol,
                                            lambda exc, _kind: log.error("%s", exc), self.arrivals))
            except BrokenPipeError:
                log.error("the connection to the editor is lost: shutting down")
            except (KeyboardInterrupt, SystemExit):
                pass
            finally:
                self.shutdown()

    return Server
