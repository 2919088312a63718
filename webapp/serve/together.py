"""Group commit for the phones' sheets: the sheets of one tournament that
wait for its turn are written together, in one transaction.

Every phone sheet takes the tournament's lock (its hash chain has one head), so at
the end of a round the sheets wait in line for it anyway. Here, per process, the
first sheet of a tournament to arrive leads: it takes every sheet waiting behind it
(one per table and per key) and writes them all with `services.sheet_submit.submit_together`
— the lock, the tables' read, the players' PIN rows, the INSERTs of the submissions
and of the chain entries, the version bump and the commit once for all of them —
then hands each sheet's answer to its request's thread and the lead to the first
sheet still waiting. Each sheet is checked and chained exactly as alone; a sheet
for a table already in the batch waits for the next one, so it sees the first
one's row. If the batch fails as a whole (a key stored meanwhile by another
process, a lost connection), it is rolled back and every sheet of it goes alone
(`sheet_submit.submit`), as before.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager

from flask import current_app
from flask_babel import get_locale

from ..extensions import db
from ..services import sheet_submit, sheets

MAX_TOGETHER = 32
GATHER = 0.005  # seconds a leader waits at most for sheets that are being read by other threads
ALONE = object()  # the batch failed: this sheet is written by its own request


class _Waiting:
    __slots__ = ("sub", "table", "locale", "turn", "result", "done")

    def __init__(self, sub, table: tuple[int, int], locale: str):
        self.sub, self.table, self.locale = sub, table, locale
        self.turn = threading.Event()  # set when its answer is there, or when it is its turn to lead
        self.result = None
        self.done = False


class Together:
    def __init__(self, max_together: int = MAX_TOGETHER, gather: float = GATHER):
        self.max_together, self.gather = max_together, gather
        self._lock = threading.Lock()
        self._queued = threading.Condition(self._lock)
        self._waiting: dict[int, deque[_Waiting]] = {}  # by tournament; a tournament here has a leader
        self.arriving = 0  # sheets whose requests are being read, not queued yet (`coming`)

    @contextmanager
    def coming(self):
        """Around reading a sheet's request: a leader waits a few milliseconds for the sheets being
        read by other threads at that moment, so that they join its batch instead of each
        leading one of their own after it (a batch of six costs about what one sheet alone does)."""
        with self._lock:
            self.arriving += 1
        mine = [True]
        try:
            yield mine
        finally:
            with self._lock:
                if mine[0]:  # answered without being queued (a replay, a refusal, busy)
                    self._arrived(mine)

    def _arrived(self, mine: list) -> None:
        """Once per `coming`, the lock held: no longer arriving."""
        mine[0] = False
        self.arriving -= 1
        self._queued.notify_all()

    def submit(self, sub, place: tuple[int, int, int], coming: list | None = None) -> sheets.Answer:
        """Store `sub` (its token and key checked by sheet_submit.early_answer, which read its `place`:
        tournament, round, table) and return its answer, or raise its SyncRefusal: as
        `sheet_submit.submit(sub, peeked=True)` and a commit would. `coming`: what `coming()` yielded
        for this request."""
        tid, round_no, table_no = place
        if db.session().in_transaction():  # nothing waits holding a transaction (on SQLite: the write lock)
            db.session.commit()
        me = _Waiting(sub, (round_no, table_no), str(get_locale()))
        with self._lock:
            queue = self._waiting.get(tid)
            lead = queue is None
            if lead:
                queue = self._waiting[tid] = deque()
            queue.append(me)
            if coming and coming[0]:
                self._arrived(coming)
            else:
                self._queued.notify_all()
        if not lead:
            me.turn.wait()
        if not me.done:
            self._lead(tid)
        if me.result is ALONE:
            answer = sheet_submit.submit(sub, peeked=True)
            db.session.commit()
            return answer
        if isinstance(me.result, sheets.SyncRefusal):
            raise me.result
        return me.result

    def _take(self, tid: int) -> list[_Waiting]:
        """The leader's sheet (the first waiting) and those behind it, one per table and per key."""
        with self._lock:
            queue = self._waiting[tid]
            deadline = time.monotonic() + self.gather
            while len(queue) < self.max_together and self.arriving:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._queued.wait(left)
            batch, tables, keys, left = [], set(), set(), deque()
            while queue:
                w = queue.popleft()
                if len(batch) < self.max_together and w.table not in tables and w.sub.idempotency_key not in keys:
                    batch.append(w)
                    tables.add(w.table)
                    keys.add(w.sub.idempotency_key)
                else:
                    left.append(w)
            queue.extend(left)
        return batch

    def _lead(self, tid: int) -> None:
        batch = self._take(tid)
        results: list = [ALONE] * len(batch)
        try:
            results = sheet_submit.submit_together(tid, [w.sub for w in batch], [w.table for w in batch],
                                             [w.locale for w in batch])
            db.session.commit()
        except Exception:
            db.session.rollback()
            results = [ALONE] * len(batch)
            current_app.logger.info("%d phone sheets of tournament %d go alone", len(batch), tid, exc_info=True)
        finally:
            for i, w in enumerate(batch):  # every sheet of the batch is answered, come what may
                w.result, w.done = (results[i] if i < len(results) else ALONE), True
                w.turn.set()
            with self._lock:
                queue = self._waiting[tid]
                if queue:
                    queue[0].turn.set()  # the lead passes to the first sheet still waiting
                else:
                    del self._waiting[tid]


def current() -> Together:
    return current_app.extensions["together"]


def init_app(app) -> Together:
    together = app.extensions["together"] = Together(int(app.config.get("LISTOK_MAX_TOGETHER") or MAX_TOGETHER))
    return together
