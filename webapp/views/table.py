"""The table's page, opened from the QR code on the paper sheet: /s/<token>.

The phone score sheet (SEM-B5, C4, C6, C8): the page carries the table's data
and every text its scripts show; the scripts (static/js/sheet/, outbox.js)
do the entry, the signatures and the sending (docs/SYNC.md). The service
worker that keeps the page working offline is served at /sw.js.
"""
from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _, pgettext

from ..extensions import db
from ..models import Tournament
from ..rules.ruleset import get_ruleset
from ..i18n import amount, figure, in_unit, money, plural_forms
from ..services import sheet_state, sheets as sheet_service
from ..services.rounds import current_round
from ..services.tokens import TokenError, TokenExpired, read_table_token
from ..sync.protocol import PROTOCOL
from .shared import cards_seat, players_by_no, seats

bp = Blueprint("table", __name__)


def _refuse(message: str, status: int):
    return render_template("table/error.html", message=message, status=status), status


@bp.get("/s/<token>")
def sheet(token: str):
    try:
        tid, round_no, table_no = read_table_token(token)
    except TokenExpired as e:
        return _refuse(str(e), 410)
    except TokenError as e:
        return _refuse(str(e), 404)
    t = db.session.get(Tournament, tid)
    r = next((x for x in t.rounds if x.number == round_no), None) if t else None
    tab = next((x for x in r.tables if x.number == table_no), None) if r else None
    if tab is None:
        return _refuse(_("This table link is not valid. Scan the QR code on the sheet again."), 404)
    cur = current_round(t)
    if r.status == "closed":
        return _refuse(_("Round %(n)d is over: its sheets can no longer be opened.", n=r.number), 410)
    if r is not cur or r.status != "published":
        return _refuse(_("This sheet is for round %(n)d, which is not the round being played now.",
                         n=r.number), 410)
    table_seats = seats(tab, players_by_no(t))
    try:
        state = sheet_state.table_state(token)
    except sheet_service.SyncRefusal as e:
        return _refuse(e.body.get("message", ""), e.http_status)
    shown = sheet_state.shown_sheet(tab)
    rs = get_ruleset(t.ruleset)
    data = {
        "protocol": PROTOCOL, "token": token, "tournament": t.id, "round": r.number, "table": tab.number,
        "players": [{"start_no": s.start_no, "name": s.name, "club": s.club, "position": s.position}
                    for s in table_seats],
        "total_cents": state["total_cents"], "cards_position": state["cards_position"],
        "place_points": list(rs.place_points.get(len(tab.players), ())),
        "sheet": state["sheet"], "draft": state["draft"], "money": money_format(rs.currency, rs.result_kind),
        "rules": state["rules"],
        "api": {"sheets": url_for("sync.submit_sheet"), "pin": url_for("sync.check_pin"),
                "preview": url_for("sync.preview"),
                "table": url_for("sync.table"), "drafts": url_for("sync.publish_draft"),
                "signatures": url_for("sync.sign_draft")},
        "sw": url_for("table.service_worker"),
    }
    return render_template("table/sheet.html", t=t, r=r, tab=tab, seats=table_seats, rs=rs,
                           unit=unit_symbol(rs.currency),
                           cards=cards_seat(t, r, table_seats), sheet=shown, data=data,
                           strings=phone_strings(rs, state["rules"]["keeper"]),
                           keeper_words=keeper_phrase(rs, state["rules"]["keeper"]),
                           total=Decimal(state["total_cents"] or 0).scaleb(-2), looks_insecure=looks_insecure(),
                           assets=SHEET_ASSETS, entry=SHEET_ENTRY, modules=module_urls(),
                           rows=list(zip(table_seats, shown.sums)) if shown else None)


def money_format(currency: str | None = "EUR", result_kind: str = "money") -> dict:
    """How the page's script writes a result in this language and the rule set's unit: the filters'
    own output, taken apart; `whole` for whole numbers (ČSM's ZB, Thousand's score)."""
    sample = Decimal("1234.50")
    plain = amount(sample)
    shown = money(sample) if currency == "EUR" else in_unit(sample, currency)
    return {"decimal": plain[-3], "group": plain[1], "template": shown.replace(plain, "{}"),
            "whole": result_kind != "money"}


