"""A loopback TCP proxy that can drop its connections on cue (fault tests).

The driver talks to the proxy; the proxy forwards bytes to Neo4j. When armed, it closes
both sides of a connection the moment the client sends a message containing a marker
(for example the writer's ``UNWIND $rows``), before forwarding it: a connection dropped in
the middle of a transaction, which the server rolls back.

>>> with Proxy(("127.0.0.1", 9)) as proxy:   # nothing needs to listen until a client connects
...     proxy.uri.startswith("bolt://127.0.0.1:")
True
"""

from __future__ import annotations

import socket
import threading


class Proxy:
    def __init__(self, target: tuple[str, int]):
        """Forward 127.0.0.1:<port> to ``target``. Use as a context manager."""
        self.target = target
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.marker = b""
        self.drop_at: set[int] = set()  # drop when the marker is seen for the n-th time
        self.seen = 0
        self.drops = 0
        self.connections: list[tuple[socket.socket, socket.socket]] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def drop_when(self, marker: bytes, occurrences: set[int]) -> None:
        with self.lock:
            self.marker, self.drop_at, self.seen = marker, set(occurrences), 0

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _should_drop(self, data: bytes) -> bool:
        with self.lock:
            if not self.marker or self.marker not in data:
                return False
            self.seen += 1
            if self.seen in self.drop_at:
                self.drops += 1
                return True
            return False

    def _pump(self, src: socket.socket, dst: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if from_client and self._should_drop(data):
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        with self.lock:
            for pair in self.connections:
                for s in pair:
                    try:
                        s.close()
                    except OSError:
                        pass

    def __enter__(self) -> "Proxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
