"""The venue's side of the federation: the season downloaded before a tournament
(registration checks work offline from it) and sending a finished tournament."""
from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from ...extensions import db
from ...services import venue_season as svc
from ...services.common import ServiceError, get_tournament
from ..auth import operator_required
from . import bp


@bp.get("/season")
@operator_required
def season_copy():
    from sqlalchemy import select

    from ...models import SeasonCopy

    copies = db.session.scalars(select(SeasonCopy).order_by(SeasonCopy.downloaded_at.desc())).all()
    return render_template("operator/season.html", copies=copies,
                           federation_url=current_app.config["LISTOK_FEDERATION_URL"])


@bp.post("/season/import")
@operator_required
def season_copy_import():
    upload = request.files.get("file")
    try:
        if not upload or not upload.filename:
            raise ServiceError(_("Choose the season file the federation gave you."))
        copy = svc.import_season(upload.read(), current_user.label)
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return redirect(url_for(".season_copy"))
    db.session.commit()
    flash(_("Season %(name)s loaded: registration checks use it from now on.", name=copy.name), "success")
    return redirect(url_for(".season_copy"))


@bp.post("/season/download")
@operator_required
def season_download():
    url, token = current_app.config["LISTOK_FEDERATION_URL"], current_app.config["LISTOK_FEDERATION_TOKEN"]
    sid = request.form.get("season", type=int)
    try:
        if not url or not token or not sid:
            raise ServiceError(_("The federation's address and the venue's token are not set "
                                 "(LISTOK_FEDERATION_URL, LISTOK_FEDERATION_TOKEN)."))
        copy = svc.import_season(svc.fetch_season(url, sid, token, insecure=current_app.config["LISTOK_FEDERATION_INSECURE"]),
                                 current_user.label)
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return redirect(url_for(".season_copy"))
    db.session.commit()
    flash(_("Season %(name)s loaded: registration checks use it from now on.", name=copy.name), "success")
    return redirect(url_for(".season_copy"))


@bp.post("/t/<int:tid>/push")
@operator_required
def push(tid: int):
    t = get_tournament(tid)
    try:
        result = svc.push(t, current_app.config["LISTOK_FEDERATION_URL"],
                          current_app.config["LISTOK_FEDERATION_TOKEN"], current_user.label,
                          insecure=current_app.config["LISTOK_FEDERATION_INSECURE"])
    except ServiceError as e:
        db.session.rollback()
        flash(str(e), "error")
        return redirect(url_for(".tournament", tid=tid))
    db.session.commit()
    message = result.answer.get("message", "")
    if result.status == 201:
        flash(_("The federation took the tournament: %(message)s", message=message), "success")
    elif result.status == 409:
        flash(_("The federation has this tournament already: %(message)s", message=message), "warning")
    else:
        flash(_("The federation refused the tournament (%(status)d): %(message)s", status=result.status,
                message=message), "error")
    return redirect(url_for(".tournament", tid=tid))