def unit_symbol(currency: str | None) -> str:
    """The unit beside an input field (€, Kč, ZB; nothing for a game score)."""
    return "€" if currency == "EUR" else (currency or "")


def looks_insecure() -> bool:
    """Plain HTTP to a host that is not this machine: no service worker, no
    WebCrypto. The page's script decides for sure (isSecureContext); this only
    shows the notice before it runs (a TLS proxy that does not say so is
    corrected by the script)."""
    host = (request.host or "").rsplit(":", 1)[0].strip("[]")
    local = host in ("localhost", "::1") or host.startswith("127.") or host.endswith(".localhost")
    return not request.is_secure and not local


def keeper_phrase(rs, position: int | None) -> str:
    """Whose phone keeps the sheet, as the rule set says (RuleSet.keeper_kind): the words that
    follow "the phone of" in the page's sentences."""
    if rs.keeper_kind == "seat" and position is not None:
        return pgettext("the phone of …", "player %(p)d", p=position + 1)
    if rs.keeper_kind == "best":
        return pgettext("the phone of …", "the best-placed player")
    return pgettext("the phone of …", "the table winner")


def phone_strings(rs, keeper_position: int | None = None) -> dict:
    """Every text the sheet's scripts show, in the page's language and the rule set's words (the
    scripts translate nothing)."""
    keeper, rule = keeper_phrase(rs, keeper_position), rs.keeper_rule
    return {
        "points_forms": plural_forms("%(points)s pt", "%(points)s pts", points="%(points)s"),
        "lang": str(get_locale()),
        "not_amount": _("Not an amount"),
        "enter_all": _("Enter all three sums."),
        "enter_all_n": _("Enter every player's result."),
        "not_whole": _("Not a whole number"),
        "checking": _("Checking the results with the server…"),
        "choose_ended": _("Say how the game ended: a player reached %(win)s, or time ran out (TH-3).", win=figure(1000, None)),
        "ended_win": _("How the game ended: a player reached %(win)s", win=figure(1000, None)),
        "ended_time": _("How the game ended: time ran out"),
        "sb": _("SB %(sb)s"),
        "pb": _("PB %(pb)s"),
        "premium_incomplete": _("Premium game %(n)s: choose the player, write the game and its PB, or remove the "
                                "line."),
        "premium_line": _("Premium game %(n)s: %(start_no)s %(name)s, %(game)s, %(pb)s PB; signed by %(by)s"),
        "pg_title": _("Premium game %(n)s"),
        "pg_player": _("Player"),
        "pg_game": _("Game"),
        "pg_pb": _("PB"),
        "pg_by": _("Signed by the players of the game (CSM-3)"),
        "pg_remove": _("Remove this game"),
        "also_premium": _("also signs premium game %(n)s (CSM-3)"),
        "keeper_sends": _("The best result at this table: %(name)s, who submits the sheet (%(rule)s).",
                          rule=rule, name="%(name)s"),
        "late_line": _("Late fee (BB-1): %(who)s"),
        "late_part": _("%(start_no)s %(name)s %(amount)s"),
        "keeper_line": _("Scorekeeper: %(start_no)s %(name)s, player %(position)s"),
        "keeper_lot_line": _("Scorekeeper: %(start_no)s %(name)s, chosen by lot (CSM-3)"),
        "keeper_choose": _("Choose who keeps the sheet: the lot chose them (CSM-3)."),
        "total_short": _("%(missing)s is missing to the table total."),
        "total_over": _("%(over)s too much: the total must be exactly the table total."),
        "total_ok": _("The total is right."),
        "all_entered": _("Every player's result is entered."),
        "note_needed": _("Write the type and payment of the last game."),
        "correction_banner": _("Correction of sheet version %(version)s: changed results are shown in red. "
                               "Every player signs again and the referee must approve it (%(rule)s).",
                               rule=rule, version="%(version)s"),
        "note_shown": _("Last game: %(note)s"),
        "referee_will_negative": _("A sum is negative: the referee must co-sign this sheet (SEM-C8)."),
        "referee_will_correction": _("This is a correction: the referee must approve it (%(rule)s).", rule=rule),
        "signed_mark": _("signed"),
        "own_signed_mark": _("signed on own phone"),
        "own_choose": _("Choose your name first."),
        "own_done": _("Thank you, %(name)s: your signature is on the server. The phone of %(keeper)s adds it "
                      "to the sheet.", keeper=keeper, name="%(name)s"),
        "own_missing": _("Still to sign: %(who)s. They sign on their own phone or on the phone of %(keeper)s.",
                         keeper=keeper, who="%(who)s"),
        "own_all_signed": _("Everybody has signed. The phone of %(keeper)s sends the sheet; if it has not by "
                            "%(time)s, this phone can send it.", keeper=keeper, time="%(time)s"),
        "own_all_signed_there": _("Everybody has signed. The phone of %(keeper)s sends the sheet.", keeper=keeper),
        "own_send_ready": _("Everybody has signed, but the phone of %(keeper)s has not sent the sheet: send it "
                            "from this phone.", keeper=keeper),
        "send_offline": _("No Wi-Fi: the sheet is kept here and sent by itself as soon as the Wi-Fi returns."),
        "case_dispute": _("Another sheet with different sums was sent for this table: the referee decides which "
                          "counts."),
        "case_referee": _("This table's sheet is waiting for the referee."),
        "case_corrected": _("This table's sheet was corrected: the sums shown are the ones that count now."),
        "other_counts": _("The referee decided: another sheet counts for this table (receipt %(receipt)s)."),
        "referee_pin_mismatch": _("Receipt %(receipt)s. The PIN of start number %(who)s did not match: the sheet "
                                  "went to the referee, who checks it with the player. Nothing more to do here."),
        "own_unreachable": _("The server cannot be reached: signing on your own phone needs the Wi-Fi. Try again, "
                             "or sign on the phone of %(keeper)s.", keeper=keeper),
        "signed_there": _("signed on the phone of %(keeper)s", keeper=keeper),
        "signatures_lost": _("The page was opened again: the signatures of %(who)s were given without Wi-Fi and "
                             "are not kept (a PIN stays only in the open page, never on the phone), so they sign "
                             "again."),
        "reason_needed": _("Write why the results are corrected: the referee reads it."),
        "rejected_title": _("Rejected by the referee"),
        "signing_now": _("signs now"),
        "to_sign": _("waiting"),
        "sign_as": _("Player %(position)s: %(start_no)s %(name)s"),
        "pin_of": _("PIN of %(start_no)s %(name)s"),
        "draw_first": _("Sign with your finger in the box first."),
        "pin_first": _("Enter your PIN."),
        "wrong_pin": _("Wrong PIN for start number %(start_no)s."),
        "wrong_pin_left": _("Wrong PIN for start number %(start_no)s. Attempts left: %(left)s."),
        "locked": _("Start number %(start_no)s entered a wrong PIN too often: PINs are locked until %(time)s. "
                    "Then press Send now."),
        "stale_version": _("The sheet on the server changed since this one was signed. Discard this one and "
                           "reload the page."),
        "idempotency_conflict": _("This sheet was already sent with other sums. Ask the referee."),
        "gone": _("This round is over or not being played: the sheet can no longer be sent from the phone. "
                  "Hand in the paper sheet."),
        "gone_title": _("This sheet is closed"),
        "forbidden": _("This table link is not valid. Scan the QR code on the sheet again."),
        "refused": _("The server did not take the sheet."),
        "not_sent": _("Not sent"),
        "waiting_title": _("Signed — waiting to send"),
        "waiting": _("The signed sheet is kept on this phone and is sent as soon as the server can be reached. "
                     "Keep this page open or come back to it later."),
        "sent_title": _("Sent"),
        "sent": _("Sent — receipt %(receipt)s"),
        "retaken": _("The server lost your sheet in a breakdown; your phone sent it again and it is counted. "
                     "New receipt %(receipt)s."),
        "referee_title": _("Sent — needs the referee"),
        "referee_negative": _("Receipt %(receipt)s. The sheet needs the referee: a sum is negative (SEM-C8)."),
        "referee_correction": _("Receipt %(receipt)s. The sheet needs the referee: it is a correction (%(rule)s).",
                                rule=rule, receipt="%(receipt)s"),
        "outcome_accepted": _("Receipt %(receipt)s. The referee approved this sheet: it counts."),
        "outcome_rejected": _("Receipt %(receipt)s. The referee rejected this sheet: it does not count. Ask the "
                              "referee."),
        "referee_pin": _("Receipt %(receipt)s. The sheet needs the referee: a PIN was issued during the round."),
        "dispute": _("Receipt %(receipt)s. The sheet needs the referee: another sheet for this table differs."),
        "received_title": _("Sheet received"),
        "received": _("The server has this table's sheet (receipt %(receipt)s)."),
        "received_pending": _("The server has a sheet for this table waiting for the referee "
                              "(receipt %(receipt)s)."),
        "discard_confirm": _("Discard this signed sheet from the phone?"),
        "storage_failed": _("This phone could not store the sheet. Hand in the paper sheet."),
        "offline_insecure": _("Offline mode is off: the page is not opened over HTTPS, so this phone cannot keep "
                              "the sheet without Wi-Fi. Send the sheet while the Wi-Fi works."),
        "offline_unsupported": _("Offline mode is off: this browser cannot keep the sheet without Wi-Fi. "
                                 "Send the sheet while the Wi-Fi works."),
    }


