"""Helpers every service uses: loading with a clear 404, stale-version checks, audit."""
from __future__ import annotations

from flask_babel import gettext as _
from sqlalchemy import select, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import AuditEntry, Tournament
from . import chain, chain_rows, chain_verify


class ServiceError(ValueError):
    """A refused action: the message is shown to the user, nothing was changed."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class StaleError(ServiceError):
    pass


class NotFoundError(LookupError):
    """What was asked for does not exist: the app answers it as a 404 page (error_pages)."""


def get_tournament(tid: int) -> Tournament:
    t = db.session.get(Tournament, tid)
    if t is None:
        raise NotFoundError(f"tournament {tid}")
    return t


def seen_version(value) -> int:
    """The version a form says its page was loaded at; -1 (matching none) when it says nothing usable."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def check_version(t: Tournament, version) -> None:
    """Refuse an edit made on a page loaded before someone else changed the tournament."""
    if seen_version(version) != t.version:
        raise StaleError(_("Someone changed this tournament since you opened the page. "
                           "Nothing was saved: reload and check before trying again."))


_TOURNAMENT = Tournament.__table__


def bump(t: Tournament, public: bool = True) -> None:
    """Count a change of the tournament. The UPDATE only matches the version this
    request read: a concurrent change committed meanwhile (another operator's
    tab, a phone) makes it match nothing, and this request is refused instead
    of silently writing over the other one (on PostgreSQL the row lock makes
    the second writer wait and then see the new version)."""
    seen = t.version
    values = {"version": seen + 1, **chain.unwritten_head(db.session, t.id)}  # the chain's head in the same UPDATE
    if public:  # `public=False`: a change no public page shows (a phone sheet of the running round)
        values["public_version"] = _TOURNAMENT.c.public_version + 1
    # a table-level UPDATE: the ORM's bulk-update path costs a phone sheet more (benchmarks/README.md)
    result = db.session.execute(
        update(_TOURNAMENT).where(_TOURNAMENT.c.id == t.id, _TOURNAMENT.c.version == seen).values(**values))
    bumped(t, result.rowcount, public)


def bumped(t: Tournament, count: int, public: bool = False) -> None:
    """After the UPDATE of a bump changed `count` rows: refused unless it found the version read."""
    if count != 1:
        raise StaleError(_("Someone changed this tournament at the same moment. "
                           "Nothing was saved: reload and check before trying again."))
    chain.head_written(db.session, t.id)
    set_committed_value(t, "version", t.version + 1)
    if public:
        db.session.expire(t, ["public_version"])


def audit(action: str, actor: str, payload: dict, tournament_id: int | None = None) -> AuditEntry:
    """Append to the tournament's hash chain (services/chain.py) within the caller's
    transaction, after the sheets this transaction stored or changed; without a
    tournament, to the server log."""
    if tournament_id is None:
        return chain.append_server_log(action, actor, payload)
    chain.record_sheets(tournament_id, actor)
    chain_rows.write_rows(db.session, actor)  # the rows this action wrote, chained before it
    return chain.append(tournament_id, action, actor, payload)


def verify_audit_chain() -> int | None:
    """The id of the first entry whose hash, link or MAC does not match, or None if every chain is intact."""
    bad = chain_verify.verify_server_log()
    if bad is not None:
        return bad
    for tid in db.session.scalars(select(AuditEntry.tournament_id).where(AuditEntry.seq.is_not(None)).distinct()):
        prev = ""
        for entry in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == tid,
                                                                 AuditEntry.seq.is_not(None))
                                        .order_by(AuditEntry.seq)):
            if entry.prev_hash != prev or entry.compute_hash() != entry.hash or entry.mac != chain.entry_mac(
                    tid, entry.hash):
                return entry.id
            prev = entry.hash
    return None
