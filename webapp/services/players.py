"""Before round 1: the players list (by hand or from a CSV file), check-in and
the SEM-B3 nominations.

The field closes when round 1 is drawn: from then on no player is added,
imported or checked in, start numbers stay as drawn and nominations are frozen.

One file because all four parts check one player's values the same way before the
field closes; its sections: one player's values, CSV import, check-in, SEM-B3 nominations.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _, lazy_gettext as _l, ngettext
from sqlalchemy import select

from ..extensions import db
from ..models import AuditEntry, Player, Tournament, utcnow
from ..rules.model import STATUSES
from ..rules.ruleset import get_ruleset
from ..rules.season import NOMINATED, nominations
from ..rules.seating import eligible_field
from .common import ServiceError, audit, bump, check_version
from .engine import MAX_CLUB, MAX_ID, MAX_NAME, MAX_RATING, MAX_START_NO, rules_player, rules_tournament

STATUS_LABELS = {
    "registered": _l("Registered (club member)"),
    "licensed": _l("Licensed (no club)"),
    "guest": _l("Guest"),
    "substitute": _l("Substitute"),
}
STATUS_SHORT = {
    "registered": _l("registered"),
    "licensed": _l("licensed"),
    "guest": _l("guest"),
    "substitute": _l("substitute"),
}
NO_CLUB_STATUSES = ("guest", "licensed")  # SEM-A2, EXCHANGE.md: these play without a club


class PlayerErrors(ServiceError):
    """A refused player: one message per form field (`errors`), the first also as the message."""

    def __init__(self, errors: dict[str, str]):
        first = next(iter(errors))
        super().__init__(errors[first], field=first)
        self.errors = errors


def field_closed(t: Tournament) -> bool:
    """Round 1 is drawn (a discarded draft reopens the field)."""
    return bool(t.rounds)


def _require_open(t: Tournament, message: str) -> None:
    if field_closed(t):
        raise ServiceError(message)


def fold(text: str) -> str:
    """Lower case without diacritics: 'Kučera' and 'kucera' match, 'štartové číslo' is 'startove cislo'."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().strip()


# --------------------------------------------------------------------------- one player's values

@dataclass
class PlayerData:
    start_no: int | None = None
    reg_id: str | None = None
    name: str = ""
    club: str | None = None
    status: str = "registered"
    rating: Decimal | None = None


STATUS_ALIASES = {
    "": "registered", "registered": "registered", "registrovany": "registered", "registrovana": "registered",
    "clen": "registered",
    "licensed": "licensed", "licencovany": "licensed", "licencovana": "licensed", "hl": "licensed",
    "guest": "guest", "host": "guest", "hostka": "guest",
    "substitute": "substitute", "nahradnik": "substitute", "nahradnicka": "substitute",
    **{fold(k): v for k, v in (("член клуба", "registered"), ("зарегистрированный член клуба", "registered"),
                               ("лицензия", "licensed"), ("с лицензией", "licensed"), ("гость", "guest"),
                               ("замена", "substitute"), ("s licencí", "licensed"), ("s licenciou", "licensed"))},
}


def clean(text) -> str:
    """A cell or form value: no surrounding or non-breaking spaces."""
    return " ".join(str(text or "").replace("\u00a0", " ").split())


def join_name(surname, first_name) -> str:
    """The stored name, "Surname First name" (views/shared.py splits it at the first space)."""
    return " ".join(x for x in (clean(surname), clean(first_name)) if x)


def split_name(name: str) -> tuple[str, str]:
    surname, _sep, first = clean(name).partition(" ")
    return surname, first


