"""Phone score sheets (docs/SYNC.md): a signed sheet comes in, is checked
against the table's token, its seating, the rule set and the players' PINs,
and is stored once — accepted, waiting for a referee (SEM-C4, SEM-C8), or
beside a different sheet of the same table as a dispute. Never merged, never
overwritten.

`submit` changes the caller's session and returns the answer; the caller
commits (one transaction: sheet, submission, case, audit entry, version
bump). A refusal is a `SyncRefusal` with the answer to send; the caller rolls
back, except when `commit` is set (a wrong PIN is counted even though the
sheet is refused).

One file because a sheet alone, a batch of sheets and a draft go through the same
checks and answers (not yet split); its sections: the table a token opens, answers,
submitting, PIN check and table state, signing on one's own phone, referee decisions.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from decimal import Decimal
from types import SimpleNamespace

from flask import current_app
from flask_babel import force_locale, get_locale, gettext as _
from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import contains_eager

from ..db.connections import read_row
from ..extensions import db
from ..models import (Case, DraftSignature, Player, Round, RoundTable, Sheet, SheetDraft,
                      Submission as SubmissionRow, Tournament, utcnow)
from ..rules.points import sheet_hints, table_outcome
from ..rules.ruleset import get_ruleset
from ..sync import protocol
from . import acks, chain, rule_texts
from .common import ServiceError, StaleError, audit, bump
from .engine import rules_table
from .pins import (PLAYERS_BY_NO, PinError, PinLocked, check_pin, check_pins, hold_players, lock_tournament,
                   pin_proof, round_started)
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


# --------------------------------------------------------------------------- the table a token opens


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
_LATER_ROUND = (select(Round.id).where(Round.tournament_id == bindparam("tid"), Round.number > bindparam("rno"))
                .limit(1).scalar_subquery())
# the table's sheets in the same statement: a phone sheet and a poll need them (_same_sheet, shown_sheet)
_ROUND_TABLE = (select(Round, RoundTable, _LATER_ROUND).join(RoundTable, RoundTable.round_id == Round.id)
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
    return _playing(*((rows[0][0], rows[0][1], rows[0][2] is None) if rows else (None, None, False)))


def _playing(r: Round | None, tab: RoundTable | None, latest: bool) -> tuple[Round, RoundTable]:
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
    return (t, *_playing(r, tab, later is None))


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


# --------------------------------------------------------------------------- answers


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


# --------------------------------------------------------------------------- submitting


def _check_content(t: Tournament, tab: RoundTable, sub: protocol.Submission) -> None:
    _check_players(tab, sub.content)
    try:
        protocol.check_hashes(sub)
        protocol.check_signed_by(sub, tab.players)
    except protocol.ProtocolError as e:
        raise from_protocol(e) from e
    _check_sums(t, tab, sub.content)


def _check_players(tab: RoundTable, c: protocol.Content) -> None:
    if list(c.players) != list(tab.players):
        stranger = next((s for s in c.players if s not in tab.players), None)
        if stranger is not None:
            raise invalid("not-at-table", _("Start number %(s)d does not sit at this table.", s=stranger),
                          start_no=stranger, field="content.players")
        raise invalid("not-at-table", _("The sheet must list the players of table %(t)d in their seat order: "
                                        "%(players)s.", t=tab.number, players=", ".join(map(str, tab.players))),
                      field="content.players")


def _check_sums(t: Tournament, tab: RoundTable, c: protocol.Content) -> None:
    if tab.pending_dq and tab.pending_dq.get("players"):
        # a disqualification decides which sums count (SEM-D1): the desk enters this table
        raise invalid("desk-only", _("A player at table %(t)d is disqualified: this sheet is entered at the "
                                     "results desk.", t=tab.number))
    rs = get_ruleset(t.ruleset)
    sums = [Decimal(cents_text(x)) for x in c.sums_cents]
    expected = rs.expected_total(len(sums))
    if expected is not None and sum(sums) != expected:
        raise invalid("wrong-total", _("The sums total %(total)s, the table total must be %(exp)s (%(rule)s).",
                                       total=f"{sum(sums):.2f}", exp=f"{expected:.2f}", rule=rs.total_rule),
                      field="content.sums_cents")
    _check_ruleset_fields(rs, tab, c)
    for h in sheet_hints(rs, sums):
        if h.blocking and h.position is not None:
            raise invalid("impossible-sum", _("A sum of %(sum)s is impossible: one game costs at most %(max)s "
                                              "(SEM-C11).", sum=f"{sums[h.position]:.2f}",
                                              max=f"{rs.max_payment_per_game:.2f}"),
                          start_no=c.players[h.position], field=f"content.sums_cents[{h.position}]")
    if c.negative and rs.negative_sum_note and not c.note.strip():
        raise invalid("note-required", _("A negative sum needs the note of the last game (SEM-C8): its type and "
                                         "payment."), field="content.note")


def _check_ruleset_fields(rs, tab: RoundTable, c: protocol.Content) -> None:
    """The rule set's own fields (docs/SYNC.md "Rule sets"): ČSM's PB and premium games (CSM-2, CSM-3),
    Thousand's score and ending (TH-3); the rule set's own checks of the sheet."""
    wants = {"scores": rs.result_kind != "money", "ended": rs.result_kind == "score",
             "premium_games": rs.result_kind == "zb+pb", "late": rs.late_fee is not None,
             "keeper_by_lot": rs.keeper_by_lot}
    for name, wanted in wants.items():
        present = getattr(c, name) is not None
        if present != wanted and (wanted or present):
            if name in ("premium_games", "late", "keeper_by_lot") and not present:
                continue  # sent only when there is one: a game worth 50 PB, a late player, a lot
            message = (_("This tournament's sheet needs the field %(field)s.", field=name) if wanted
                       else _("This tournament's sheet has no field %(field)s.", field=name))
            raise invalid("bad-ruleset-field", message, field=f"content.{name}")
    if rs.result_kind == "score" and [x * 100 for x in c.scores] != list(c.sums_cents):
        raise invalid("bad-ruleset-field", _("The scores and the sums of the sheet differ."), field="content.scores")
    problem = rs.check_table(content_table(tab, c))
    if problem:
        raise invalid("ruleset", rule_texts.problem_text(problem), field="content")


def content_table(tab: RoundTable, c: protocol.Content):
    """A sheet's content as the engine's table result."""
    games = [{"start_no": s, "game": g, "pb": pb, "signed_by": list(by)} for s, g, pb, by in c.premium_games or ()]
    return rules_table(tab.number, tab.players, SimpleNamespace(
        sums=[cents_text(x) for x in c.sums_cents], points=None, disqualified=(), early=False,
        scores=protocol.stored_field(c.as_dict(), "scores"), ended=c.ended, premium_games=games,
        late=list(c.late) if c.late else None, keeper_by_lot=c.keeper_by_lot))


def _same_sheet(tab: RoundTable, c: protocol.Content, h: str) -> Sheet | None:
    """A sheet of this table this one repeats: the same signed content, or —
    for a first sheet — the same sums on the counted paper sheet."""
    for s in tab.sheets:
        if s.status != "rejected" and s.content_hash == h:
            return s
    cur = tab.sheet
    if (c.base_version == 0 and cur is not None and not _signed(cur) and not cur.disqualified
            and [text_cents(x) for x in cur.sums] == list(c.sums_cents)):
        return cur
    return None


def _signed(sheet: Sheet) -> bool:
    """A phone sheet (its content is what players signed), not one the desk entered."""
    return sheet.source == "phone" or (sheet.content or {}).get("protocol") == protocol.PROTOCOL


def _check_pins(t: Tournament, tab: RoundTable, sub: protocol.Submission, together: _Together | None = None) -> None:
    """Each PIN of the sheet evaluated once, in seat order (a valid proof stands
    for a right PIN). All are checked, so that the answer can carry the proofs
    of the right ones; the first failure answers."""
    failures, proofs = _pin_failures(t, tab, sub, together)
    if failures:
        raise pin_refusal(failures[0], proofs)


def _pin_failures(t: Tournament, tab: RoundTable, sub: protocol.Submission,
                  together: _Together | None = None) -> tuple[list[PinError], dict]:
    """Every PIN of the sheet evaluated once: the failures in seat order and the right PINs' proofs."""
    proofs, checks = {}, []
    if together is None:
        now = utcnow()
        # the table's players read by the statement that takes their rows (step 1 of the lockout rule)
        tab.__dict__["_listok_players"], held = hold_players(t, tab.players, now)
    else:  # taken for all the batch's tables at once
        now, held = together.now, together.held
        tab.__dict__["_listok_players"] = {s: together.players[s] for s in tab.players if s in together.players}
    for start_no in tab.players:
        signature = sub.signature_of(start_no)
        if signature.own_phone:
            continue  # its PIN was checked when it was given (sign_draft)
        checks.append((seated_player(t, tab, start_no), signature.pin, (signature.hash, signature.pin_proof)))
    # one statement per step of the lockout rule for the whole table (services/pins.check_pins)
    errors = check_pins(t, checks, now, held) if checks else []
    failures = [e for e in errors if e is not None]
    if failures:  # the right PINs' proofs go with the refusal only
        proofs = {player.start_no: pin_proof(t.id, player.start_no, signed_hash, player.pin_hash)
                  for (player, _pin, (signed_hash, _proof)), error in zip(checks, errors) if error is None}
    return failures, proofs