# --------------------------------------------------------------------------- the service worker

# what the table page loads: precached by the service worker so the page works offline
SHEET_ENTRY = "js/sheet/main.js"
SHEET_ASSETS = ("css/listok.css", "vendor/signature_pad-5.1.4.umd.min.js",
                "js/sha256.js", "js/outbox.js", "js/signature.js", SHEET_ENTRY, "js/call.js",
                "js/display.js",
                "icons/icon-192.png", "icons/icon-maskable-192.png")  # base.html's icon links
SW_TEMPLATE = "js/sw.js"
# what the table page is made of besides: the worker answers the page from its copy
# (cache-first), so a deploy that changes any of these must bring a new worker too
PAGE_SOURCES = ("templates/base.html", "templates/table/sheet.html", "templates/table/_call.html")


def _static_files(names) -> list[Path]:
    folder = Path(current_app.static_folder)
    return [folder / n for n in names]


def sheet_modules() -> list[str]:
    """The modules the sheet's entry imports: every other file of static/js/sheet/."""
    folder = Path(current_app.static_folder)
    return sorted(p.relative_to(folder).as_posix() for p in (folder / SHEET_ENTRY).parent.glob("*.js")
                  if p.as_posix() != (folder / SHEET_ENTRY).as_posix())


def module_urls() -> list[str]:
    """Their URLs as an import resolves them: without the content-hash query, so the worker's copy
    answers them offline (a plain static URL is revalidated, never taken stale from the HTTP cache)."""
    return [url_for("static", filename=n, v=None) for n in sheet_modules()]


