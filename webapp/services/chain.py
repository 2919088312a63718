"""One hash chain per tournament over everything that counts (docs/SECURITY.md).

Every entry: the tournament, `seq` (1, 2, 3 … without gaps), the previous
entry's hash, a kind, an actor, a time and a JSON payload;
`hash = sha256(canonical entry)` and `mac = HMAC(derived_key("chain", tid), hash)`.
The tournament row keeps the head (seq, hash) with its MAC, so a deleted tail
shows; the pages that publish standings show the head and the server keeps
every head it showed (PublishedHead).

Sheets need no caller's help: every Sheet row that is new, or whose counting
fields changed, is written into the chain before the next entry of its
tournament, and at the latest before the transaction commits (a session
listener). A new sheet gets an entry of its own (`sheet.store`: its record
and its content); its receipt is a prefix of that entry's hash.

One file because appending, publishing and verifying share the canonical forms and
the session listeners that keep the head (not yet split); its sections: canonical
forms and labels, sheets as the chain records them, appending, published heads,
verifying, a player checks a receipt.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from types import SimpleNamespace

from flask_babel import gettext as _
from sqlalchemy import bindparam, event, insert, select, text, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import get_history, set_committed_value

from ..db.connections import in_write_request
from ..extensions import db
from ..models import AuditEntry, PublishedHead, Round, RoundTable, Sheet, Tournament, entry_canonical, utcnow
from ..sync import protocol
from . import chain_rows
from .keys import derived_key

# the fields of a sheet that decide what counts: any change of them is a chain entry
RECORD_FIELDS = ("version", "status", "sums", "entered_sums", "points", "disqualified", "early", "source",
                 "base_version", "note", "content_hash", "signatures")
# a sheet's rule-set fields (ČSM PB, premium games and keeper by lot, Thousand's score and ending, BB
# liga's late players): in its record
# and content only when set, so that a money sheet's record and content stay what they were
RULESET_FIELDS = ("scores", "ended", "premium_games", "frozen", "late", "keeper_by_lot")
RECEIPT_CHARS = 8
RECEIPT_MAX_CHARS = 10  # Sheet.receipt holds 12 characters with the dashes
SERVER_LOG_LOCK = 4242
DESK_CONTENT = "listok-desk-sheet/1"


# --------------------------------------------------------------------------- canonical forms, labels


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def plain(payload) -> dict:
    """The payload as JSON gives it back from the database (dates and Decimals as strings), so the
    hash computed now is the one recomputed from the stored row."""
    return json.loads(json.dumps(payload or {}, ensure_ascii=False, default=str))


def b32(hex_hash: str) -> str:
    return base64.b32encode(bytes.fromhex(hex_hash)).decode().rstrip("=")


def groups(chars: str) -> str:
    return "-".join(chars[i:i + 4] for i in range(0, len(chars), 4))


def head_code(hex_hash: str) -> str:
    """16 characters of the hash in 4 groups: short enough to read aloud or photograph."""
    return groups(b32(hex_hash)[:16]) if hex_hash else "–"


def head_label(seq: int, hex_hash: str) -> str:
    return f"#{seq} · {head_code(hex_hash)}"


def normalise_receipt(typed: str) -> str:
    """What a player typed → the stored form (ABCD-EFGH): case, spaces and dashes do not matter,
    and 0/1 are read as O/I (base32 has neither digit)."""
    chars = "".join(ch for ch in (typed or "").upper() if ch.isalnum()).replace("0", "O").replace("1", "I")
    return groups(chars)


def entry_mac(tid: int, hex_hash: str) -> str:
    return hmac.new(derived_key("chain", tid), hex_hash.encode(), hashlib.sha256).hexdigest()


def head_mac(tid: int, seq: int, hex_hash: str) -> str:
    return hmac.new(derived_key("chain", tid), f"head:{seq}:{hex_hash}".encode(), hashlib.sha256).hexdigest()


def published_mac(tid: int, seq: int, hex_hash: str) -> str:
    return hmac.new(derived_key("chain", tid), f"published:{seq}:{hex_hash}".encode(), hashlib.sha256).hexdigest()


# --------------------------------------------------------------------------- sheets as the chain records them


def signature_hashes(signatures) -> list | None:
    """A signature as the chain keeps it: who, over which content, when, and the drawing's hash."""
    if signatures is None:
        return None
    return [{"start_no": s.get("start_no"), "hash": s.get("hash"), "signed_at": s.get("signed_at"),
             "own_phone": bool(s.get("own_phone")),
             "drawing": hashlib.sha256((s.get("drawing") or "").encode()).hexdigest()} for s in signatures]


def sheet_record(sheet: Sheet, round_no: int, table_no: int, players=None) -> dict:
    """What the chain records of a sheet; with `players`, its table's seating as the sheet was stored."""
    rec = {"round": round_no, "table": table_no}
    if players is not None:
        rec["players"] = list(players)
    for f in RECORD_FIELDS:
        rec[f] = getattr(sheet, f)
    rec["signatures"] = signature_hashes(sheet.signatures)
    rec["early"] = bool(rec["early"])
    rec["disqualified"] = list(rec["disqualified"] or [])
    rec["base_version"] = rec["base_version"] or 0
    rec["note"] = rec["note"] or ""
    for f in RULESET_FIELDS:
        if getattr(sheet, f, None) is not None:
            rec[f] = getattr(sheet, f)
    return plain(rec)


