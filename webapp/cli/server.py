"""`listok` commands that need the venue server's database: serve, demo,
create-user. Imported lazily by cli/main.py so the computing commands stay fast."""
from __future__ import annotations

import gc

import click

from .base import BadInput, _


def _app():
    """The app, or one line on stderr and exit status 2 when it must not start
    (production mode without DATABASE_URL or a usable secret key)."""
    from .. import create_app
    from ..config import ConfigError

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


def upgrade_database(app) -> str:
    """Bring the schema up to date (Alembic, quietly), creating it on a fresh database;
    one line that says where it stands."""
    from ..db import schema

    before, after = schema.upgrade(app)
    head = ", ".join(after.heads)
    if before.ok:
        return _("database schema up to date (%(head)s)", head=head)
    if before.fresh:
        return _("database schema up to date (%(head)s; created)", head=head)
    return _("database schema up to date (%(head)s; upgraded from %(was)s)", head=head, was=", ".join(before.current))


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

    from ..extensions import db
    from ..models import Federation, Tournament, User, Venue
    from ..services import access

    if len(password) < 8:
        raise click.BadParameter("use at least 8 characters", param_hint="password")
    app = _app()
    click.echo(upgrade_database(app))
    with app.app_context():
        if db.session.scalar(select(User).where(User.username == username)):
            raise click.ClickException(_("user '%(name)s' exists already", name=username))
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
    if tournaments:
        click.echo(_("created %(role)s '%(name)s', assigned to tournament %(ids)s", role=role, name=username,
                      ids=", ".join(map(str, tournaments))))
    else:
        click.echo(_("created %(role)s '%(name)s'", role=role, name=username))


def demo_refusal(app, force: str | None) -> str | None:
    """Why the demo (accounts with the passwords printed in the README) must not go into
    this database, or None. Only the venue laptop's SQLite in the instance folder (or a
    database in memory) takes it without asking; anything else, or LISTOK_ENV=production,
    needs --force naming the database."""
    from pathlib import Path

    from sqlalchemy.engine import make_url

    from ..config import production

    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    name = url.database or ""
    if url.get_backend_name() == "sqlite":
        in_instance = not name or name == ":memory:" or Path(name).resolve().is_relative_to(
            Path(app.instance_path).resolve())
        if in_instance and not production(app.config):
            return None
    names = {name, Path(name).name} - {""}
    if force and force in names:
        return None
    shown = url.render_as_string(hide_password=True)
    why = "LISTOK_ENV=production" if production(app.config) else _(
        "%(url)s is not the SQLite database in instance/", url=shown)
    hint = f"--force {Path(name).name if url.get_backend_name() == 'sqlite' else name}"
    return _("refusing the demo: %(why)s, and the demo creates accounts whose passwords are published "
              "(demo, rozhodca, admin). Use a throwaway database, or give %(force)s to create them anyway",
              why=why, force=hint)


def demo_accounts_line() -> str:
    from ..demo.seed import DEMO_ADMIN, DEMO_LOGIN, DEMO_REFEREE

    return _("sign in as %(operator)s (operator), %(referee)s (referee), %(admin)s (admin)",
              **{k: f"'{u}' / '{pw}'" for k, (u, pw) in
                 (("operator", DEMO_LOGIN), ("referee", DEMO_REFEREE), ("admin", DEMO_ADMIN))})


def _refuse_demo_unless(app, force: str | None) -> None:
    why = demo_refusal(app, force)
    if why:

        raise BadInput(why)


@click.command("demo")
@click.option("--players", default=45, show_default=True, help="How many players (a multiple of 3).")
@click.option("--force", metavar="DATABASE", default=None,
              help="Create the demo accounts in a database that is not instance/'s SQLite: name it.")
