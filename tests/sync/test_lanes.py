"""`listok serve`'s two lanes (webapp/lanes.py): the phones' writes wait in
a queue of their own, readers are answered meanwhile, and a write arriving
behind more than admission's budget is answered busy at once with its ticket."""
from __future__ import annotations

import http.client
import json
import threading
import time

import pytest
from waitress.server import create_server

from tests.helpers import issue_pins, make_tournament, open_round, signed_submission
from webapp.admission import BUSY_ENVIRON, Admission
from webapp.lanes import Lanes


def request(port, method, path, body=None, headers=None, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


class Served:
    def __init__(self, app, threads, admission=None):
        self.lanes = Lanes(threads, admission)
        self.server = create_server(app, host="127.0.0.1", port=0, threads=threads, _dispatcher=self.lanes)
        self.lanes.set_thread_count(threads)
        self.closing = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            self.server.run()
        except OSError:
            if not self.closing:  # the socket closed under the loop's select: the end we asked for
                raise

    def __enter__(self):
        self.thread.start()
        return self.server.effective_port

    def __exit__(self, *exc):
        self.closing = True
        self.server.close()
        self.lanes.shutdown()
        self.thread.join(5)


def start_writes(port, queries, running: list, expect: int) -> list[threading.Thread]:
    """POST /api/v1/sheets?<query> for each query, each in a thread of its own; back once `expect`
    of them are in the app (`running` is what the app appends to)."""
    threads = [threading.Thread(target=request, args=(port, "POST", f"/api/v1/sheets?{q}", b"{}")) for q in queries]
    for th in threads:
        th.start()
    deadline = time.monotonic() + 5
    while len(running) < expect and time.monotonic() < deadline:
        time.sleep(0.01)
    return threads


def test_readers_are_answered_while_every_write_thread_waits_and_writes_queue():
    release, started = threading.Event(), []

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/api/v1/sheets":
            started.append(environ["QUERY_STRING"])
            release.wait(10)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [environ.get(BUSY_ENVIRON, "-").encode()]

    with Served(app, threads=4) as port:
        writers = start_writes(port, range(6), started, 2)
        time.sleep(0.1)
        assert len(started) == 2  # 4 threads, 2 of them for readers only: 2 writes run, 4 wait
        t0 = time.monotonic()
        assert request(port, "GET", "/t/1/standings") == (200, b"-")
        assert request(port, "POST", "/api/v1/preview", b"{}") == (200, b"-")  # computed, not a write
        assert time.monotonic() - t0 < 5
        release.set()
        for th in writers:
            th.join(10)
        assert sorted(started) == [str(i) for i in range(6)]  # every write answered once a thread was free


def test_a_write_arriving_too_late_is_marked_busy_and_a_client_cannot_mark_itself():
    seen = []

    def app(environ, start_response):
        seen.append(environ.get(BUSY_ENVIRON))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    admission = Admission(max_writes=10, budget=5.0)
    with Served(app, threads=4, admission=admission) as port:
        request(port, "POST", "/api/v1/sheets", b"{}", {"X-Listok-Busy": "0.001"})
        admission.pace = 10.0  # one write ahead of the budget
        request(port, "POST", "/api/v1/sheets", b"{}")
        request(port, "GET", "/api/v1/table", headers={"X-Listok-Busy": "3"})  # not a write: left alone
    assert seen[0] is None  # the client's own header is dropped
    assert 10.0 <= float(seen[1]) <= 60.0 and admission.refused == 1
    assert seen[2] == "3"


@pytest.mark.parametrize("path, write", [("/api/v1/sheets", True), ("/api/v1/pin", True),
                                         ("/api/v1/preview", False), ("/operator/t/1/desk", False)])
def test_which_requests_take_the_writes_lane(path, write):
    from types import SimpleNamespace

    from webapp.lanes import is_phone_write

    channel = SimpleNamespace(requests=[SimpleNamespace(command="POST", path=path, headers={})])
    assert is_phone_write(channel) is write
    channel.requests[0].command = "GET"
    assert is_phone_write(channel) is False


def test_the_app_answers_a_late_sheet_503_with_its_ticket_and_stores_nothing(app):
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = json.dumps(signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins=pins)).encode()
    admission = app.extensions["admission"]
    admission.pace = 10.0
    admission.lanes = True  # as webapp.lanes.serve sets it
    with Served(app, threads=4, admission=admission) as port:
        status, answer = request(port, "POST", "/api/v1/sheets", body, {"Content-Type": "application/json"})
        assert status == 503
        answer = json.loads(answer)
        assert answer["status"] == "busy" and 10_000 <= answer["retry_after_ms"] <= 60_000
        admission.pace = 0.01
        status, answer = request(port, "POST", "/api/v1/sheets", body, {"Content-Type": "application/json"})
        assert status == 200 and json.loads(answer)["status"] == "accepted"