def reissued_pins(t: Tournament, r: Round, tab: RoundTable) -> list[dict]:
    """The table's players whose current PIN was issued after the round started:
    a sheet they sign goes to the referee instead of counting."""
    start = round_started(r)
    if start is None:
        return []
    by_no = table_players(t, tab)
    return [{"start_no": s, "issued_at": by_no[s].pin_issued_at.isoformat(timespec="seconds"),
             "issued_by": by_no[s].pin_issued_by or ""}
            for s in tab.players if s in by_no and by_no[s].pin_issued_at and by_no[s].pin_issued_at > start]


def _own_phone_signatures(tab: RoundTable, sub: protocol.Submission, retaken: bool = False) -> dict[int, dict]:
    """The signatures players gave on their own phones, as stored with the sheet;
    each must be on the server for exactly this content. A retaken sheet's may have been lost with
    the draft in the restore: the ack proves they were there, the drawing stays empty."""
    wanted = [s for s in sub.signatures if s.own_phone]
    if not wanted:
        return {}
    draft = _draft(tab, sub.content_hash)
    given = {g.start_no: g for g in draft.signatures} if draft else {}
    out = {}
    for s in wanted:
        g = given.get(s.start_no)
        if g is None and retaken:
            out[s.start_no] = {"start_no": s.start_no, "hash": sub.content_hash, "drawing": "",
                               "signed_at": s.signed_at, "own_phone": True}
            continue
        if g is None:
            raise invalid("signature-missing", _("The server does not have the signature start number %(s)d gave "
                                                 "on their own phone for these sums: sign on this phone.",
                                                 s=s.start_no), start_no=s.start_no, field="signatures")
        out[s.start_no] = {"start_no": s.start_no, "hash": sub.content_hash, "drawing": g.drawing,
                           "signed_at": g.signed_at, "own_phone": True}
    return out