def demo(players: int, force: str | None) -> None:
    """Create a demo tournament (played up to round 3) and demo accounts (operator,
    referee, admin, with published passwords: only in the venue laptop's SQLite unless --force)."""
    from ..demo.seed import create_demo, demo_pins_line

    app = _app()
    _refuse_demo_unless(app, force)
    click.echo(upgrade_database(app))
    with app.app_context():
        tid, _login = create_demo(players)
    click.echo(_("demo tournament %(id)s created; %(accounts)s", id=tid, accounts=demo_accounts_line()))
    click.echo(demo_pins_line(tid))


def _bind(app, host: str, port: int, threads: int):
    """The listening socket before anything is printed: a busy port is one line."""
    import errno

    from waitress import create_server

    try:
        # waitress would drop X-Forwarded-* itself; the app's TrustedProxyFix (LISTOK_TRUSTED_PROXIES) decides;
        # each write slot of admission control waits on a thread of its own, besides `threads`
        return create_server(app, host=host, port=port, threads=threads + app.extensions["admission"].max_writes,
                             clear_untrusted_proxy_headers=False)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BadInput(_("port %(port)s on %(host)s is in use (another listok serve?): stop that server, "
                              "or give another --port", port=port, host=host)) from None
        if e.errno == errno.EACCES:
            raise BadInput(_("port %(port)s on %(host)s needs root: use a port from 1024 up, e.g. --port 8000 "
                              "(a proxy in front serves 80 and 443)", port=port, host=host)) from None
        raise BadInput(_("cannot listen on %(host)s:%(port)s (%(why)s)", host=host, port=port,
                          why=e.strerror or e)) from None


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="0.0.0.0 to serve the venue's network.")
@click.option("--port", default=8000, show_default=True)
@click.option("--demo", "with_demo", is_flag=True, help="Create the demo tournament first if there is none.")
@click.option("--force", metavar="DATABASE", default=None,
              help="With --demo: create the demo accounts in a database that is not instance/'s SQLite.")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(2, 64),
              help="Waitress threads answering pages, forms and readers; the phones' sheets wait for "
                   "their group commit on threads of their own (LISTOK_MAX_WRITES, default 150).")
@click.option("--replica", "replica_dest", metavar="DEST", default=None,
              help="Copy the database continuously with Litestream to DEST: a folder (a second disk, a USB "
                   "stick, the standby laptop's share) or an sftp:// URL (docs/DEPLOY.md).")
def serve(host: str, port: int, with_demo: bool, force: str | None, threads: int, replica_dest: str | None) -> None:
    """Run the venue server (waitress), upgrading the database first."""
    app = _app()
    if with_demo:
        _refuse_demo_unless(app, force)
    if replica_dest and not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        raise BadInput(_("--replica copies the venue laptop's SQLite database; PostgreSQL has its own replicas "
                          "(docs/DEPLOY.md, PostgreSQL)"))
    server = _bind(app, host, port, threads)
    click.echo(upgrade_database(app))
    if with_demo:
        from ..demo.seed import create_demo, demo_pins_line, has_demo

        with app.app_context():
            if not has_demo():
                tid, _login = create_demo(45)
                click.echo(_("demo tournament %(id)s created; %(accounts)s", id=tid,
                              accounts=demo_accounts_line()))
                click.echo(demo_pins_line(tid))
            else:
                click.echo(_("demo tournament present; %(accounts)s", accounts=demo_accounts_line()))
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    click.echo(_("Listok on %(url)s", url=f"http://{shown}:{port}/"))
    server.print_listen("Serving on http://{}:{}")
    if replica_dest:
        supervisor = _start_replica(app, replica_dest)
    else:  # a replica.json of an earlier --replica run must not warn on the dashboard of this one
        from pathlib import Path

        from ..serve.replica import STATE

        supervisor = None
        (Path(app.instance_path) / STATE).unlink(missing_ok=True)
    freeze_startup_objects()
    try:
        server.run()
    finally:
        if supervisor is not None:
            supervisor.stop()


