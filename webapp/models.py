"""Database tables. No rules and no display formatting here: the bridge to the
rules engine is `webapp/services/`, formatting lives in the templates.

One file because the tables reference each other and Alembic compares them all with
the migrations: the venue's tables (accounts, tournaments, players, rounds, sheets,
cases, the chain) come first, the federation's after the "federation" banner."""
from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

from flask_login import UserMixin
from sqlalchemy import JSON, BigInteger, ForeignKey, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from .extensions import db

ROLES = ("admin", "operator", "referee", "federation")


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class User(UserMixin, db.Model):
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    display_name: Mapped[str] = mapped_column(String(120), default="")
    password_hash: Mapped[str] = mapped_column(String(256))
    role: Mapped[str] = mapped_column(String(20), default="operator")
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Flask-Login's id in the session and the remember cookie: a new one ends every session of the user
    session_token: Mapped[str] = mapped_column(String(64), unique=True, default=lambda: secrets.token_urlsafe(32))
    # tenancy: operators, referees and a venue's admin belong to a venue, federation staff to a
    # federation; neither set: the server's own admin (or an account of a single-venue server)
    venue_id: Mapped[int | None] = mapped_column(ForeignKey("venue.id"), index=True)
    federation_id: Mapped[int | None] = mapped_column(ForeignKey("federation.id"), index=True)
    # HMAC with a key derived from the server's secret key over the columns above that decide who signs
    # in as what (services/accounts.py): a row written outside the app does not match it
    account_mac: Mapped[str | None] = mapped_column(String(64))
    created_by: Mapped[str] = mapped_column(String(120), default="", server_default="")  # the admin, or the CLI
    # the owner lifted the lock on sign-ins from unknown devices (services/login_throttle.py): failures before it
    # no longer count
    signin_unlocked_at: Mapped[datetime | None]

    def get_id(self) -> str:
        return self.session_token

    def end_sessions(self) -> None:
        self.session_token = secrets.token_urlsafe(32)

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password)
        self.end_sessions()

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)

    @property
    def is_active(self) -> bool:
        return self.active

    @property
    def label(self) -> str:
        return self.display_name or self.username


class Assignment(db.Model):
    """An operator or referee working at a tournament: they see and change only those."""

    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id", ondelete="CASCADE"), primary_key=True,
                                               index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[str] = mapped_column(String(120), default="", server_default="")  # who assigned the account