def _page_sources() -> list[Path]:
    root = Path(current_app.root_path)
    return [root / n for n in PAGE_SOURCES] + sorted(root.glob("translations/*/LC_MESSAGES/messages.mo"))


_sw_cache: dict[tuple, str] = {}


def service_worker_source() -> str:
    """static/js/sw.js with its version (a hash of itself, every precached file and
    the page's templates and translations, so a deploy that changes any of them
    installs a new worker and new caches) and the precache list filled in."""
    files = _static_files((SW_TEMPLATE,) + SHEET_ASSETS + tuple(sheet_modules())) + _page_sources()
    key = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    if key not in _sw_cache:
        digest = hashlib.sha256()
        for f in files:
            digest.update(f.read_bytes())
        precache = [url_for("static", filename=n) for n in SHEET_ASSETS] + module_urls()
        source = files[0].read_text(encoding="utf-8")
        _sw_cache.clear()
        _sw_cache[key] = (source.replace("__VERSION__", digest.hexdigest()[:16])
                          .replace('"__PRECACHE__"', json.dumps(precache))
                          .replace("/*__OUTBOX__*/", _static_files(("js/outbox.js",))[0].read_text(encoding="utf-8")))
    return _sw_cache[key]


# How long a phone may keep /sw.js without asking (the page registers with updateViaCache "all"):
# a repeat load within it costs no request at all, and a deploy reaches a phone this much later.
SW_MAX_AGE = 300


@bp.get("/sw.js")
def service_worker():
    response = current_app.response_class(service_worker_source(), mimetype="text/javascript")
    response.headers["Cache-Control"] = f"max-age={SW_MAX_AGE}"
    response.headers["Service-Worker-Allowed"] = "/"
    # after SW_MAX_AGE the browser checks for a new worker when a table page opens: unchanged, that is a 304
    response.add_etag()
    return response.make_conditional(request)
