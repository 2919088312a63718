"""The phone ⇄ server sheet protocol `listok-sheet/1` (docs/SYNC.md): message
shapes, the canonical form of a sheet's content and its hash.

Pure Python: no Flask, no database. `parse_submission` turns untrusted JSON
into a `Submission` or raises `ProtocolError`; whether the sheet fits the
table, the rule set and the players' PINs is the service's business
(`webapp/services/sheet_submit.py`).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime

PROTOCOL = "listok-sheet/1"

CONTENT_KEYS = frozenset({"protocol", "tournament", "round", "table", "players", "sums_cents", "note",
                          "base_version"})
# rule-set fields (docs/SYNC.md "Rule sets"): present only when the rule set has them, so a money
# sheet's content and hash are what they were
OPTIONAL_KEYS = frozenset({"scores", "ended", "premium_games", "late", "keeper_by_lot"})
ENDINGS = ("win", "time")  # TH-3
MAX_PREMIUM_GAMES = 40
MAX_GAME = 60
MAX_SCORE = 10**6
MAX_NOTE = 500  # characters (code points)
MAX_DRAWING = 64 * 1024  # bytes; path data is ASCII, so also characters
MAX_PLAYERS = 8
MAX_ID = 2**31 - 1  # fits the database's INTEGER columns
MAX_CENTS = 10**9
MAX_TOKEN = 1000
MAX_PIN = 32  # longer than any PIN: a wrong PIN of any sensible length is a wrong PIN, not a bad request
MAX_SIGNED_AT = 40
KEY_RE = re.compile(r"[A-Za-z0-9_-]{8,80}")
HASH_RE = re.compile(r"[0-9a-f]{64}")
RECEIPT_RE = re.compile(r"[A-Z2-7]{4}(?:-[A-Z2-7]{2,4}){1,2}")  # a sheet's receipt (chain.receipt_candidates)
# SVG path data: commands, numbers (with exponents), separators; nothing that could be markup
PATH_RE = re.compile(r"[MmLlHhVvCcSsQqTtAaZzEe0-9.,+\- \t\r\n]*")


class ProtocolError(ValueError):
    """A message the server cannot take. `code` is the answer's `error`;
    `bad-request` answers 400, every other code 422 (`invalid`)."""

    def __init__(self, code: str, message: str, field: str | None = None, start_no: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.start_no = start_no


@dataclass(frozen=True)
class Content:
    """What the players sign."""

    tournament: int
    round: int
    table: int
    players: tuple[int, ...]
    sums_cents: tuple[int, ...]
    note: str = ""
    base_version: int = 0
    protocol: str = PROTOCOL
    scores: tuple[int, ...] | None = None  # ČSM: PB per player; Thousand: the game score (= sums_cents / 100)
    ended: str | None = None  # Thousand: "win" or "time" (TH-3)
    premium_games: tuple[tuple[int, str, int, tuple[int, ...]], ...] | None = None  # ČSM (CSM-3)
    late: tuple[int, ...] | None = None  # BB liga: start numbers more than a minute late (BB-1)
    keeper_by_lot: int | None = None  # ČSM: the scorekeeper a lot chose (CSM-3)

    def as_dict(self) -> dict:
        d = {"protocol": self.protocol, "tournament": self.tournament, "round": self.round,
             "table": self.table, "players": list(self.players), "sums_cents": list(self.sums_cents),
             "note": self.note, "base_version": self.base_version}
        if self.scores is not None:
            d["scores"] = list(self.scores)
        if self.ended is not None:
            d["ended"] = self.ended
        if self.premium_games is not None:
            d["premium_games"] = [{"start_no": s, "game": g, "pb": pb, "signed_by": list(by)}
                                  for s, g, pb, by in self.premium_games]
        if self.late is not None:
            d["late"] = list(self.late)
        if self.keeper_by_lot is not None:
            d["keeper_by_lot"] = self.keeper_by_lot
        return d

    @property
    def hash(self) -> str:
        return content_hash(self.as_dict())

    @property
    def negative(self) -> bool:
        return any(s < 0 for s in self.sums_cents)


@dataclass(frozen=True)
class Signature:
    """`own_phone`: given on the player's own phone (POST /api/v1/signatures);
    the server has the drawing and checked the PIN then, so `pin` and
    `drawing` are empty here."""

    start_no: int
    pin: str
    hash: str
    drawing: str
    signed_at: str
    own_phone: bool = False
    pin_proof: str = ""

    def stored(self) -> dict:
        """What is kept with the sheet: everything but the PIN."""
        return {"start_no": self.start_no, "hash": self.hash, "drawing": self.drawing, "signed_at": self.signed_at}


@dataclass(frozen=True)
class Submission:
    token: str
    idempotency_key: str
    content: Content
    content_hash: str
    signatures: tuple[Signature, ...]
    # the phone could not check the PINs at the table (offline): a wrong one makes the sheet a
    # referee case instead of a refusal the players, gone by then, never see
    pins_unchecked: bool = False
    # the server's acknowledgement of this very sheet (services/acks.py), sent again after a restore
    ack: str = ""

    def signature_of(self, start_no: int) -> Signature | None:
        return next((s for s in self.signatures if s.start_no == start_no), None)


def canonical(content: dict) -> bytes:
    """Keys sorted, no whitespace, non-ASCII kept, UTF-8 — what JavaScript's
    JSON.stringify gives for the same object built with its keys sorted."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_hash(content: dict) -> str:
    return hashlib.sha256(canonical(content)).hexdigest()