def test_without_lanes_a_clients_busy_header_is_ignored(app, client):
    """gunicorn has no lanes: a client sending the lanes' header does not refuse its own sheet."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    body = signed_submission(app, tid, 1, 2, [1450, 1000, 550], pins=pins)
    resp = client.post("/api/v1/sheets", json=body, headers={"X-Listok-Busy": "30"})
    assert resp.status_code == 200 and resp.json["status"] == "accepted"


def test_a_retry_of_a_stored_sheet_is_answered_by_the_readers_while_writes_queue(app):
    """The phone's answer was lost and it sends the sheet again: this process stored it, so the
    lanes treat the retry as a read and it is answered from the database at once, not after the
    writes queued ahead of it. A sheet not stored here yet still takes the writes' lane."""
    tid = make_tournament(app, 9)
    pins = issue_pins(app, tid)
    open_round(app, tid)
    stored = json.dumps(signed_submission(app, tid, 1, 1, [1450, 1000, 550], pins=pins)).encode()
    fresh = json.dumps(signed_submission(app, tid, 1, 2, [1450, 1000, 550], pins=pins)).encode()
    release, blocked = threading.Event(), []

    def held(environ, start_response):  # writes that hold every write thread until released
        if environ["QUERY_STRING"] == "block":
            blocked.append(1)
            release.wait(20)
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"held"]
        return app(environ, start_response)

    json_type = {"Content-Type": "application/json"}
    admission = app.extensions["admission"]
    admission.lanes = True
    with Served(held, threads=4, admission=admission) as port:
        status, answer = request(port, "POST", "/api/v1/sheets", stored, json_type)
        assert status == 200 and json.loads(answer)["status"] == "accepted"
        assert admission.was_stored(json.loads(stored)["idempotency_key"])
        blockers = start_writes(port, ["block"] * 3, blocked, 2)
        late = {}
        waiting = threading.Thread(target=lambda: late.update(
            answer=request(port, "POST", "/api/v1/sheets", fresh, json_type, timeout=30)))
        waiting.start()
        try:
            status, answer = request(port, "POST", "/api/v1/sheets", stored, json_type, timeout=5)
            assert status == 200 and json.loads(answer)["replay"] is True
            time.sleep(0.2)
            assert not late  # the new sheet waits for a write thread
        finally:
            release.set()
            for th in (*blockers, waiting):
                th.join(20)
        assert late["answer"][0] == 200 and json.loads(late["answer"][1])["status"] == "accepted"


def test_the_key_is_read_from_the_body_without_consuming_it():
    from waitress.parser import HTTPRequestParser
    from waitress.adjustments import Adjustments

    from webapp.lanes import replay_key

    body = b'{"token": "t", "idempotency_key": "2f1c9a6e-5b1e-4c1a-9d0e-1f2a3b4c5d6e", "content": {}}'
    parser = HTTPRequestParser(Adjustments())
    data = b"POST /api/v1/sheets HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    while data and not parser.completed:
        data = data[parser.received(data):]
    assert parser.completed
    assert replay_key(parser) == "2f1c9a6e-5b1e-4c1a-9d0e-1f2a3b4c5d6e"
    assert parser.get_body_stream().read() == body  # the app still reads all of it
    parser.path = "/api/v1/pin"
    assert replay_key(parser) is None
