"""Login and logout for operators and referees."""
from __future__ import annotations

from functools import wraps
from urllib.parse import urlparse

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l, gettext as _
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import DataRequired

from ..extensions import db
from ..models import User

bp = Blueprint("auth", __name__)


class LoginForm(FlaskForm):
    username = StringField(_l("User name"), validators=[DataRequired()])
    password = PasswordField(_l("Password"), validators=[DataRequired()])
    remember = BooleanField(_l("Stay signed in"))


def role_required(*roles: str):
    """login_required plus a role check: a referee may not run the operator desk."""

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(*args, **kwargs):
            if current_user.role not in roles:
                abort(403)
            return view(*args, **kwargs)

        return wrapped

    return decorator


operator_required = role_required("operator")


def _safe_next(target: str | None) -> str | None:
    if not target:
        return None
    parts = urlparse(target)
    return target if not parts.netloc and not parts.scheme and target.startswith("/") else None


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        user = db.session.scalar(select(User).where(User.username == form.username.data.strip()))
        if user is None or not user.active or not user.check_password(form.password.data):
            form.password.errors.append(_("Wrong user name or password."))
        else:
            login_user(user, remember=form.remember.data)
            default = url_for("operator.index") if user.role == "operator" else url_for("referee.queue")
            return redirect(_safe_next(request.args.get("next")) or default)
    return render_template("auth/login.html", form=form)


@bp.post("/logout")
@login_required
def logout():
    logout_user()
    flash(_("You are signed out."), "info")
    return redirect(url_for("auth.login"))
