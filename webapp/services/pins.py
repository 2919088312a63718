"""Players' personal PINs: what they sign score sheets with on the phone.

A PIN is stored as a keyed verifier, HMAC-SHA256 of the tournament, the start
number and the PIN under a key derived from the server's secret key and the
tournament's salt: a copy of the database alone reveals no PIN (4 digits are
10,000 tries, but each needs the key), and a check is one HMAC. Nothing
else is a PIN: a werkzeug hash (scrypt/pbkdf2, which anyone can make without
the key) never verifies, and the upgrade clears those of older databases.

Four or six digits are few, so the protection on the server is the lockout
(docs/SYNC.md): every PIN is evaluated under the player's row lock, held
until its wrong attempt is stored in `pin_attempt`, so at most 5 wrong PINs
are evaluated per player in any 15 minutes; the 5th locks the player for 15 minutes, right
PIN or not. Locks are taken in one order on every path, the tournament's row before the
players' (`lock_tournament`), so no PIN check is ever a deadlock's victim after its PIN
was compared.

Like every service this changes the caller's session and leaves the commit to
the caller — with one deliberate exception for the caller to honour: a wrong
PIN must be committed even though the request that carried it is refused
(see `PinError`).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlalchemy import bindparam, case, delete, func, or_, select, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import PinAttempt, Player, Round, Tournament, utcnow
from .common import ServiceError, audit
from .keys import derived_key

MAX_FAILURES = 5
LOCK_TIME = timedelta(minutes=15)
WINDOW = LOCK_TIME  # wrong PINs count for this long
RANDOM_DIGITS = 4
CHOSEN_LENGTHS = range(4, 7)
VERIFIER = "hmac-sha256$"


class PinError(ServiceError):
    """A wrong (or missing) PIN. The attempt is already in the session: the
    caller rolls back everything else it did and commits it."""

    def __init__(self, message: str, start_no: int, attempts_left: int | None = None, code: str = "wrong-pin"):
        super().__init__(message, field="pin")
        self.start_no = start_no
        self.attempts_left = attempts_left
        self.code = code


class PinLocked(PinError):
    def __init__(self, message: str, start_no: int, until: datetime):
        super().__init__(message, start_no, 0, code="locked")
        self.until = until


def valid_chosen_pin(pin: str) -> bool:
    return pin.isascii() and pin.isdigit() and len(pin) in CHOSEN_LENGTHS


def random_pin() -> str:
    return "".join(secrets.choice("0123456789") for _i in range(RANDOM_DIGITS))


# --------------------------------------------------------------------------- verifiers


def tournament_salt(tid: int) -> str:
    """The tournament's salt, made on first use for a tournament that has none
    (written only if still empty, so two desks issuing at once agree on it)."""
    salt = db.session.scalar(select(Tournament.pin_salt).where(Tournament.id == tid))
    if salt:
        return salt
    db.session.execute(update(Tournament).where(Tournament.id == tid, Tournament.pin_salt.is_(None))
                       .values(pin_salt=secrets.token_hex(16)).execution_options(synchronize_session=False))
    return db.session.scalar(select(Tournament.pin_salt).where(Tournament.id == tid))


def pepper(tid: int, salt: str) -> bytes:
    return derived_key("pin", tid, salt)


def verifier(key: bytes, tid: int, start_no: int, pin: str) -> str:
    message = f"listok-pin/1:{tid}:{start_no}:{pin}".encode()
    return VERIFIER + hmac.new(key, message, hashlib.sha256).hexdigest()


def pin_matches(stored: str, key: bytes, tid: int, start_no: int, pin: str) -> bool:
    """Evaluate one PIN against what is stored. The only place a PIN is compared
    (tests count evaluations by wrapping it)."""
    return stored.startswith(VERIFIER) and hmac.compare_digest(stored, verifier(key, tid, start_no, pin))


def pin_proof(tid: int, start_no: int, content_hash: str, pin_hash: str) -> str:
    """What the server answers a right PIN given for a sheet's content: the phone
    sends it back with the sheet instead of the PIN. Bound to the content and to
    the stored verifier, so a new PIN voids it."""
    message = f"listok-pin-proof/1:{tid}:{start_no}:{content_hash}:{pin_hash}".encode()
    return hmac.new(derived_key("pin-proof"), message, hashlib.sha256).hexdigest()


# --------------------------------------------------------------------------- issuing


def playing_round(tid: int) -> Round | None:
    """The round being played (published, not closed), if any."""
    return db.session.scalar(select(Round).where(Round.tournament_id == tid, Round.status == "published")
                             .order_by(Round.number.desc()).limit(1))


def round_started(r: Round) -> datetime | None:
    """When a round's sheets started being signed: the earlier of its publication
    and its clock start. A PIN issued after that signs no sheet of the round
    without the referee."""
    times = [x for x in (r.published_at, r.started_at) if x is not None]
    return min(times) if times else None


def issued_during_round(player: Player) -> Round | None:
    """The round being played, if the player's current PIN was issued after it started."""
    if player.pin_issued_at is None:
        return None
    r = playing_round(player.tournament_id)
    start = round_started(r) if r is not None else None
    return r if start is not None and player.pin_issued_at > start else None


