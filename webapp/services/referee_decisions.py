"""The referee's decisions on a phone sheet waiting for them (a negative sum, a correction, one
side of a dispute): accepted, it becomes the table's counted sheet; rejected, it stays stored,
marked so. Closing the case is the caller's.
"""
from __future__ import annotations

from flask_babel import gettext as _

from ..models import Sheet
from .common import ServiceError, StaleError, audit, bump


def accept_pending(sheet: Sheet, actor: str) -> None:
    """The referee approves a sheet waiting for them (a negative sum, a correction,
    or one side of a dispute): it becomes the table's counted sheet and the one
    counted before is kept, superseded. Closing the case is the caller's."""
    tab = sheet.table
    r = tab.round
    t = r.tournament
    if sheet.status not in ("pending", "dispute"):
        raise ServiceError(_("This sheet is not waiting for a decision."))
    if r.status == "closed":
        raise ServiceError(_("Round %(n)d is closed: use a correction (SEM-C10).", n=r.number))
    current = tab.sheet
    if sheet.base_version and (current is None or current.version != sheet.base_version):
        raise StaleError(_("This correction was made to version %(v)d of the sheet, but table %(t)d now counts "
                           "version %(cur)d.", v=sheet.base_version, t=tab.number,
                           cur=current.version if current else 0))
    if current is not None:
        current.status = "superseded"
    sheet.status = "accepted"
    bump(t)
    audit("sheet.accept", actor, {"round": r.number, "table": tab.number, "version": sheet.version,
                                  "receipt": sheet.receipt, "sums": sheet.sums,
                                  "superseded": current.version if current else None}, t.id)


def reject_pending(sheet: Sheet, actor: str, reason: str = "") -> None:
    """The referee refuses a sheet waiting for them; it stays stored, marked rejected."""
    tab = sheet.table
    if sheet.status not in ("pending", "dispute"):
        raise ServiceError(_("This sheet is not waiting for a decision."))
    sheet.status = "rejected"
    audit("sheet.reject", actor, {"round": tab.round.number, "table": tab.number, "version": sheet.version,
                                  "receipt": sheet.receipt, "reason": reason},
          tab.round.tournament_id)
