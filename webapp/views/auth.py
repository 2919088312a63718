"""Sign-in and sign-out for admins, operators and referees, and one's own password.

Flask-Login keeps the user's session token (models.User.get_id), not their
id, in the session and the "stay signed in" cookie: signing out or changing
the password draws a new token, which ends every session of that user."""
from __future__ import annotations

import secrets
from functools import cache, wraps
from math import ceil
from urllib.parse import urlparse

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import format_time, gettext as _, lazy_gettext as _l
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, Length

from ..extensions import db
from ..models import User, utcnow
from ..services import accounts, login_throttle
from ..services.common import audit

bp = Blueprint("auth", __name__)
MIN_PASSWORD = 8


@cache
def _dummy_hash() -> str:
    """Checked when the name is unknown, so that a wrong name takes as long as a wrong password."""
    return generate_password_hash(secrets.token_hex(16))


class LoginForm(FlaskForm):
    username = StringField(_l("User name"), validators=[DataRequired()])
    password = PasswordField(_l("Password"), validators=[DataRequired()])
    remember = BooleanField(_l("Stay signed in"))


class PasswordForm(FlaskForm):
    current = PasswordField(_l("Current password"), validators=[DataRequired()])
    password = PasswordField(_l("New password"), validators=[
        DataRequired(), Length(min=MIN_PASSWORD, message=_l("Use at least 8 characters."))])
    confirm = PasswordField(_l("New password again"), validators=[
        DataRequired(), EqualTo("password", message=_l("The two new passwords differ."))])


def role_required(*roles: str, admin_passes: bool = True):
    """login_required plus a role check: a referee may not run the operator desk.
    An admin passes every role check, except where `admin_passes` is off: the
    referee's decisions, so that no single account can both run the desk and
    decide its own corrections."""

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(*args, **kwargs):
            if current_user.role not in roles and not (admin_passes and current_user.role == "admin"):
                abort(403)
            return view(*args, **kwargs)

        return wrapped

    return decorator


operator_required = role_required("operator")
admin_required = role_required("admin")


def home_url(user) -> str:
    if user.role == "federation" and "federation" in current_app.blueprints:
        return url_for("federation.index")
    if user.role == "admin":
        return url_for("admin.users")
    return url_for("operator.index") if user.role == "operator" else url_for("referee.queue")


def _safe_next(target: str | None) -> str | None:
    if not target:
        return None
    parts = urlparse(target)
    ok = not parts.netloc and not parts.scheme and target.startswith("/") and not target.startswith("//")
    return target if ok and "\\" not in target else None


def _throttled_message(e: login_throttle.Throttled) -> str:
    seconds = max(1, ceil((e.retry_at - utcnow()).total_seconds()))
    if not e.locked:
        return _("Several failed sign-ins for this account: the next try is possible in %(seconds)d s. "
                 "The password was not checked.", seconds=seconds)
    return _("Too many failed sign-ins for this account from unknown devices. The password was not checked. "
             "Try again at %(time)s (in %(minutes)d min), sign in on a device where you signed in before, or "
             "lift the lock where you are still signed in (Change password page).",
             time=format_time(e.retry_at, "HH:mm"), minutes=max(1, ceil(seconds / 60)))


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        name = form.username.data.strip()
        cookie = request.cookies.get(login_throttle.DEVICE_COOKIE)
        device = login_throttle.devices(cookie).get(login_throttle.account_key(name))
        try:
            attempt = login_throttle.reserve(name, request.remote_addr or "", device)
        except login_throttle.Throttled as e:
            form.password.errors.append(_throttled_message(e))
            return render_template("auth/login.html", form=form), 429
        user = db.session.scalar(select(User).where(User.username == name))
        if user is None:
            check_password_hash(_dummy_hash(), form.password.data)
        ok = user is not None and user.check_password(form.password.data) and user.active
        if ok and not accounts.intact(user):
            # a password hash, role or token written outside the app: refused even with that password
            login_throttle.finish(attempt, False)
            form.password.errors.append(_("This account was changed outside Listok and cannot sign in: an admin "
                                          "sets a new password for it (listok verify lists such accounts)."))
            return render_template("auth/login.html", form=form), 403
        login_throttle.finish(attempt, ok)
        if not ok:
            form.password.errors.append(_("Wrong user name or password."))
        else:
            session.clear()  # nothing from before the sign-in is carried into the new session
            login_user(user, remember=form.remember.data)
            response = redirect(_safe_next(request.args.get("next")) or home_url(user))
            value, _device = login_throttle.with_device(cookie, name)
            # this browser is now one of the account's own devices (services/login_throttle.py)
            response.set_cookie(login_throttle.DEVICE_COOKIE, value, max_age=365 * 24 * 3600, httponly=True,
                                samesite="Lax", secure=request.is_secure)
            return response
    return render_template("auth/login.html", form=form)


def end_sessions(user: User) -> None:
    """Every session and "stay signed in" cookie of `user` stops working."""
    user.end_sessions()
    db.session.commit()


@bp.post("/logout")
@login_required
def logout():
    end_sessions(current_user._get_current_object())
    session.clear()
    logout_user()  # after clear(): it marks the remember cookie for deletion in the session
    flash(_("You are signed out on every device."), "info")
    return redirect(url_for("auth.login"))


@bp.post("/account/unlock")
@login_required
def unlock_signin():
    """The second factor: the owner, signed in here, lifts the lock a guesser caused elsewhere."""
    user = current_user._get_current_object()
    login_throttle.unlock(user)
    audit("user.signin_unlock", user.label, {"user": user.username})
    db.session.commit()
    flash(_("Sign-ins from other devices are possible again. If you did not cause the failures, change "
            "your password."), "success")
    return redirect(url_for(".change_password"))


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
def change_password():
    form = PasswordForm()
    if form.validate_on_submit():
        user = current_user._get_current_object()
        if not user.check_password(form.current.data):
            form.current.errors.append(_("Wrong password."))
        else:
            user.set_password(form.password.data)  # draws a new session token
            db.session.commit()
            session.clear()
            login_user(user)
            flash(_("Password changed. Every other session of this account is signed out."), "success")
            return redirect(home_url(user))
    failures, until = login_throttle.unknown_device_state(current_user.username)
    return render_template("auth/password.html", form=form, failures=failures,
                           locked_until=format_time(until, "HH:mm") if until else None), \
        422 if form.errors else 200