def early_answer(sub: protocol.Submission) -> tuple[Answer | None, tuple[int, int, int]]:
    """What is answered before any write: a refused token or table (SyncRefusal),
    or the stored answer of a replay, read without the write lock; None when the
    sheet must be written (admission control counts only those, webapp/admission.py).
    With it, the (tournament, round, table) of the token, read once."""
    place = read_token(sub.token)
    check_for_token(sub.content, *place)
    stored = peek_submission(sub.idempotency_key)
    return (replay(stored, sub.content.hash) if stored is not None else None), place


def submit(sub: protocol.Submission, peeked: bool = False) -> Answer:
    """Check and store one signed sheet (docs/SYNC.md, POST /api/v1/sheets).
    `peeked`: early_answer has just looked the key up without the write lock."""
    tid, round_no, table_no = read_token(sub.token)
    check_for_token(sub.content, tid, round_no, table_no)
    stored = None if peeked else peek_submission(sub.idempotency_key)
    if stored is not None:
        return replay(stored, sub.content.hash)
    t, r, tab = locked_table(tid, round_no, table_no)
    chain.seed_head(t)
    # a request with the same key that held the lock meanwhile is found by the submission's primary
    # key at commit (IntegrityError): the caller rolls back and answers what that request stored
    answer, new = _store_sheet(t, r, tab, sub)
    if new:  # after the last entry: one UPDATE moves the version and the chain's head
        bump(t, public=False)  # (the round being played: no public page shows its sheets but the player's own)
    return answer


@dataclass
class _Together:
    """What the sheets written in one transaction share (submit_together): the players of all
    their tables taken by one statement at `now`; the new sheets no case names and the
    submissions' rows (with their sheets), inserted at the end (_write_together: one round trip on
    PostgreSQL)."""
    now: object
    players: dict
    held: dict
    sheets: list
    submissions: list


def submit_together(tid: int, subs: list[protocol.Submission], places: list[tuple[int, int]],
                    locales: list[str | None] | None = None) -> list[Answer | SyncRefusal]:
    """Several phone sheets of tournament `tid`, each for a table of its own and with a key of its own,
    checked and stored one after another in the caller's transaction, exactly as `submit` would
    one by one, but with the tournament's lock, the tables' read, the players' PIN rows, the
    submissions' and the chain entries' INSERTs, the version bump and the commit once for them all
    (the round-end burst's group commit; webapp/sync/together.py gathers them). `places`:
    each sheet's (round, table), from its token, read by the caller (early_answer). Each
    sheet's answer or refusal, in order; a refusal's own writes are a wrong PIN's count, which are
    kept as `submit`'s caller keeps them. The early checks (token, key) are the caller's, done.
    Anything else raised leaves the transaction to be rolled back, and each sheet to go alone."""
    now = utcnow()
    t, found, players, held = _batch_reads(tid, places, sorted({s for sub in subs for s in sub.content.players}),
                                           now)
    chain.seed_head(t)
    together = _Together(now, players, held, [], [])
    out: list[Answer | SyncRefusal] = []
    new_any = False
    for i, sub in enumerate(subs):
        place = found[places[i]]
        try:
            if isinstance(place, SyncRefusal):
                raise place
            with _locale(locales[i] if locales else None):
                answer, new = _store_sheet(t, *place, sub, together)
        except SyncRefusal as e:
            out.append(e)
            continue
        new_any = new_any or new
        out.append(answer)
    _write_together(t, together, new_any)
    return out


def _locale(locale: str | None):
    """A sheet written by another request's thread answers in its own phone's language."""
    if locale is None or locale == str(get_locale()):
        return nullcontext()
    return force_locale(locale)


