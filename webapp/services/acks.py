"""The server's acknowledgement of a stored phone sheet: the phone's proof, after the venue
laptop died and a standby was restored from a replica a few seconds older, that this very sheet
was taken in before (docs/SYNC.md, "When the server lost a sheet").

ack = HMAC(key derived from the instance's secret key, the idempotency key, the tournament, round
and table, the content hash and the signatures as sent, PINs left out). Only a server with the
instance's key (the venue laptop, or the standby that was given instance/keys/ at set-up) can make
one; any change of the sums, the signers, the drawings or the table breaks it. A sheet sent again
with a valid ack was checked once already, PINs included: it is taken in without its PINs (the
phone never keeps them) and its chain entry says `retaken`.
"""
from __future__ import annotations

import hashlib
import hmac
import json

from ..sync import protocol
from .keys import derived_key

FORMAT = "listok-ack/1"


def signatures_digest(signatures) -> str:
    """The signatures as the phone sent them, without PINs or proofs: what it resends."""
    sent = sorted(({"start_no": s.start_no, "hash": s.hash, "drawing": s.drawing, "signed_at": s.signed_at,
                    "own_phone": bool(s.own_phone)} for s in signatures), key=lambda s: s["start_no"])
    return hashlib.sha256(protocol.canonical({"signatures": sent})).hexdigest()


def _message(sub: protocol.Submission, tid: int, round_no: int, table_no: int) -> bytes:
    return json.dumps([FORMAT, sub.idempotency_key, tid, round_no, table_no, sub.content.hash,
                       signatures_digest(sub.signatures)], separators=(",", ":")).encode()


def make(sub: protocol.Submission, tid: int, round_no: int, table_no: int) -> str:
    return hmac.new(derived_key("ack", tid), _message(sub, tid, round_no, table_no), hashlib.sha256).hexdigest()


def valid(sub: protocol.Submission, tid: int, round_no: int, table_no: int) -> bool:
    return bool(sub.ack) and hmac.compare_digest(sub.ack, make(sub, tid, round_no, table_no))