def desk_content(sheet: Sheet, tid: int, round_no: int, table_no: int, players) -> dict:
    """The server's canonical content of a sheet nobody signed on a phone (desk, paper, import, correction)."""
    content = {"format": DESK_CONTENT, "tournament": tid, "round": round_no, "table": table_no,
               "players": list(players), "version": sheet.version, "sums": sheet.sums,
               "entered_sums": sheet.entered_sums, "points": sheet.points,
               "disqualified": list(sheet.disqualified or []), "early": bool(sheet.early),
               "source": sheet.source, "note": sheet.note or ""}
    for f in RULESET_FIELDS:
        if getattr(sheet, f, None) is not None:
            content[f] = getattr(sheet, f)
    return plain(content)


def signed_view(sheet: Sheet) -> SimpleNamespace:
    """The players and sums as the sheet's content has them (what was signed), not as a join through
    the table's seating, which can change."""
    content = sheet.content or {}
    players = [int(x) for x in content.get("players") or ()]
    if content.get("protocol") == protocol.PROTOCOL:
        sums = [f"{c / 100:.2f}" for c in content.get("sums_cents", [])]
    else:
        sums = list(content.get("sums") or ())
    points = content.get("points") if "points" in content else sheet.points
    return SimpleNamespace(players=players, sums=sums, points=points)


def content_hash_of(content: dict) -> str:
    if content.get("protocol") == protocol.PROTOCOL:
        return protocol.content_hash(content)
    return hashlib.sha256(canonical(content)).hexdigest()


def content_disagrees(sheet: Sheet, content: dict) -> list[str]:
    """The row's counting fields that are not what its content says."""
    if content.get("protocol") == protocol.PROTOCOL:
        sums = [f"{c / 100:.2f}" for c in content.get("sums_cents", [])]
        shown = {"sums": sheet.sums, "note": sheet.note or "", "base_version": sheet.base_version or 0}
        said = {"sums": sums, "note": content.get("note", ""), "base_version": content.get("base_version", 0)}
        for f in RULESET_FIELDS:
            shown[f], said[f] = getattr(sheet, f, None), protocol.stored_field(content, f)
    else:
        shown = {k: v for k, v in desk_content(sheet, 0, 0, 0, []).items()
                 if k not in ("format", "tournament", "round", "table", "players")}
        for f in RULESET_FIELDS:
            shown.setdefault(f, None)
        said = {k: content.get(k) for k in shown}
    return [k for k in shown if plain({"v": shown[k]}) != plain({"v": said[k]})]


# --------------------------------------------------------------------------- appending


def _is_pg() -> bool:
    return db.session.get_bind().dialect.name == "postgresql"


def append(tid: int, kind: str, actor: str, payload: dict, *, now: bool = False, hold: bool = False):
    """One entry at the end of the tournament's chain, within the caller's transaction.
    The tournament row is locked until commit (PostgreSQL; SQLite's BEGIN IMMEDIATE
    serialises writers anyway), so two writers never chain onto the same head; the
    unique (tournament_id, seq) would refuse a fork. With `now`, the entry is inserted
    at once by a table-level INSERT instead of the next flush (the phone sheet's hot path).
    With `hold`, its row waits for the next `now` entry, and both go in one statement (a
    phone sheet's two entries: one round trip less inside the tournament's lock); before
    commit at the latest (a rollback drops it with the rest). An entry inserted by the
    table-level INSERT is returned as its row's values (no ORM object: AuditEntry
    objects were a large part of a phone sheet's CPU), else as the AuditEntry added."""
    session = db.session()
    heads = session.info.setdefault(HEADS, {})
    if actor:
        session.info[LAST_ACTOR] = actor
    if tid in heads:  # this transaction's own last entry: the row is locked since, nobody else moved it
        seq, prev = heads[tid]
        seq += 1
    else:
        q = select(Tournament.chain_seq, Tournament.chain_head).where(Tournament.id == tid)
        if _is_pg():
            q = q.with_for_update(key_share=True)
        row = session.execute(q).one_or_none()
        if row is None:
            raise ValueError(f"no tournament {tid} for the chain entry {kind}")
        seq, prev = (row.chain_seq or 0) + 1, row.chain_head or ""
    at, actor, payload = utcnow(), actor or "", plain(payload)
    h = hashlib.sha256(entry_canonical(tid, seq, prev, kind, actor, at, payload)).hexdigest()
    values = {"tournament_id": tid, "seq": seq, "mac": entry_mac(tid, h), "at": at, "actor": actor, "action": kind,
              "payload": payload, "prev_hash": prev, "hash": h}
    nested = session.in_nested_transaction()
    if now or hold:
        session.info.setdefault(HELD, []).append(values)
        if now or nested:
            write_held(session)
        entry = SimpleNamespace(**values)
    else:
        entry = AuditEntry(**values)
        session.add(entry)
    heads[tid] = (seq, h)
    # the row keeps the head from one UPDATE per transaction, not one per entry: before commit,
    # or merged into the version bump (services/common.bump); a savepoint's at once
    session.info.setdefault(UNWRITTEN, set()).add(tid)
    if nested:
        write_heads(session)
    t = session.identity_map.get(session.identity_key(Tournament, tid))
    if t is not None:
        set_committed_value(t, "chain_seq", seq)
        set_committed_value(t, "chain_head", h)
    return entry


