"""Builds the Flask app: config → extensions → blueprints → CLI."""
from __future__ import annotations

from pathlib import Path

from flask import Flask
from jinja2 import pass_context
from flask_compress import Compress
from sqlalchemy import select
from flask_babel import lazy_gettext as _l

from . import i18n
from .http import caching, errors, headers
from .serve import admission, together
from .config import instance_override, load_config
from .db import schema
from .db.connections import configure_sqlite, ping_after_rest
from .extensions import babel, csrf, db, htmx, login_manager, migrate
from .http.proxies import SecureCookies, TrustedProxyFix

MIGRATIONS = Path(__file__).parent / "db" / "migrations"


def build_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_override())
    app.config.update(load_config(app.instance_path, config))

    db.init_app(app)
    with app.app_context():
        configure_sqlite(db.engine)
        ping_after_rest(db.engine)
    migrate.init_app(app, db, directory=str(MIGRATIONS), render_as_batch=True)
    schema.init_app(app)  # /healthz's look at the schema before anything else
    csrf.init_app(app)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = _l("Please sign in to open this page.")  # Flask-Login's own text is English only
    login_manager.needs_refresh_message = _l("Please sign in again to open this page.")
    login_manager.login_message_category = login_manager.needs_refresh_message_category = "warning"
    login_manager.localize_callback = str  # the lazy text in the request's language: the session stores plain text
    i18n.compile_catalogs(Path(app.root_path) / "translations")
    babel.init_app(app, locale_selector=i18n.select_locale)
    htmx.init_app(app)
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["zstd", "br", "gzip", "deflate"])  # static files too
    Compress(app)  # small first load of the phone's table page and its scripts
    headers.init_app(app)
    admission.init_app(app)
    together.init_app(app)
    caching.init_app(app)
    errors.init_app(app)

    from . import models
    from .services import accounts

    accounts.init()

    @login_manager.user_loader
    def load_user(session_token: str):
        # the session token, not the id (User.get_id): a signed-out or deactivated user's cookies load nobody,
        # nor does a row changed outside the app (another session's token written into an admin's row)
        user = db.session.scalar(select(models.User).where(models.User.session_token == session_token))
        return user if user is not None and user.active and accounts.intact(user) else None

    from .views import admin, auth, operator, public, referee, table

    app.register_blueprint(auth.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(operator.bp)
    app.register_blueprint(public.bp)
    app.register_blueprint(table.bp)
    from .sync.routes import bp as sync_bp
    app.register_blueprint(sync_bp)
    app.register_blueprint(referee.bp)
    from .views import calls
    app.register_blueprint(calls.bp)
    if app.config["LISTOK_ROLE"] == "federation":  # seasons, rosters, cards, pushed tournaments, league tables
        from .views import federation, seasons

        app.register_blueprint(federation.bp)
        app.register_blueprint(federation.api)
        app.register_blueprint(seasons.bp)
    from .views import error_pages

    error_pages.init_app(app)  # after the blueprints: it takes over their app-wide 404/405

    for name, language_filter in (("money", i18n.money), ("amount", i18n.amount), ("points", i18n.points),
                                  ("in_unit", i18n.in_unit), ("pts", i18n.table_points), ("figure", i18n.figure)):
        app.jinja_env.filters[name] = _per_request(language_filter)
    app.jinja_env.globals["result_text"] = i18n.result_text
    app.jinja_env.globals["result_label"] = i18n.result_label
    app.jinja_env.globals["whole"] = i18n.whole
    from .rules.ruleset import get_ruleset

    app.jinja_env.globals["ruleset_of"] = get_ruleset  # templates ask the rule set (RULES.md §2)
    app.jinja_env.globals["ruleset_title"] = i18n.ruleset_title
    from .services.rule_texts import table_fact_lines

    app.jinja_env.globals["table_fact_lines"] = table_fact_lines  # BB-1 late fee, CSM-3 keeper

    @app.context_processor
    def inject_locale():
        from flask_babel import get_locale

        return {"current_locale": str(get_locale()), "languages": app.config["LANGUAGES"]}

    @app.after_request
    def after(response):
        # one URL may answer with a page or an htmx fragment: caches must keep them apart
        response.vary.add("HX-Request")
        return i18n.remember_locale(response)

    from .cli import listok

    app.cli.add_command(listok)
    app.wsgi_app = TrustedProxyFix(SecureCookies(app.wsgi_app), app.config["LISTOK_TRUSTED_PROXIES"])
    return app


def _per_request(language_filter):
    """Jinja computes a filter of a constant (`{{ 0|amount }}`) once, when it compiles the
    template: a filter in the request's language must run at each render instead."""
    @pass_context
    def in_this_language(_context, *args, **kwargs):
        return language_filter(*args, **kwargs)

    return in_this_language