# the round's tables of a batch with their sheets, as _ROUND_TABLE reads one
_ROUND_TABLES = (select(Round, RoundTable, _LATER_ROUND).join(RoundTable, RoundTable.round_id == Round.id)
                 .outerjoin(Sheet, Sheet.table_id == RoundTable.id).options(contains_eager(RoundTable.sheets))
                 .where(Round.tournament_id == bindparam("tid"), Round.number == bindparam("rno"),
                        RoundTable.number.in_(bindparam("nos", expanding=True)))
                 .order_by(RoundTable.number, Sheet.version))


def _batch_reads(tid: int, places: list[tuple[int, int]], start_nos: list[int], now) -> tuple:
    """A batch's first reads, the tournament locked first (the tables are read after the lock is
    held, as a lone sheet reads them, `locked_table`): (the tournament; (round, table) → (round,
    table) if that round is being played, else its SyncRefusal; the players of `start_nos` (the
    batch's sheets name them, and a sheet naming others than its table's is refused before any
    PIN) by start number, and `held`, pins.hold_players' step 1 for them)."""
    t = load_tournament(tid, lock=True)
    found: dict = {}
    for rno in sorted({rno for rno, _no in places}):
        nos = sorted({no for r, no in places if r == rno})
        rows = db.session.execute(_ROUND_TABLES, {"tid": tid, "rno": rno, "nos": nos}).unique().all()
        tables = {tab.number: (r, tab, later is None) for r, tab, later in rows}
        for no in nos:
            try:
                found[(rno, no)] = _playing(*tables.get(no, (None, None, False)))
            except SyncRefusal as e:
                found[(rno, no)] = e
    players, held = hold_players(t, start_nos, now)
    return t, found, players, held


def _store_sheet(t: Tournament, r: Round, tab: RoundTable, sub: protocol.Submission,
                 together: _Together | None = None) -> tuple[Answer, bool]:
    """One sheet checked and stored at its table, the tournament locked: (its answer, whether it
    stored a new sheet, which moves the version). A refusal raised before anything of this sheet
    is written, but a wrong PIN's count (`SyncRefusal.commit`)."""
    c = sub.content
    h = c.hash
    _check_content(t, tab, sub)
    retaken = _retaken(t, r, tab, sub)

    own = _own_phone_signatures(tab, sub, retaken)
    same = _same_sheet(tab, c, h)
    if same is not None:
        if not retaken:
            _check_pins(t, tab, sub, together)
        answer = _acknowledged(sheet_answer(same), sub, t, r, tab, retaken)
        _store_submission(sub, h, tab, same, answer, together)
        payload = {"round": r.number, "table": tab.number, "version": same.version, "receipt": same.receipt,
                   "content_hash": h, "key": sub.idempotency_key}
        if together is None:
            audit("sheet.confirm", ACTOR, payload, t.id)
        else:  # with the batch's other entries, in one INSERT before commit
            chain.append(t.id, "sheet.confirm", ACTOR, payload, hold=True)
        return answer, False

    current = tab.sheet
    if c.base_version and (current is None or current.version != c.base_version):
        raise refused("stale-version", _("This correction is for version %(v)d of the sheet, but the table's "
                                         "sheet is now version %(cur)d. Reload the table.",
                                         v=c.base_version, cur=current.version if current else 0),
                      current_version=current.version if current else 0)
    pin_failed = [] if retaken else _offline_pin_failures(t, tab, sub, together)
    reissued = reissued_pins(t, r, tab)

    other = None
    if c.base_version:
        status, kind = "pending", "correction"  # SEM-C4: the referee signs a red-pen correction
    else:
        waiting = [s for s in tab.sheets if s.status == "pending" and not s.base_version]
        other = current or (waiting[-1] if waiting else None)
        if other is not None:
            status, kind = "dispute", "dispute"
        elif pin_failed:
            status, kind = "pending", "pin-mismatch"  # signed offline with a PIN that did not match
        elif c.negative and get_ruleset(t.ruleset).negative_sum_note:
            status, kind = "pending", "negative-sum"  # SEM-C8: counts once the referee co-signs
        elif reissued:
            status, kind = "pending", "pin-reissued"  # a PIN handed out mid-round signs nothing alone
        else:
            status, kind = "accepted", None
    sheet = Sheet(table_id=tab.id, version=next_version(tab), status=status,
                  sums=[cents_text(x) for x in c.sums_cents], source="phone", note=c.note, created_by=ACTOR,
                  content_hash=h, signatures=[own.get(s) or sub.signature_of(s).stored() for s in tab.players],
                  content=c.as_dict(), base_version=c.base_version,
                  scores=protocol.stored_field(c.as_dict(), "scores"), ended=c.ended,
                  premium_games=protocol.stored_field(c.as_dict(), "premium_games"), disqualified=[], early=False,
                  late=list(c.late) if c.late else None, keeper_by_lot=c.keeper_by_lot)
    with db.session.no_autoflush:
        # its chain entry first, so the row is inserted with its chain_seq and receipt (a prefix of the
        # entry's hash) instead of updated twice after; the entry's row goes in with sheet.phone's below
        chain.store_new(sheet, t.id, r.number, tab.number, tab.players, ACTOR)
        if together is not None and kind is None:
            together.sheets.append(sheet)  # nothing names its id before the batch's end
        else:
            insert_sheet(sheet, t.id)
    case = None
    if kind is not None:
        case = Case(tournament_id=t.id, round=r.number, table=tab.number, kind=kind, status="open",
                    sheet_id=sheet.id, other_sheet_id=other.id if other else None, created_by=ACTOR,
                    payload={"receipt": sheet.receipt, "version": sheet.version, "sums_cents": list(c.sums_cents),
                             "note": c.note, "base_version": c.base_version, "negative": c.negative,
                             "other_version": other.version if other else None,
                             **({"pin_reissued": reissued} if reissued else {}),
                             **({"pin_failed": pin_failed} if pin_failed else {})})
        db.session.add(case)
        db.session.flush()  # the answer names the case's id
    answer = _acknowledged(sheet_answer(sheet, case), sub, t, r, tab, retaken)
    with db.session.no_autoflush:
        _store_submission(sub, h, tab, sheet, answer, together)
        # chain.append, not audit(): the one sheet this writes has its entry already (store_new); audit
        # would flush first to find changed sheets (any other sheet changed is still chained before
        # the commit)
        chain.append(t.id, "sheet.phone", ACTOR, {
            "round": r.number, "table": tab.number, "version": sheet.version, "status": status,
            "sums": sheet.sums, "note": c.note, "receipt": sheet.receipt, "content_hash": h,
            "base_version": c.base_version, "case": case.id if case else None, "key": sub.idempotency_key,
            "signed_by": list(tab.players), "own_phone": sorted(own), **({"retaken": True} if retaken else {})},
            now=together is None, hold=True)
    return answer, True