_ENTRY_KEYS = ("tournament_id", "seq", "mac", "at", "actor", "action", "payload", "prev_hash", "hash")
# the columns named, with exactly the values `append` makes: a batch inserts its entries in one executemany
INSERT_ENTRY = insert(AuditEntry.__table__).values(
    {k: bindparam(k, type_=AuditEntry.__table__.c[k].type) for k in _ENTRY_KEYS})

LAST_ACTOR = "chain_last_actor"  # session.info: who the transaction's `rows` entries name
HEADS = "chain_heads"  # session.info: {tid: (seq, hash)} of the entries this transaction appended
HELD = "chain_held_entries"  # session.info: rows of entries appended with `hold`, not inserted yet
UNWRITTEN = "chain_unwritten_heads"  # session.info: {tid} whose head is not yet in the tournament row


def write_held(session) -> None:
    rows = take_held(session)
    if rows:
        session.execute(INSERT_ENTRY, rows)


def take_held(session) -> list[dict]:
    """The rows of the entries appended with `hold` and not inserted yet, for the caller to insert
    (`INSERT_ENTRY`) before commit."""
    return session.info.pop(HELD, None) or []


def unwritten_head(session, tid: int) -> dict:
    """The values that bring the tournament row's head up to this transaction's last entry
    (empty when it is there already); `head_written` once an UPDATE carried them. The head's
    MAC is computed here, once per write of the row, not once per entry."""
    if tid not in (session.info.get(UNWRITTEN) or ()):
        return {}
    seq, h = session.info[HEADS][tid]
    mac = head_mac(tid, seq, h)
    t = session.identity_map.get(session.identity_key(Tournament, tid))
    if t is not None:
        set_committed_value(t, "chain_mac", mac)
    return {"chain_seq": seq, "chain_head": h, "chain_mac": mac}


def head_written(session, tid: int) -> None:
    (session.info.get(UNWRITTEN) or set()).discard(tid)


def write_heads(session) -> None:
    for tid in list(session.info.get(UNWRITTEN) or ()):
        session.execute(update(Tournament).where(Tournament.id == tid).values(**unwritten_head(session, tid))
                        .execution_options(synchronize_session=False))
        head_written(session, tid)


def seed_head(t: Tournament) -> None:
    """The head as the caller has just read it from the tournament's row, locked until commit
    (load_tournament(lock=True); SQLite: BEGIN IMMEDIATE): the first append needs no query."""
    db.session.info.setdefault(HEADS, {}).setdefault(t.id, (t.chain_seq or 0, t.chain_head or ""))


SAVED = "chain_heads_before_savepoints"  # session.info: [(heads, unwritten)] as each open savepoint began
ENDED = "chain_heads_before_ended_savepoint"  # the last savepoint's, until its rollback (if it is one)


@event.listens_for(Session, "after_transaction_create")
def _save_heads(session, transaction):
    if transaction.nested:  # inside it, append writes the row at once (a rollback takes both back)
        if session.info.get(HELD):  # it would be written inside the savepoint and lost with its rollback
            raise RuntimeError("chain entries held (append(hold=True)) must be written before a savepoint")
        session.info.setdefault(SAVED, []).append((dict(session.info.get(HEADS) or {}),
                                                   set(session.info.get(UNWRITTEN) or ())))


@event.listens_for(Session, "after_transaction_end")
def _forget_heads(session, transaction):
    # the transaction's end (commit or rollback): the next append reads the head from the row again
    # (a flush's own subtransaction changes nothing)
    if transaction.parent is None:
        for key in (HEADS, UNWRITTEN, SAVED, ENDED, HELD, LAST_ACTOR):
            session.info.pop(key, None)
    elif transaction.nested and session.info.get(SAVED):
        session.info[ENDED] = session.info[SAVED].pop()


@event.listens_for(Session, "after_soft_rollback")
def _restore_heads(session, previous_transaction):
    # a savepoint rolled back: its entries and its writes of the row are gone, the heads as it began stand
    ended = session.info.pop(ENDED, None)
    if previous_transaction.nested and ended is not None:
        session.info[HEADS], session.info[UNWRITTEN] = ended


def append_server_log(action: str, actor: str, payload: dict) -> AuditEntry:
    """An entry that belongs to no tournament (accounts …): the server log, chained on its own."""
    if _is_pg():
        db.session.execute(text(f"SELECT pg_advisory_xact_lock({SERVER_LOG_LOCK})"))
    prev = db.session.scalar(select(AuditEntry.hash).where(AuditEntry.tournament_id.is_(None))
                             .order_by(AuditEntry.id.desc()).limit(1))
    entry = AuditEntry(tournament_id=None, at=utcnow(), actor=actor or "", action=action, payload=plain(payload),
                       prev_hash=prev or "")
    entry.hash = entry.compute_hash()
    db.session.add(entry)
    return entry


