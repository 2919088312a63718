"""A restore in the record (docs/SECURITY.md, "A restore"): after `listok restore` brought a
replica's copy back (SQLite), or a PostgreSQL replica was promoted or recovered to a point in
time (`--promoted`), every tournament's chain gets a `restore` entry naming where the copy ends
(its last entry and head) and where it came from. What the phones send again after it carries
`retaken` in its chain entry; `listok verify` names both. Everyone signed in signs in again."""
from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from ..models import Tournament, User
from . import accounts, chain
from .common import audit

KIND = "restore"


def record(source: str, actor: str, backend: str) -> list[tuple[int, int, str]]:
    """One `restore` entry per tournament (and one in the server log); every account's sessions end.
    (tournament id, seq, head) of where each copy ended, for the command's output."""
    ended = []
    for t in db.session.scalars(select(Tournament).order_by(Tournament.id)).all():
        seq, head = t.chain_seq or 0, t.chain_head or ""
        audit(KIND, actor, {"from_seq": seq, "from_head": head, "from_code": chain.head_code(head),
                            "source": source, "backend": backend}, t.id)
        ended.append((t.id, seq, head))
    for u in db.session.scalars(select(User)).all():
        if accounts.intact(u):  # a row changed outside the app stays refused (verify names it)
            u.end_sessions()
    audit(KIND, actor, {"source": source, "backend": backend, "tournaments": [e[0] for e in ended]})
    db.session.commit()
    return ended
