"""Who may work at which tournament: admins everywhere, operators and referees
only where they are assigned (an operator who creates a tournament is)."""
from __future__ import annotations

from sqlalchemy import delete, select

from ..extensions import db
from ..models import Assignment, Tournament, User


def is_admin(user) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and user.role == "admin"


def tournament_ids(user) -> set[int] | None:
    """The tournaments `user` works at; None means all of them (an admin)."""
    if is_admin(user):
        return None
    if not getattr(user, "is_authenticated", False):
        return set()
    return set(db.session.scalars(select(Assignment.tournament_id).where(Assignment.user_id == user.id)))


def can_access(user, tid: int) -> bool:
    if is_admin(user):
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return db.session.get(Assignment, (user.id, tid)) is not None


def visible_tournaments(user):
    """A select() of the tournaments `user` may open, for the operator's list."""
    query = select(Tournament)
    ids = tournament_ids(user)
    if ids is not None:
        query = query.where(Tournament.id.in_(ids))
    return query


def assign(user: User, tournament_id: int) -> None:
    if db.session.get(Assignment, (user.id, tournament_id)) is None:
        db.session.add(Assignment(user_id=user.id, tournament_id=tournament_id))


def set_assignments(user: User, tournament_ids_: set[int]) -> None:
    """Exactly these tournaments for `user` (the admin's check boxes)."""
    db.session.execute(delete(Assignment).where(Assignment.user_id == user.id,
                                                Assignment.tournament_id.not_in(tournament_ids_)))
    for tid in sorted(tournament_ids_):
        assign(user, tid)