PENDING = "chain_pending_sheets"


@event.listens_for(Session, "before_flush")
def _collect_sheets(session, _ctx, _instances):
    pending = session.info.setdefault(PENDING, [])
    for obj in session.new:
        if isinstance(obj, Sheet) and obj not in pending:
            pending.append(obj)
    for obj in session.dirty:
        if isinstance(obj, Sheet) and obj not in pending and any(
                get_history(obj, f).has_changes() for f in RECORD_FIELDS + RULESET_FIELDS):
            pending.append(obj)


@event.listens_for(Session, "after_rollback")
def _forget_sheets(session):
    session.info.pop(PENDING, None)


@event.listens_for(Session, "before_commit")
def _chain_before_commit(session):
    write_held(session)
    if session.info.get(PENDING) or any(isinstance(o, Sheet) for o in (*session.new, *session.dirty)):
        record_sheets(None, "", session=session)
    chain_rows.write_rows(session)
    write_heads(session)


def _where(sheet: Sheet) -> tuple[int, int, int, list]:
    known = sheet.__dict__.get("_chained_where")  # where its entry was written (the table never changes)
    if known is not None:
        return known
    tab = sheet.table
    if tab is None and sheet.table_id is not None:
        tab = db.session.get(RoundTable, sheet.table_id)
    r = tab.round if tab.round is not None else db.session.get(Round, tab.round_id)
    return r.tournament_id, r.number, tab.number, tab.players


def record_sheets(tid: int | None, actor: str, session=None) -> list[AuditEntry]:
    """Write the new and changed sheets of tournament `tid` (None: of all) into the chain."""
    session = session or db.session
    session.flush()
    pending = session.info.get(PENDING) or []
    if not pending:
        return []
    written, keep = [], []
    for sheet in list(pending):
        if sheet in session.deleted or sheet.id is None:
            continue
        s_tid, round_no, table_no, players = _where(sheet)
        if tid is not None and s_tid != tid:
            keep.append(sheet)
            continue
        if sheet.chain_seq is None:
            written.append(_store(sheet, s_tid, round_no, table_no, players, actor))
        else:
            rec = sheet_record(sheet, round_no, table_no, players)
            if rec != getattr(sheet, "_chained_record", None):
                written.append(append(s_tid, "sheet.update", actor or sheet.created_by, {"sheet": rec}))
                sheet._chained_record = rec
    session.info[PENDING] = keep
    if written:
        session.flush()
        session.info[PENDING] = [s for s in session.info.get(PENDING, []) if s in keep]
    return written


def _store(sheet: Sheet, tid: int, round_no: int, table_no: int, players, actor: str,
           hold: bool = False) -> AuditEntry:
    if sheet.content is None:
        if sheet.content_hash is not None:
            raise ValueError("a sheet with a signed content hash must keep its signed content")
        sheet.content = desk_content(sheet, tid, round_no, table_no, players)
        sheet.content_hash = content_hash_of(sheet.content)
    rec = sheet_record(sheet, round_no, table_no, players)
    with db.session.no_autoflush:  # chain_seq and receipt in one UPDATE (or in the INSERT: store_new)
        entry = append(tid, "sheet.store", actor or sheet.created_by, {"sheet": rec, "content": sheet.content},
                       hold=hold)
        sheet.chain_seq = entry.seq
        # a new phone sheet's receipt is checked by the INSERT of its row (services/sheets.insert_sheet)
        sheet.receipt = receipt_candidates(entry.hash)[0] if hold else unused_receipt(tid, entry.hash)
        sheet._stored_hash = entry.hash
    sheet._chained_record = rec
    sheet._chained_where = (tid, round_no, table_no, players)
    return entry


def store_new(sheet: Sheet, tid: int, round_no: int, table_no: int, players, actor: str) -> AuditEntry:
    """A new phone sheet's `sheet.store` entry, made before the sheet's row: the caller
    inserts the row as it stands now, with its chain_seq and receipt, by a table-level
    INSERT (services/sheets.insert_sheet), so `sheet` stays outside the session and nothing
    can change it between its entry and its row. The entry's own row is held for the
    sheet's next entry (append(now=True)), one INSERT for both."""
    return _store(sheet, tid, round_no, table_no, players, actor, hold=True)


_RECEIPTS = (select(Sheet.receipt).join(RoundTable, Sheet.table_id == RoundTable.id).join(Round)
             .where(Round.tournament_id == bindparam("tid"), Sheet.receipt.in_(bindparam("candidates", expanding=True))))


def receipt_candidates(hex_hash: str) -> list[str]:
    """A sheet's receipt, shortest first: the first its tournament has not given to another sheet."""
    code = b32(hex_hash)
    return [groups(code[:n]) for n in range(RECEIPT_CHARS, RECEIPT_MAX_CHARS + 1, 2)]


