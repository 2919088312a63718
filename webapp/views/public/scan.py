"""Scan a table inside the app (static/js/scan.js): the camera, a photo of the
QR code, or the table's short code typed by hand (services/table_codes.py).
Only this server's own table links are opened."""
from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _

from ...services import table_codes
from ...services.tokens import table_token
from . import bp


@bp.get("/scan")
def scan():
    base = (current_app.config.get("LISTOK_PUBLIC_URL") or "").rstrip("/")
    return render_template("public/scan.html", public_base=base, strings=scan_strings(), code=None, error=None)


@bp.get("/scan/code")
def table_code():
    found = table_codes.find_table(request.args.get("code"))
    if found is None:
        return render_template("public/scan.html", public_base="", strings=scan_strings(),
                               code=request.args.get("code", ""),
                               error=_("No table of a round being played has this code. Check the code under "
                                       "the QR code on the sheet.")), 404
    return redirect(url_for("table.sheet", token=table_token(*found)))


def scan_strings() -> dict:
    """What static/js/scan.js shows, in the page's language."""
    return {
        "foreign": _("This QR code is not a table of this tournament server: it was not opened."),
        "none": _("No QR code found in the picture. Try again closer, with more light."),
        "no_camera": _("This phone's browser cannot use the camera here: take a photo or type the table code."),
        "looking": _("Point the camera at the QR code on the table's sheet."),
        "opening": _("Opening the table…"),
    }
