"""Helpers every service uses: loading with a clear 404, stale-version checks, audit."""
from __future__ import annotations

from flask import abort
from flask_babel import gettext as _
from sqlalchemy import select, text, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import AuditEntry, Tournament, utcnow


class ServiceError(ValueError):
    """A refused action: the message is shown to the user, nothing was changed."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class StaleError(ServiceError):
    pass


def get_tournament(tid: int) -> Tournament:
    t = db.session.get(Tournament, tid)
    if t is None:
        abort(404)
    return t


def check_version(t: Tournament, version) -> None:
    """Refuse an edit made on a page loaded before someone else changed the tournament."""
    try:
        seen = int(version)
    except (TypeError, ValueError):
        seen = -1
    if seen != t.version:
        raise StaleError(_("Someone changed this tournament since you opened the page. "
                           "Nothing was saved: reload and check before trying again."))


def bump(t: Tournament) -> None:
    """Count a change of the tournament. The UPDATE only matches the version this
    request read: a concurrent change committed meanwhile (another operator's
    tab, a phone) makes it match nothing, and this request is refused instead
    of silently writing over the other one (on PostgreSQL the row lock makes
    the second writer wait and then see the new version)."""
    seen = t.version
    result = db.session.execute(
        update(Tournament).where(Tournament.id == t.id, Tournament.version == seen)
        .values(version=seen + 1).execution_options(synchronize_session=False))
    if result.rowcount != 1:
        raise StaleError(_("Someone changed this tournament at the same moment. "
                           "Nothing was saved: reload and check before trying again."))
    set_committed_value(t, "version", seen + 1)


def audit(action: str, actor: str, payload: dict, tournament_id: int | None = None) -> AuditEntry:
    """Append to the hash-chained audit log within the caller's transaction."""
    if db.session.get_bind().dialect.name == "postgresql":
        # serialise appenders so two transactions never chain onto the same entry
        db.session.execute(text("SELECT pg_advisory_xact_lock(4242)"))
    prev = db.session.scalar(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(1))
    entry = AuditEntry(tournament_id=tournament_id, at=utcnow(), actor=actor, action=action,
                       payload=payload, prev_hash=prev.hash if prev else "")
    entry.hash = entry.compute_hash()
    db.session.add(entry)
    return entry


def verify_audit_chain() -> int | None:
    """The id of the first entry whose hash does not match, or None if the chain is intact."""
    prev = ""
    for entry in db.session.scalars(select(AuditEntry).order_by(AuditEntry.id)):
        if entry.prev_hash != prev or entry.compute_hash() != entry.hash:
            return entry.id
        prev = entry.hash
    return None