def parse_player(values: dict, errors: dict[str, str]) -> PlayerData:
    """Text values (form fields or CSV cells) → PlayerData; problems go to `errors` by field."""
    d = PlayerData()
    raw_no = clean(values.get("start_no"))
    if not raw_no:
        errors["start_no"] = _("Enter a start number.")
    else:
        try:
            d.start_no = int(raw_no)
            if not 1 <= d.start_no <= MAX_START_NO:
                raise ValueError
        except ValueError:
            d.start_no = None
            errors["start_no"] = _("Start number \u201c%(value)s\u201d is not a whole number from 1 to %(max)d.",
                                   value=raw_no, max=MAX_START_NO)
    d.reg_id = clean(values.get("reg_id")) or None
    if d.reg_id and len(d.reg_id) > MAX_ID:
        errors["reg_id"] = _("The id is longer than %(n)d characters.", n=MAX_ID)
    d.name = clean(values.get("name"))
    if not d.name:
        errors["name"] = _("Enter the player's name.")
    elif len(d.name) > MAX_NAME:
        errors["name"] = _("The name is longer than %(n)d characters.", n=MAX_NAME)
    d.club = clean(values.get("club")) or None
    if d.club and len(d.club) > MAX_CLUB:
        errors["club"] = _("The club is longer than %(n)d characters.", n=MAX_CLUB)
    raw_status = clean(values.get("status"))
    status = raw_status if raw_status in STATUSES else STATUS_ALIASES.get(fold(raw_status))
    if status is None:
        errors["status"] = _("Unknown status \u201c%(value)s\u201d: use registered, licensed, guest or substitute.",
                             value=raw_status)
    else:
        d.status = status
    raw_rating = clean(values.get("rating")).replace(" ", "").replace(",", ".")
    if raw_rating:
        try:
            r = Decimal(raw_rating)
            if not r.is_finite() or r < 0 or r > MAX_RATING or r != r.quantize(Decimal("0.01")):
                raise InvalidOperation
            d.rating = r
        except InvalidOperation:
            errors["rating"] = _("Rating \u201c%(value)s\u201d is not a number (0 or more, at most 2 decimals); "
                                 "leave it empty for an unrated player.", value=clean(values.get("rating")))
    return d


def _clashes(t: Tournament, d: PlayerData, errors: dict[str, str], exclude: Player | None = None) -> None:
    """Start number and id must be unique in the tournament (SEM-A2: one entry per player)."""
    for p in t.players:
        if p is exclude:
            continue
        if d.start_no is not None and p.start_no == d.start_no and "start_no" not in errors:
            errors["start_no"] = _("Start number %(n)d is already taken by %(name)s.", n=d.start_no, name=p.name)
        if d.reg_id and p.reg_id == d.reg_id and "reg_id" not in errors:
            errors["reg_id"] = _("Id %(id)s is already entered as start number %(n)d (%(name)s): "
                                 "a player is entered once.", id=d.reg_id, n=p.start_no, name=p.name)


def _season_rules(t: Tournament, d: PlayerData, errors: dict[str, str]) -> None:
    """SEM-A2 from the season downloaded from the federation, when there is one."""
    from .venue_season import for_tournament

    season = for_tournament(t)
    reason = season.refusal(d.reg_id, d.name, d.status) if season is not None else None
    if reason:
        errors.setdefault("status", reason)


def _apply(p: Player, d: PlayerData) -> None:
    p.start_no, p.reg_id, p.name, p.club, p.status, p.rating = (
        d.start_no, d.reg_id, d.name, d.club, d.status, d.rating)


def _audit_values(p: Player) -> dict:
    return {"start_no": p.start_no, "id": p.reg_id, "name": p.name, "club": p.club, "status": p.status,
            "rating": None if p.rating is None else f"{p.rating}"}


def next_start_no(t: Tournament) -> int:
    return max((p.start_no for p in t.players), default=0) + 1


def late_entry_round(t: Tournament) -> int | None:
    """The round a player entered now starts in, when the field is closed but the rule set
    still takes late entries (TH-5: after round 1, seated from round 2), else None."""
    n = get_ruleset(t.ruleset).late_entry_round
    if n is None or not field_closed(t) or t.rounds[-1].number >= n:
        return None
    return n


def add_player(t: Tournament, values: dict, actor: str, version) -> Player:
    check_version(t, version)
    late = late_entry_round(t)
    if late is None:
        _require_open(t, _("Round 1 is drawn: no more players can be entered."))
    errors: dict[str, str] = {}
    d = parse_player(values, errors)
    _form_rules(d, errors)
    _clashes(t, d, errors)
    _season_rules(t, d, errors)
    if errors:
        raise PlayerErrors(errors)
    p = Player(tournament=t)
    _apply(p, d)
    if late is not None:  # TH-5: with no points and score 0, present from that round on
        p.from_round, p.present, p.checked_in_at = late, True, utcnow()
    db.session.add(p)
    bump(t)
    db.session.flush()
    audit("player.add", actor, {**_audit_values(p), **({"from_round": late} if late else {})}, t.id)
    return p


