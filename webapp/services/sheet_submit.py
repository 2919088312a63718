"""Submitting a phone's sheet (docs/SYNC.md): a signed sheet comes in, is checked against the
table's token, its seating, the rule set and the players' PINs, and is stored once — accepted,
waiting for a referee (SEM-C4, SEM-C8), or beside a different sheet of the same table as a
dispute. Never merged, never overwritten. `submit` (a sheet alone) and `submit_together` (a
batch) change the caller's session and return the answer; the caller commits (one transaction:
sheet, submission, case, audit entry, version bump).
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from decimal import Decimal
from types import SimpleNamespace

from flask_babel import force_locale, get_locale, gettext as _
from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import contains_eager

from ..extensions import db
from ..i18n import amount
from ..models import Case, Round, RoundTable, Sheet, Submission as SubmissionRow, Tournament, utcnow
from ..rules.points import sheet_hints
from ..rules.ruleset import get_ruleset
from ..sync import protocol
from . import acks, chain, rule_texts
from .common import audit, bump
from .engine import rules_table
from .pins import PinError, PinLocked, check_pins, hold_players, pin_proof, round_started
from .sheets import (ACTOR, LATER_ROUND, Answer, SyncRefusal, cents_text, check_for_token, check_playing,
                     from_protocol, invalid, load_tournament, locked_table, matching_draft, next_version,
                     peek_submission, pin_refusal, read_token, refused, replay, seated_player, sheet_answer, table_players, text_cents)


def _check_content(t: Tournament, tab: RoundTable, sub: protocol.Submission) -> None:
    check_players(tab, sub.content)
    try:
        protocol.check_hashes(sub)
        protocol.check_signed_by(sub, tab.players)
    except protocol.ProtocolError as e:
        raise from_protocol(e) from e
    check_sums(t, tab, sub.content)


def check_players(tab: RoundTable, c: protocol.Content) -> None:
    if list(c.players) != list(tab.players):
        stranger = next((s for s in c.players if s not in tab.players), None)
        if stranger is not None:
            raise invalid("not-at-table", _("Start number %(s)d does not sit at this table.", s=stranger),
                          start_no=stranger, field="content.players")
        raise invalid("not-at-table", _("The sheet must list the players of table %(t)d in their seat order: "
                                        "%(players)s.", t=tab.number, players=", ".join(map(str, tab.players))),
                      field="content.players")


def check_sums(t: Tournament, tab: RoundTable, c: protocol.Content) -> None:
    if tab.pending_dq and tab.pending_dq.get("players"):
        # a disqualification decides which sums count (SEM-D1): the desk enters this table
        raise invalid("desk-only", _("A player at table %(t)d is disqualified: this sheet is entered at the "
                                     "results desk.", t=tab.number))
    rs = get_ruleset(t.ruleset)
    sums = [Decimal(cents_text(x)) for x in c.sums_cents]
    expected = rs.expected_total(len(sums))
    if expected is not None and sum(sums) != expected:
        raise invalid("wrong-total", _("The sums total %(total)s, the table total must be %(exp)s (%(rule)s).",
                                       total=amount(sum(sums)), exp=amount(expected), rule=rs.total_rule),
                      field="content.sums_cents")
    _check_ruleset_fields(rs, tab, c)
    for h in sheet_hints(rs, sums):
        if h.blocking and h.position is not None:
            raise invalid("impossible-sum", _("A sum of %(sum)s is impossible: one game costs at most %(max)s "
                                              "(SEM-C11).", sum=amount(sums[h.position]),
                                              max=amount(rs.max_payment_per_game)),
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
    draft = matching_draft(tab, sub.content_hash)
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
    sheet must be written (admission control counts only those, webapp/serve/admission.py).
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
    (the round-end burst's group commit; webapp/serve/together.py gathers them). `places`:
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
_ROUND_TABLES = (select(Round, RoundTable, LATER_ROUND).join(RoundTable, RoundTable.round_id == Round.id)
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
                found[(rno, no)] = check_playing(*tables.get(no, (None, None, False)))
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
