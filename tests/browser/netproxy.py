"""A small HTTP proxy in front of a test server, to make the venue network fail
on purpose: `down` answers nothing at all (the Wi-Fi is gone), and
`drop_after_commit` forwards a request, reads the server's answer, and then
closes the connection without passing it on (the server stored the sheet, the
phone never heard). Used by tests/browser/test_phone.py and
benchmarks/sync_bench.py; it only ever listens on and connects to 127.0.0.1."""
from __future__ import annotations

import http.client
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a round's phones connect at once

    def handle_error(self, request, client_address):
        pass  # a client that gave up waiting (a broken pipe) is part of what this proxy is for


class FlakyProxy:
    def __init__(self, upstream: str, *, drop_rate: float = 0.0, seed: int = 1, drop_paths=("/api/v1/sheets",)):
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port
        self.down = False
        self.drop_rate = drop_rate
        self.drop_next = 0  # drop the answers of this many next matching requests, whatever the rate
        self.drop_paths = tuple(drop_paths)
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.dropped = 0
        self.forwarded = 0
        self.refused = 0
        self.log: list[tuple[str, str, int, int]] = []  # (method, path, status, bytes sent to the client)
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       name="flaky-proxy", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def start(self) -> FlakyProxy:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def _drop(self, path: str) -> bool:
        if not path.split("?", 1)[0].startswith(self.drop_paths):
            return False
        with self.lock:
            if self.drop_next > 0:
                self.drop_next -= 1
                self.dropped += 1
                return True
            if self.drop_rate and self.rng.random() < self.drop_rate:
                self.dropped += 1
                return True
        return False

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _forward(self):
                if proxy.down:
                    with proxy.lock:
                        proxy.refused += 1
                    self.close_connection = True  # no answer at all, like a dead network
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                conn = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    out_headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
                    status, reason = resp.status, resp.reason
                finally:
                    conn.close()
                if proxy._drop(self.path):
                    self.close_connection = True  # the server has answered (and committed): the phone never hears
                    return
                with proxy.lock:
                    proxy.forwarded += 1
                self.send_response_only(status, reason)
                for k, v in out_headers:
                    if k.lower() != "content-length":
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                head = sum(len(k) + len(v) + 4 for k, v in out_headers) + len(reason or "") + 40
                with proxy.lock:
                    proxy.log.append((self.command, self.path, status, head + len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _forward

        return Handler
