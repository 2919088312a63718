"""Calling a referee to a table: from the table's sheet or a player's own page.

A call names the table (and an optional reason); the referees of the tournament
see it in their queue, one of them takes it ("referee Novák is coming"), and it
is closed with a note. Each step is an entry in the tournament's chain. A call
is not a case: it decides nothing and changes no result (no version bump).

Calls are rate-limited per table: while one is open or taken, calling again
answers that call; after it, a new call only CALL_GAP_SECONDS after the last
one, and at most MAX_CALLS_PER_ROUND per table and round.

Like every service these change the caller's session and leave the commit to
the caller; a refused call raises ServiceError and changes nothing.
"""
from __future__ import annotations

import hashlib
from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import select, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import RefereeCall, Tournament, utcnow
from .common import ServiceError, StaleError, audit
from .rounds import current_round

REASON_MAX_CHARS = 200
NOTE_MAX_CHARS = 500
CALL_GAP_SECONDS = 60
MAX_CALLS_PER_ROUND = 6
ACTIVE = ("open", "taken")


def _clean(text: str | None, limit: int) -> str:
    return " ".join((text or "").split())[:limit]


def table_calls(tid: int, round_no: int, table_no: int) -> list[RefereeCall]:
    return list(db.session.scalars(
        select(RefereeCall).where(RefereeCall.tournament_id == tid, RefereeCall.round == round_no,
                                  RefereeCall.table == table_no).order_by(RefereeCall.id)))


def place_call(t: Tournament, round_no: int, table_no: int, reason: str | None = None, *,
               caller: str = "table", now: datetime | None = None) -> RefereeCall:
    """A call from table `table_no` of round `round_no` (the round being played).
    Calling while the table's last call is still open or taken answers that call."""
    now = now or utcnow()
    r = current_round(t)
    if r is None or r.number != round_no or r.status != "published":
        raise ServiceError(_("Round %(n)d is not being played now: ask a referee in person.", n=round_no))
    if not any(tab.number == table_no for tab in r.tables):
        raise ServiceError(_("Round %(r)d has no table %(t)d.", r=round_no, t=table_no), field="table")
    earlier = table_calls(t.id, round_no, table_no)
    active = next((c for c in reversed(earlier) if c.status in ACTIVE), None)
    if active is not None:
        return active
    if len(earlier) >= MAX_CALLS_PER_ROUND:
        raise ServiceError(_("Table %(t)d has called the referee %(n)d times this round: ask a referee in "
                             "person.", t=table_no, n=MAX_CALLS_PER_ROUND))
    if earlier:
        wait = CALL_GAP_SECONDS - int((now - earlier[-1].created_at).total_seconds())
        if wait > 0:
            raise ServiceError(_("The referee was called from table %(t)d a moment ago. You can call again "
                                 "in %(s)d seconds.", t=table_no, s=wait))
    reason = _clean(reason, REASON_MAX_CHARS)
    call = RefereeCall(tournament_id=t.id, round=round_no, table=table_no, reason=reason, caller=caller[:40],
                       status="open", created_at=now, note="")
    db.session.add(call)
    db.session.flush()
    audit("call.open", caller_label(caller, table_no),
          {"call": call.id, "round": round_no, "table": table_no, "reason": reason}, t.id)
    return call


def caller_label(caller: str, table_no: int) -> str:
    return f"table {table_no}" if caller == "table" else caller


def get_call(call_id: int) -> RefereeCall | None:
    return db.session.get(RefereeCall, call_id)


def _move(call: RefereeCall, from_states: tuple, values: dict) -> None:
    """Change the call only if it is still in `from_states` in the database: of two
    referees taking it at the same moment, the second is refused."""
    result = db.session.execute(
        update(RefereeCall).where(RefereeCall.id == call.id, RefereeCall.status.in_(from_states))
        .values(**values).execution_options(synchronize_session=False))
    if result.rowcount != 1:
        db.session.refresh(call)
        if call.status == "taken":
            raise StaleError(_("Referee %(name)s has already taken this call.", name=call.taken_by or "?"))
        raise StaleError(_("This call is already closed."))
    for attr, value in values.items():
        set_committed_value(call, attr, value)


def take(call: RefereeCall, actor: str, now: datetime | None = None) -> RefereeCall:
    now = now or utcnow()
    _move(call, ("open",), {"status": "taken", "taken_by": actor[:120], "taken_at": now})
    audit("call.take", actor, {"call": call.id, "round": call.round, "table": call.table}, call.tournament_id)
    return call


def close(call: RefereeCall, actor: str, note: str | None, now: datetime | None = None) -> RefereeCall:
    note = _clean(note, NOTE_MAX_CHARS)
    if not note:
        raise ServiceError(_("Write a short note on what was done."), field="note")
    now = now or utcnow()
    values = {"status": "closed", "closed_by": actor[:120], "closed_at": now, "note": note}
    if call.status == "open":  # closed without being taken first: the one who closed it came
        values.update(taken_by=actor[:120], taken_at=now)
    _move(call, ACTIVE, values)
    audit("call.close", actor, {"call": call.id, "round": call.round, "table": call.table, "note": note},
          call.tournament_id)
    return call


def state(call: RefereeCall | None) -> dict:
    """What the caller's phone shows (JSON)."""
    if call is None:
        return {"status": "none"}
    return {"id": call.id, "status": call.status, "reason": call.reason, "taken_by": call.taken_by or "",
            "note": call.note if call.status == "closed" else "", "table": call.table, "round": call.round}


def last_call(tid: int, round_no: int, table_no: int) -> RefereeCall | None:
    return db.session.scalar(
        select(RefereeCall).where(RefereeCall.tournament_id == tid, RefereeCall.round == round_no,
                                  RefereeCall.table == table_no).order_by(RefereeCall.id.desc()).limit(1))


def active_calls(tournament_ids: set[int] | None, now: datetime | None = None) -> dict:
    """The open and taken calls of the tournaments `tournament_ids` (None: all), open
    first, oldest first (the longest waiting table first), and a fingerprint that
    changes whenever the list would look different."""
    scope = () if tournament_ids is None else (RefereeCall.tournament_id.in_(tournament_ids),)
    rows = list(db.session.scalars(
        select(RefereeCall).where(RefereeCall.status.in_(ACTIVE), *scope).order_by(RefereeCall.id)))
    rows.sort(key=lambda c: (c.status != "open", c.id))
    ids = {c.tournament_id for c in rows}
    names = {i: n for i, n in db.session.execute(select(Tournament.id, Tournament.name).where(Tournament.id.in_(ids)))} \
        if ids else {}
    shown = repr([(c.id, c.status, c.taken_by) for c in rows])
    now = now or utcnow()
    ages = {c.id: max(0, int((now - c.created_at).total_seconds())) for c in rows}
    return {"calls": rows, "names": names, "ages": ages, "several": len(ids) > 1,
            "fingerprint": hashlib.sha1(shown.encode()).hexdigest()[:12]}
