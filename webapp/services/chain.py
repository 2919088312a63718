"""One hash chain per tournament over everything that counts (docs/SECURITY.md).

Every entry: the tournament, `seq` (1, 2, 3 … without gaps), the previous
entry's hash, a kind, an actor, a time and a JSON payload;
`hash = sha256(canonical entry)` and `mac = HMAC(derived_key("chain", tid), hash)`.
The tournament row keeps the head (seq, hash) with its MAC, so a deleted tail
shows; the pages that publish standings show the head and the server keeps
every head it showed (PublishedHead, chain_heads).

Sheets need no caller's help: every Sheet row that is new, or whose counting
fields changed, is written into the chain before the next entry of its
tournament, and at the latest before the transaction commits (a session
listener). A new sheet gets an entry of its own (`sheet.store`: its record
and its content); its receipt is a prefix of that entry's hash.

This module holds the canonical forms and labels, sheets as the chain records
them, and appending with the session listeners that keep the head; published
heads, verifying and a player's receipt check are in chain_heads, chain_verify
and receipts.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
from types import SimpleNamespace

from sqlalchemy import bindparam, event, insert, select, text, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import get_history, set_committed_value

from ..extensions import db
from ..models import AuditEntry, Round, RoundTable, Sheet, Tournament, entry_canonical, utcnow
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
        # a new phone sheet's receipt is checked by the INSERT of its row (services/sheet_submit.insert_sheet)
        sheet.receipt = receipt_candidates(entry.hash)[0] if hold else unused_receipt(tid, entry.hash)
        sheet._stored_hash = entry.hash
    sheet._chained_record = rec
    sheet._chained_where = (tid, round_no, table_no, players)
    return entry


def store_new(sheet: Sheet, tid: int, round_no: int, table_no: int, players, actor: str) -> AuditEntry:
    """A new phone sheet's `sheet.store` entry, made before the sheet's row: the caller
    inserts the row as it stands now, with its chain_seq and receipt, by a table-level
    INSERT (services/sheet_submit.insert_sheet), so `sheet` stays outside the session and nothing
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