def unused_receipt(tid: int, hex_hash: str) -> str:
    """The first of the receipt's candidates no other sheet of the tournament has."""
    candidates = receipt_candidates(hex_hash)
    used = set(db.session.scalars(_RECEIPTS, {"tid": tid, "candidates": candidates}))
    for receipt in candidates:
        if receipt not in used:
            return receipt
    raise ValueError("no unique receipt")  # 50 bits in common with another sheet of the tournament


# --------------------------------------------------------------------------- published heads


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


# --------------------------------------------------------------------------- verifying


@dataclass
class Problem:
    round: int | None
    table: int | None
    message: str

    def line(self, tid: int) -> str:
        """The finding for `listok verify`, in the language of the messages."""
        if self.table is not None and self.round is not None:
            where = _("tournament %(id)d, round %(r)d, table %(t)d", id=tid, r=self.round, t=self.table)
        elif self.round is not None:
            where = _("tournament %(id)d, round %(r)d", id=tid, r=self.round)
        else:
            where = _("tournament %(id)d", id=tid)
        return f"{where}: {self.message}"


@dataclass
class Verdict:
    tournament_id: int
    records: int
    head_seq: int
    head_hash: str
    problems: list[Problem] = field(default_factory=list)
    published: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def head_label(self) -> str:
        return head_label(self.head_seq, self.head_hash)

    def lines(self) -> list[str]:
        notes = [_("tournament %(id)d: note: %(note)s", id=self.tournament_id, note=n) for n in self.notes]
        if self.ok:
            return [_("tournament %(id)d: %(n)d records, chain ok, head %(head)s", id=self.tournament_id,
                      n=self.records, head=head_code(self.head_hash))] + notes
        return [p.line(self.tournament_id) for p in self.problems] + notes


def _place(payload) -> tuple[int | None, int | None]:
    p = payload if isinstance(payload, dict) else {}
    src = p.get("sheet") if isinstance(p.get("sheet"), dict) else p
    r, t = src.get("round"), src.get("table")
    return (r if isinstance(r, int) else None), (t if isinstance(t, int) else None)


