"""Verifying a tournament's chain (`listok verify`, docs/SECURITY.md): every entry's hash, MAC and
sequence, the head the tournament row keeps, the heads published here and elsewhere, and the
sheet rows against what the chain recorded of them; the findings as a Verdict of Problems.
"""
from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import AuditEntry, PublishedHead, Round, RoundTable, Sheet, Tournament
from . import chain_rows
from .chain import (RECORD_FIELDS, RULESET_FIELDS, b32, content_disagrees, content_hash_of, entry_mac, head_code,
                    head_label, head_mac, normalise_receipt, published_mac, sheet_record)
from .chain_heads import PUBLISH_KIND


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


def action_text(action: str) -> str:
    """What a chain record holds (its stored action, "sheet.store"), in words."""
    exact = {"sheet.store": _("a stored sheet"), "sheet.update": _("a change of a sheet"),
             PUBLISH_KIND: _("a published head"), "rows": _("the database rows"), "restore": _("a restore")}
    if action in exact:
        return exact[action]
    kinds = {"sheet": _("a sheet"), "round": _("a round"), "player": _("a player"), "players": _("the players"),
             "tournament": _("the tournament"), "discipline": _("a discipline decision"), "case": _("a case"),
             "call": _("a referee call"), "nominations": _("the nominations"), "official": _("an official"),
             "pin": _("a PIN"), "standings": _("the standings")}
    return kinds.get(action.split(".", 1)[0], action)


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
                                  "does not give its hash", seq=e.seq, action=action_text(e.action))))
        elif not hmac.compare_digest(e.mac or "", entry_mac(tid, e.hash)):
            bad(Problem(r, tab, _("record #%(seq)d (%(action)s) was not written by this server: its MAC is wrong",
                                  seq=e.seq, action=action_text(e.action))))
        if e.prev_hash != prev_hash and e.seq == expected:
            bad(Problem(r, tab, _("record #%(seq)d (%(action)s) does not follow record #%(prev)d: the chain was "
                                  "cut, reordered or rewritten here", seq=e.seq, action=action_text(e.action), prev=e.seq - 1)))
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
