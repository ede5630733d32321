"""`civdsl lsp`: the language server for editors (civdsl.lsp is the server)."""

from __future__ import annotations

import click

from .common import command, fail


@command(json_mode=False)
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default; editors pass it).")
@click.option("--tcp", "tcp", metavar="HOST:PORT", help="Listen on a TCP port instead (for debugging).")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Write the server's log here.")
def lsp(stdio, tcp, log_file):
    """Run the civdsl language server (Language Server Protocol over stdio) for editors."""
    try:
        import lsprotocol  # noqa: F401  (only whether it is installed)
        import pygls  # noqa: F401
    except ImportError:
        fail("error: `civdsl lsp` needs pygls: pip install 'pygls>=2'")
    import logging
    import threading

    from ..lsp import build_server, warm_up

    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    # build the parser while the server starts, before the first document arrives
    warm = threading.Thread(target=warm_up, daemon=True)
    warm.start()
    server = build_server()
    warm.join()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
