"""Who stands behind a referee's decision. Only a referee account decides a case, but an admin
creates accounts, sets roles and assigns them: an admin could make a referee account during a
tournament and decide under it. So every decision records where its account came from (who
created it and when, who made it a referee, who assigned it to the tournament), the case shows
it, and the referees' queue names every referee account of the tournament that was created,
made a referee or assigned after the tournament's first round was published
(docs/SECURITY.md, "Roles")."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from ..extensions import db
from ..models import AuditEntry, Assignment, Case, Round, User
from .common import audit


@dataclass
class Provenance:
    username: str
    label: str
    created_by: str
    created_at: datetime | None
    role_by: str | None  # the last change of role to referee, if any
    role_at: datetime | None
    assigned_by: str | None
    assigned_at: datetime | None
    during: bool  # any of these after the tournament's first round was published

    def as_dict(self) -> dict:
        def iso(d):
            return d.isoformat(timespec="seconds") if d else None
        return {"account": self.username, "label": self.label, "created_by": self.created_by,
                "created_at": iso(self.created_at), "role_by": self.role_by, "role_at": iso(self.role_at),
                "assigned_by": self.assigned_by, "assigned_at": iso(self.assigned_at), "during": self.during}


def tournament_started(tid: int) -> datetime | None:
    return db.session.scalar(select(func.min(Round.published_at)).where(Round.tournament_id == tid))


def _role_change(u: User) -> tuple[str | None, datetime | None]:
    """The last `user.role` entry of the server log that made `u` a referee."""
    for e in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id.is_(None),
                                                         AuditEntry.action == "user.role")
                                .order_by(AuditEntry.id.desc())):
        p = e.payload if isinstance(e.payload, dict) else {}
        if p.get("user") == u.username and p.get("to") == "referee":
            return e.actor, e.at
    return None, None


def provenance(u: User, tid: int) -> Provenance:
    a = db.session.get(Assignment, (u.id, tid))
    role_by, role_at = _role_change(u)
    start = tournament_started(tid)
    times = [x for x in (u.created_at, role_at, a.created_at if a else None) if x is not None]
    return Provenance(u.username, u.label, u.created_by or "", u.created_at, role_by, role_at,
                      a.created_by if a else None, a.created_at if a else None,
                      start is not None and any(x > start for x in times))


def record_decider(c: Case, u: User) -> None:
    """The account that decided `c`, with where it came from: on the case and in the chain."""
    p = provenance(u, c.tournament_id).as_dict()
    c.payload = {**(c.payload or {}), "decider": p}
    audit("case.decider", u.label, {"case": c.id, **p}, c.tournament_id)


def new_referees(tournament_ids) -> list[tuple[int, Provenance]]:
    """The referee accounts of these tournaments created, made referees or assigned during them."""
    out = []
    ids = sorted(tournament_ids)
    if not ids:
        return out
    rows = db.session.execute(select(Assignment.tournament_id, User).join(User, User.id == Assignment.user_id)
                              .where(Assignment.tournament_id.in_(ids), User.role == "referee")
                              .order_by(Assignment.tournament_id, User.username)).all()
    for tid, u in rows:
        p = provenance(u, tid)
        if p.during:
            out.append((tid, p))
    return out
