"""A player checks a receipt (docs/SECURITY.md): what the chain says about the sheet with a
receipt (the public receipt page), and, for a player's own page, whether each of their receipts'
sheets is in the tournament's record as stored.
"""
from __future__ import annotations

import hmac
from dataclasses import dataclass

from sqlalchemy import select

from ..extensions import db
from ..models import AuditEntry, PublishedHead, Round, RoundTable, Sheet, Tournament
from .chain import b32, content_disagrees, content_hash_of, entry_mac, normalise_receipt, sheet_record, signed_view
from .chain_heads import MISSING_HEAD, published_under


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