def _retaken(t: Tournament, r: Round, tab: RoundTable, sub: protocol.Submission) -> bool:
    """Whether the sheet comes again with this server's acknowledgement (services/acks.py): the
    server lost it in a restore, and its PINs were checked when it was first taken in. An ack that
    does not match the sheet is refused: nothing is stored."""
    if not sub.ack:
        return False
    if not acks.valid(sub, t.id, r.number, tab.number):
        raise invalid("bad-ack", _("The server's acknowledgement does not match this sheet: nothing was stored. "
                                   "Ask the referee to enter the sheet from paper."), field="ack")
    return True


def _acknowledged(answer: Answer, sub: protocol.Submission, t: Tournament, r: Round, tab: RoundTable,
                  retaken: bool) -> Answer:
    """The answer with the ack the phone keeps until the round is closed (stored with the submission,
    so a replay carries it too)."""
    body = dict(answer.body, ack=acks.make(sub, t.id, r.number, tab.number))
    if retaken:
        body["retaken"] = True
    return Answer(answer.http_status, body)


def _offline_pin_failures(t: Tournament, tab: RoundTable, sub: protocol.Submission,
                          together: _Together | None = None) -> list[dict]:
    """PINs checked now. Online they were checked as typed, so a wrong one is refused and the
    table types it again; a sheet signed offline (`pins_unchecked`) arrives when the players may
    have left, so its wrong or locked PINs go to the referee with the sheet (kept pending) —
    the wrong attempts still count towards the lockout."""
    failures, proofs = _pin_failures(t, tab, sub, together)
    if not failures:
        return []
    if not sub.pins_unchecked:
        raise pin_refusal(failures[0], proofs)
    return [{"start_no": e.start_no, "locked": isinstance(e, PinLocked)} for e in failures]


def _store_submission(sub: protocol.Submission, h: str, tab: RoundTable, sheet: Sheet, answer: Answer,
                      together: _Together | None = None) -> None:
    row = {"idempotency_key": sub.idempotency_key, "table_id": tab.id, "content_hash": h,
           "http_status": answer.http_status, "response": answer.body}
    if together is not None:
        together.submissions.append((row, sheet))  # the sheet's id may come with the batch's INSERTs
    else:
        db.session.execute(_INSERT_SUBMISSION, {**row, "sheet_id": sheet.id})


def insert_sheet(sheet: Sheet, tid: int) -> None:
    """A new phone sheet's row as it stands, by a table-level INSERT: the unit of work was a large
    part of a phone sheet's CPU (benchmarks/README.md). `sheet` stays outside the session; its entry is in the
    chain already (chain.store_new) and nothing changes it after. The INSERT itself checks that no
    other sheet of the tournament has its receipt (the entry hash's first 8 characters): a SELECT
    fewer inside the tournament's lock. In the rare case one has, the longer receipt is found and
    the row inserted with it."""
    values = _sheet_values(sheet)
    row = db.session.execute(_guarded_insert(tuple(values)), {**values, "receipt_tid": tid}).first()
    if row is None:  # 40 bits in common with another sheet's receipt
        sheet.receipt = values["receipt"] = chain.unused_receipt(tid, sheet._stored_hash)
        row = db.session.execute(_INSERT_SHEET.returning(Sheet.__table__.c.id), values).first()
    sheet.id = row[0]


class ReceiptTaken(Exception):
    """A receipt of a batch's new sheets is another sheet's: the batch goes alone (insert_sheet)."""


