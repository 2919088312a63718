"""The live results desk: each table's state in one word, read
for a whole round in four small queries, with a digest per table and one for
the round so that a desk polling every 2 s is answered 304 while nothing moved.

The states, first match wins:
  dispute       an open dispute (two different phone sheets)
  in / desk     a counted sheet (from a phone, with its receipt / entered at the desk);
                `referee` says a correction of it is waiting
  referee       a sheet waiting for the referee (SEM-C4, SEM-C8, PINs)
  draft-signed  every player signed the confirmed sums on their own phone, no sheet sent
  signing       n of the table's players signed on their own phones
  confirmed     the sums were confirmed on a phone (a draft), nobody signed yet
  waiting       nothing yet
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal

from flask_babel import gettext as _
from sqlalchemy import func, select

from ..extensions import db
from ..models import Case, DraftSignature, Round, RoundTable, Sheet, SheetDraft
from ..sync import protocol
from . import sheet_submit, sheets as sheet_service
from .common import ServiceError, audit
from .tokens import table_token

STATES = ("waiting", "confirmed", "signing", "draft-signed", "referee", "dispute", "in", "desk")
# badge colour class per state (listok.css .badge.*, .desk-state-*)
COLOURS = {"waiting": "", "confirmed": "info", "signing": "info", "draft-signed": "warn", "referee": "warn",
           "dispute": "bad", "in": "ok", "desk": "ok"}


@dataclass
class TableState:
    number: int
    key: str = "waiting"
    seats: int = 3
    signed: list[int] = field(default_factory=list)
    receipt: str | None = None
    version: int | None = None
    counted: bool = False  # a sheet counts (tables_in)
    referee: bool = False  # a case is open for this table (beside a counted sheet)
    cases: list[int] = field(default_factory=list)
    draft_hash: str | None = None
    draft_sums: list[int] | None = None
    draft_note: str = ""
    last_signed_at: object = None
    digest: str = ""

    @property
    def colour(self) -> str:
        return COLOURS[self.key]

    @property
    def label(self) -> str:
        return state_label(self)

    @property
    def draft_amounts(self) -> list[Decimal]:
        return [Decimal(x).scaleb(-2) for x in self.draft_sums or ()]

    @property
    def missing(self) -> int:
        return self.seats - len(self.signed)


def state_label(s: TableState) -> str:
    if s.key == "waiting":
        return _("waiting")
    if s.key == "confirmed":
        return _("sums confirmed on a phone")
    if s.key == "signing":
        return _("%(n)d of %(of)d signed", n=len(s.signed), of=s.seats)
    if s.key == "draft-signed":
        return _("signed draft waiting")
    if s.key == "referee":
        return _("needs the referee")
    if s.key == "dispute":
        return _("dispute")
    if s.key == "in":
        return _("in (receipt %(receipt)s)", receipt=s.receipt or "–")
    return _("entered at the desk")


def round_states(r: Round, only: int | None = None) -> dict[int, TableState]:
    """Every table's state (or table `only`'s), without loading ORM objects."""
    q = select(RoundTable.id, RoundTable.number, RoundTable.players, RoundTable.pending_dq).where(
        RoundTable.round_id == r.id)
    if only is not None:
        q = q.where(RoundTable.number == only)
    tables = db.session.execute(q).all()
    ids = [x.id for x in tables]
    by_id = {x.id: TableState(number=x.number, seats=len(x.players or ())) for x in tables}
    dq = {x.id: bool((x.pending_dq or {}).get("players")) for x in tables}
    if not ids:
        return {}
    sheets = db.session.execute(
        select(Sheet.table_id, Sheet.id, Sheet.version, Sheet.status, Sheet.source, Sheet.receipt,
               Sheet.content_hash).where(Sheet.table_id.in_(ids)).order_by(Sheet.id)).all()
    drafts = db.session.execute(
        select(SheetDraft.table_id, SheetDraft.id, SheetDraft.content_hash, SheetDraft.content,
               func.max(DraftSignature.created_at))
        .outerjoin(DraftSignature, DraftSignature.draft_id == SheetDraft.id)
        .where(SheetDraft.table_id.in_(ids)).group_by(SheetDraft.id).order_by(SheetDraft.id)).all()
    signers = db.session.execute(
        select(DraftSignature.draft_id, DraftSignature.start_no).join(SheetDraft)
        .where(SheetDraft.table_id.in_(ids)).order_by(DraftSignature.id)).all()
    numbers = {by_id[i].number: i for i in ids}
    q = select(Case.id, Case.table, Case.kind, Case.sheet_id).where(
        Case.tournament_id == r.tournament_id, Case.round == r.number, Case.status == "open")
    if only is not None:
        q = q.where(Case.table == only)
    cases = db.session.execute(q).all()

    sheets_of: dict[int, list] = {}
    for s in sheets:
        sheets_of.setdefault(s.table_id, []).append(s)
    signed_by: dict[int, list[int]] = {}
    for g in signers:
        signed_by.setdefault(g.draft_id, []).append(g.start_no)
    latest_draft = {}
    for d in drafts:
        latest_draft[d.table_id] = d
    cases_of: dict[int, list] = {}
    for c in cases:
        if c.table in numbers:
            cases_of.setdefault(numbers[c.table], []).append(c)

    for tid, st in by_id.items():
        mine = sheets_of.get(tid, [])
        counted = next((s for s in reversed(mine) if s.status == "accepted"), None)
        open_cases = cases_of.get(tid, [])
        st.cases = sorted(c.id for c in open_cases)
        disputed = any(c.kind == "dispute" for c in open_cases) or any(s.status == "dispute" for s in mine)
        pending = [s for s in mine if s.status == "pending"]
        st.counted = counted is not None
        if counted is not None:
            st.receipt, st.version = counted.receipt, counted.version
        elif mine:
            newest = mine[-1]
            st.receipt, st.version = newest.receipt, newest.version
        d = latest_draft.get(tid)
        sent_hashes = {s.content_hash for s in mine if s.status != "rejected" and s.content_hash}
        if d is not None and d.content_hash not in sent_hashes:
            st.draft_hash = d.content_hash
            st.draft_sums = list((d.content or {}).get("sums_cents") or [])
            st.draft_note = (d.content or {}).get("note") or ""
            st.signed = signed_by.get(d.id, [])
            st.last_signed_at = d[4]
        if disputed:
            st.key = "dispute"
        elif counted is not None:
            st.key = "in" if counted.source == "phone" else "desk"
            st.referee = bool(open_cases or pending)
        elif pending or open_cases:
            st.key = "referee"
        elif st.draft_hash and st.seats and len(st.signed) >= st.seats:
            st.key = "draft-signed"
        elif st.draft_hash and st.signed:
            st.key = "signing"
        elif st.draft_hash:
            st.key = "confirmed"
        st.digest = _digest([st.key, st.receipt, st.version, st.referee, st.cases, st.draft_hash, st.signed,
                             dq[tid], [(s.id, s.status) for s in mine]])
    return {st.number: st for st in by_id.values()}


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, separators=(",", ":"), default=str).encode()).hexdigest()[:16]


def counts(states: dict[int, TableState]) -> list[tuple[str, str, int]]:
    """(state, label, how many) for the round header, in a fixed order, states present only."""
    order = ("waiting", "confirmed", "signing", "draft-signed", "referee", "dispute", "in", "desk")
    labels = {"waiting": _("waiting"), "confirmed": _("sums confirmed"), "signing": _("signing"),
              "draft-signed": _("signed draft waiting"), "referee": _("needs the referee"),
              "dispute": _("dispute"), "in": _("in from a phone"), "desk": _("entered at the desk")}
    n = {k: 0 for k in order}
    for st in states.values():
        n[st.key] += 1
    return [(k, labels[k], n[k]) for k in order if n[k]]


def round_etag(r: Round, states: dict[int, TableState], extra: str = "") -> str:
    return _digest([r.id, r.status, extra, sorted((k, v.digest) for k, v in states.items())])


# --------------------------------------------------------------------------- a signed draft taken in


def take_in_draft(t, r: Round, tab: RoundTable, content_hash: str, actor: str) -> sheet_service.Answer:
    """The desk takes in a draft every player signed on their own phone:
    the same sheet any phone of the table could send, made of the draft and its
    own-phone signatures, checked and stored by the phone protocol's own path."""
    draft = db.session.scalar(select(SheetDraft).where(SheetDraft.table_id == tab.id,
                                                       SheetDraft.content_hash == (content_hash or "")))
    if draft is None:
        raise ServiceError(_("Table %(t)d has no signed draft with these sums any more: reload the desk.",
                             t=tab.number))
    signed = {g.start_no for g in draft.signatures}
    missing = [s for s in tab.players if s not in signed]
    if missing:
        raise ServiceError(_("Table %(t)d: not every player has signed these sums (missing: %(who)s).",
                             t=tab.number, who=", ".join(f"#{s}" for s in missing)))
    sub = protocol.parse_submission({
        "token": table_token(t.id, r.number, tab.number), "idempotency_key": f"desk-{draft.content_hash[:60]}",
        "content": draft.content, "content_hash": draft.content_hash,
        "signatures": [{"start_no": s, "own_phone": True, "hash": draft.content_hash} for s in tab.players]})
    try:
        answer = sheet_submit.submit(sub)
    except sheet_service.SyncRefusal as e:
        raise ServiceError(e.body.get("message") or _("The server did not take the sheet.")) from e
    audit("sheet.draft_taken_in", actor, {"round": r.number, "table": tab.number,
                                          "content_hash": draft.content_hash,
                                          "receipt": answer.body.get("receipt")}, t.id)
    return answer