def _set_pin(player: Player, pin_hash: str | None, actor: str, now: datetime) -> None:
    player.pin_hash = pin_hash
    player.pin_failures = 0
    player.pin_locked_until = None
    player.pin_issued_at = now if pin_hash else None
    player.pin_issued_by = (actor or None) if pin_hash else None
    if player.id is not None:
        db.session.execute(delete(PinAttempt).where(PinAttempt.player_id == player.id)
                           .execution_options(synchronize_session=False))


def issue_pin(player: Player, pin: str | None = None, actor: str = "") -> str:
    """A new PIN for the player: 4 random digits, or the 4–6 digits they chose.
    Replaces any earlier PIN and clears a lockout; recorded with who and when
    (a PIN issued while a round is played sends the player's next sheet of that
    round to the referee). Returns the PIN (shown once, on the slip)."""
    if pin is None:
        pin = random_pin()
        chosen = False
    else:
        pin = pin.strip()
        if not valid_chosen_pin(pin):
            raise ServiceError(_("A PIN is 4 to 6 digits."), field="pin")
        chosen = True
    tid = player.tournament_id
    lock_tournament(tid)
    now = utcnow()
    had = player.pin_hash is not None
    _set_pin(player, verifier(pepper(tid, tournament_salt(tid)), tid, player.start_no, pin), actor, now)
    r = playing_round(tid)
    audit("pin.issue", actor, {"start_no": player.start_no, "chosen": chosen, "replaced": had,
                               "issued_at": now.isoformat(timespec="seconds"),
                               "during_round": r.number if r is not None else None}, tid)
    return pin


def reset_pin(player: Player, actor: str) -> None:
    """A referee or operator clears the PIN and any lockout; the player needs a new slip."""
    lock_tournament(player.tournament_id)
    had = player.pin_hash is not None
    _set_pin(player, None, actor, utcnow())
    r = playing_round(player.tournament_id)
    audit("pin.reset", actor, {"start_no": player.start_no, "had_pin": had,
                               "during_round": r.number if r is not None else None}, player.tournament_id)


def players_without_pin(t: Tournament) -> list[Player]:
    """Checked-in players who have no PIN yet."""
    return [p for p in t.players if p.present and p.pin_hash is None]


def issue_missing_pins(t: Tournament, start_nos, actor: str) -> list[tuple[Player, str]]:
    """A random PIN for each of these players who is checked in and still has none.
    Each row is written only if it still has no PIN, so two desks printing at once
    never hand out two slips for one player (the second skips them)."""
    wanted = {int(s) for s in start_nos}
    lock_tournament(t.id)
    key = pepper(t.id, tournament_salt(t.id))
    now = utcnow()
    issued = []
    for p in players_without_pin(t):
        if p.start_no not in wanted:
            continue
        pin = random_pin()
        values = {"pin_hash": verifier(key, t.id, p.start_no, pin), "pin_failures": 0, "pin_locked_until": None,
                  "pin_issued_at": now, "pin_issued_by": actor or None}
        result = db.session.execute(
            update(Player).where(Player.id == p.id, Player.pin_hash.is_(None)).values(**values)
            .execution_options(synchronize_session=False))
        if result.rowcount == 1:
            for attr, value in values.items():
                set_committed_value(p, attr, value)
            issued.append((p, pin))
    if issued:
        r = playing_round(t.id)
        audit("pin.issue_all", actor, {"start_nos": [p.start_no for p, _pin in issued],
                                       "issued_at": now.isoformat(timespec="seconds"),
                                       "during_round": r.number if r is not None else None}, t.id)
    return issued


BATCH = 100  # players per transaction: SQLite's write lock is held a few ms at a time, phones go in between


def issue_missing_pins_in_batches(t: Tournament, start_nos, actor: str, batch: int = BATCH,
                                  progress=None) -> list[tuple[Player, str]]:
    """issue_missing_pins in short transactions of `batch` players, each committed
    (this one function commits: a desk printing 600 slips must not hold the write
    lock that every phone's sheet needs). `progress(done, total)` after each."""
    wanted = sorted({int(s) for s in start_nos})
    issued: list[tuple[Player, str]] = []
    for i in range(0, len(wanted), batch):
        t = db.session.get(Tournament, t.id)
        issued += issue_missing_pins(t, wanted[i:i + batch], actor)
        db.session.commit()
        if progress is not None:
            progress(min(i + batch, len(wanted)), len(wanted))
    return issued