def _start_replica(app, dest: str):
    """Litestream beside the server (webapp/serve/replica.py), or one line and exit status 2."""
    import signal
    from pathlib import Path

    from ..serve import replica

    try:
        supervisor = replica.Supervisor(Path(app.instance_path), dest, log=lambda line: click.echo(line, err=True))
        supervisor.start()
    except replica.ReplicaError as e:
        raise BadInput(_(e.msgid, **e.values)) from None
    # waitress ends on SIGTERM only through SystemExit: the finally above then stops Litestream
    signal.signal(signal.SIGTERM, lambda *_a: (_ for _ in ()).throw(SystemExit(0)))
    click.echo(_("replica: Litestream copies the database to %(dest)s (%(config)s)", dest=dest,
                  config=supervisor.config))
    return supervisor


@click.command("restore")
@click.option("--from", "source", metavar="DEST", default=None,
              help="The replica `listok serve --replica DEST` wrote (a folder or an sftp:// URL).")
@click.option("--promoted", is_flag=True,
              help="PostgreSQL: record the restore after the provider's point-in-time recovery or a promoted "
                   "replica (DATABASE_URL names it); nothing is copied.")
@click.option("--force", is_flag=True, help="Replace a database this instance folder has already.")
def restore(source: str | None, promoted: bool, force: bool) -> None:
    """Bring the venue database back on a standby after the venue laptop died: the newest copy
    from the replica into instance/, recorded in every tournament's chain (from which entry and
    head the copy goes on). Everyone signs in again; the phones send again what the copy lacks."""
    import os

    from ..serve import replica

    if promoted == bool(source):
        raise BadInput(_("give --from DEST (the SQLite replica) or --promoted (a PostgreSQL database already "
                          "recovered), one of them"))
    if source:
        if os.environ.get("DATABASE_URL", "").strip():
            raise BadInput(_("--from restores the venue laptop's SQLite into instance/; DATABASE_URL is set: "
                              "for PostgreSQL recover the database first, then use --promoted"))
        from ..config import default_instance

        instance = default_instance()
        try:
            path = replica.restore(instance, source, force=force)
        except replica.ReplicaError as e:
            raise BadInput(_(e.msgid, **e.values)) from None
        click.echo(_("restored %(db)s from %(source)s", db=path, source=source))
    app = _app()
    if source is None and app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        raise BadInput(_("--promoted is for PostgreSQL (DATABASE_URL): the venue laptop's SQLite comes back "
                          "with --from DEST"))
    click.echo(upgrade_database(app))
    from ..services import restore as restored

    with app.app_context():
        ended = restored.record(source or "promoted PostgreSQL", "listok restore",
                                "sqlite" if source else "postgresql")
    from ..services.chain import head_label

    for tid, seq, head in ended:
        click.echo(_("tournament %(id)s: the copy ends at %(head)s; the restore is recorded after it",
                      id=tid, head=head_label(seq, head)))
    click.echo(_("operators and referees sign in again; the phones send again the sheets the copy lacks"))


@click.group("db")
def db_group() -> None:
    """The database schema (a deploy step before starting several workers)."""


@db_group.command("upgrade")
def db_upgrade() -> None:
    """Bring the schema of DATABASE_URL to the newest version (Alembic); creates it on an
    empty database. Run it once per deploy before gunicorn starts: workers never migrate.
    `listok serve` runs it by itself (the venue laptop's SQLite)."""
    app = _app()
    click.echo(upgrade_database(app))


@db_group.command("current")
def db_current() -> None:
    """Print the schema version of DATABASE_URL (empty: not created yet)."""
    app = _app()
    click.echo(_schema_head(app) or _("(no schema)"))


def _schema_head(app) -> str:
    from sqlalchemy import inspect, text

    from ..extensions import db

    with app.app_context():
        if not inspect(db.engine).has_table("alembic_version"):
            return ""
        with db.engine.connect() as conn:
            return ", ".join(r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version")))


from .proxy_config import proxy_config  # noqa: E402 - only click and the standard library
from .https_config import https_config  # noqa: E402

COMMANDS = (create_user, demo, serve, restore, https_config, proxy_config, db_group)