def edit_player(t: Tournament, p: Player, values: dict, actor: str, version) -> None:
    """Names, clubs, ratings and statuses can be corrected at any time; the start
    number only until round 1 is drawn (the draw refers to it)."""
    check_version(t, version)
    errors: dict[str, str] = {}
    d = parse_player(values, errors)
    if field_closed(t) and d.start_no is not None and d.start_no != p.start_no:
        errors["start_no"] = _("Round 1 is drawn: the start number can no longer change.")
    _form_rules(d, errors)
    _clashes(t, d, errors, exclude=p)
    _season_rules(t, d, errors)
    if errors:
        raise PlayerErrors(errors)
    before = _audit_values(p)
    _apply(p, d)
    bump(t)
    audit("player.edit", actor, {"before": before, "after": _audit_values(p)}, t.id)


def delete_player(t: Tournament, p: Player, actor: str, version) -> None:
    check_version(t, version)
    _require_open(t, _("Round 1 is drawn: players can no longer be removed."))
    db.session.delete(p)
    bump(t)
    audit("player.delete", actor, _audit_values(p), t.id)


def _form_rules(d: PlayerData, errors: dict[str, str]) -> None:
    """SEM-A2 as the form enforces it: guests and licensed players play without a club."""
    if d.club and d.status in NO_CLUB_STATUSES and "club" not in errors:
        if d.status == "guest":
            errors["club"] = _("A guest plays without a club (SEM-A2): leave the club empty, "
                               "or enter a club member as registered.")
        else:
            errors["club"] = _("A licensed player plays without a club (SEM-A2): leave the club empty.")


# --------------------------------------------------------------------------- CSV import

COLUMNS = ("start_no", "reg_id", "name", "club", "status", "rating")
HEADER_NAMES = {
    "start_no": ("start_no", "start no", "start number", "startno", "no", "number", "start", "stc", "st c",
                 "startove cislo", "startovne cislo", "startovni cislo", "cislo", "c"),
    "reg_id": ("id", "reg_id", "reg id", "registration id", "registracne cislo", "registracni cislo"),
    "name": ("name", "meno", "jmeno", "meno a priezvisko", "priezvisko a meno", "prijmeni a jmeno", "player",
             "hrac"),
    "club": ("club", "klub"),
    "status": ("status", "stav"),
    "rating": ("rating", "hodnotenie", "hodnoceni"),
}
# the header as the Russian example shows it (a Thousand field), and Russian statuses
HEADER_NAMES_RU = {
    "start_no": ("стартовый номер", "номер", "№", "ст. номер"),
    "reg_id": ("ид", "идентификатор", "рег. номер"),
    "name": ("фамилия имя", "фамилия и имя", "имя", "игрок", "фио"),
    "club": ("клуб",),
    "status": ("статус",),
    "rating": ("рейтинг",),
}


def _header_key(cell: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in fold(cell)).split())


_HEADER_LOOKUP = {_header_key(name) or name: col for table in (HEADER_NAMES, HEADER_NAMES_RU)
                  for col, names in table.items() for name in names}