class Official(db.Model):
    """A tournament's official named by the operator (BB-2 jury member, SMU-4 referee): a referee
    account, the club they are of and, where they play, their start number."""

    __table_args__ = (UniqueConstraint("tournament_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    club: Mapped[str | None] = mapped_column(String(120))
    start_no: Mapped[int | None]
    created_by: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()


class LoginAttempt(db.Model):
    """One sign-in attempt, reserved before the password is checked (services/auth.py throttle)."""

    __tablename__ = "login_attempt"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    username: Mapped[str] = mapped_column(String(80), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    outcome: Mapped[str] = mapped_column(String(10), default="pending")  # pending | failed | ok
    device: Mapped[str | None] = mapped_column(String(32))  # the account's trusted device it came from, if any


class Tournament(db.Model):
    id: Mapped[int] = mapped_column(primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(20), default="sem")
    name: Mapped[str] = mapped_column(String(200))
    date: Mapped[date | None]
    venue: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(20), default="setup")  # setup | running | finished
    nominations_published_at: Mapped[datetime | None]
    # SEM-B3a: club -> players present when round 1 was drawn; fixed then, it decides who nominates
    nomination_duty: Mapped[dict | None] = mapped_column(JSON)
    # bumped by every change that alters the field, the draw or results: stale forms are refused
    version: Mapped[int] = mapped_column(default=1)
    # bumped with `version` except by the running round's phone sheets: what public pages show
    # (standings, projector seating, player pages) is cached and revalidated by it (ETag)
    public_version: Mapped[int] = mapped_column(default=1, server_default="1")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # the head of the tournament's hash chain (services/chain.py), MAC'd: a deleted tail shows
    chain_seq: Mapped[int] = mapped_column(default=0, server_default="0")
    chain_head: Mapped[str] = mapped_column(String(64), default="", server_default="")
    chain_mac: Mapped[str] = mapped_column(String(64), default="", server_default="")
    # with the server's secret key, the key of this tournament's PIN verifiers (services/pins.py)
    pin_salt: Mapped[str | None] = mapped_column(String(32), default=lambda: secrets.token_hex(16))
    # the stable id across servers (the file's top-level `id`): a second copy is recognised by it
    uid: Mapped[str] = mapped_column(String(64), index=True, default=lambda: str(uuid.uuid4()))
    # an import with --replace keeps the old tournament (its signed sheets) and points it at the new one
    replaced_by_id: Mapped[int | None] = mapped_column(ForeignKey("tournament.id"))
    # the venue that owns the tournament: only its staff see and change it
    venue_id: Mapped[int | None] = mapped_column(ForeignKey("venue.id"), index=True)
    # the lot's seed (the file's top-level `seed`, TH-2): a round 1 by lot can be drawn again and checked
    seed: Mapped[int | None] = mapped_column(BigInteger)
    # the language of the players' paper (PIN slips, printed sheets); None: the rule set's (RuleSet.paper_language)
    paper_language: Mapped[str | None] = mapped_column(String(5))

    players: Mapped[list[Player]] = relationship(
        back_populates="tournament", order_by="Player.start_no", cascade="all, delete-orphan")
    rounds: Mapped[list[Round]] = relationship(
        back_populates="tournament", order_by="Round.number", cascade="all, delete-orphan")
    events: Mapped[list[Event]] = relationship(
        back_populates="tournament", order_by="Event.id", cascade="all, delete-orphan")
    corrections: Mapped[list[Correction]] = relationship(
        back_populates="tournament", order_by="Correction.id", cascade="all, delete-orphan")


class Player(db.Model):
    __table_args__ = (UniqueConstraint("tournament_id", "start_no"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    start_no: Mapped[int]
    reg_id: Mapped[str | None] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    club: Mapped[str | None] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(20), default="registered")
    rating: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    nominated: Mapped[bool] = mapped_column(default=False)
    present: Mapped[bool] = mapped_column(default=False)
    checked_in_at: Mapped[datetime | None]
    substitute_for: Mapped[int | None]
    from_round: Mapped[int | None]
    pin_hash: Mapped[str | None] = mapped_column(String(256))
    pin_failures: Mapped[int] = mapped_column(default=0)
    pin_locked_until: Mapped[datetime | None]
    pin_issued_at: Mapped[datetime | None]  # when the current PIN was issued, and by whom
    pin_issued_by: Mapped[str | None] = mapped_column(String(120))

    tournament: Mapped[Tournament] = relationship(back_populates="players")


class PinAttempt(db.Model):
    """One PIN attempt, reserved before the PIN is evaluated (services/pins.py):
    a wrong one is kept for 15 minutes, a right one is deleted."""

    __tablename__ = "pin_attempt"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    kept: Mapped[bool] = mapped_column(default=False)  # False: being evaluated (or an evaluation that crashed)


class Round(db.Model):
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    number: Mapped[int]
    status: Mapped[str] = mapped_column(String(20), default="draft")  # draft | published | closed
    advancing: Mapped[list | None] = mapped_column(JSON)
    eliminated: Mapped[list | None] = mapped_column(JSON)
    drawn_at: Mapped[datetime] = mapped_column(default=utcnow)
    published_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]  # the round clock (SEM-B4)
    closed_at: Mapped[datetime | None]
    standings_published_at: Mapped[datetime | None]  # SEM-C9
    version: Mapped[int] = mapped_column(default=1)
    # round 1 (CSM-5): what seeded it, {"by": "season" | "rating" | "start", "season": name, "placed": k}
    seeding: Mapped[dict | None] = mapped_column(JSON)

    tournament: Mapped[Tournament] = relationship(back_populates="rounds")
    tables: Mapped[list[RoundTable]] = relationship(
        back_populates="round", order_by="RoundTable.number", cascade="all, delete-orphan")


class RoundTable(db.Model):
    __tablename__ = "round_table"
    __table_args__ = (UniqueConstraint("round_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("round.id"), index=True)
    number: Mapped[int]
    players: Mapped[list] = mapped_column(JSON)  # start numbers in sheet order
    flags: Mapped[list] = mapped_column(JSON, default=list)
    # SEM-D1 disqualifications noted before the table's sheet is in: {"players": [...], "early": bool}
    pending_dq: Mapped[dict | None] = mapped_column(JSON)

    round: Mapped[Round] = relationship(back_populates="tables")
    sheets: Mapped[list[Sheet]] = relationship(
        back_populates="table", order_by="Sheet.version", cascade="all, delete-orphan")

    @property
    def sheet(self) -> Sheet | None:
        return counting_sheet(self.sheets)


def counting_sheet(sheets):
    """The sheet of a table that counts: the newest accepted version (`sheets` in version order)."""
    accepted = [s for s in sheets if s.status == "accepted"]
    return accepted[-1] if accepted else None


class Sheet(db.Model):
    """One version of a table's score sheet. Versions are never overwritten."""

    __table_args__ = (UniqueConstraint("table_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("round_table.id"), index=True)
    version: Mapped[int] = mapped_column(default=1)
    status: Mapped[str] = mapped_column(String(20), default="accepted")  # accepted | superseded | pending | dispute | rejected
    sums: Mapped[list] = mapped_column(JSON)  # money strings "14.00", sheet order
    entered_sums: Mapped[list | None] = mapped_column(JSON)  # as written, when SEM-C5 corrected them
    points: Mapped[list | None] = mapped_column(JSON)  # override after SEM-C10
    disqualified: Mapped[list] = mapped_column(JSON, default=list)
    early: Mapped[bool] = mapped_column(default=False)
    source: Mapped[str] = mapped_column(String(20), default="paper")  # paper | phone | import | correction
    note: Mapped[str] = mapped_column(Text, default="")
    created_by: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # phone sheets (docs/SYNC.md): what was signed, by whom, and the receipt shown to players
    content_hash: Mapped[str | None] = mapped_column(String(64))
    signatures: Mapped[list | None] = mapped_column(JSON)
    receipt: Mapped[str | None] = mapped_column(String(12), index=True)
    base_version: Mapped[int] = mapped_column(default=0, server_default="0")
    # what the content hash is computed from (phone: the signed content; else the server's canonical
    # form), and the chain entry that stored this sheet (services/chain.py)
    content: Mapped[dict | None] = mapped_column(JSON)
    chain_seq: Mapped[int | None]
    # rule sets beyond money (RULES.md §2): ČSM's PB / Thousand's game score as strings, sheet order;
    # how a Thousand game ended ("win" | "time"); ČSM's premium-game lines (CSM-3)
    scores: Mapped[list | None] = mapped_column(JSON)
    ended: Mapped[str | None] = mapped_column(String(10))
    premium_games: Mapped[list | None] = mapped_column(JSON)
    # TH-5: a withdrawal left two players, whose scores froze then (True, else None)
    frozen: Mapped[bool | None]
    # BB-1: start numbers more than a minute late (None: nobody); CSM-3: the scorekeeper a lot chose
    late: Mapped[list | None] = mapped_column(JSON)
    keeper_by_lot: Mapped[int | None]

    table: Mapped[RoundTable] = relationship(back_populates="sheets")


class Submission(db.Model):
    """One idempotency key of the sync protocol and the answer it got, so a
    phone that lost the answer and retries gets exactly the same one."""

    idempotency_key: Mapped[str] = mapped_column(String(80), primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("round_table.id"), index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    sheet_id: Mapped[int | None] = mapped_column(ForeignKey("sheet.id"))
    http_status: Mapped[int]
    response: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    sheet: Mapped[Sheet | None] = relationship()


class SheetDraft(db.Model):
    """Sums a phone confirmed and published so that players can sign them on
    their own phones (docs/SYNC.md, "Sign on your own phone"). Not a sheet:
    nothing counts until a phone submits the signed sheet."""

    __tablename__ = "sheet_draft"
    __table_args__ = (UniqueConstraint("table_id", "content_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("round_table.id"), index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    content: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # start numbers signed on the publishing phone (its PINs are checked when the sheet is sent)
    signed_here: Mapped[list | None] = mapped_column(JSON)

    signatures: Mapped[list["DraftSignature"]] = relationship(
        back_populates="draft", order_by="DraftSignature.id", cascade="all, delete-orphan")


class DraftSignature(db.Model):
    """One player's signature over a draft, given on their own phone with their PIN."""

    __tablename__ = "draft_signature"
    __table_args__ = (UniqueConstraint("draft_id", "start_no"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    draft_id: Mapped[int] = mapped_column(ForeignKey("sheet_draft.id"), index=True)
    start_no: Mapped[int]
    drawing: Mapped[str] = mapped_column(Text)
    signed_at: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    draft: Mapped[SheetDraft] = relationship(back_populates="signatures")


class Case(db.Model):
    """Something a referee must decide: a negative sum (SEM-C8), a correction
    before hand-in (SEM-C4), two different sheets for one table, or a
    discrepancy a player reported after publication (SEM-C9)."""

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    round: Mapped[int]
    table: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(20))  # negative-sum | correction | dispute | discrepancy
    status: Mapped[str] = mapped_column(String(20), default="open")  # open | approved | rejected
    sheet_id: Mapped[int | None] = mapped_column(ForeignKey("sheet.id"))
    other_sheet_id: Mapped[int | None] = mapped_column(ForeignKey("sheet.id"))
    payload: Mapped[dict] = mapped_column(JSON, default=dict)
    created_by: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    resolved_by: Mapped[str | None] = mapped_column(String(120))
    resolved_at: Mapped[datetime | None]
    resolution_note: Mapped[str] = mapped_column(Text, default="")


class Event(db.Model):
    """Withdrawals (SEM-D4) and cards (SEM-E), as in the tournament file."""

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))
    start_no: Mapped[int]
    after_round: Mapped[int | None]
    colour: Mapped[str | None] = mapped_column(String(10))
    round: Mapped[int | None]
    referees: Mapped[list] = mapped_column(JSON, default=list)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_by: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # `lot` (TH-4): the start numbers in the order the lot put them, best first
    order: Mapped[list | None] = mapped_column(JSON)

    tournament: Mapped[Tournament] = relationship(back_populates="events")


class Correction(db.Model):
    """SEM-C10 and SEM-C5 corrections: who asked, who approved, old and new values."""

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    record: Mapped[dict] = mapped_column(JSON)  # the `corrections[]` entry of the tournament file
    created_by: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    tournament: Mapped[Tournament] = relationship(back_populates="corrections")


class AuditEntry(db.Model):
    """Append-only, hash-chained log: each entry's hash covers the previous one,
    so a later change to any stored entry is detectable. Entries of a tournament
    form that tournament's chain (services/chain.py): numbered by `seq` without
    gaps, and MAC'd with a key the database does not hold. Entries without a
    tournament form the server log (seq null, no MAC)."""

    __tablename__ = "audit_entry"
    __table_args__ = (UniqueConstraint("tournament_id", "seq", name="uq_audit_entry_tournament_seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int | None] = mapped_column(index=True)
    seq: Mapped[int | None]
    mac: Mapped[str] = mapped_column(String(64), default="", server_default="")
    at: Mapped[datetime] = mapped_column(default=utcnow)
    actor: Mapped[str] = mapped_column(String(120), default="")
    action: Mapped[str] = mapped_column(String(60))
    payload: Mapped[dict] = mapped_column(JSON, default=dict)
    prev_hash: Mapped[str] = mapped_column(String(64), default="")
    hash: Mapped[str] = mapped_column(String(64), default="")

    def compute_hash(self) -> str:
        if self.seq is not None:
            return hashlib.sha256(self.canonical()).hexdigest()
        body = json.dumps(
            [self.prev_hash, self.tournament_id, self.at.isoformat(), self.actor, self.action, self.payload],
            sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(body.encode()).hexdigest()

    def canonical(self) -> bytes:
        return entry_canonical(self.tournament_id, self.seq, self.prev_hash, self.action, self.actor, self.at,
                               self.payload)


def entry_canonical(tournament_id, seq, prev_hash, action, actor, at, payload) -> bytes:
    """What a chain entry's hash covers (docs/SECURITY.md): keys sorted, no whitespace, UTF-8."""
    return json.dumps({"chain": "listok-chain/1", "tournament": tournament_id, "seq": seq, "prev": prev_hash,
                       "kind": action, "actor": actor, "at": at.isoformat(timespec="microseconds"),
                       "payload": payload}, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class PublishedHead(db.Model):
    """A chain head (seq, hash) shown on a published page (standings, projector,
    report) or at a round's SEM-C9 publication. Kept for ever: a chain that no
    longer contains a published head was cut or rewritten."""

    __tablename__ = "published_head"
    __table_args__ = (UniqueConstraint("tournament_id", "seq", "hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int]
    hash: Mapped[str] = mapped_column(String(64))
    mac: Mapped[str] = mapped_column(String(64))
    place: Mapped[str] = mapped_column(String(40))  # where first shown: standings, projector, round-3 …
    published_at: Mapped[datetime] = mapped_column(default=utcnow)


# --------------------------------------------------------------------------- federation


class Federation(db.Model):
    """A federation (SZMK for SEM, ČSM …): owns seasons, clubs and the venues that push to it."""

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Venue(db.Model):
    """A venue: owns its tournaments and staff. On the federation server it pushes with a token
    (only its hash is kept)."""

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    federation_id: Mapped[int | None] = mapped_column(ForeignKey("federation.id"), index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Season(db.Model):
    """One season of a federation in one rule set."""

    __table_args__ = (UniqueConstraint("federation_id", "ruleset", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    federation_id: Mapped[int] = mapped_column(ForeignKey("federation.id"), index=True)
    ruleset: Mapped[str] = mapped_column(String(20), default="sem")
    name: Mapped[str] = mapped_column(String(120))
    starts: Mapped[date | None]
    ends: Mapped[date | None]
    best: Mapped[int | None]  # SEM-A4 best N (None: the rule set's default)
    strike: Mapped[int | None]  # CSM-6 struck tournaments
    rating_window: Mapped[int] = mapped_column(default=12)
    # bumped by every change of what the season's pages show: their ETag
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    federation: Mapped[Federation] = relationship()


class Club(db.Model):
    __table_args__ = (UniqueConstraint("federation_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    federation_id: Mapped[int] = mapped_column(ForeignKey("federation.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))


ROSTER_STATUSES = ("registered", "licensed", "guest", "rejected")


class RosterEntry(db.Model):
    """A player of the season: on a club's roster (registered), licensed, a known guest, or
    listed by a club and rejected by the board (SEM-A2). `reg_id` is the stable player id."""

    __tablename__ = "roster_entry"
    __table_args__ = (UniqueConstraint("season_id", "reg_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id", ondelete="CASCADE"), index=True)
    reg_id: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="registered")
    club_id: Mapped[int | None] = mapped_column(ForeignKey("club.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    club: Mapped[Club | None] = relationship()


class SeasonTournament(db.Model):
    """A tournament as the federation received it: the file, the venue's chain and published
    heads, and the verdict of the check on arrival. The file is what the season tables use."""

    __tablename__ = "season_tournament"

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    uid: Mapped[str] = mapped_column(String(64), index=True)
    venue_id: Mapped[int | None] = mapped_column(ForeignKey("venue.id"))
    name: Mapped[str] = mapped_column(String(200))
    date: Mapped[date | None]
    file: Mapped[str] = mapped_column(Text)
    chain: Mapped[list | None] = mapped_column(JSON)
    heads: Mapped[list | None] = mapped_column(JSON)
    verdict: Mapped[dict] = mapped_column(JSON, default=dict)  # {"ok": bool, "checked": bool, "problems": [...]}
    source: Mapped[str] = mapped_column(String(20), default="push")  # push | import
    received_by: Mapped[str] = mapped_column(String(120), default="")
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    replaced_by_id: Mapped[int | None] = mapped_column(ForeignKey("season_tournament.id"))

    venue: Mapped[Venue | None] = relationship()


class Card(db.Model):
    """The season's card register (SEM-E4, E5, E9): one yellow or red card."""

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    season_tournament_id: Mapped[int] = mapped_column(ForeignKey("season_tournament.id", ondelete="CASCADE"),
                                                      index=True)
    reg_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    colour: Mapped[str] = mapped_column(String(10))
    round: Mapped[int | None]
    # SEM-E4: a yellow is a ban from the next SEM tournament unless the fine (the entry fee) is paid
    fine_paid: Mapped[bool] = mapped_column(default=False)


class SeasonCopy(db.Model):
    """At a venue: a season downloaded from the federation (roster, guest counts, cards),
    so registration checks work offline."""

    __tablename__ = "season_copy"

    id: Mapped[int] = mapped_column(primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(200))
    document: Mapped[dict] = mapped_column(JSON)
    downloaded_at: Mapped[datetime] = mapped_column(default=utcnow)


class RefereeCall(db.Model):
    """A table calls a referee (services/calls.py): open, taken by one referee, closed
    with a note. Not a case: it decides nothing and changes no result."""

    __tablename__ = "referee_call"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    round: Mapped[int]
    table: Mapped[int]
    reason: Mapped[str] = mapped_column(Text, default="")
    # who called: "table" (the table's sheet) or the start number that called from their own page
    caller: Mapped[str] = mapped_column(String(40), default="table")
    status: Mapped[str] = mapped_column(String(10), default="open")  # open | taken | closed
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    taken_by: Mapped[str | None] = mapped_column(String(120))
    taken_at: Mapped[datetime | None]
    closed_by: Mapped[str | None] = mapped_column(String(120))
    closed_at: Mapped[datetime | None]
    note: Mapped[str] = mapped_column(Text, default="")