def _show(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def place_text(place: str) -> str:
    """Where a head was shown (`publish_head`'s place: "round-2", "standings", "projector"), in words."""
    if place.startswith("round-") and place[6:].isdigit():
        return _("Standings published after round %(n)d", n=int(place[6:]))
    return {"standings": _("Public standings page"), "projector": _("Projector")}.get(place, place)


def field_name(f: str) -> str:
    """A sheet's recorded field (RECORD_FIELDS, RULESET_FIELDS) as a finding names it."""
    names = {"version": _("version"), "status": _("status"), "sums": _("sums"), "entered_sums": _("entered sums"),
             "points": _("points"), "disqualified": _("disqualified players"), "early": _("early disqualification"),
             "source": _("source"), "base_version": _("corrected version"), "note": _("note"),
             "content_hash": _("content hash"), "signatures": _("signatures"), "scores": _("scores"),
             "ended": _("how the game ended"), "premium_games": _("premium games"), "frozen": _("frozen table"),
             "late": _("late players"), "keeper_by_lot": _("scorekeeper by lot")}
    return names.get(f, f)


def parse_head(text: str) -> tuple[int, str] | None:
    """A head as pages show it ("#412 · ABCD-EFGH-IJKL-MNOP", or "412:ABCDEFGH…") → (seq, code)."""
    raw = (text or "").strip().lstrip("#")
    digits = ""
    while raw and raw[0].isdigit():
        digits, raw = digits + raw[0], raw[1:]
    code = normalise_receipt(raw.lstrip(" :·"))
    if not digits or not code:
        return None
    return int(digits), code


def _restores(entries: list[AuditEntry], bad) -> list[str]:
    """verify's notes on the restores the chain records, each with the sheets the phones sent
    again after it; a restore entry that does not name the record it follows is a problem."""
    notes, restores = [], [e for e in entries if e.action == "restore"]
    for i, e in enumerate(restores):
        p = e.payload if isinstance(e.payload, dict) else {}
        if p.get("from_seq") != e.seq - 1 or p.get("from_head") != e.prev_hash:
            bad(Problem(None, None, f"record #{e.seq} (restore) says the restored copy ended at "
                                    f"#{p.get('from_seq')}, but it follows record #{e.seq - 1}"))
        until = restores[i + 1].seq if i + 1 < len(restores) else None
        retaken = [x.payload for x in entries if x.action == "sheet.phone" and x.seq > e.seq
                   and (until is None or x.seq < until) and (x.payload or {}).get("retaken")]
        said = ", ".join(f"round {r.get('round')} table {r.get('table')} version {r.get('version')} "
                         f"(receipt {r.get('receipt')})" for r in retaken) or "none"
        notes.append(f"restored (record #{e.seq}, {e.at:%Y-%m-%d %H:%M:%S} UTC, by {e.actor or '?'}) from "
                     f"{p.get('source') or '?'}: the copy ended at {head_label(e.seq - 1, e.prev_hash)}; "
                     f"sheets the phones sent again since: {said}")
    return notes


def verify(t: Tournament, elsewhere: tuple = ()) -> Verdict:
    """Everything `listok verify` checks for one tournament (docs/SECURITY.md). `heads`: heads
    published elsewhere (a photographed projector, the federation) as (seq, code), each of which
    the chain must still hold; one a restore lost is reported, never dropped."""
    tid = t.id
    entries = db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == tid,
                                                          AuditEntry.seq.is_not(None))
                                 .order_by(AuditEntry.seq)).all()
    v = Verdict(tid, len(entries), entries[-1].seq if entries else 0, entries[-1].hash if entries else "")
    bad = v.problems.append
    by_seq: dict[int, AuditEntry] = {}
    prev_hash, expected = "", 1
    for e in entries:
        r, tab = _place(e.payload)
        if e.seq != expected:
            bad(Problem(r, tab, _("records #%(first)d…#%(last)d are missing from the chain", first=expected,
                                  last=e.seq - 1)
                        if e.seq > expected else _("record #%(seq)d is out of order", seq=e.seq)))
        if e.compute_hash() != e.hash:
            bad(Problem(r, tab, _("record #%(seq)d (%(action)s) was changed after it was written: its content "
                                  "does not give its hash", seq=e.seq, action=e.action)))
        elif not hmac.compare_digest(e.mac or "", entry_mac(tid, e.hash)):
            bad(Problem(r, tab, _("record #%(seq)d (%(action)s) was not written by this server: its MAC is wrong",
                                  seq=e.seq, action=e.action)))
        if e.prev_hash != prev_hash and e.seq == expected:
            bad(Problem(r, tab, _("record #%(seq)d (%(action)s) does not follow record #%(prev)d: the chain was "
                                  "cut, reordered or rewritten here", seq=e.seq, action=e.action, prev=e.seq - 1)))
        prev_hash, expected = e.hash, e.seq + 1
        by_seq[e.seq] = e

    # the head kept on the tournament row
    if t.chain_seq or entries:
        if not hmac.compare_digest(t.chain_mac or "", head_mac(tid, t.chain_seq or 0, t.chain_head or "")):
            bad(Problem(None, None, _("the head kept with the tournament (#%(seq)s) was changed: its MAC is wrong",
                                      seq=t.chain_seq)))
        elif (t.chain_seq or 0) > v.head_seq:
            bad(Problem(None, None, _("the chain ends at record #%(end)d but the tournament's head is #%(head)d: "
                                      "records #%(first)d…#%(head)d were deleted", end=v.head_seq, head=t.chain_seq,
                                      first=v.head_seq + 1)))
        elif (t.chain_seq or 0) < v.head_seq:
            bad(Problem(None, None, _("records #%(first)d…#%(last)d were added after the tournament's head",
                                      first=(t.chain_seq or 0) + 1, last=v.head_seq)))
        elif t.chain_head != v.head_hash:
            bad(Problem(None, None, _("record #%(seq)d is not the one the tournament's head names", seq=v.head_seq)))

    # every head a page showed
    heads = db.session.scalars(select(PublishedHead).where(PublishedHead.tournament_id == tid)
                               .order_by(PublishedHead.seq, PublishedHead.id)).all()
    v.published = len(heads)
    for ph in heads:
        shown = head_label(ph.seq, ph.hash)
        e = by_seq.get(ph.seq)
        if not hmac.compare_digest(ph.mac or "", published_mac(tid, ph.seq, ph.hash)):
            bad(Problem(None, None, _("the published head %(head)s was changed in the database: its MAC is wrong",
                                      head=shown)))
        elif e is None:
            bad(Problem(None, None, _("the head %(head)s was published (%(place)s, %(at)s) but the chain no longer "
                                      "has that record: it was cut", head=shown, place=place_text(ph.place),
                                      at=f"{ph.published_at:%Y-%m-%d %H:%M}")))
        elif e.hash != ph.hash:
            bad(Problem(None, None, _("the head %(head)s was published (%(place)s, %(at)s) but record #%(seq)d is "
                                      "now %(now)s: the chain was rewritten", head=shown, place=place_text(ph.place),
                                      at=f"{ph.published_at:%Y-%m-%d %H:%M}", seq=ph.seq, now=head_code(e.hash))))

    # what the chain says about each sheet, and what the rows say
    chained: dict[tuple, dict] = {}
    stored_at: dict[tuple, AuditEntry] = {}
    for e in entries:
        rec = e.payload.get("sheet") if e.action in ("sheet.store", "sheet.update") else None
        if isinstance(rec, dict):
            key = (rec.get("round"), rec.get("table"), rec.get("version"))
            chained[key] = rec
            if e.action == "sheet.store":
                stored_at.setdefault(key, e)
    rows = db.session.execute(
        select(Sheet, Round.number, RoundTable.number).join(RoundTable, Sheet.table_id == RoundTable.id)
        .join(Round, RoundTable.round_id == Round.id).where(Round.tournament_id == tid)
        .order_by(Round.number, RoundTable.number, Sheet.version)).all()
    seen = set()
    for sheet, round_no, table_no in rows:
        key = (round_no, table_no, sheet.version)
        seen.add(key)
        p, vn = _("sheet version %(v)d", v=sheet.version), sheet.version
        if sheet.content is None or sheet.content_hash is None:
            bad(Problem(round_no, table_no, _("sheet version %(v)d has no content hash: it never entered the chain",
                                              v=vn)))
            continue
        if content_hash_of(sheet.content) != sheet.content_hash:
            bad(Problem(round_no, table_no, _("%(sheet)s: its stored content no longer gives its content hash",
                                              sheet=p)))
        for f in content_disagrees(sheet, sheet.content):
            bad(Problem(round_no, table_no, _("%(sheet)s: %(field)s is %(value)s but the content it was stored with "
                                              "says otherwise", sheet=p, field=field_name(f),
                                              value=_show(getattr(sheet, f)))))
        entry = by_seq.get(sheet.chain_seq) if sheet.chain_seq is not None else None
        if entry is None:
            bad(Problem(round_no, table_no, _("%(sheet)s: its chain record #%(seq)s is missing (the chain was cut)",
                                              sheet=p, seq=sheet.chain_seq)))
        elif entry.action != "sheet.store" or _place(entry.payload) != (round_no, table_no) or \
                (entry.payload.get("sheet") or {}).get("version") != sheet.version:
            bad(Problem(round_no, table_no, _("%(sheet)s: chain record #%(seq)s is not this sheet's", sheet=p,
                                              seq=sheet.chain_seq)))
        else:
            if (entry.payload.get("sheet") or {}).get("content_hash") != sheet.content_hash:
                bad(Problem(round_no, table_no, _("%(sheet)s: its content hash is not the one in the chain", sheet=p)))
            if sheet.receipt and not b32(entry.hash).startswith(sheet.receipt.replace("-", "")):
                bad(Problem(round_no, table_no, _("%(sheet)s: receipt %(receipt)s is not its chain record's", sheet=p,
                                                  receipt=sheet.receipt)))
        rec = chained.get(key)
        if rec is None:
            continue
        now = sheet_record(sheet, round_no, table_no)
        for f in RECORD_FIELDS + RULESET_FIELDS:
            if now.get(f) != rec.get(f):
                if f == "signatures":
                    bad(Problem(round_no, table_no, _("%(sheet)s: the signatures differ from the chain's", sheet=p)))
                else:
                    bad(Problem(round_no, table_no, _("%(sheet)s: %(field)s differs: %(chain)s in the chain, %(db)s in "
                                                      "the database", sheet=p, field=field_name(f),
                                                      chain=_show(rec.get(f)), db=_show(now.get(f)))))
    for key in chained:
        if key not in seen:
            bad(Problem(key[0], key[1], _("sheet version %(v)s is in the chain but was deleted from the database",
                                          v=key[2])))

    # every head the chain says was published is still kept
    kept = {(ph.seq, ph.hash): ph for ph in heads}
    for e in entries:
        if e.action == PUBLISH_KIND:
            seq, h, place = (e.payload or {}).get("seq"), (e.payload or {}).get("hash"), (e.payload or {}).get("place")
            ph = kept.get((seq, h))
            shown = head_label(seq or 0, h or "")
            if ph is None:
                bad(Problem(None, None, _("the head %(head)s was published (%(place)s, record #%(seq)d) but was "
                                          "deleted from the published heads", head=shown,
                                          place=place_text(place or ""), seq=e.seq)))
            elif ph.place != place or ph.published_at != e.at:
                bad(Problem(None, None, _("the published head %(head)s: shown on %(place)s at %(at)s in the "
                                          "database, on %(chain_place)s at %(chain_at)s in the chain (record "
                                          "#%(seq)d)", head=shown, place=place_text(ph.place), at=ph.published_at,
                                          chain_place=place_text(place or ""), chain_at=e.at, seq=e.seq)))

    v.notes.extend(_restores(entries, bad))
    restored = [e for e in entries if e.action == "restore"]
    for seq, code in elsewhere:
        e = by_seq.get(seq)
        if e is not None and head_code(e.hash).startswith(code):
            continue
        lost = (f"restored from a copy that ended at {head_label(restored[-1].seq - 1, restored[-1].prev_hash)}"
                if restored else "no restore is recorded")
        now = f"record #{seq} is now {head_code(e.hash)}" if e is not None else f"the chain ends at #{v.head_seq}"
        bad(Problem(None, None, f"the head #{seq} · {code} was published but this chain no longer holds it "
                                f"({now}; {lost}): what was counted under it after the copy must come again "
                                "from the phones or the paper sheets"))

    # the players, the draw, the events, the cases … and the standings they give
    found, has_rows = chain_rows.check(t, entries)
    for r, tab, message in found:
        bad(Problem(r, tab, message))
    if entries and not has_rows:
        v.notes.append(_("the chain holds no record of the players, the draw and the events (the tournament was "
                         "stored before the chain covered them): only its sheets are checked"))
    return v


