"""At the venue (issue 12): the season downloaded from the federation, the
registration checks made from it offline (SEM-A2, SEM-E4), and pushing a
finished tournament to the federation."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import date

from flask_babel import get_locale, gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import AuditEntry, PublishedHead, SeasonCopy, Tournament
from ..rules.ruleset import get_ruleset
from .common import ServiceError, audit

SEASON_FORMAT = "listok-season/1"
PUSH_FORMAT = "listok-push/1"


# --------------------------------------------------------------------------- the downloaded season


def import_season(document, actor: str) -> SeasonCopy:
    """Keep a downloaded season document (the file or the federation's answer)."""
    if isinstance(document, (bytes, str)):
        try:
            document = json.loads(document)
        except ValueError:
            raise ServiceError(_("This is not a season file (JSON) from the federation."), field="file") from None
    if not isinstance(document, dict) or document.get("format") != SEASON_FORMAT or \
            not isinstance(document.get("season"), dict) or not isinstance(document.get("players"), list):
        raise ServiceError(_("This is not a season file from the federation (format %(f)s).", f=SEASON_FORMAT),
                           field="file")
    s = document["season"]
    copy = SeasonCopy(ruleset=str(s.get("ruleset") or "sem")[:20],
                      name=f"{(document.get('federation') or {}).get('name', '')} {s.get('name', '')}".strip()[:200],
                      document=document)
    db.session.add(copy)
    db.session.flush()
    audit("season.download", actor, {"season": s.get("id"), "name": copy.name, "version": s.get("version"),
                                     "players": len(document["players"]), "cards": len(document.get("cards", []))})
    return copy


def season_of(t: Tournament) -> SeasonCopy | None:
    """The newest downloaded season of the tournament's rule set."""
    return db.session.scalar(select(SeasonCopy).where(SeasonCopy.ruleset == t.ruleset)
                             .order_by(SeasonCopy.downloaded_at.desc(), SeasonCopy.id.desc()).limit(1))


@dataclass
class SeasonStatus:
    key: str
    roster: str | None  # registered | licensed | guest | rejected | None (not on the roster)
    club: str | None
    guest_played: int
    guest_limit: int
    cards: list[dict]
    banned_by: dict | None  # SEM-E4: the yellow card whose ban is this tournament

    @property
    def yellow(self) -> int:
        return sum(1 for c in self.cards if c.get("colour") == "yellow")

    @property
    def red(self) -> int:
        return sum(1 for c in self.cards if c.get("colour") == "red")


class Season:
    """One downloaded season, read for one tournament."""

    def __init__(self, copy: SeasonCopy, t: Tournament):
        self.copy, self.t = copy, t
        doc = copy.document
        self.roster = {p["id"]: p for p in doc.get("players", []) if isinstance(p, dict) and p.get("id")}
        self.guests = {str(k): int(v) for k, v in (doc.get("guests") or {}).items()}
        self.limit = int(doc.get("guest_limit") or 4)
        self.cards: dict[str, list[dict]] = {}
        for c in doc.get("cards", []):
            self.cards.setdefault(str(c.get("id")), []).append(c)
        # SEM-E4: a yellow bans from the next SEM tournament: the one after the latest tournament received
        # before this one's date (this tournament, when nothing else was held in between)
        day = (t.date or date.today()).isoformat()
        before = [x for x in doc.get("tournaments", []) if (x.get("date") or "") < day and x.get("id") != t.uid]
        self.previous = max(before, key=lambda x: (x.get("date") or "", x.get("name") or ""), default=None)

    def status(self, reg_id: str | None, name: str) -> SeasonStatus:
        key = reg_id or name
        entry = self.roster.get(key)
        cards = self.cards.get(key, [])
        banned = None
        if get_ruleset(self.t.ruleset).season_register and self.previous is not None:
            banned = next((c for c in cards if c.get("colour") == "yellow" and not c.get("fine_paid")
                           and c.get("tournament") == self.previous.get("id")), None)
        return SeasonStatus(key, entry.get("status") if entry else None, entry.get("club") if entry else None,
                            self.guests.get(key, 0), self.limit, cards, banned)

    def refusal(self, reg_id: str | None, name: str, status: str) -> str | None:
        """SEM-A2: why this player cannot be entered with `status`, or None."""
        if not get_ruleset(self.t.ruleset).season_register or status != "guest":
            return None
        s = self.status(reg_id, name)
        if s.roster in ("registered", "licensed"):
            return _("%(name)s is a registered player of the season (%(club)s) and cannot play as a guest "
                     "(SEM-A2).", name=name, club=s.club or _("licensed"))
        if s.roster == "rejected":
            return _("%(name)s was put on the roster of %(club)s and the board rejected them: they cannot "
                     "play as a guest (SEM-A2).", name=name, club=s.club or "?")
        if s.guest_played >= s.guest_limit:
            return _("%(name)s has played %(n)d SEM tournaments of this season as a guest already: the limit is "
                     "%(limit)d (SEM-A2).", name=name, n=s.guest_played, limit=s.guest_limit)
        return None

    def ban_reason(self, reg_id: str | None, name: str) -> str | None:
        card = self.status(reg_id, name).banned_by
        if card is None:
            return None
        return _("%(name)s got a yellow card at %(tournament)s: it bans them from this SEM tournament unless the "
                 "fine (the entry fee) was paid to the federation (SEM-E4). When it is paid, download the season "
                 "again.", name=name, tournament=card.get("tournament_name") or "?")


def for_tournament(t: Tournament) -> Season | None:
    copy = season_of(t)
    return Season(copy, t) if copy is not None else None


# --------------------------------------------------------------------------- pushing to the federation


def chain_export(t: Tournament) -> dict:
    """The tournament's hash chain and published heads, as the federation checks them."""
    entries = db.session.scalars(select(AuditEntry).where(AuditEntry.tournament_id == t.id,
                                                          AuditEntry.seq.is_not(None))
                                 .order_by(AuditEntry.seq)).all()
    heads = db.session.scalars(select(PublishedHead).where(PublishedHead.tournament_id == t.id)
                               .order_by(PublishedHead.seq, PublishedHead.id)).all()
    return {
        "entries": [{"tournament": e.tournament_id, "seq": e.seq, "prev": e.prev_hash, "kind": e.action,
                     "actor": e.actor, "at": e.at.isoformat(timespec="microseconds"), "payload": e.payload,
                     "hash": e.hash} for e in entries],
        "heads": [{"seq": h.seq, "hash": h.hash, "place": h.place, "published_at": h.published_at.isoformat()}
                  for h in heads],
        "head": {"seq": t.chain_seq, "hash": t.chain_head},
    }


def push_body(t: Tournament) -> dict:
    from .tournament_file import export_tournament

    return {"format": PUSH_FORMAT, "file": export_tournament(t), "chain": chain_export(t)}


@dataclass
class PushResult:
    status: int
    answer: dict


def push(t: Tournament, url: str, token: str, actor: str, timeout: float = 30) -> PushResult:
    """POST the finished tournament to the federation; the answer says whether it was taken
    (201), was there already (409) or was refused (4xx), with the federation's message."""
    if t.status != "finished":
        raise ServiceError(_("Only a finished tournament can be sent to the federation."))
    if not url or not token:
        raise ServiceError(_("The federation's address and the venue's token are not set "
                             "(LISTOK_FEDERATION_URL, LISTOK_FEDERATION_TOKEN)."))
    target = url.rstrip("/")
    if not target.endswith("/federation/api/tournaments"):
        target += "/federation/api/tournaments"
    body = json.dumps(push_body(t), ensure_ascii=False).encode("utf-8")
    req = urllib.request.Request(target, data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}",
        "Accept-Language": str(get_locale())})  # the federation's reasons in the operator's language
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:  # noqa: S310 - the operator's configured URL
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        raise ServiceError(_("The federation at %(url)s cannot be reached (%(why)s): nothing was sent. "
                             "Try again when the venue is online, or export the file and send it.",
                             url=target, why=getattr(e, "reason", e))) from None
    try:
        answer = json.loads(raw or b"{}")
    except ValueError:
        answer = {"message": raw[:200].decode("utf-8", "replace")}
    audit("tournament.push", actor, {"to": target, "status": status, "message": answer.get("message", "")}, t.id)
    return PushResult(status, answer)
