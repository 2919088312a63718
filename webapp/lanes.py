"""Two lanes in `listok serve`'s waitress: the phones' writes and everything else.

Waitress hands every request to its threads from one FIFO queue. At the end
of a round 130 phones send their sheets at once; sheets take their turn on
the database, so with one queue a standings page or a table's state poll
waits behind all of them, and admission control (webapp/admission.py) had to
answer most sheets "busy" at once to keep threads free, which cost the phones
a second each and the server the refusals' work.

Here phone writes (POST /api/v1/…) wait in a queue of their own. Two threads
(one with 3 threads or fewer) answer only the other queue: readers, desks,
referees; the rest answer writes first and the other queue when no write
waits. A waiting write costs nothing but its place in the queue; the app sees
a write arrives: one that the writes ahead of it would keep waiting longer
than admission's budget is answered busy at once (with its ticket) instead.
A phone's retry of a sheet this process has stored (its answer was lost on
the way) is a read: it goes to the readers, who answer it from the database
without waiting for the writes' turn.
"""
from __future__ import annotations

import re
import threading
from collections import deque

from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

from .admission import BUSY_HEADER

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PHONE_API = "/api/v1/"
NOT_WRITES = ("/api/v1/preview",)  # the live points while sums are typed: computed, nothing stored


SHEETS = "/api/v1/sheets"
KEY_RE = re.compile(rb'"idempotency_key"\s*:\s*"([0-9A-Za-z-]{8,64})"')
KEY_WITHIN = 4096  # bytes of the body searched for the key (outbox.js sends it before the content)


def replay_key(request) -> str | None:
    """The idempotency key of a sheet's body, if it is near the start: read without
    consuming the body (waitress keeps it in a buffer the app reads later)."""
    if request.path != SHEETS or request.body_rcv is None:
        return None
    try:
        head = request.body_rcv.getbuf().get(KEY_WITHIN)
    except (OSError, ValueError):
        return None
    found = KEY_RE.search(head)
    return found.group(1).decode() if found else None


def is_phone_write(channel) -> bool:
    requests = getattr(channel, "requests", None)
    if not requests:
        return False
    request = requests[0]
    path = request.path or ""
    return request.command in WRITE_METHODS and path.startswith(PHONE_API) and not path.startswith(NOT_WRITES)


def make_server(app, host: str, port: int, threads: int, **adjustments):
    """waitress' server with the two lanes, listening; admission control sees the writes waiting.
    Its run() serves."""
    import logging

    admission = app.extensions.get("admission")
    lanes = Lanes(threads, admission)
    if "together" in app.extensions:
        app.extensions["together"].lanes = lanes  # a batch's leader waits for the writes a thread will take
    if admission is not None:
        admission.lanes = True
        if not app.config.get("LISTOK_MAX_WRITES"):
            admission.max_writes = lanes.write_threads  # the lane bounds them; its queue is what waits
    server = create_server(app, host=host, port=port, threads=threads, _dispatcher=lanes, **adjustments)
    logging.basicConfig()
    lanes.set_thread_count(threads)
    return server


def serve(app, host: str, port: int, threads: int, **adjustments) -> None:
    """waitress.serve with the two lanes."""
    server = make_server(app, host, port, threads, **adjustments)
    server.print_listen("Serving on http://{}:{}")
    server.run()


class Lanes(ThreadedTaskDispatcher):
    def __init__(self, threads: int, admission=None):
        super().__init__()
        self.admission = admission
        self.writes: deque = deque()
        self.reserved = 1 if threads <= 3 else 2  # threads 0 … reserved-1 never take a write
        self.write_threads = threads - self.reserved
        # idle threads wait on the condition of their kind, so that a request wakes one thread that
        # can take it (waking all of them costs every request a round of thread switches)
        self.readers_cv = threading.Condition(self.lock)
        self.idle = {True: 0, False: 0}  # idle threads by readers_only

    def add_task(self, task) -> None:
        write = is_phone_write(task)
        if write:
            headers = task.requests[0].headers
            headers.pop(BUSY_HEADER, None)
            key = replay_key(task.requests[0]) if self.admission is not None else None
            if key is not None and self.admission.was_stored(key):
                write = False  # a retry whose answer was lost: the readers answer it from the database
        if write:
            ticket = self.admission.on_arrival(len(self.writes)) if self.admission is not None else None
            if ticket is not None:  # answered busy at once, by whichever thread is free
                headers[BUSY_HEADER] = f"{ticket:.3f}"
                write = False
        with self.lock:
            (self.writes if write else self.queue).append(task)
            if not write and self.idle[True]:
                self.readers_cv.notify()
            else:
                self.queue_cv.notify()

    def _next(self, readers_only: bool):
        if not readers_only and self.writes:
            return self.writes.popleft()
        if self.queue:
            return self.queue.popleft()
        return None

    def handler_thread(self, thread_no: int) -> None:
        readers_only = thread_no < self.reserved
        cv = self.readers_cv if readers_only else self.queue_cv
        while True:
            with self.lock:
                task = self._next(readers_only)
                while task is None and self.stop_count == 0:
                    self.active_count -= 1
                    self.idle[readers_only] += 1
                    cv.wait()
                    self.idle[readers_only] -= 1
                    self.active_count += 1
                    task = self._next(readers_only)
                if task is None or self.stop_count > 0:
                    if task is not None:
                        (self.writes if is_phone_write(task) else self.queue).appendleft(task)
                    self.active_count -= 1
                    self.stop_count -= 1
                    self.threads.discard(thread_no)
                    self.thread_exit_cv.notify()
                    break
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)

    def set_thread_count(self, count: int) -> None:
        super().set_thread_count(count)
        with self.lock:
            self.readers_cv.notify_all()  # stopping threads: the readers' ones too

    def shutdown(self, cancel_pending: bool = True, timeout: int = 5) -> bool:
        with self.lock:
            self.queue.extend(self.writes)
            self.writes.clear()
        return super().shutdown(cancel_pending, timeout)
