"""Published heads (docs/SECURITY.md): the head of a tournament's chain that a page showed, kept
by the server (PublishedHead) and named by a chain entry of its own (`head.publish`), so that a
deleted published head shows; the head a page shows now, and the one published under a seq.
"""
from __future__ import annotations

import hashlib
from types import SimpleNamespace

from sqlalchemy import bindparam, select, update

from ..db.connections import in_write_request
from ..extensions import db
from ..models import AuditEntry, PublishedHead, Tournament, entry_canonical, utcnow
from . import chain_rows
from .chain import HEADS, INSERT_ENTRY, append, entry_mac, head_code, head_label, head_mac, plain, published_mac


_published: set = set()
PUBLISH_KIND = "head.publish"  # a chain entry naming the head a page showed: a deleted published head shows
PUBLISHED_HERE = "chain_published_here"  # session.info: {tid: (publish entry's seq, head seq, head hash)}

_HEAD_AND_LAST = (select(Tournament.chain_seq, Tournament.chain_head, AuditEntry.action, AuditEntry.payload)
                  .outerjoin(AuditEntry, (AuditEntry.tournament_id == Tournament.id)
                             & (AuditEntry.seq == Tournament.chain_seq))
                  .where(Tournament.id == bindparam("tid")))


def current_head(tid: int) -> tuple[int, str]:
    seq, h, _ = shown_head(tid)
    return seq, h


def shown_head(tid: int) -> tuple[int, str, bool]:
    """(seq, hash) of the head a page shows, and whether it was published already: when the chain
    ends with a head's publication, the head it names (publishing adds no result)."""
    mine = (db.session.info.get(HEADS) or {}).get(tid)
    if mine is not None:  # this transaction's (the row may not carry it yet)
        here = (db.session.info.get(PUBLISHED_HERE) or {}).get(tid)
        if here is not None and here[0] == mine[0]:
            return here[1], here[2], True
        return mine[0], mine[1], False
    row = db.session.execute(_HEAD_AND_LAST, {"tid": tid}).one()
    if row.action == PUBLISH_KIND and isinstance(row.payload, dict):
        return row.payload.get("seq") or 0, row.payload.get("hash") or "", True
    return row.chain_seq or 0, row.chain_head or "", False


def publish_head(tid: int, place: str, *, own_transaction: bool = True) -> dict:
    """The head as a page shows it, published: a `head.publish` entry names it and published_head
    keeps it (for ever). Pages (GET) write both in a short transaction of their own; a round's
    SEM-C9 publication within its own transaction (`own_transaction=False`)."""
    seq, h, done = shown_head(tid)
    shown = {"seq": seq, "hash": h, "code": head_code(h), "label": head_label(seq, h)}
    if seq == 0 or done:
        return shown
    key = (str(db.engine.url), tid, seq, h)
    if key in _published and own_transaction:
        return shown
    values = {"tournament_id": tid, "seq": seq, "hash": h, "mac": published_mac(tid, seq, h), "place": place,
              "published_at": utcnow()}
    if own_transaction and in_write_request():
        # a page rendered by a POST (a refused form shown again): this request's session may hold
        # SQLite's write lock, and a second connection would wait for it until "database is locked"
        own_transaction = False
    payload = {"seq": seq, "hash": h, "place": place}
    if own_transaction:
        values["published_at"] = utcnow()  # the entry's time as well: verify compares them
        with db.engine.begin() as conn:
            written = _publish_own(conn, tid, seq, h, payload, values)
        if written:
            from ..http.caching import published_here
            published_here(tid, seq)
        if len(_published) > 10000:  # a long-running server: the table says absent-or-not anyway
            _published.clear()
        _published.add(key)
    else:
        chain_rows.write_rows(db.session)  # what this transaction changed goes in before the publication
        seq, h, _ = shown_head(tid)
        shown = {"seq": seq, "hash": h, "code": head_code(h), "label": head_label(seq, h)}
        payload = {"seq": seq, "hash": h, "place": place}
        values.update(seq=seq, hash=h, mac=published_mac(tid, seq, h))
        entry = append(tid, PUBLISH_KIND, "", payload)
        values["published_at"] = entry.at
        db.session.execute(_insert_absent(db.session.get_bind().dialect.name, values))
        db.session.info.setdefault(PUBLISHED_HERE, {})[tid] = (entry.seq, seq, h)
    return shown


def _publish_own(conn, tid: int, seq: int, h: str, payload: dict, values: dict) -> bool:
    """The publication on a connection of its own: the entry goes on only if the head is still
    (seq, h) (the row's UPDATE comes first: it locks the row, PostgreSQL and SQLite alike);
    else another writer moved it and the next page publishes the new head."""
    at, payload = values["published_at"], plain(payload)
    new = hashlib.sha256(entry_canonical(tid, seq + 1, h, PUBLISH_KIND, "", at, payload)).hexdigest()
    t = Tournament.__table__
    moved = conn.execute(update(t).where(t.c.id == tid, t.c.chain_seq == seq, t.c.chain_head == h)
                         .values(chain_seq=seq + 1, chain_head=new, chain_mac=head_mac(tid, seq + 1, new)))
    if moved.rowcount != 1:
        return False
    conn.execute(INSERT_ENTRY, {"tournament_id": tid, "seq": seq + 1, "mac": entry_mac(tid, new), "at": at,
                                "actor": "", "action": PUBLISH_KIND, "payload": payload, "prev_hash": h,
                                "hash": new})
    conn.execute(_insert_absent(conn.dialect.name, values))
    return True


def _insert_absent(dialect: str, values: dict):
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(PublishedHead).values(**values).on_conflict_do_nothing()


def published_under(tid: int, seq: int) -> PublishedHead | None:
    """The first published head at or after entry `seq`: the entry is in what that page showed.
    The chain's `head.publish` entries say which it is, so a deleted one is not skipped over:
    MISSING_HEAD then (older chains, without such entries: the first kept at or after `seq`)."""
    named = db.session.scalar(select(AuditEntry.payload).where(AuditEntry.tournament_id == tid,
                                                               AuditEntry.action == PUBLISH_KIND,
                                                               AuditEntry.seq > seq)
                              .order_by(AuditEntry.seq).limit(1))
    if isinstance(named, dict):
        return db.session.scalar(select(PublishedHead).where(PublishedHead.tournament_id == tid,
                                                             PublishedHead.seq == named.get("seq"),
                                                             PublishedHead.hash == named.get("hash")).limit(1)) \
            or MISSING_HEAD
    return db.session.scalar(select(PublishedHead).where(PublishedHead.tournament_id == tid,
                                                         PublishedHead.seq >= seq)
                             .order_by(PublishedHead.seq, PublishedHead.id).limit(1))


MISSING_HEAD = SimpleNamespace(seq=None, hash=None, missing=True)
