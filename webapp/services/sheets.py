"""Phone score sheets (docs/SYNC.md): what every step of a phone's sheet shares. The answer to
send (`Answer`) or a refusal (`SyncRefusal`: the caller rolls back, except when `commit` is set,
as a wrong PIN is counted even though the sheet is refused); the table a token opens, its seated
players and its draft; and the answer a stored sheet or a replayed submission gives.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from flask_babel import gettext as _
from sqlalchemy import bindparam, select
from sqlalchemy.orm import contains_eager

from ..db.connections import read_row
from ..extensions import db
from ..models import Case, Player, Round, RoundTable, Sheet, SheetDraft, Submission as SubmissionRow, Tournament
from ..sync import protocol
from .pins import PLAYERS_BY_NO, PinError, PinLocked
from .tokens import TokenError, TokenExpired, read_table_token

ACTOR = "phone"


@dataclass
class Answer:
    http_status: int
    body: dict


class SyncRefusal(Exception):
    """An answer that stores nothing. `commit`: the session holds something that
    must be kept anyway (a wrong PIN's count)."""

    def __init__(self, http_status: int, body: dict, commit: bool = False):
        super().__init__(body.get("message") or body.get("error") or body["status"])
        self.http_status = http_status
        self.body = body
        self.commit = commit

    @property
    def answer(self) -> Answer:
        return Answer(self.http_status, self.body)


def invalid(error: str, message: str, *, start_no: int | None = None, field: str | None = None,
            **extra) -> SyncRefusal:
    body = {"status": "invalid", "error": error, "message": message}
    if start_no is not None:
        body["start_no"] = start_no
    if field is not None:
        body["field"] = field
    body.update(extra)
    return SyncRefusal(422, body)


def bad_request(message: str, field: str | None = None) -> SyncRefusal:
    body = {"status": "bad-request", "message": message}
    if field is not None:
        body["field"] = field
    return SyncRefusal(400, body)


def forbidden(message: str) -> SyncRefusal:
    return SyncRefusal(403, {"status": "forbidden", "message": message})


def gone(message: str) -> SyncRefusal:
    return SyncRefusal(410, {"status": "gone", "message": message})


def refused(error: str, message: str, **extra) -> SyncRefusal:
    return SyncRefusal(409, {"status": "refused", "error": error, "message": message, **extra})


def from_protocol(e: protocol.ProtocolError) -> SyncRefusal:
    """The protocol's English messages are for developers; what a player reads is translated."""
    if e.code == "bad-request":
        return bad_request(e.message, e.field)
    s = e.start_no
    messages = {
        "hash-mismatch": lambda: _("The sheet changed after it was signed. Check the sums and sign again."),
        "signature-hash": lambda: _("The signature of start number %(s)d is for other sums: sign again.", s=s),
        "signature-missing": lambda: _("Start number %(s)d has not signed the sheet.", s=s),
        "not-at-table": lambda: _("Start number %(s)d does not sit at this table.", s=s),
    }
    message = messages[e.code]() if e.code in messages else e.message
    return invalid(e.code, message, start_no=s, field=e.field)


def pin_refusal(e: PinError, proofs: dict[int, str] | None = None) -> SyncRefusal:
    """`proofs`: for a sheet, the right PINs' proofs ({start_no: proof}), so the
    phone can drop those PINs and send the proofs instead."""
    more = {"pin_proofs": {str(k): v for k, v in proofs.items()}} if proofs else {}
    if isinstance(e, PinLocked):
        return SyncRefusal(423, {"status": "locked", "start_no": e.start_no, "until": iso_utc(e.until),
                                 "message": str(e), **more}, commit=True)
    extra = {"attempts_left": e.attempts_left} if e.attempts_left is not None else {}
    refusal = invalid(e.code, str(e), start_no=e.start_no, **extra, **more)
    refusal.commit = True
    return refusal


def iso_utc(dt) -> str:
    """Stored times are naive UTC."""
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def cents_text(cents: int) -> str:
    return f"{Decimal(cents).scaleb(-2):.2f}"


def text_cents(text: str) -> int:
    return int(Decimal(text).scaleb(2))


def read_token(token: str) -> tuple[int, int, int]:
    try:
        return read_table_token(token)
    except TokenExpired as e:
        raise gone(str(e)) from e
    except TokenError as e:
        raise forbidden(str(e)) from e


# built once: the hot path's statements (a phone sheet, a poll) with their cache keys made once too
_TOURNAMENT = select(Tournament).where(Tournament.id == bindparam("tid"))
# FOR NO KEY UPDATE: writers of one tournament take turns, while a row that references it (a player's row
# updated twice in one PIN check, a chain entry) is not held up by its key check (services/pins.py)
_TOURNAMENT_LOCKED = _TOURNAMENT.with_for_update(key_share=True).execution_options(populate_existing=True)
LATER_ROUND = (select(Round.id).where(Round.tournament_id == bindparam("tid"), Round.number > bindparam("rno"))
                .limit(1).scalar_subquery())
# the table's sheets in the same statement: a phone sheet and a poll need them (_same_sheet, shown_sheet)
_ROUND_TABLE = (select(Round, RoundTable, LATER_ROUND).join(RoundTable, RoundTable.round_id == Round.id)
                .outerjoin(Sheet, Sheet.table_id == RoundTable.id).options(contains_eager(RoundTable.sheets))
                .where(Round.tournament_id == bindparam("tid"), Round.number == bindparam("rno"),
                       RoundTable.number == bindparam("no")).order_by(Sheet.version))
# …and with the tournament, where nothing is locked (and a phone sheet on SQLite, locked by BEGIN IMMEDIATE
# before it). A phone sheet on PostgreSQL locks the tournament's row in a statement of its own first: a
# statement's snapshot predates its wait for the lock, and the table's sheets read with it would miss a
# twin sheet committed during that wait.
_TOURNAMENT_ROUND_TABLE = _ROUND_TABLE.add_columns(Tournament).join(Tournament, Tournament.id == Round.tournament_id)
_LOCKED_ROUND_TABLE = _TOURNAMENT_ROUND_TABLE.execution_options(populate_existing=True)
_SUBMISSION = select(SubmissionRow.content_hash, SubmissionRow.http_status, SubmissionRow.response).where(
    SubmissionRow.idempotency_key == bindparam("key"))


def load_tournament(tid: int, lock: bool = False) -> Tournament:
    """With `lock`, the tournament row is locked until commit (PostgreSQL; SQLite's
    BEGIN IMMEDIATE already serialises writers): submissions for one tournament
    take their turn, so two phones never both find a table empty, and the
    version bump never meets a concurrent one."""
    t = db.session.scalar(_TOURNAMENT_LOCKED if lock else _TOURNAMENT, {"tid": tid})
    if t is None:
        raise gone(_("This tournament is no longer on this server."))
    return t


def playing_table(t: Tournament, round_no: int, table_no: int) -> tuple[Round, RoundTable]:
    """The table, if its round is the one being played now."""
    # one table and its round, not the round's 140 tables nor the tournament's other rounds
    rows = db.session.execute(_ROUND_TABLE, {"tid": t.id, "rno": round_no, "no": table_no}).unique().all()
    return check_playing(*((rows[0][0], rows[0][1], rows[0][2] is None) if rows else (None, None, False)))


def check_playing(r: Round | None, tab: RoundTable | None, latest: bool) -> tuple[Round, RoundTable]:
    if tab is None:
        raise gone(_("This table is not in the current draw. Scan the QR code on the new sheet."))
    if r.status == "closed":
        raise gone(_("Round %(n)d is over: its sheets go to the referee now.", n=r.number))
    if not latest or r.status != "published":
        raise gone(_("This sheet is for round %(n)d, which is not the round being played now.", n=r.number))
    return r, tab


def token_table(token: str) -> tuple[Tournament, Round, RoundTable]:
    """The tournament, round and table a token opens, if that round is being played: one
    statement (a poll, a PIN, a draft); none of these locks the tournament."""
    return _with_tournament(_TOURNAMENT_ROUND_TABLE, *read_token(token))


def locked_table(tid: int, round_no: int, table_no: int) -> tuple[Tournament, Round, RoundTable]:
    """The tournament, locked until commit, and the table if its round is being played. On SQLite
    in one statement: BEGIN IMMEDIATE took the write lock before it, so it reads what the writers
    before committed. On PostgreSQL the lock first, in a statement of its own (_TOURNAMENT_ROUND_TABLE)."""
    if db.session.get_bind().dialect.name == "sqlite":
        return _with_tournament(_LOCKED_ROUND_TABLE, tid, round_no, table_no, lock=True)
    t = load_tournament(tid, lock=True)
    return (t, *playing_table(t, round_no, table_no))


def _with_tournament(statement, tid: int, round_no: int, table_no: int,
                     lock: bool = False) -> tuple[Tournament, Round, RoundTable]:
    rows = db.session.execute(statement, {"tid": tid, "rno": round_no, "no": table_no}).unique().all()
    if not rows:  # which is gone, the tournament or the table, said as a phone sheet says it
        t = load_tournament(tid, lock=lock)
        return (t, *playing_table(t, round_no, table_no))
    r, tab, later, t = rows[0]
    return (t, *check_playing(r, tab, later is None))


def check_for_token(c: protocol.Content, tid: int, round_no: int, table_no: int) -> None:
    if (c.tournament, c.round, c.table) != (tid, round_no, table_no):
        raise forbidden(_("This sheet is not for the table of this link. Scan the QR code on the sheet again."))


def table_players(t: Tournament, tab: RoundTable) -> dict[int, Player]:
    """The table's players by start number, read alone: the tournament's 400
    players are not loaded for one table (cached on the table for this request)."""
    cached = tab.__dict__.get("_listok_players")
    if cached is None:
        if "players" in t.__dict__:  # loaded already (the desk): no query
            cached = {p.start_no: p for p in t.players if p.start_no in tab.players}
        else:
            cached = {p.start_no: p for p in db.session.scalars(PLAYERS_BY_NO, {"tid": t.id, "nos": list(tab.players)})}
        tab.__dict__["_listok_players"] = cached
    return cached


def seated_player(t: Tournament, tab: RoundTable, start_no: int) -> Player:
    player = table_players(t, tab).get(start_no)
    if player is None or start_no not in tab.players:
        raise invalid("not-at-table", _("Start number %(s)d does not sit at this table.", s=start_no),
                      start_no=start_no)
    return player


def case_of(sheet: Sheet) -> Case | None:
    return db.session.scalar(select(Case).where(Case.sheet_id == sheet.id).order_by(Case.id.desc()).limit(1))


def sheet_answer(sheet: Sheet, case: Case | None = None) -> Answer:
    """What a phone is told about a stored sheet."""
    if sheet.status in ("accepted", "superseded"):
        return Answer(200, {"status": "accepted", "receipt": sheet.receipt, "version": sheet.version})
    case = case or case_of(sheet)
    case_id = case.id if case else None
    if sheet.status == "dispute":
        return Answer(202, {"status": "dispute", "receipt": sheet.receipt, "case": case_id,
                            "version": sheet.version})
    reason = case.kind if case and case.kind in ("negative-sum", "correction", "pin-reissued", "pin-mismatch") else \
        ("correction" if sheet.base_version else "negative-sum")
    body = {"status": "needs-referee", "reason": reason, "receipt": sheet.receipt, "case": case_id,
            "version": sheet.version}
    if reason == "pin-mismatch":
        body["pin_failed"] = [x["start_no"] for x in (case.payload or {}).get("pin_failed") or []]
    return Answer(202, body)


def replay(stored: SubmissionRow, content_hash: str) -> Answer:
    if stored.content_hash != content_hash:
        raise refused("idempotency-conflict", _("This sheet was already sent with other sums. "
                                                "Nothing was stored: check the sheet with the referee."))
    return Answer(stored.http_status, {**stored.response, "replay": True})


def peek_submission(key: str) -> SubmissionRow | None:
    """The stored submission for this key, read on a connection of its own without waiting for
    a writer: on SQLite it never takes the write lock; on PostgreSQL it is in autocommit
    (database.read_row), so a replay costs one round trip, not a BEGIN, the SELECT and a
    ROLLBACK in the request's transaction."""
    row = read_row(_SUBMISSION, {"key": key})
    if row is None:
        return None
    return SubmissionRow(idempotency_key=key, content_hash=row[0], http_status=row[1], response=row[2])


def stored_answer(sub: protocol.Submission) -> Answer | None:
    """The answer already stored for this key (after a lost race for it), if any."""
    stored = db.session.get(SubmissionRow, sub.idempotency_key)
    return replay(stored, sub.content.hash) if stored is not None else None


def next_version(tab: RoundTable) -> int:
    """Every sheet of a table, counted or not, has a version of its own."""
    return max((s.version for s in tab.sheets), default=0) + 1


def matching_draft(tab: RoundTable, content_hash: str) -> SheetDraft | None:
    return db.session.scalar(select(SheetDraft).where(SheetDraft.table_id == tab.id,
                                                      SheetDraft.content_hash == content_hash))
