"""At the venue: the season downloaded from the federation, the
registration checks made from it offline (SEM-A2, SEM-E4), and pushing a
finished tournament to the federation."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import date

from flask_babel import get_locale, gettext as _
from sqlalchemy import select

from ..extensions import db
from ..models import AuditEntry, PublishedHead, SeasonCopy, Tournament
from ..rules.ruleset import get_ruleset
from .common import ServiceError, audit
from . import chain_verify

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


def season_places(t: Tournament) -> tuple[dict[str, int] | None, str | None]:
    """CSM-5: the current season table of the tournament's rule set, from the newest downloaded
    season (the federation's answer, `listok season-download` or a season file): (player id ->
    place, the season's name), or (None, None) when no season with a table is here."""
    copy = season_of(t)
    rows = (copy.document or {}).get("standings") if copy is not None else None
    if not isinstance(rows, list):
        return None, None
    places = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("id"), str) and isinstance(row.get("place"), int) \
                and not isinstance(row.get("place"), bool):
            places.setdefault(row["id"], row["place"])
    return (places or None), (copy.name if places else None)


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
        "heads": [{"seq": h.seq, "hash": h.hash, "place": h.place, "published_at": h.published_at.isoformat(timespec="microseconds")}
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


# --------------------------------------------------------------------------- talking to the federation


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as what it is (an HTTPError with its Location), never followed:
    urllib would send the venue's token on to the new host (and turn a POST into a GET)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def federation_target(url: str, path: str, insecure: bool = False) -> str:
    """The federation's address + `path`, refused unless it is https:// (plain http:// only with
    `insecure`): the venue's token travels with every request."""
    base = (url or "").strip().rstrip("/")
    scheme = urllib.parse.urlsplit(base).scheme.lower()
    if scheme not in ("https", "http") or not urllib.parse.urlsplit(base).hostname:
        raise ServiceError(_("The federation's address %(url)s is not a web address (https://…).", url=base))
    if scheme == "http" and not insecure:
        raise ServiceError(_("The federation's address %(url)s is plain http://: the venue's token would cross "
                             "the network unencrypted. Use its https:// address, or allow http:// on a network "
                             "you trust (listok --insecure, LISTOK_FEDERATION_INSECURE=1).", url=base))
    return base if base.endswith(path) else base + path


def federation_request(target: str, token: str, body: bytes | None = None,
                       timeout: float = 30) -> tuple[int, bytes]:
    """One request with the venue's token to `target` (from `federation_target`): the status and
    body of the answer, whatever the status. A redirect is refused, not followed. The federation
    answers in the language asked: the operator's page's, or the command's (LANG)."""
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": str(get_locale())}
    if body is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(target, data=body, method="POST" if body is not None else "GET", headers=headers)
    try:
        with _OPENER.open(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        if 300 <= e.code < 400:
            raise ServiceError(_("The federation at %(url)s answered with a redirect to %(location)s: the venue's "
                                 "token is sent to the configured address only, so nothing was sent on. If you "
                                 "trust the new address, set it as the federation's address.",
                                 url=target, location=e.headers.get("Location", "?"))) from None
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        if body is None:
            raise ServiceError(_("The federation at %(url)s cannot be reached (%(why)s): nothing was downloaded. "
                                 "Try again when the venue is online, or load the season file the federation "
                                 "gave you.", url=target, why=getattr(e, "reason", e))) from None
        raise ServiceError(_("The federation at %(url)s cannot be reached (%(why)s): nothing was sent. "
                             "Try again when the venue is online, or export the file and send it.",
                             url=target, why=getattr(e, "reason", e))) from None


def fetch_season(url: str, sid: int, token: str, timeout: float = 30, insecure: bool = False) -> bytes:
    target = federation_target(url, f"/federation/api/seasons/{sid}/download", insecure)
    status, raw = federation_request(target, token, timeout=timeout)
    if status != 200:
        try:
            message = json.loads(raw).get("message", "")
        except (ValueError, AttributeError):
            message = ""
        raise ServiceError(_("The federation refused the download (%(status)d %(message)s).",
                             status=status, message=message))
    return raw


def push(t: Tournament, url: str, token: str, actor: str, timeout: float = 30,
         insecure: bool = False) -> PushResult:
    """POST the finished tournament to the federation; the answer says whether it was taken
    (201), was there already (409) or was refused (4xx), with the federation's message."""
    if t.status != "finished":
        raise ServiceError(_("Only a finished tournament can be sent to the federation."))
    if not url or not token:
        raise ServiceError(_("The federation's address and the venue's token are not set "
                             "(LISTOK_FEDERATION_URL, LISTOK_FEDERATION_TOKEN)."))
    verdict = chain_verify.verify(t)
    if not verdict.ok:  # the federation sees only the file and the chain: a tampered record stops here
        raise ServiceError(_("The tournament's record check fails, so nothing was sent: %(problems)s. "
                             "Run listok verify and let the referee compare the paper sheets.",
                             problems="; ".join(verdict.lines()[:5])))
    target = federation_target(url, "/federation/api/tournaments", insecure)
    body = json.dumps(push_body(t), ensure_ascii=False).encode("utf-8")
    status, raw = federation_request(target, token, body, timeout)
    try:
        answer = json.loads(raw or b"{}")
    except ValueError:
        answer = {"message": raw[:200].decode("utf-8", "replace")}
    audit("tournament.push", actor, {"to": target, "status": status, "message": answer.get("message", "")}, t.id)
    return PushResult(status, answer)