# --------------------------------------------------------------------------- checking


_LOCK_TOURNAMENT = select(Tournament.id).where(Tournament.id == bindparam("tid")).with_for_update(key_share=True)


def lock_tournament(tid: int) -> None:
    """The tournament's row, locked until commit (PostgreSQL), taken before any player's row.
    Every path that writes players' PIN rows and the chain takes them in this order, as a phone
    sheet does (tournament, then players), so none of them deadlocks with a sheet. SQLite has one
    write lock, nothing to order."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(_LOCK_TOURNAMENT, {"tid": tid})


def locked_until(player: Player, now: datetime | None = None) -> datetime | None:
    now = now or utcnow()
    return player.pin_locked_until if player.pin_locked_until and player.pin_locked_until > now else None


def _locked(player: Player, until: datetime) -> PinLocked:
    return PinLocked(_("Start number %(s)d has entered a wrong PIN 5 times: PINs are locked for 15 minutes.",
                       s=player.start_no), player.start_no, until)


_PLAYER = Player.__table__
# table-level, not the ORM's bulk-update path; the rows it returns load the players (populate_existing)
HOLD = (update(_PLAYER).where(_PLAYER.c.tournament_id == bindparam("tid"),
                               _PLAYER.c.start_no.in_(bindparam("nos", expanding=True)),
                               or_(_PLAYER.c.pin_locked_until.is_(None), _PLAYER.c.pin_locked_until <= bindparam("now")))
         .values(pin_failures=_PLAYER.c.pin_failures).returning(*_PLAYER.c))
_HOLD_LOADING = select(Player).from_statement(HOLD).execution_options(populate_existing=True)
PLAYERS_BY_NO = select(Player).where(Player.tournament_id == bindparam("tid"),
                                     Player.start_no.in_(bindparam("nos", expanding=True)))
_FRESH_BY_NO = PLAYERS_BY_NO.execution_options(populate_existing=True)


def hold_players(t: Tournament, start_nos, now: datetime) -> tuple[dict[int, Player], dict[int, str | None]]:
    """Step 1 of check_pins: take the rows of the players not locked (PostgreSQL: their row
    locks; SQLite: the write lock, which BEGIN IMMEDIATE already holds), in one statement
    that also loads them, fresh. Every attempt on every route passes here, so they take
    their turn per player. Returns the players by start number (a locked one read as it
    stands, by a second statement) and `held`, the fresh pin_hash by id of those taken: a
    phone sheet reads its table's players and takes them in one statement."""
    return taken(t.id, db.session.scalars(_HOLD_LOADING, {"tid": t.id, "nos": list(start_nos), "now": now}).all(),
                 start_nos)


def taken(tid: int, loaded: list, start_nos) -> tuple[dict[int, Player], dict[int, str | None]]:
    """hold_players' answer from the players `HOLD` returned (ORM objects, or plain rows where a
    batch of phone sheets ran it, services/sheet_submit.py); the locked ones, which it did not take, read
    as they stand."""
    players = {p.start_no: p for p in loaded}
    held = {p.id: p.pin_hash for p in loaded}
    missing = [s for s in start_nos if s not in players]
    if missing:
        players.update((p.start_no, p) for p in db.session.scalars(_FRESH_BY_NO, {"tid": tid, "nos": missing}))
    return players, held


def check_pin(t: Tournament, player: Player, pin: str, now: datetime | None = None,
              proof: tuple[str, str] | None = None, chain_later: list | None = None) -> None:
    """Nothing if `pin` is the player's PIN (or `proof` = (content_hash, proof)
    is a valid `pin_proof` for the current PIN) and the player is not locked;
    else PinError with the attempts left, or PinLocked (also for the right PIN
    while locked). The rule, in order (docs/SYNC.md):

    1. the player's row is taken; locked → PinLocked, nothing evaluated;
    2. no PIN → `no-pin`; a valid proof → right; an empty PIN → `pin-needed`
       (neither is an attempt);
    3. the PIN evaluated once, the player's row still held (so no other
       attempt on this player is evaluated until this transaction ends);
    4. right: nothing is written (5 wrong ones in the window always set the
       lock step 1 refuses);
    5. wrong: 5 wrong attempts already in the last 15 minutes → PinLocked;
       else the attempt is kept, and the 5th in 15 minutes locks the player
       for 15 minutes from now.
    """
    error = check_pins(t, [(player, pin, proof)], now, chain_later=chain_later)[0]
    if error is not None:
        raise error