def _write_together(t: Tournament, together: _Together, new_any: bool) -> None:
    """The end of a batch (submit_together): its new sheets by insert_sheet's guarded INSERT each,
    the submissions, the chain entries held and the version bump with the chain's head. Where a
    receipt is another sheet's (40 bits in common; that INSERT inserts nothing), ReceiptTaken: the
    batch is rolled back and each of its sheets goes alone, where insert_sheet finds the longer
    receipt before the answer and the sheet.phone entry name it."""
    if together.sheets:
        ids = []
        for sheet in together.sheets:
            values = _sheet_values(sheet)
            row = db.session.execute(_guarded_insert(tuple(values)), {**values, "receipt_tid": t.id}).first()
            ids.append(None if row is None else row[0])
        if None in ids:
            raise ReceiptTaken([s.receipt for s, i in zip(together.sheets, ids) if i is None])
        for sheet, sheet_id in zip(together.sheets, ids):
            sheet.id = sheet_id
    if together.submissions:
        db.session.execute(_INSERT_SUBMISSION, [{**row, "sheet_id": sheet.id} for row, sheet in together.submissions])
    chain.write_held(db.session)
    if new_any:
        bump(t, public=False)


def _sheet_values(sheet: Sheet) -> dict:
    return {c.key: sheet.__dict__[c.key] for c in _SHEET_COLUMNS if c.key in sheet.__dict__}


_SHEET_COLUMNS = [c for c in Sheet.__table__.columns if c.key != "id"]
_INSERT_SHEET = insert(Sheet.__table__)
_INSERT_SUBMISSION = insert(SubmissionRow.__table__)


_GUARDED: dict[tuple, object] = {}


def _guarded_insert(keys: tuple[str, ...]):
    """INSERT INTO sheet (keys) SELECT :keys WHERE no sheet of tournament :receipt_tid has :receipt
    RETURNING id, built once per set of columns."""
    statement = _GUARDED.get(keys)
    if statement is None:
        table = Sheet.__table__
        params = {k: bindparam(k, type_=table.c[k].type) for k in keys}
        taken = (select(Sheet.id).join(RoundTable, Sheet.table_id == RoundTable.id)
                 .join(Round, RoundTable.round_id == Round.id)
                 .where(Round.tournament_id == bindparam("receipt_tid"), Sheet.receipt == params["receipt"]))
        statement = _GUARDED[keys] = (insert(table).from_select(list(keys), select(*params.values())
                                                                .where(~taken.exists()))
                                      .returning(table.c.id))
    return statement


# --------------------------------------------------------------------------- PIN check, table state


def check_table_pin(token: str, start_no: int, pin: str, content_hash: str | None = None) -> Answer:
    """POST /api/v1/pin: one player's PIN, checked at once (failures count).
    Given the content hash being signed, a right PIN earns a proof the phone
    sends with the sheet, so the PIN is not hashed again then."""
    t, _r, tab = token_table(token)
    player = seated_player(t, tab, start_no)
    lockouts = []
    try:
        check_pin(t, player, pin, chain_later=lockouts)
    except PinError as e:
        if lockouts:
            # this request holds the player's row and not the tournament's, which the chain takes and a
            # sheet waiting for this player holds: the attempt and the lock are committed first
            db.session.commit()
            for entry in lockouts:
                audit(*entry)
        raise pin_refusal(e) from e
    if content_hash is None:
        return Answer(200, {"status": "ok"})
    return Answer(200, {"status": "ok", "proof": pin_proof(t.id, start_no, content_hash, player.pin_hash)})


def shown_sheet(tab: RoundTable) -> Sheet | None:
    """The sheet a phone is shown: the counted one, else the newest waiting for a referee."""
    if tab.sheet is not None:
        return tab.sheet
    waiting = [s for s in tab.sheets if s.status in ("pending", "dispute")]
    return waiting[-1] if waiting else None


def table_state(token: str, draft_hash: str | None = None, receipt: str | None = None) -> dict:
    """GET /api/v1/table: what the server has for the token's table; with
    `draft_hash`, that draft, else the newest one no sheet has been sent for; with
    `receipt`, what became of that sheet of the table (the phone that sent it learns
    the referee's decision)."""
    t, r, tab = token_table(token)
    mine = next(({"receipt": s.receipt, "status": s.status} for s in tab.sheets if receipt and s.receipt == receipt),
                None)
    rs = get_ruleset(t.ruleset)
    by_no = table_players(t, tab)
    expected = rs.expected_total(len(tab.players))
    sheet = shown_sheet(tab)
    return {
        "status": "ok", "round": r.number, "table": tab.number,
        "players": [{"start_no": s, "name": by_no[s].name if s in by_no else "?",
                     "club": (by_no[s].club or "") if s in by_no else ""} for s in tab.players],
        "cards_position": rs.cards_position(r.number),
        "total_cents": text_cents(f"{expected:.2f}") if expected is not None else None,
        "sheet": None if sheet is None else {
            "version": sheet.version, "receipt": sheet.receipt, "sums_cents": [text_cents(x) for x in sheet.sums],
            "status": sheet.status,
            # red pen: it replaced an earlier counted version, or SEM-C5 changed its sums
            "corrected": sheet.entered_sums is not None or any(s.status == "superseded" for s in tab.sheets),
            **sheet_figures(rs, tab, sheet)},
        "rules": rule_fields(rs, len(tab.players)),
        "draft": draft_state(tab, draft_hash),
        # What became of the table's sheets since (a dispute, the referee, a correction)
        "open_cases": open_case_kinds(t, r, tab),
        "mine": mine,
    }