# --------------------------------------------------------------------------- parsing


def _bad(message: str, field: str | None = None, start_no: int | None = None) -> ProtocolError:
    return ProtocolError("bad-request", message, field=field, start_no=start_no)


def _int(value, field: str, lo: int, hi: int) -> int:
    # JSON true/false arrive as bool, a subclass of int: never a number here
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{field} must be a whole number.", field)
    if not lo <= value <= hi:
        raise _bad(f"{field} must be between {lo} and {hi}.", field)
    return value


def _str(value, field: str, max_len: int, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _bad(f"{field} must be a string.", field)
    if len(value) > max_len:
        raise _bad(f"{field} is longer than {max_len} characters.", field)
    if not empty and not value:
        raise _bad(f"{field} is empty.", field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (\ud800) has no UTF-8 form, so no canonical form
        raise _bad(f"{field} is not valid Unicode text.", field) from None
    return value


def _int_list(value, field: str, lo: int, hi: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_PLAYERS:
        raise _bad(f"{field} must be a list of 1 to {MAX_PLAYERS} whole numbers.", field)
    return tuple(_int(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(value))


def parse_content(data) -> Content:
    if not isinstance(data, dict):
        raise _bad("content must be an object.", "content")
    missing = sorted(CONTENT_KEYS - data.keys())
    if missing:
        raise _bad(f"content.{missing[0]} is missing.", f"content.{missing[0]}")
    extra = sorted(data.keys() - CONTENT_KEYS - OPTIONAL_KEYS)
    if extra:  # a signed object the server would not store whole: refuse it rather than drop a part
        raise _bad(f"content.{extra[0]} is not part of {PROTOCOL}.", f"content.{extra[0]}")
    if data["protocol"] != PROTOCOL:
        raise _bad(f"content.protocol must be {PROTOCOL}.", "content.protocol")
    players = _int_list(data["players"], "content.players", 1, MAX_ID)
    if len(set(players)) != len(players):
        raise _bad("content.players names a start number twice.", "content.players")
    sums = _int_list(data["sums_cents"], "content.sums_cents", -MAX_CENTS, MAX_CENTS)
    if len(sums) != len(players):
        raise _bad("content.sums_cents must have one sum per player.", "content.sums_cents")
    scores = None
    if "scores" in data:
        scores = _int_list(data["scores"], "content.scores", -MAX_SCORE, MAX_SCORE)
        if len(scores) != len(players):
            raise _bad("content.scores must have one score per player.", "content.scores")
    ended = None
    if "ended" in data:
        ended = data["ended"]
        if ended not in ENDINGS:
            raise _bad('content.ended must be "win" or "time".', "content.ended")
    games = None
    if "premium_games" in data:
        raw = data["premium_games"]
        if not isinstance(raw, list) or len(raw) > MAX_PREMIUM_GAMES:
            raise _bad(f"content.premium_games must be a list of at most {MAX_PREMIUM_GAMES} games.",
                       "content.premium_games")
        games = []
        for i, g in enumerate(raw):
            f = f"content.premium_games[{i}]"
            if not isinstance(g, dict) or set(g) != {"start_no", "game", "pb", "signed_by"}:
                raise _bad(f"{f} must be an object with start_no, game, pb and signed_by.", f)
            by = g["signed_by"]
            if not isinstance(by, list) or len(by) > MAX_PLAYERS:
                raise _bad(f"{f}.signed_by must be a list of start numbers.", f"{f}.signed_by")
            games.append((_int(g["start_no"], f"{f}.start_no", 1, MAX_ID), _str(g["game"], f"{f}.game", MAX_GAME),
                          _int(g["pb"], f"{f}.pb", 0, MAX_SCORE),
                          tuple(_int(x, f"{f}.signed_by[{k}]", 1, MAX_ID) for k, x in enumerate(by))))
        games = tuple(games)
    late = None
    if "late" in data:
        late = _int_list(data["late"], "content.late", 1, MAX_ID)
    keeper = None
    if "keeper_by_lot" in data:
        keeper = _int(data["keeper_by_lot"], "content.keeper_by_lot", 1, MAX_ID)
    return Content(
        scores=scores, ended=ended, premium_games=games, late=late, keeper_by_lot=keeper,
        tournament=_int(data["tournament"], "content.tournament", 1, MAX_ID),
        round=_int(data["round"], "content.round", 1, MAX_ID),
        table=_int(data["table"], "content.table", 1, MAX_ID),
        players=players, sums_cents=sums,
        note=_str(data["note"], "content.note", MAX_NOTE, empty=True),
        base_version=_int(data["base_version"], "content.base_version", 0, MAX_ID))


def stored_field(content: dict, name: str):
    """A rule-set field of a content dict as a Sheet row keeps it (scores as strings), or None."""
    value = content.get(name)
    if value is None:
        return None
    if name == "scores":
        return [str(v) for v in value]
    return value


def _signed_at(value, field: str) -> str:
    text = _str(value, field, MAX_SIGNED_AT)
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise _bad(f"{field} is not an ISO 8601 time.", field) from None
    return text


def _hash(value, field: str, start_no: int | None = None) -> str:
    h = _str(value, field, 64)
    if not HASH_RE.fullmatch(h):
        raise _bad(f"{field} must be 64 lowercase hex digits.", field, start_no)
    return h


def _drawing(value, field: str, start_no: int) -> str:
    drawing = _str(value, field, MAX_DRAWING, empty=True)
    if not drawing.strip():
        raise _bad(f"The signature of start number {start_no} has no drawing.", field, start_no)
    if not PATH_RE.fullmatch(drawing) or drawing.lstrip()[0] not in "Mm":
        raise _bad(f"The drawing of start number {start_no} is not SVG path data.", field, start_no)
    return drawing


def _require(data: dict, keys: tuple[str, ...], prefix: str = "") -> None:
    for key in keys:
        if key not in data:
            raise _bad(f"{prefix}{key} is missing.", f"{prefix}{key}")


def _body(data, keys: tuple[str, ...]) -> None:
    """A request body: a JSON object with these keys."""
    if not isinstance(data, dict):
        raise _bad("The body must be a JSON object.")
    _require(data, keys)


def parse_signature(data, i: int) -> Signature:
    field = f"signatures[{i}]"
    if not isinstance(data, dict):
        raise _bad(f"{field} must be an object.", field)
    if data.get("own_phone") is True:
        _require(data, ("start_no", "hash"), f"{field}.")
        start_no = _int(data["start_no"], f"{field}.start_no", 1, MAX_ID)
        return Signature(start_no=start_no, pin="", hash=_hash(data["hash"], f"{field}.hash", start_no),
                         drawing="", signed_at="", own_phone=True)
    _require(data, ("start_no", "pin", "hash", "drawing", "signed_at"), f"{field}.")
    start_no = _int(data["start_no"], f"{field}.start_no", 1, MAX_ID)
    proof = data.get("pin_proof")
    return Signature(start_no=start_no, pin=_str(data["pin"], f"{field}.pin", MAX_PIN, empty=True),
                     hash=_hash(data["hash"], f"{field}.hash", start_no),
                     drawing=_drawing(data["drawing"], f"{field}.drawing", start_no),
                     signed_at=_signed_at(data["signed_at"], f"{field}.signed_at"),
                     pin_proof=_hash(proof, f"{field}.pin_proof", start_no) if proof is not None else "")


def parse_submission(data) -> Submission:
    """A `POST /api/v1/sheets` body → Submission, or ProtocolError("bad-request")
    naming the first field that is wrong. Unknown top-level keys are ignored
    (a later phone may send more); unknown content keys are refused (the
    content is what was signed)."""
    _body(data, ("token", "idempotency_key", "content", "content_hash", "signatures"))
    token = _str(data["token"], "token", MAX_TOKEN)
    key = _str(data["idempotency_key"], "idempotency_key", 80)
    if not KEY_RE.fullmatch(key):
        raise _bad("idempotency_key must be 8 to 80 letters, digits, '-' or '_' (a UUID).", "idempotency_key")
    content = parse_content(data["content"])
    h = _hash(data["content_hash"], "content_hash")
    raw = data["signatures"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PLAYERS:
        raise _bad(f"signatures must be a list of 1 to {MAX_PLAYERS} signatures.", "signatures")
    signatures = tuple(parse_signature(s, i) for i, s in enumerate(raw))
    seen: set[int] = set()
    for i, s in enumerate(signatures):
        if s.start_no in seen:
            raise _bad(f"Start number {s.start_no} signed twice.", f"signatures[{i}].start_no", s.start_no)
        seen.add(s.start_no)
    ack = data.get("ack")
    if ack is not None and not (isinstance(ack, str) and HASH_RE.fullmatch(ack)):
        raise _bad("ack must be 64 hex digits (the server's acknowledgement).", "ack")
    return Submission(token=token, idempotency_key=key, content=content, content_hash=h, signatures=signatures,
                      pins_unchecked=data.get("pins_unchecked") is True, ack=ack or "")


def parse_pin_check(data) -> tuple[str, int, str, str | None]:
    """A `POST /api/v1/pin` body → (token, start_no, pin, content_hash or None)."""
    _body(data, ("token", "start_no", "pin"))
    h = data.get("content_hash")
    return (_str(data["token"], "token", MAX_TOKEN), _int(data["start_no"], "start_no", 1, MAX_ID),
            _str(data["pin"], "pin", MAX_PIN, empty=True),
            _hash(h, "content_hash") if h is not None else None)


@dataclass(frozen=True)
class Draft:
    """`POST /api/v1/drafts`: confirmed sums published for signing on the players' own phones."""

    token: str
    content: Content
    content_hash: str
    # who has signed on the publishing phone so far (their PINs are checked when the sheet is sent):
    # the players' own phones then do not list them as still to sign
    signed_here: tuple[int, ...] | None = None


def parse_draft(data) -> Draft:
    _body(data, ("token", "content", "content_hash"))
    here = data.get("signed_here")
    return Draft(token=_str(data["token"], "token", MAX_TOKEN), content=parse_content(data["content"]),
                 content_hash=_hash(data["content_hash"], "content_hash"),
                 signed_here=None if here is None or here == [] and isinstance(here, list)
                 else _int_list(here, "signed_here", 1, MAX_ID))


def parse_preview(data) -> tuple[str, Content]:
    """A `POST /api/v1/preview` body → (token, content): results being entered, not signed."""
    _body(data, ("token", "content"))
    return _str(data["token"], "token", MAX_TOKEN), parse_content(data["content"])


@dataclass(frozen=True)
class OwnSignature:
    """`POST /api/v1/signatures`: one player signs a draft on their own phone."""

    token: str
    content_hash: str
    start_no: int
    pin: str
    drawing: str
    signed_at: str


def parse_own_signature(data) -> OwnSignature:
    _body(data, ("token", "content_hash", "start_no", "pin", "drawing", "signed_at"))
    start_no = _int(data["start_no"], "start_no", 1, MAX_ID)
    return OwnSignature(token=_str(data["token"], "token", MAX_TOKEN),
                        content_hash=_hash(data["content_hash"], "content_hash"), start_no=start_no,
                        pin=_str(data["pin"], "pin", MAX_PIN, empty=True),
                        drawing=_drawing(data["drawing"], "drawing", start_no),
                        signed_at=_signed_at(data["signed_at"], "signed_at"))


def check_content_hash(content: Content, content_hash: str) -> None:
    if content.hash != content_hash:
        raise ProtocolError("hash-mismatch", "The sheet changed after it was signed: the hash does not match "
                            "its content. Sign it again.", field="content_hash")


def check_hashes(sub: Submission) -> None:
    """The content hash recomputed here must be the one sent, and every
    signature must be bound to it (a sum changed after signing breaks both)."""
    check_content_hash(sub.content, sub.content_hash)
    for i, s in enumerate(sub.signatures):
        if s.hash != sub.content_hash:
            raise ProtocolError("signature-hash", f"The signature of start number {s.start_no} is for other "
                                "sums: sign again.", field=f"signatures[{i}].hash", start_no=s.start_no)


def check_signed_by(sub: Submission, seated: list[int] | tuple[int, ...]) -> None:
    """One signature per seated player, none from anyone else."""
    for i, s in enumerate(sub.signatures):
        if s.start_no not in seated:
            raise ProtocolError("not-at-table", f"Start number {s.start_no} does not sit at this table.",
                                field=f"signatures[{i}].start_no", start_no=s.start_no)
    for start_no in seated:
        if sub.signature_of(start_no) is None:
            raise ProtocolError("signature-missing", f"Start number {start_no} has not signed.",
                                field="signatures", start_no=start_no)