def check_pins(t: Tournament, checks: list[tuple[Player, str, tuple[str, str] | None]],
               now: datetime | None = None, held: dict[int, str | None] | None = None,
               chain_later: list | None = None) -> list[PinError | None]:
    """`check_pin` for several different players at once (a sheet's signatures:
    (player, pin, proof) each), the same rule step by step for each, but every
    step one statement for all of them: a sheet of three right PINs costs 2
    statements. Returns each check's PinError (PinLocked), or None
    for a right PIN, in the order given. `held`: step 1 done already, at `now`, by
    hold_players for these players. `chain_later`: a list that gets the `audit` arguments of
    the lockouts instead of chaining them now, for a caller that has not locked the
    tournament (`lock_tournament`) and commits the attempts first."""
    now = now or utcnow()
    players = [p for p, _pin, _proof in checks]
    if len({p.id for p in players}) != len(players):
        raise ValueError("check_pins: each player once")
    out: list[PinError | None] = [None] * len(checks)
    if held is None:
        held = hold_players(t, [p.start_no for p in players], now)[1]  # 1.
    evaluate = []
    for i, (player, pin, proof) in enumerate(checks):
        if player.id not in held:
            out[i] = _locked(player, player.pin_locked_until or now + LOCK_TIME)
            continue
        stored = held[player.id]
        if stored is None:  # 2.
            out[i] = PinError(_("Start number %(s)d has no PIN yet: the operator prints a PIN slip at the desk.",
                                s=player.start_no), player.start_no, code="no-pin")
        elif proof and proof[1] and hmac.compare_digest(proof[1], pin_proof(t.id, player.start_no, proof[0],
                                                                              stored)):
            pass
        elif not pin:
            out[i] = PinError(_("The PIN of start number %(s)d is needed again: enter it.", s=player.start_no),
                              player.start_no, code="pin-needed")
        else:
            evaluate.append(i)
    if not evaluate:
        return out
    key = pepper(t.id, t.pin_salt or tournament_salt(t.id))
    # 3. and 4.: only the wrong ones must know how many came before them
    suspects = [i for i in evaluate
                if not pin_matches(held[checks[i][0].id], key, t.id, checks[i][0].start_no, checks[i][1])]
    if not suspects:
        return out
    ids = [checks[i][0].id for i in suspects]
    cutoff = now - WINDOW
    recent, expired = {}, False
    for pid, count, first, old in db.session.execute(  # 5., with the expired attempts found on the way
            select(PinAttempt.player_id, func.count(case((PinAttempt.at > cutoff, 1))),
                   func.min(case((PinAttempt.at > cutoff, PinAttempt.at))),
                   func.count(case((PinAttempt.at <= cutoff, 1))))
            .where(PinAttempt.player_id.in_(ids)).group_by(PinAttempt.player_id)):
        recent[pid] = (count, first)
        expired = expired or old > 0
    if expired:
        db.session.execute(delete(PinAttempt).where(PinAttempt.player_id.in_(ids), PinAttempt.at <= cutoff)
                           .execution_options(synchronize_session=False))
    wrong = []
    for i in suspects:
        player = checks[i][0]
        count, first = recent.get(player.id, (0, None))
        if count >= MAX_FAILURES:
            out[i] = _locked(player, first + WINDOW)
        else:
            wrong.append(i)
    if wrong:
        db.session.execute(PinAttempt.__table__.insert().values(
            [{"player_id": checks[i][0].id, "at": now, "kept": True} for i in wrong]))
    for i in wrong:
        player = checks[i][0]
        failures = recent.get(player.id, (0, None))[0] + 1
        values = {"pin_failures": failures}
        if failures >= MAX_FAILURES:
            values["pin_locked_until"] = now + LOCK_TIME
        db.session.execute(update(Player).where(Player.id == player.id).values(**values)
                           .execution_options(synchronize_session=False))
        for attr, value in values.items():
            set_committed_value(player, attr, value)
        if failures >= MAX_FAILURES:
            entry = ("pin.locked", "phone", {"start_no": player.start_no,
                                             "until": values["pin_locked_until"].isoformat()}, t.id)
            if chain_later is None:
                audit(*entry)
            else:
                chain_later.append(entry)
            out[i] = _locked(player, values["pin_locked_until"])
        else:
            out[i] = PinError(_("Wrong PIN for start number %(s)d.", s=player.start_no), player.start_no,
                              MAX_FAILURES - failures)
    return out
