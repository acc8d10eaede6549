"""A TCP relay on 127.0.0.1 to a Selenium Grid, for Playwright's DevTools connection to a Grid
session (browser/grid.py starts it as a process of its own, from this file's path).

A process of its own: its threads never wait for the worker's interpreter lock while Playwright's
client holds it, and killing it closes every connection at once, which Playwright sees as the
browser disconnecting: that is how a session whose node died is cut. It exits by itself when its
parent goes (its stdin closes). Measured against a connection straight to the hub: a run 1.55 s
against 1.52 s (benchmarks/README.md).

    python relay.py      # prints the port it listens on, reads "HOST PORT [tls]", then relays

It is started before the Grid is asked for a session and learns where to relay once the Grid
has answered (the session's node, or the hub): the process starts while the node starts the
browser.
"""

from __future__ import annotations

import signal
import socket
import ssl
import sys
import threading


def pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    for s in (source, sink):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(server: socket.socket, host: str, port: int, tls: bool) -> None:
    while True:
        client, _ = server.accept()
        try:
            upstream = socket.create_connection((host, port), timeout=10)
            if tls:
                upstream = ssl.create_default_context().wrap_socket(upstream, server_hostname=host)
            upstream.settimeout(None)
        except OSError as exc:
            print(f"relay: cannot reach {host}:{port}: {exc}", file=sys.stderr, flush=True)
            client.close()
            continue
        # DevTools messages are small and answered one by one: without TCP_NODELAY each write
        # would wait for the last one's acknowledgement (Nagle's algorithm, up to 40 ms a message).
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


def main() -> None:
    # Ctrl-C in the terminal reaches the whole process group: the run it belongs to handles it and
    # cuts the relay (or its stdin closes); the relay itself must not print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = socket.create_server(("127.0.0.1", 0))
    print(server.getsockname()[1], flush=True)
    where = sys.stdin.readline().split()
    if len(where) < 2:
        return  # the parent went away, or gave up before the Grid answered
    host, port, tls = where[0], int(where[1]), where[2:] == ["tls"]
    threading.Thread(target=serve, args=(server, host, port, tls), daemon=True).start()
    sys.stdin.read()  # until the parent closes it or goes away


if __name__ == "__main__":
    main()
