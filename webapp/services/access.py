"""Who may work at which tournament: admins everywhere, operators and referees
only where they are assigned (an operator who creates a tournament is)."""
from __future__ import annotations

from sqlalchemy import delete, select

from ..extensions import db
from ..models import Assignment, Tournament, User


def is_admin(user) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and user.role == "admin"


def is_server_admin(user) -> bool:
    """An admin of the whole server: belongs to no venue and no federation."""
    return is_admin(user) and user.venue_id is None and user.federation_id is None


def same_venue(user, tournament_venue_id: int | None) -> bool:
    """Tenancy: staff of a venue never reach another venue's tournaments
    (nor one of no venue); staff of no venue, those of no venue."""
    return user.venue_id == tournament_venue_id or is_server_admin(user)


def tournament_ids(user) -> set[int] | None:
    """The tournaments `user` works at; None means all of them (the server's admin)."""
    if is_server_admin(user):
        return None
    if not getattr(user, "is_authenticated", False) or user.role == "federation":
        return set()
    if is_admin(user):  # a venue's admin: every tournament of the venue
        return set(db.session.scalars(select(Tournament.id).where(Tournament.venue_id == user.venue_id)))
    venue = Tournament.venue_id.is_(None) if user.venue_id is None else Tournament.venue_id == user.venue_id
    return set(db.session.scalars(select(Assignment.tournament_id).join(
        Tournament, Tournament.id == Assignment.tournament_id).where(Assignment.user_id == user.id, venue)))


def can_access(user, tid: int) -> bool:
    if is_server_admin(user):
        return True
    if not getattr(user, "is_authenticated", False) or user.role == "federation":
        return False
    t = db.session.get(Tournament, tid)
    if t is None or not same_venue(user, t.venue_id):
        return False
    return is_admin(user) or db.session.get(Assignment, (user.id, tid)) is not None


def visible_tournaments(user):
    """A select() of the tournaments `user` may open, for the operator's list."""
    query = select(Tournament)
    ids = tournament_ids(user)
    if ids is not None:
        query = query.where(Tournament.id.in_(ids))
    return query


def assign(user: User, tournament_id: int, actor: str = "") -> None:
    """Only to a tournament of the user's own venue: another venue's is skipped."""
    t = db.session.get(Tournament, tournament_id)
    if t is None or t.venue_id != user.venue_id:
        return
    if db.session.get(Assignment, (user.id, tournament_id)) is None:
        db.session.add(Assignment(user_id=user.id, tournament_id=tournament_id, created_by=actor[:120]))


def set_assignments(user: User, tournament_ids_: set[int], actor: str = "") -> None:
    """Exactly these tournaments for `user` (the admin's check boxes); `actor` is recorded on the new ones."""
    db.session.execute(delete(Assignment).where(Assignment.user_id == user.id,
                                                Assignment.tournament_id.not_in(tournament_ids_)))
    for tid in sorted(tournament_ids_):
        assign(user, tid, actor)


def move_to_venue(user: User, venue_id: int | None) -> None:
    """`user` now belongs to `venue_id`: assignments to another venue's
    tournaments go, and so does every session (what the account may see changed)."""
    user.venue_id = venue_id
    venue = Tournament.venue_id.is_(None) if venue_id is None else Tournament.venue_id == venue_id
    keep = set(db.session.scalars(select(Assignment.tournament_id).join(
        Tournament, Tournament.id == Assignment.tournament_id).where(Assignment.user_id == user.id, venue)))
    set_assignments(user, keep)
    user.end_sessions()