@dataclass
class CsvRow:
    line: int
    cells: dict[str, str]
    data: PlayerData
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class CsvPreview:
    rows: list[CsvRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # about the whole file
    warnings: list[str] = field(default_factory=list)
    delimiter: str = ";"
    header: bool = True

    @property
    def row_errors(self) -> int:
        return sum(1 for r in self.rows if r.errors)

    @property
    def ok(self) -> bool:
        return bool(self.rows) and not self.errors and not self.row_errors


CS_SK_LETTERS = frozenset("áäčďéěíĺľňóôŕřšťúůýžÁÄČĎÉĚÍĹĽŇÓÔŔŘŠŤÚŮÝŽ")


def _cyrillic(c: str) -> bool:
    return "\u0400" <= c <= "\u04ff"


def _looks_russian(text: str) -> bool:
    """Windows-1251 read right: every word with a letter beyond ASCII is Cyrillic through and
    through (Czech read as 1251 mixes scripts in a word: "Novбk")."""
    words = [w for w in re.findall(r"[^\W\d_]+", text) if not w.isascii()]
    return bool(words) and sum(all(_cyrillic(c) for c in w) for w in words) >= 0.95 * len(words)


def _looks_central_european(text: str) -> bool:
    """Windows-1250 read right: the letters beyond ASCII are Czech or Slovak ones."""
    letters = [c for c in text if not c.isascii() and c.isalpha()]
    return sum(c in CS_SK_LETTERS for c in letters) >= 0.95 * len(letters)


def decode_csv(raw: bytes) -> str:
    """UTF-8 (with or without BOM); else Windows-1251 (what Russian Excel writes) or Windows-1250
    (Excel's Central European default), whichever reads as words of its language; else refused,
    never shown garbled."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    for codec, plausible in (("cp1251", _looks_russian), ("cp1250", _looks_central_european)):
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if plausible(text):
            return text
    raise ServiceError(_("The file is not UTF-8, Windows-1250 (Czech, Slovak) or Windows-1251 (Russian) text: "
                         "nothing was read. Save it as CSV UTF-8 and upload it again."), field="file")


def _delimiter(text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = {d: 0 for d in ";,\t"}
    quoted = False
    for c in first:
        if c == '"':
            quoted = not quoted
        elif not quoted and c in counts:
            counts[c] += 1
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ";"


def preview_csv(t: Tournament, text: str) -> CsvPreview:
    """Every row of the file checked against the file itself and the players already entered."""
    pv = CsvPreview(delimiter=_delimiter(text))
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        lines = [(n, cells) for n, cells in _numbered_rows(text, pv.delimiter) if any(c.strip() for c in cells)]
    except csv.Error as e:
        pv.errors.append(_("The file is not readable as CSV at line %(line)d (%(detail)s): check the quotes "
                           "around that line.", line=e.args[0], detail=e.args[1]))
        return pv
    if field_closed(t):
        pv.errors.append(_("Round 1 is drawn: players can no longer be imported."))
    if not lines:
        pv.errors.append(_("The file has no rows."))
        return pv
    columns = _columns(lines[0][1], pv)
    if columns is None:
        return pv
    if pv.header:
        lines = lines[1:]
    if not lines:
        pv.errors.append(_("The file has a header but no players."))
        return pv
    for n, cells in lines:
        if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns):]):
            values = {c: (cells[i] if i < len(cells) else "") for i, c in enumerate(columns) if c}
            row = CsvRow(n, values, PlayerData())
            row.errors.append(_("The row has %(n)d cells, the file has %(k)d columns.", n=len(cells), k=len(columns)))
            pv.rows.append(row)
            continue
        values = {c: (cells[i] if i < len(cells) else "") for i, c in enumerate(columns) if c}
        errors: dict[str, str] = {}
        data = parse_player(values, errors)
        row = CsvRow(n, values, data, errors=list(errors.values()))
        if data.club and data.status in NO_CLUB_STATUSES:
            if data.status == "guest":
                row.warnings.append(_("A guest plays without a club (SEM-A2): the club \u201c%(club)s\u201d "
                                      "will not be imported.", club=data.club))
            else:
                row.warnings.append(_("A licensed player plays without a club (SEM-A2): the club "
                                      "\u201c%(club)s\u201d will not be imported.", club=data.club))
            data.club = None
        pv.rows.append(row)
    _row_clashes(t, pv.rows)
    return pv


def _numbered_rows(text: str, delimiter: str):
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        for cells in reader:
            yield reader.line_num, cells
    except csv.Error as e:
        raise csv.Error(reader.line_num, str(e)) from None


def _columns(first: list[str], pv: CsvPreview) -> list[str | None] | None:
    """The field of each column from the header row, or the standard order when there is none."""
    keys = [_header_key(c) for c in first]
    if keys and keys[0].isdigit():
        pv.header = False
        return list(COLUMNS)
    columns: list[str | None] = []
    before = len(pv.errors)
    for cell, key in zip(first, keys):
        col = _HEADER_LOOKUP.get(key)
        if col is None:
            if key:
                pv.warnings.append(_("The column \u201c%(name)s\u201d is not known and is ignored.", name=clean(cell)))
        elif col in columns:
            pv.errors.append(_("The header names the column \u201c%(name)s\u201d twice.", name=clean(cell)))
        columns.append(col)
    if not any(columns):
        pv.errors.append(_("The first row is not a header: name the columns start number, id, name, club, "
                           "status, rating (in English or Slovak), or start the file with the players' rows "
                           "in that order."))
        return None
    for col, label in (("start_no", _("start number")), ("name", _("name"))):
        if col not in columns:
            pv.errors.append(_("The header has no column for the %(column)s.", column=label))
    return None if len(pv.errors) > before else columns


def _row_clashes(t: Tournament, rows: list[CsvRow]) -> None:
    taken = {p.start_no: p for p in t.players}
    ids = {p.reg_id: p for p in t.players if p.reg_id}
    first_no: dict[int, int] = {}
    first_id: dict[str, int] = {}
    for row in rows:
        d = row.data
        if d.start_no is not None:
            if d.start_no in taken:
                row.errors.append(_("Start number %(n)d is already taken by %(name)s.",
                                    n=d.start_no, name=taken[d.start_no].name))
            elif d.start_no in first_no:
                row.errors.append(_("Start number %(n)d also appears on line %(line)d.",
                                    n=d.start_no, line=first_no[d.start_no]))
            else:
                first_no[d.start_no] = row.line
        if d.reg_id:
            if d.reg_id in ids:
                p = ids[d.reg_id]
                row.errors.append(_("Id %(id)s is already entered as start number %(n)d (%(name)s).",
                                    id=d.reg_id, n=p.start_no, name=p.name))
            elif d.reg_id in first_id:
                row.errors.append(_("Id %(id)s also appears on line %(line)d.", id=d.reg_id, line=first_id[d.reg_id]))
            else:
                first_id[d.reg_id] = row.line
    from .venue_season import for_tournament

    season = for_tournament(t)
    for row in rows if season is not None else ():
        reason = season.refusal(row.data.reg_id, row.data.name, row.data.status)
        if reason:
            row.errors.append(reason)


def import_csv(t: Tournament, text: str, actor: str, version) -> list[Player]:
    """All rows of a clean file, or nothing."""
    check_version(t, version)
    pv = preview_csv(t, text)
    if not pv.ok:
        raise ServiceError(_("The file has errors: nothing was imported. Correct the file and upload it again."))
    added = []
    for row in pv.rows:
        p = Player(tournament=t)
        _apply(p, row.data)
        db.session.add(p)
        added.append(p)
    bump(t)
    db.session.flush()
    audit("players.import", actor, {"rows": len(added), "start_nos": [p.start_no for p in added]}, t.id)
    return added


# --------------------------------------------------------------------------- check-in

@dataclass
class CheckinSummary:
    total: int
    present: int
    absent: int
    seated: int  # who round 1 would seat (present players, minus substitutes still waiting)
    table_size: int | None
    add: int = 0
    withdraw: int = 0
    closed: bool = False

    @property
    def divisible(self) -> bool:
        return self.table_size is None or (self.seated > 0 and self.seated % self.table_size == 0)

    @property
    def seating_message(self) -> str:
        if self.table_size is None or self.divisible:
            return ""
        if self.seated == 0:
            return _("Nobody is checked in yet.")
        return ngettext("%(count)d players cannot be seated at tables of %(size)d: add %(num)d player "
                        "or withdraw %(withdraw)d.",
                        "%(count)d players cannot be seated at tables of %(size)d: add %(num)d players "
                        "or withdraw %(withdraw)d.",
                        self.add, count=self.seated, size=self.table_size, withdraw=self.withdraw)


def checkin_summary(t: Tournament) -> CheckinSummary:
    rs = get_ruleset(t.ruleset)
    present = sum(1 for p in t.players if p.present)
    field_size = len(eligible_field(rules_tournament(t, upto=0), 1))
    size = rs.table_sizes[0] if len(rs.table_sizes) == 1 else None
    s = CheckinSummary(total=len(t.players), present=present, absent=len(t.players) - present, seated=field_size,
                       table_size=size, closed=field_closed(t))
    if size and field_size % size:
        s.withdraw = field_size % size
        s.add = size - s.withdraw
    return s


def checkin_closed_reason(t: Tournament) -> str:
    """Why check-in is closed and what a player who arrives now can do, under the tournament's rule set."""
    rs = get_ruleset(t.ruleset)
    late = late_entry_round(t)
    if late is not None:  # TH-5
        return _("Round 1 is drawn: check-in is closed, because the draw seated the players who were checked "
                 "in then. A player who arrives now is added on the players page as a late entry, seated from "
                 "round %(n)d on (%(rule)s).", n=late, rule=rs.withdrawal_rule)
    if rs.cite("dq-case"):  # SEM-D3 (and BB liga, which follows SEM's discipline)
        return _("Round 1 is drawn: check-in is closed, because the draw seated the players who were checked in "
                 "then. A player who arrives now can only enter as a substitute (SEM-D3), through the referee.")
    return _("Round 1 is drawn: check-in is closed, because the draw seated the players who were checked in "
             "then. A player who arrives now can only enter as a substitute, through the referee.")


def set_present(t: Tournament, p: Player, present: bool, actor: str) -> None:
    """Check a player in (with the time) or mark them absent. Setting a state, not
    toggling it, so two tablets at the desk cannot undo each other's tap."""
    if field_closed(t):
        raise ServiceError(checkin_closed_reason(t))
    if bool(p.present) == present:
        return
    if present:
        from .venue_season import for_tournament

        season = for_tournament(t)
        reason = season.ban_reason(p.reg_id, p.name) if season is not None else None
        if reason:  # SEM-E4: the yellow card's ban, from the downloaded season
            raise ServiceError(reason)
    p.present = present
    p.checked_in_at = utcnow() if present else None
    bump(t)
    audit("player.checkin" if present else "player.absent", actor, {"start_no": p.start_no}, t.id)


def check_in_all(t: Tournament, actor: str, version) -> int:
    check_version(t, version)
    if field_closed(t):
        raise ServiceError(checkin_closed_reason(t))
    now = utcnow()
    from .venue_season import for_tournament

    season = for_tournament(t)  # SEM-E4: a player banned by a yellow card stays absent
    changed = [p for p in t.players if not p.present and (season is None or not season.ban_reason(p.reg_id, p.name))]
    for p in changed:
        p.present, p.checked_in_at = True, now
    if changed:
        bump(t)
        audit("players.checkin_all", actor, {"count": len(changed)}, t.id)
    return len(changed)


def search_players(t: Tournament, query: str = "", show: str = "all") -> list[Player]:
    """By start number (exact) or by a piece of the name, ignoring case and diacritics."""
    q = clean(query)
    players = list(t.players)
    if show == "present":
        players = [p for p in players if p.present]
    elif show == "absent":
        players = [p for p in players if not p.present]
    if not q:
        return players
    if q.isdigit():
        return [p for p in players if p.start_no == int(q)]
    needle = fold(q)
    return [p for p in players if needle in fold(p.name)]


# --------------------------------------------------------------------------- SEM-B3 nominations

@dataclass
class ClubNominations:
    club: str
    members: list[Player]  # present players of the club, by start number
    required: bool  # more than NOMINATE_ABOVE present: must nominate NOMINATED
    chosen: set[int]  # start numbers flagged as nominated
    automatic: tuple[int, ...]  # what SEM-B3b would choose

    @property
    def state(self) -> str:
        """all (does not nominate) | done | automatic (nothing chosen yet) | wrong (a count other than 10)."""
        if not self.required:
            return "all"
        if not self.chosen:
            return "automatic"
        return "done" if len(self.chosen) == NOMINATED else "wrong"


def club_nominations(t: Tournament) -> list[ClubNominations]:
    """Every club with a player who may be seated in round 1, with what the engine will do at
    its draw. A substitute who joins later is never nominated (SEM-B3), so a club that only
    substitutes brought in is not listed, and substitutes do not change a club's duty."""
    rt = rules_tournament(t, upto=0)
    unflagged = replace(rt, players=[replace(p, nominated=False) for p in rt.players])
    auto = nominations(unflagged)
    at_draw = eligible_field(rt, 1)
    by_no = {p.start_no: p for p in t.players}
    clubs: dict[str, list[Player]] = {}
    for rp in rt.players:
        if rp.start_no in at_draw and rp.club_key in auto:
            clubs.setdefault(rp.club_key, []).append(by_no[rp.start_no])
    out = []
    for club in sorted(clubs, key=fold):
        members = sorted(clubs[club], key=lambda p: p.start_no)
        out.append(ClubNominations(club, members, auto[club].required,
                                   {p.start_no for p in members if p.nominated}, auto[club].players))
    return out


def _club(t: Tournament, club: str) -> ClubNominations:
    for c in club_nominations(t):
        if c.club == club:
            return c
    raise ServiceError(_("No player of the club %(club)s is checked in.", club=club))


def _set_nominated(t: Tournament, club: str, chosen: set[int]) -> None:
    for p in t.players:
        if rules_player(p).club_key == club:
            p.nominated = p.start_no in chosen


def save_nominations(t: Tournament, club: str, start_nos, actor: str, version) -> None:
    """SEM-B3a: a club with more than 12 players present nominates exactly 10 of them."""
    check_version(t, version)
    _require_open(t, _("Round 1 is drawn: nominations are frozen."))
    c = _club(t, club)
    if not c.required:
        raise ServiceError(_("The club %(club)s has %(n)d players present and does not nominate: "
                             "all of them count as nominated.", club=club, n=len(c.members)))
    members = {p.start_no for p in c.members}
    try:
        chosen = {int(s) for s in start_nos}
    except (TypeError, ValueError):
        raise ServiceError(_("Choose players by their check boxes.")) from None
    strangers = sorted(chosen - members)
    if strangers:
        raise ServiceError(_("Start number %(n)d is not a present player of the club %(club)s.",
                             n=strangers[0], club=club))
    if len(chosen) != NOMINATED:
        raise ServiceError(_("The club %(club)s has %(n)d players present and must nominate exactly %(k)d; "
                             "%(chosen)d are chosen. Nothing was saved.",
                             club=club, n=len(members), k=NOMINATED, chosen=len(chosen)))
    _set_nominated(t, club, chosen)
    bump(t)
    audit("nominations.save", actor, {"club": club, "start_nos": sorted(chosen)}, t.id)


def nominate_automatically(t: Tournament, club: str, actor: str, version) -> tuple[int, ...]:
    """SEM-B3b's choice now: the 10 best-rated present players, unrated ones by start number."""
    check_version(t, version)
    _require_open(t, _("Round 1 is drawn: nominations are frozen."))
    c = _club(t, club)
    if not c.required:
        raise ServiceError(_("The club %(club)s has %(n)d players present and does not nominate: "
                             "all of them count as nominated.", club=club, n=len(c.members)))
    _set_nominated(t, club, set(c.automatic))
    bump(t)
    audit("nominations.auto_now", actor, {"club": club, "start_nos": list(c.automatic)}, t.id)
    return c.automatic


@dataclass
class PublishedClub:
    club: str
    players: list[Player]
    required: bool
    automatic: bool


def published_nominations(t: Tournament) -> list[PublishedClub] | None:
    """The list published during round 1 (SEM-B3b), or None before that."""
    if t.nominations_published_at is None:
        return None
    auto_clubs: set[str] = set()
    for entry in db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == t.id,
                                                              AuditEntry.action == "nominations.auto")):
        auto_clubs.update(entry.payload.get("clubs", []))
    try:
        noms = nominations(rules_tournament(t, upto=0))
    except ValueError as e:
        raise ServiceError(str(e)) from e
    by_no = {p.start_no: p for p in t.players}
    return [PublishedClub(club, [by_no[s] for s in nom.players], nom.required, club in auto_clubs)
            for club, nom in sorted(noms.items(), key=lambda kv: fold(kv[0]))]
