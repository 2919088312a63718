"""The admin's page: accounts (create, role, venue, deactivate, reset password) and
which tournaments each operator and referee works at."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import PasswordField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Regexp

from ..extensions import db
from ..models import ROLES, Assignment, Tournament, User, Venue
from ..services import access, accounts, login_throttle
from ..services.common import audit
from .auth import MIN_PASSWORD, admin_required, end_sessions

bp = Blueprint("admin", __name__, url_prefix="/admin")

ROLE_LABELS = {"admin": _l("Admin"), "operator": _l("Operator"), "referee": _l("Referee"),
               "federation": _l("Federation staff")}
_password = [DataRequired(), Length(min=MIN_PASSWORD, message=_l("Use at least 8 characters."))]


def _role_field():
    return SelectField(_l("Role"), choices=[(r, ROLE_LABELS[r]) for r in ROLES], default="operator")


class UserForm(FlaskForm):
    username = StringField(_l("User name"), validators=[
        DataRequired(), Length(max=80),
        Regexp(r"^[\w.@-]+$", message=_l("Letters, digits and . _ @ - only, no spaces."))])
    display_name = StringField(_l("Name"), validators=[Length(max=120)])
    role = _role_field()
    password = PasswordField(_l("Password"), validators=_password)


class RoleForm(FlaskForm):
    role = _role_field()


class VenueForm(FlaskForm):
    venue = SelectField(_l("Venue"), choices=[])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.venue.choices = [("", _l("No venue"))] + [
            (str(v.id), v.name) for v in db.session.scalars(select(Venue).order_by(Venue.name))]


class PasswordForm(FlaskForm):
    password = PasswordField(_l("New password"), validators=_password)


@bp.before_request
@admin_required
def _admins_only():
    return None


def _actor() -> str:
    return current_user.label


def _user(uid: int) -> User:
    u = db.session.get(User, uid)
    if u is None or not _mine(u):
        abort(404)
    return u


def _mine(u: User) -> bool:
    """A venue's admin manages the accounts of the venue only; the server's admin all."""
    return access.is_server_admin(current_user) or (u.venue_id, u.federation_id) == (
        current_user.venue_id, current_user.federation_id)


def _users_page(form: UserForm, status: int = 200):
    users = [u for u in db.session.scalars(select(User).order_by(User.username)) if _mine(u)]
    counts = dict(db.session.execute(select(Assignment.user_id, func.count()).group_by(Assignment.user_id)).all())
    venues = dict(db.session.execute(select(Venue.id, Venue.name)).all())
    return render_template("admin/users.html", users=users, counts=counts, form=form, venues=venues,
                           role_labels=ROLE_LABELS), status


@bp.get("/")
def users():
    return _users_page(UserForm())


@bp.post("/users")
def create_user():
    form = UserForm()
    if form.validate_on_submit():
        name = form.username.data.strip()
        if db.session.scalar(select(User).where(User.username == name)) is not None:
            form.username.errors.append(_("This user name is taken already."))
        else:
            u = User(username=name, display_name=(form.display_name.data or "").strip(), role=form.role.data,
                     venue_id=current_user.venue_id, federation_id=current_user.federation_id,
                     created_by=_actor()[:120])
            u.set_password(form.password.data)
            db.session.add(u)
            db.session.flush()
            audit("user.create", _actor(), {"user": name, "role": u.role})
            db.session.commit()
            flash(_("Account %(name)s created. Assign it to tournaments below.", name=name), "success")
            return redirect(url_for(".user", uid=u.id))
    return _users_page(form, 422)


def _user_page(u: User, *, role_form=None, password_form=None, venue_form=None, error=None, status=200):
    tournaments = db.session.scalars(access.visible_tournaments(current_user).where(Tournament.venue_id.is_(
        None) if u.venue_id is None else Tournament.venue_id == u.venue_id)
        .order_by(Tournament.date.desc(), Tournament.id.desc())).all()
    assigned = set(db.session.scalars(select(Assignment.tournament_id).where(Assignment.user_id == u.id)))
    return render_template("admin/user.html", u=u, tournaments=tournaments, assigned=assigned, error=error,
                           role_form=role_form or RoleForm(role=u.role), password_form=password_form or PasswordForm(),
                           venue_form=venue_form or VenueForm(venue=str(u.venue_id or "")),
                           venue=db.session.get(Venue, u.venue_id) if u.venue_id else None,
                           server_admin=access.is_server_admin(current_user), role_labels=ROLE_LABELS), status


@bp.get("/user/<int:uid>")
def user(uid: int):
    return _user_page(_user(uid))


def _last_admin(u: User) -> bool:
    """Would `u` losing the admin role or being deactivated leave nobody to manage accounts?"""
    if u.role != "admin" or not u.active:
        return False
    return db.session.scalar(select(func.count()).select_from(User).where(
        User.role == "admin", User.active.is_(True), User.id != u.id)) == 0


@bp.post("/user/<int:uid>/role")
def set_role(uid: int):
    u = _user(uid)
    form = RoleForm()
    if not form.validate_on_submit():
        return _user_page(u, role_form=form, status=422)
    if form.role.data != "admin" and _last_admin(u):
        return _user_page(u, role_form=form, status=422,
                          error=_("This is the only active admin: make another account admin first."))
    old, u.role = u.role, form.role.data
    u.end_sessions()  # what the account may do changed: sign it in again
    audit("user.role", _actor(), {"user": u.username, "from": old, "to": u.role})
    db.session.commit()
    flash(_("%(name)s is now: %(role)s.", name=u.username, role=ROLE_LABELS[u.role]), "success")
    return redirect(url_for(".user", uid=u.id))


def _last_server_admin(u: User) -> bool:
    """Would `u` joining a venue leave no active admin of the whole server?"""
    if not (access.is_server_admin(u) and u.active):
        return False
    return db.session.scalar(select(func.count()).select_from(User).where(
        User.role == "admin", User.active.is_(True), User.venue_id.is_(None), User.federation_id.is_(None),
        User.id != u.id)) == 0


@bp.post("/user/<int:uid>/venue")
def set_venue(uid: int):
    """Only the server's admin moves an account between venues; a venue's admin keeps to its own."""
    u = _user(uid)
    if not access.is_server_admin(current_user):
        return _user_page(u, status=403, error=_(
            "Only the server's admin moves an account to another venue. Ask them if this account must move."))
    form = VenueForm()
    if not form.validate_on_submit():
        return _user_page(u, venue_form=form, status=422)
    venue = db.session.get(Venue, int(form.venue.data)) if form.venue.data else None
    if venue is not None and _last_server_admin(u):
        return _user_page(u, venue_form=form, status=422, error=_(
            "This is the only admin of the whole server: make another account of no venue admin first."))
    if (venue.id if venue else None) != u.venue_id:
        old = db.session.get(Venue, u.venue_id) if u.venue_id else None
        access.move_to_venue(u, venue.id if venue else None)
        audit("user.venue", _actor(), {"user": u.username, "from": old.name if old else None,
                                       "to": venue.name if venue else None})
        db.session.commit()
    flash(_("%(name)s now belongs to the venue %(venue)s.", name=u.username, venue=venue.name) if venue
          else _("%(name)s now belongs to no venue.", name=u.username), "success")
    return redirect(url_for(".user", uid=u.id))


@bp.post("/user/<int:uid>/active")
def set_active(uid: int):
    u = _user(uid)
    active = request.form.get("active") == "1"
    if not active and _last_admin(u):
        return _user_page(u, status=422, error=_("This is the only active admin: make another account admin first."))
    u.active = active
    if not active:
        u.end_sessions()
    audit("user.activate" if active else "user.deactivate", _actor(), {"user": u.username})
    db.session.commit()
    flash(_("Account %(name)s activated.", name=u.username) if active
          else _("Account %(name)s deactivated and signed out everywhere.", name=u.username), "success")
    return redirect(url_for(".user", uid=u.id))


@bp.post("/user/<int:uid>/password")
def reset_password(uid: int):
    u = _user(uid)
    form = PasswordForm()
    if not form.validate_on_submit():
        return _user_page(u, password_form=form, status=422)
    u.set_password(form.password.data)
    accounts.repair(u)  # a row changed outside the app signs in again, as the admin sees it now
    audit("user.password", _actor(), {"user": u.username})
    end_sessions(u)
    flash(_("New password set for %(name)s; the account is signed out everywhere.", name=u.username), "success")
    if u.id == current_user.id:
        return redirect(url_for("auth.login"))
    return redirect(url_for(".user", uid=u.id))


@bp.post("/user/<int:uid>/signin-unlock")
def unlock_signin(uid: int):
    u = _user(uid)
    login_throttle.unlock(u)
    audit("user.signin_unlock", _actor(), {"user": u.username})
    db.session.commit()
    flash(_("Sign-ins of %(name)s from unknown devices are possible again.", name=u.username), "success")
    return redirect(url_for(".user", uid=u.id))


@bp.post("/user/<int:uid>/tournaments")
def set_assignments(uid: int):
    u = _user(uid)
    wanted = {int(v) for v in request.form.getlist("tournament") if v.isdigit()}
    known = {t.id for t in db.session.scalars(select(Tournament).where(Tournament.id.in_(wanted)))
             if t.venue_id == u.venue_id and access.can_access(current_user, t.id)} if wanted else set()
    if known != wanted:
        return _user_page(u, status=422, error=_("A chosen tournament no longer exists. Nothing was saved."))
    access.set_assignments(u, known, _actor())
    audit("user.tournaments", _actor(), {"user": u.username, "tournaments": sorted(known)})
    db.session.commit()
    flash(_("Tournaments of %(name)s saved.", name=u.username), "success")
    return redirect(url_for(".user", uid=u.id))
