"""Admission control for the phones' writes (POST /api/v1/…): a backlog never
grows past what the server can answer well inside a phone's 20 s timeout.

A sheet answered after the phone gave up is worse than a quick "busy": the
phone sends it again, at full cost, into the same queue. So each process
counts the phone writes it is answering (after the replay lookup and the
cheap refusals: a replay or a bad token is answered, never counted); when
`max_writes` are in flight, or the ones in flight would take longer than
`budget` seconds at the recent pace,
a new one is answered at once with 503, a Retry-After in seconds (HTTP's
unit) and, in the body, `retry_after_ms`: a ticket, the moment its turn
comes at the recent pace behind the writes in flight and the tickets
handed out before it. outbox.js waits that long (the sheet stays in its
outbox), so a round's refused phones come back one after another at the
pace the server writes, not all at once and not a whole second late.
Readers and the operators' and referees' forms are never refused here: a
desk must not meet a dead end.

The writes in flight have threads of their own, besides the threads that
answer everyone (`listok serve`, gunicorn_conf.py): a sheet waiting for its turn in the group
commit (together.py) only holds a thread, and a whole round's sheets of a
large venue waiting at once make large batches. A few write slots would
send most phones away with a ticket and write the rest a few at a time,
each batch paying the lock, the reads and the commit.

The count is per process (a gunicorn worker counts its own), a lock and a
few numbers: nothing that touches the database.
"""
from __future__ import annotations

import math
import threading
import time
from collections import deque
from contextlib import contextmanager

from flask import current_app, jsonify

# per process, on threads of their own: a round's sheets of a venue of about 140 tables
DEFAULT_MAX_WRITES = 150
DEFAULT_BUDGET = 5.0  # seconds; the phone waits 20
PACE_WINDOW = 32  # writes the pace is the mean of: a group commit's batch and then some


class Busy(Exception):
    def __init__(self, wait: float):
        self.retry_ms = max(1, round(wait * 1000))
        # from the whole milliseconds: a ticket of 11 s computed as 11.000000000002 is 11, not 12
        self.retry_after = max(1, min(60, math.ceil(self.retry_ms / 1000)))
        super().__init__(f"busy, retry after {self.retry_ms} ms")


class Admission:
    def __init__(self, max_writes: int = DEFAULT_MAX_WRITES, budget: float = DEFAULT_BUDGET):
        self.max_writes = max_writes
        self.budget = budget
        self.in_flight = 0
        self.pace = 0.01  # seconds between writes answered: the mean of the last PACE_WINDOW (_interval)
        self.intervals: deque[float] = deque([self.pace] * PACE_WINDOW, maxlen=PACE_WINDOW)
        self.last_done = 0.0  # monotonic time the last write was answered
        self.refused = 0
        self.next_ticket = 0.0  # monotonic time the last refused write was asked to come back at
        self._lock = threading.Lock()

    def _interval(self, start: float) -> float:
        """The time this process took to answer this write, counted from the last write answered
        before it when that was later than this one's start: the pace at which writes leave
        together, whatever holds them (the CPU, the database's write lock, another worker's turn
        on it). A thread's CPU time alone undercounted that pace wherever the lock and not the
        CPU was the limit (several gunicorn workers on PostgreSQL), so tickets brought phones
        back before their turn, to be refused again. The sheets of one group commit are answered
        together: the first one's interval is the whole batch's and the others' almost nothing, so
        the pace is the mean of the last PACE_WINDOW intervals (at the start, the default pace's:
        one slow first write must not send a round's phones away for seconds)."""
        now = time.monotonic()
        interval = now - max(start, self.last_done)
        self.last_done = now
        return interval

    def _ticket(self, wait: float) -> float:
        """Seconds until a refused write's turn: behind the tickets handed out already, so a
        round's phones refused together come back spread over the time their sheets take."""
        self.refused += 1
        now = time.monotonic()
        self.next_ticket = max(self.next_ticket, now + wait) + self.pace
        return min(60.0, self.next_ticket - now)

    @contextmanager
    def slot(self):
        """Hold one write slot while the body runs (the write and its commit), or raise Busy at
        once when too many are in flight or they would take longer than the budget."""
        with self._lock:
            ahead = self.in_flight
            wait = (ahead + 1) * self.pace
            if ahead >= self.max_writes or (ahead and wait > self.budget):
                raise Busy(self._ticket(wait))
            self.in_flight += 1
        start = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1
                self.intervals.append(self._interval(start))
                self.pace = sum(self.intervals) / len(self.intervals)
                idle = self.in_flight == 0
            if idle:
                trim_memory()


_libc = None
_last_trim = 0.0
TRIM_EVERY = 10.0  # seconds


def trim_memory() -> None:
    """After a burst, give the heap the threads freed back to the system (glibc keeps
    it in per-thread arenas otherwise, and the server's RSS stays at its peak).
    At most every TRIM_EVERY seconds, when no phone write is in flight; a no-op
    where there is no glibc."""
    global _libc, _last_trim
    now = time.monotonic()
    if now - _last_trim < TRIM_EVERY:
        return
    _last_trim = now
    if _libc is None:
        try:
            import ctypes

            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


def busy_answer(e: Busy):
    """503 with Retry-After; outbox.js waits that long (the sheet stays on the phone)."""
    response = jsonify({"status": "busy", "retry_after": e.retry_after, "retry_after_ms": e.retry_ms,
                        "message": "The server is busy: the phone keeps the sheet and sends it again."})
    response.status_code = 503
    response.headers["Retry-After"] = str(e.retry_after)
    return response


def write_slots(value) -> int:
    """LISTOK_MAX_WRITES as given (the environment, the app's config), or the default."""
    return int(value or 0) or DEFAULT_MAX_WRITES


def current() -> Admission:
    return current_app.extensions["admission"]


def init_app(app) -> Admission:
    """`app.extensions["admission"]` counts this process's phone writes."""
    admission = Admission(write_slots(app.config.get("LISTOK_MAX_WRITES")),
                          float(app.config.get("LISTOK_WRITE_BUDGET") or DEFAULT_BUDGET))
    app.extensions["admission"] = admission
    return admission