def verify_all(tid: int | None = None, heads: tuple = ()) -> list[Verdict]:
    q = select(Tournament).order_by(Tournament.id)
    if tid is not None:
        q = q.where(Tournament.id == tid)
    return [verify(t, heads) for t in db.session.scalars(q)]


def verify_server_log() -> int | None:
    """The id of the first server-log entry (no tournament) that does not chain, or None."""
    prev = ""
    for e in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id.is_(None))
                                .order_by(AuditEntry.id)):
        if e.prev_hash != prev or e.compute_hash() != e.hash:
            return e.id
        prev = e.hash
    return None


# --------------------------------------------------------------------------- a player checks a receipt


@dataclass
class ReceiptCheck:
    receipt: str
    sheet: Sheet | None = None
    round: int | None = None
    table: RoundTable | None = None
    entry: AuditEntry | None = None
    intact: bool = False  # the entry is as written and the sheet row is what it recorded
    head: PublishedHead | None = None
    counting: Sheet | None = None  # the table's sheet that counts, when it is another one

    @property
    def found(self) -> bool:
        return self.sheet is not None


def check_receipt(t: Tournament, typed: str) -> ReceiptCheck:
    """What the chain says about the sheet with this receipt (the public receipt page)."""
    code = normalise_receipt(typed)
    out = ReceiptCheck(code)
    if not code:
        return out
    row = db.session.execute(
        select(Sheet, Round.number).join(RoundTable, Sheet.table_id == RoundTable.id)
        .join(Round, RoundTable.round_id == Round.id)
        .where(Round.tournament_id == t.id, Sheet.receipt == code)).first()
    if row is None:
        return out
    out.sheet, out.round = row
    out.table = out.sheet.table
    if out.sheet.chain_seq is not None:
        out.entry = db.session.scalar(select(AuditEntry).where(AuditEntry.tournament_id == t.id,
                                                               AuditEntry.seq == out.sheet.chain_seq))
    e = out.entry
    if e is not None and e.action == "sheet.store" and e.compute_hash() == e.hash \
            and hmac.compare_digest(e.mac or "", entry_mac(t.id, e.hash)) \
            and b32(e.hash).startswith(code.replace("-", "")) \
            and content_hash_of(out.sheet.content or {}) == out.sheet.content_hash \
            and (e.payload.get("sheet") or {}).get("content_hash") == out.sheet.content_hash:
        latest = dict(_latest_record(t.id, out.round, out.table.number, out.sheet.version) or {})
        signed_players = latest.pop("players", None)
        out.intact = latest == sheet_record(out.sheet, out.round, out.table.number) \
            and list(out.table.players) == signed_view(out.sheet).players \
            and signed_players in (None, list(out.table.players))
        head = published_under(t.id, e.seq)
        if head is MISSING_HEAD:  # the chain says it was published, the database no longer has it
            out.intact, head = False, None
        elif head is not None:
            at_head = db.session.scalar(select(AuditEntry.hash).where(AuditEntry.tournament_id == t.id,
                                                                      AuditEntry.seq == head.seq))
            if at_head != head.hash:  # the chain no longer holds what was published: not a proof
                out.intact, head = False, None
        out.head = head
    counting = out.table.sheet
    if counting is not None and counting is not out.sheet:
        out.counting = counting
    return out


