"""`listok` commands that need the venue server's database: serve, demo,
create-user. Imported lazily by webapp.cli so the computing commands stay fast."""
from __future__ import annotations

import gc

import click


def _app():
    """The app, or one line on stderr and exit status 2 when it must not start
    (production mode without DATABASE_URL or a usable secret key)."""
    from . import create_app
    from .config import ConfigError

    try:
        return create_app()
    except ConfigError as e:
        click.echo(f"listok: {e}", err=True)
        raise SystemExit(2) from None


def freeze_startup_objects() -> None:
    """Keep what start-up made (modules, the app, Babel's and SQLAlchemy's tables)
    out of the garbage collector's full passes, which otherwise walk all of it
    again and again while a request builds thousands of objects: about a quarter
    of a 420-player standings render (benchmarks/server_bench.py)."""
    gc.collect()
    gc.freeze()


def upgrade_database(app) -> None:
    """Bring the schema up to date (Alembic), creating it on a fresh database."""
    from flask_migrate import upgrade

    with app.app_context():
        upgrade(directory=app.extensions["migrate"].directory)


@click.command("create-user")
@click.argument("username")
@click.option("--role", type=click.Choice(["admin", "operator", "referee", "federation"]), default="operator",
              show_default=True)
@click.option("--venue", "venue_name", default=None, metavar="NAME",
              help="The venue the account belongs to (made if new): it sees only the venue's tournaments.")
@click.option("--federation", "federation_code", default=None, metavar="CODE",
              help="Federation staff: the federation (made if new, e.g. szmk).")
@click.option("--name", "display_name", default="", help="Name shown in the audit log.")
@click.option("--tournament", "tournaments", type=int, multiple=True,
              help="Assign to this tournament id (repeatable); an admin works at all of them.")
@click.password_option(help="Asked for when not given.")
def create_user(username: str, role: str, venue_name: str | None, federation_code: str | None, display_name: str,
                tournaments: tuple[int, ...], password: str) -> None:
    """Create an admin, operator or referee account (the first one, or more).
    Operators and referees see only the tournaments they are assigned to: use
    --tournament, or the admin's page /admin/, or create the tournament as that operator."""
    from sqlalchemy import select

    from .extensions import db
    from .models import Federation, Tournament, User, Venue
    from .services import access

    if len(password) < 8:
        raise click.BadParameter("use at least 8 characters", param_hint="password")
    app = _app()
    upgrade_database(app)
    with app.app_context():
        if db.session.scalar(select(User).where(User.username == username)):
            raise click.ClickException(f"user '{username}' exists already")
        missing = [tid for tid in tournaments if db.session.get(Tournament, tid) is None]
        if missing:
            raise click.BadParameter(f"no tournament {missing[0]}", param_hint="--tournament")
        if role == "federation" and not federation_code:
            raise click.BadParameter("federation staff need --federation CODE", param_hint="--federation")
        user = User(username=username, role=role, display_name=display_name, created_by="listok create-user")
        if federation_code:
            fed = db.session.scalar(select(Federation).where(Federation.code == federation_code))
            if fed is None:
                fed = Federation(code=federation_code, name=federation_code.upper())
                db.session.add(fed)
                db.session.flush()
            user.federation_id = fed.id
        if venue_name:
            venue = db.session.scalar(select(Venue).where(Venue.name == venue_name))
            if venue is None:
                venue = Venue(name=venue_name)
                db.session.add(venue)
                db.session.flush()
            user.venue_id = venue.id
        user.set_password(password)
        db.session.add(user)
        db.session.flush()
        for tid in tournaments:
            access.assign(user, tid)
        db.session.commit()
    where = f", assigned to tournament {', '.join(map(str, tournaments))}" if tournaments else ""
    click.echo(f"created {role} '{username}'{where}")


@click.command("demo")
@click.option("--players", default=45, show_default=True, help="How many players (a multiple of 3).")
def demo(players: int) -> None:
    """Create a demo tournament (played up to round 3) and a demo operator."""
    from .demo import create_demo, demo_notice

    app = _app()
    upgrade_database(app)
    with app.app_context():
        tid, login = create_demo(players)
    click.echo(demo_notice(tid, login))


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="0.0.0.0 to serve the venue's network.")
@click.option("--port", default=8000, show_default=True)
@click.option("--demo", "with_demo", is_flag=True, help="Create the demo tournament first if there is none.")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(2, 64),
              help="Waitress worker threads (requests answered at once).")
def serve(host: str, port: int, with_demo: bool, threads: int) -> None:
    """Run the venue server (waitress), upgrading the database first."""
    from .lanes import serve as serve_in_lanes

    app = _app()
    upgrade_database(app)
    if with_demo:
        from .demo import create_demo, demo_notice, has_demo

        with app.app_context():
            if not has_demo():
                tid, login = create_demo(45)
                click.echo(demo_notice(tid, login))
            else:
                click.echo("demo tournament present; sign in as 'demo' / 'demo-operator' "
                           "(admin: 'admin' / 'demo-admin')")
    click.echo(f"Listok on http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}/")
    freeze_startup_objects()
    # waitress would drop X-Forwarded-* itself; the app's TrustedProxyFix (LISTOK_TRUSTED_PROXIES) decides
    serve_in_lanes(app, host=host, port=port, threads=threads, clear_untrusted_proxy_headers=False)


@click.group("db")
def db_group() -> None:
    """The database schema (a deploy step before starting several workers)."""


@db_group.command("upgrade")
def db_upgrade() -> None:
    """Bring the schema of DATABASE_URL to the newest version (Alembic); creates it on an
    empty database. Run it once per deploy before gunicorn starts: workers never migrate.
    `listok serve` runs it by itself (the venue laptop's SQLite)."""
    app = _app()
    upgrade_database(app)
    click.echo(f"database at schema {_schema_head(app)}")


@db_group.command("current")
def db_current() -> None:
    """Print the schema version of DATABASE_URL (empty: not created yet)."""
    app = _app()
    click.echo(_schema_head(app) or "(no schema)")


def _schema_head(app) -> str:
    from sqlalchemy import inspect, text

    from .extensions import db

    with app.app_context():
        if not inspect(db.engine).has_table("alembic_version"):
            return ""
        with db.engine.connect() as conn:
            return ", ".join(r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version")))


from .venue_https import https_config  # noqa: E402 - only click and the standard library

COMMANDS = (create_user, demo, serve, https_config, db_group)