def open_case_kinds(t: Tournament, r: Round, tab: RoundTable) -> list[str]:
    return list(db.session.scalars(select(Case.kind).where(
        Case.tournament_id == t.id, Case.round == r.number, Case.table == tab.number,
        Case.status == "open").order_by(Case.id)))

def rule_fields(rs, n_players: int) -> dict:
    """What a phone needs to take this rule set's results (docs/SYNC.md "Rule sets"), as data: the
    page's script names no rule set."""
    return {"result_kind": rs.result_kind, "currency": rs.currency, "table_size": n_players,
            "negative_note": rs.negative_sum_note, "keeper": rs.sheet_keeper(None),
            "premium_line": rs.premium_line, "table_points": has_table_points(rs),
            "late_fee_cents": int(rs.late_fee * 100) if rs.late_fee is not None else None,
            "keeper_by_lot": rs.keeper_by_lot}


def has_table_points(rs) -> bool:
    """Whether a table's results give its players points of their own (not CSM-4's field-wide BP)."""
    return bool(rs.place_points) or rs.result_kind == "score"


def _points(values) -> list:
    return [None if p is None else float(p) for p in values]


def figures(rs, table) -> dict:
    """The numbers the server computes for a table's results: its points (SEM-C6, SMU-3, TH-3) or
    ČSM's SB (CSM-2), and who keeps the sheet (SEM-C4, TH-6)."""
    out: dict = {"keeper": rs.sheet_keeper(list(table.scores if table.scores is not None else table.sums))}
    if has_table_points(rs):
        out["points"] = _points(table_outcome(rs, table).points)
    if rs.result_kind == "zb+pb" and table.scores is not None:
        out["sb"] = [int(zb + pb) for zb, pb in zip(table.sums, table.scores)]
    return out


def sheet_figures(rs, tab: RoundTable, sheet: Sheet) -> dict:
    """A stored sheet's rule-set fields and figures, for the phone's status box."""
    table_facts = {k: v for k, v in (("late", sheet.late), ("keeper_by_lot", sheet.keeper_by_lot)) if v is not None}
    if rs.result_kind == "money":
        return table_facts  # the page computes money sheets' points itself, also offline
    out = {k: v for k, v in (("scores", protocol.stored_field({"scores": sheet.scores}, "scores")),
                             ("ended", sheet.ended), ("premium_games", sheet.premium_games)) if v is not None}
    if "scores" in out:
        out["scores"] = [int(Decimal(x)) for x in out["scores"]]
    f = figures(rs, rules_table(tab.number, tab.players, sheet))
    f.pop("keeper", None)
    return {**table_facts, **out, **f}


def preview(token: str, c: protocol.Content) -> Answer:
    """POST /api/v1/preview: the points and the keeper the server computes for results being
    entered on a phone, and the first reason it would refuse them; nothing is stored."""
    check_for_token(c, *read_token(token))
    t, _r, tab = token_table(token)
    _check_players(tab, c)
    rs = get_ruleset(t.ruleset)
    problem = None
    try:
        _check_sums(t, tab, c)
    except SyncRefusal as e:
        problem = {"error": e.body.get("error"), "message": e.body.get("message"), "field": e.body.get("field")}
    return Answer(200, {"status": "ok", "problem": problem, **figures(rs, content_table(tab, c))})



# --------------------------------------------------------------------------- signing on one's own phone


def _draft(tab: RoundTable, content_hash: str) -> SheetDraft | None:
    return db.session.scalar(select(SheetDraft).where(SheetDraft.table_id == tab.id,
                                                      SheetDraft.content_hash == content_hash))


DEFAULT_SEND_AFTER = 120  # seconds after the last own-phone signature before any phone may send


def send_after_seconds() -> int:
    return int(current_app.config.get("LISTOK_DRAFT_SEND_AFTER", DEFAULT_SEND_AFTER))


def draft_forward(tab_signed: list[int], seats: list[int], last_signed_at) -> dict:
    """For a phone: who still must sign, and in how many seconds any phone of the table may send the
    sheet of a draft everybody signed (the winner's phone gets `send_after_seconds` first)."""
    missing = [s for s in seats if s not in tab_signed]
    wait = None
    if not missing:
        wait = send_after_seconds()
        if last_signed_at is not None:
            wait = max(0, wait - int((utcnow() - last_signed_at).total_seconds()))
    return {"missing": missing, "complete": not missing, "send_in": wait}


