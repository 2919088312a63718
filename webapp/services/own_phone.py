"""Signing on one's own phone (docs/SYNC.md): a phone publishes confirmed sums as a draft, the
other players sign it with their PIN on their own phones, and the draft's state says who still
must sign and when any phone of the table may send the sheet.
"""
from __future__ import annotations

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import DraftSignature, RoundTable, SheetDraft, utcnow
from ..sync import protocol
from .common import audit
from .pins import PinError, check_pin, lock_tournament
from .sheets import (ACTOR, Answer, matching_draft, check_for_token, from_protocol, invalid, pin_refusal, read_token,
                     seated_player, token_table)
from .sheet_submit import check_players, check_sums


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
        draft = matching_draft(tab, content_hash)
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
    check_players(tab, c)
    try:
        protocol.check_content_hash(c, d.content_hash)
    except protocol.ProtocolError as e:
        raise from_protocol(e) from e
    check_sums(t, tab, c)
    draft = matching_draft(tab, d.content_hash)
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
    draft = matching_draft(tab, g.content_hash)
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