def _latest_record(tid: int, round_no: int, table_no: int, version: int) -> dict | None:
    latest = None
    for payload in db.session.scalars(
            select(AuditEntry.payload).where(AuditEntry.tournament_id == tid,
                                             AuditEntry.action.in_(("sheet.store", "sheet.update")))
            .order_by(AuditEntry.seq)):
        rec = payload.get("sheet") or {}
        if (rec.get("round"), rec.get("table"), rec.get("version")) == (round_no, table_no, version):
            latest = rec
    return latest


def receipts_in_record(tid: int, codes) -> dict[str, bool]:
    """For a player's own page, at every update: is each receipt's sheet in the tournament's
    record as stored? True when its chain entry is intact (its content gives its hash, this
    server's MAC, the receipt is the hash's start), the sheet's content still gives the
    content hash that entry recorded and the row's counting fields are that content's;
    False otherwise (a receipt not found is False too).
    Two queries for all of them; `check_receipt` is the full check of one."""
    codes = [c for c in {normalise_receipt(x) for x in codes} if c]
    out = dict.fromkeys(codes, False)
    if not codes:
        return out
    sheets = db.session.scalars(
        select(Sheet).join(RoundTable, Sheet.table_id == RoundTable.id).join(Round, RoundTable.round_id == Round.id)
        .where(Round.tournament_id == tid, Sheet.receipt.in_(codes))).all()
    seqs = {s.chain_seq for s in sheets if s.chain_seq is not None}
    entries = {e.seq: e for e in db.session.scalars(
        select(AuditEntry).where(AuditEntry.tournament_id == tid, AuditEntry.seq.in_(seqs)))} if seqs else {}
    for s in sheets:
        e = entries.get(s.chain_seq)
        out[s.receipt] = e is not None and e.action == "sheet.store" and e.compute_hash() == e.hash \
            and hmac.compare_digest(e.mac or "", entry_mac(tid, e.hash)) \
            and b32(e.hash).startswith(s.receipt.replace("-", "")) \
            and content_hash_of(s.content or {}) == s.content_hash \
            and (e.payload.get("sheet") or {}).get("content_hash") == s.content_hash \
            and not content_disagrees(s, s.content or {})
    return out