def draft_state(tab: RoundTable, content_hash: str | None = None) -> dict | None:
    """The sums a phone published for signing, who has signed them on their own
    phone, and whether a sheet with exactly this content is stored already."""
    if content_hash:
        draft = _draft(tab, content_hash)
    else:
        draft = db.session.scalar(select(SheetDraft).where(SheetDraft.table_id == tab.id)
                                  .order_by(SheetDraft.id.desc()).limit(1))
    if draft is None:
        return None
    sent = any(s.content_hash == draft.content_hash and s.status != "rejected" for s in tab.sheets)
    if sent and not content_hash:
        return None
    signed = [g.start_no for g in draft.signatures]
    here = [s for s in tab.players if s in (draft.signed_here or ()) and s not in signed]
    last = max((g.created_at for g in draft.signatures if g.created_at), default=None)
    forward = draft_forward(signed, list(tab.players), last)
    if here:
        # signed on the publishing phone: not missing, but only that phone holds their signatures (it sends)
        forward = {**forward, "missing": [s for s in forward["missing"] if s not in here]}
    return {"content": draft.content, "content_hash": draft.content_hash, "sent": sent, "signed": signed,
            "signed_here": here, **forward}


def publish_draft(d: protocol.Draft) -> Answer:
    """POST /api/v1/drafts: confirmed sums the other players may sign on their
    own phones. Checked like a sheet (seating, hash, total, SEM-C8 note) so
    nobody signs sums the server would refuse; publishing twice is harmless."""
    c = d.content
    check_for_token(c, *read_token(d.token))
    t, _r, tab = token_table(d.token)
    _check_players(tab, c)
    try:
        protocol.check_content_hash(c, d.content_hash)
    except protocol.ProtocolError as e:
        raise from_protocol(e) from e
    _check_sums(t, tab, c)
    draft = _draft(tab, d.content_hash)
    here = sorted(set(d.signed_here or ()) & set(tab.players))
    if draft is None:
        db.session.add(SheetDraft(table_id=tab.id, content_hash=d.content_hash, content=c.as_dict(),
                                  signed_here=here))
        db.session.flush()
    elif d.signed_here is not None and (draft.signed_here or []) != here:
        draft.signed_here = here
        db.session.flush()
    return Answer(200, {"status": "ok", **draft_state(tab, d.content_hash)})


def sign_draft(g: protocol.OwnSignature) -> Answer:
    """POST /api/v1/signatures: a player signs published sums on their own phone,
    with their PIN (checked now, failures counted as for sheets)."""
    t, r, tab = token_table(g.token)
    player = seated_player(t, tab, g.start_no)
    draft = _draft(tab, g.content_hash)
    if draft is None:
        raise invalid("no-draft", _("These results are no longer waiting for signatures: the phone that keeps the "
                                    "sheet changed them. Open the table's page again."), field="content_hash")
    lock_tournament(t.id)  # the chain's entry takes it: before the player's row, as a sheet does
    try:
        check_pin(t, player, g.pin)
    except PinError as e:
        raise pin_refusal(e) from e
    if not any(x.start_no == g.start_no for x in draft.signatures):
        draft.signatures.append(DraftSignature(start_no=g.start_no, drawing=g.drawing, signed_at=g.signed_at))
        audit("sheet.own_phone_signature", ACTOR, {"round": r.number, "table": tab.number,
                                                   "start_no": g.start_no, "content_hash": g.content_hash}, t.id)
        db.session.flush()
    return Answer(200, {"status": "ok", **draft_state(tab, g.content_hash)})


# --------------------------------------------------------------------------- referee decisions


def accept_pending(sheet: Sheet, actor: str) -> None:
    """The referee approves a sheet waiting for them (a negative sum, a correction,
    or one side of a dispute): it becomes the table's counted sheet and the one
    counted before is kept, superseded. Closing the case is the caller's."""
    tab = sheet.table
    r = tab.round
    t = r.tournament
    if sheet.status not in ("pending", "dispute"):
        raise ServiceError(_("This sheet is not waiting for a decision."))
    if r.status == "closed":
        raise ServiceError(_("Round %(n)d is closed: use a correction (SEM-C10).", n=r.number))
    current = tab.sheet
    if sheet.base_version and (current is None or current.version != sheet.base_version):
        raise StaleError(_("This correction was made to version %(v)d of the sheet, but table %(t)d now counts "
                           "version %(cur)d.", v=sheet.base_version, t=tab.number,
                           cur=current.version if current else 0))
    if current is not None:
        current.status = "superseded"
    sheet.status = "accepted"
    bump(t)
    audit("sheet.accept", actor, {"round": r.number, "table": tab.number, "version": sheet.version,
                                  "receipt": sheet.receipt, "sums": sheet.sums,
                                  "superseded": current.version if current else None}, t.id)


def reject_pending(sheet: Sheet, actor: str, reason: str = "") -> None:
    """The referee refuses a sheet waiting for them; it stays stored, marked rejected."""
    tab = sheet.table
    if sheet.status not in ("pending", "dispute"):
        raise ServiceError(_("This sheet is not waiting for a decision."))
    sheet.status = "rejected"
    audit("sheet.reject", actor, {"round": tab.round.number, "table": tab.number, "version": sheet.version,
                                  "receipt": sheet.receipt, "reason": reason},
          tab.round.tournament_id)
