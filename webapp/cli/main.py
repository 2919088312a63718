"""The `listok` command (EXCHANGE.md): computes from tournament files, no server.

`listok` is a plain click group, so the app factory can attach the same group
to Flask (`app.cli.add_command(listok)`) and add `import`/`export` to it. Only
click is imported at module level: the rules engine is imported by each
command, which keeps `listok draw …` well under half a second end to end.

Bad input ends with one line `listok: <message>` on stderr and exit status 2;
an unexpected failure also prints one line (exit status 1) unless
LISTOK_DEBUG is set, which shows the traceback.

The server's commands speak the language of the environment (LANGUAGE, LC_ALL,
LC_MESSAGES, LANG: sk, cs, en, ru; English for any other) from the pages' own
catalogs; so do the rules engine's refusals (services/rule_texts.engine_text), which
stay exactly the engine's English lines when the environment names no other language.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import sys

import click

from .base import BadInput, InternalError, _, one_line, cli_locale, ngettext


def _bad_input_types() -> tuple[type, ...]:
    from ..rules.ruleset import UnknownRuleSet

    # every error the rules engine raises for input it cannot use is a ValueError
    # (ExchangeError, ReportError, DrawError, NominationError …)
    return (ValueError, UnknownRuleSet)


def _guarded(func):
    """Turn rules-engine errors into one-line messages, also under `flask listok`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as e:  # noqa: BLE001 - the contract is: never a traceback
            if isinstance(e, _bad_input_types()):
                raise BadInput(one_line(engine_line(e))) from e
            if os.environ.get("LISTOK_DEBUG"):
                raise
            raise InternalError(one_line(_("internal error: %(error)s (set LISTOK_DEBUG=1 for the traceback)",
                                             error=f"{type(e).__name__}: {e}"))) from e

    return wrapper


def engine_line(e) -> str:
    """An engine error in the environment's language; the engine's own line in English."""
    locale = cli_locale()
    if locale == "en":
        return str(e)
    from .base import cli_catalog
    from ..services.rule_texts import engine_text

    return engine_text(e, cli_catalog(locale), locale)


class ListokGroup(click.Group):
    """A click group whose usage errors are one line as well."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            e.show()
            sys.exit(e.exit_code)
        except click.UsageError as e:
            hint = ""
            if e.ctx is not None:
                hint = f" (see '{e.ctx.command_path} --help')"
            click.echo(f"listok: {one_line(e.format_message())}{hint}", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            e.show()
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("listok: " + _("aborted"), err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _write_utf8(text: str) -> None:
    """Bytes, so the output is UTF-8 whatever the locale says."""
    out = sys.stdout.buffer
    out.write(text.encode("utf-8"))
    out.flush()


def _emit(data) -> None:
    _write_utf8(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _load(path: str):
    from ..rules.exchange import load

    return load(path)


def _in_file(path: str, func, *args):
    """Run a report on one file; errors that do not say which file get its name."""
    from ..rules.exchange import ExchangeError

    try:
        return func(*args)
    except ExchangeError:
        raise
    except ValueError as e:
        raise BadInput(one_line(f"{path}: {engine_line(e)}")) from e


def _load_final(files) -> list:
    from ..rules.report import require_final

    from ..rules.consistency import check_season_files

    tournaments = []
    for f in files:
        t = _load(f)
        _in_file(f, require_final, [t])
        tournaments.append(t)
    check_season_files(list(zip(files, tournaments)))  # one rule set, each tournament once
    return tournaments


@click.group(name="listok", cls=ListokGroup)
def listok() -> None:
    """Compute standings, draws, season tables and ratings from tournament files
    (format listok-tournament/1)."""


main = listok


@listok.command()
@click.argument("file")
@click.option("--after-round", type=int, default=None, metavar="K",
              help="Standings after round K (default: the last round in FILE).")
@_guarded
def standings(file: str, after_round: int | None) -> None:
    """Standings of the tournament in FILE (SEM-B12)."""
    from ..rules.report import standings_report

    t = _load(file)
    _emit(_in_file(file, standings_report, t, after_round))


@listok.command()
@click.argument("file")
@click.option("--round", "round_no", type=int, required=True, metavar="N",
              help="The round to draw, from the results of rounds 1..N-1 in FILE.")
@_guarded
def draw(file: str, round_no: int) -> None:
    """The seating for round N."""
    from ..rules.report import draw_report

    t = _load(file)
    _emit(_in_file(file, draw_report, t, round_no))


@listok.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--best", type=click.IntRange(min=1), default=None,
              help="How many tournaments count per player (SEM-A4; default 11).")
@click.option("--strike", type=click.IntRange(min=0), default=None, metavar="K",
              help="ČSM: strike each player's K worst tournaments (CSM-6; default 0).")
@_guarded
def season(files: tuple[str, ...], best: int | None, strike: int | None) -> None:
    """The season tables (SEM-A4, A5; CSM-6 …) from final tournament files of one rule set."""
    from ..rules.report import season_report

    _emit(season_report(_load_final(files), best, strike))


@listok.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--window", type=click.IntRange(min=1), default=12, show_default=True,
              help="How many of the most recent tournaments count (SEM-B1).")
@_guarded
def rating(files: tuple[str, ...], window: int) -> None:
    """The rating list (SEM-B1) from final tournament files."""
    from ..rules.report import rating_report

    _emit(rating_report(_load_final(files), window))


@contextlib.contextmanager
def _server_app():
    """The venue server's app, in its app context: the one `flask --app …` loaded,
    else one built from the environment (DATABASE_URL …). Flask is imported only
    here, so the computing commands above stay fast. A database without tables is
    brought up to date first, as `create-user` does."""
    from flask.cli import ScriptInfo

    info = click.get_current_context().find_object(ScriptInfo)
    if info is not None:
        app = info.load_app()
    else:
        from .. import create_app

        app = create_app()
    from flask_babel import force_locale

    with app.app_context(), force_locale(cli_locale()):  # the services' messages in the environment's language
        from sqlalchemy import inspect

        from ..extensions import db

        if not inspect(db.engine).has_table("tournament"):
            from .server import upgrade_database

            upgrade_database(app)
        yield app


@listok.command("import")
@click.argument("file")
@click.option("--replace", is_flag=True,
              help="Replace the tournament with the same id (the old copy is kept, marked replaced, "
                   "with a chain entry).")
@_guarded
def import_file(file: str, replace: bool) -> None:
    """Create a tournament in the venue server's database from FILE; prints its id.
    A tournament already there (the file's `id`, or the same content) is refused (exit 2)."""
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise BadInput(_("%(file)s: no such file", file=file)) from None
    except IsADirectoryError:
        raise BadInput(_("%(file)s: is a directory, not a tournament file", file=file)) from None
    except OSError as e:
        raise BadInput(one_line(_("%(file)s: cannot read the file (%(why)s)", file=file,
                                    why=e.strerror or e))) from None
    with _server_app():
        from ..extensions import db
        from ..services.tournament_file import import_tournament

        try:
            t = import_tournament(data, file, "listok import", replace=replace)
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
        from sqlalchemy import select

        from ..models import Tournament

        for old in db.session.scalars(select(Tournament.id).where(Tournament.replaced_by_id == t.id)):
            click.echo("listok: " + _("tournament %(old)s is replaced by tournament %(new)s (chain entry "
                                       "tournament.replaced in both)", old=old, new=t.id), err=True)
        click.echo(t.id)


@listok.command("export")
@click.argument("tournament_id", metavar="ID", type=int)
@click.option("-o", "--output", metavar="FILE", help="Write the file here instead of to stdout.")
@_guarded
def export_file(tournament_id: int, output: str | None) -> None:
    """Write tournament ID from the venue server's database as a tournament file."""
    with _server_app():
        from ..extensions import db
        from ..models import Tournament
        from ..services.tournament_file import export_tournament

        t = db.session.get(Tournament, tournament_id)
        if t is None:
            raise BadInput(_("no tournament with id %(id)s", id=tournament_id))
        text = export_tournament(t)
    if output is None:
        _write_utf8(text)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except OSError as e:
        raise BadInput(one_line(_("%(file)s: cannot write the file (%(why)s)", file=output,
                                    why=e.strerror or e))) from None


@listok.command("verify")
@click.option("--tournament", "tournament_id", metavar="ID", type=int, help="Only this tournament.")
@click.option("--head", "heads", metavar="HEAD", multiple=True,
              help="A head published elsewhere (a photo of the projector, the federation's copy), as pages "
                   "show it: '#412 · ABCD-EFGH-IJKL-MNOP'; the chain must still hold it (repeatable; with "
                   "--tournament).")
@_guarded
def verify(tournament_id: int | None, heads: tuple[str, ...]) -> None:
    """Check every stored sheet against its content hash and the tournament's hash
    chain, the chain against every head published, and every account's row against
    its MAC (docs/SECURITY.md). A restore the chain records is named, with the sheets
    the phones sent again after it."""
    from ..services.chain_verify import parse_head

    parsed = []
    for text in heads:
        head = parse_head(text)
        if head is None:
            raise BadInput(_("--head %(head)s: give a head as pages show it, e.g. '#412 · ABCD-EFGH-IJKL-MNOP'",
                              head=text))
        parsed.append(head)
    if parsed and tournament_id is None:
        raise BadInput(_("--head needs --tournament: a head belongs to one tournament's chain"))
    with _server_app():
        from ..services.accounts import tampered
        from ..services.chain_verify import verify_all

        verdicts = verify_all(tournament_id, tuple(parsed))
        if tournament_id is not None and not verdicts:
            raise BadInput(_("no tournament with id %(id)s", id=tournament_id))
        lines = [line for v in verdicts for line in v.lines()]
        accounts = [f"account '{u.username}' ({u.role}): changed outside Listok (its password, role, sessions or "
                    f"venue do not match the server's MAC): it cannot sign in until an admin sets a new password"
                    for u in tampered()]
    _write_utf8("".join(line + "\n" for line in lines + accounts))
    if accounts or not all(v.ok for v in verdicts):
        sys.exit(1)


INSECURE_HELP = ("Allow a plain http:// federation address (the token then crosses the network "
                 "unencrypted: a closed network only); default LISTOK_FEDERATION_INSECURE.")


def _warn_insecure(url: str, insecure: bool) -> None:
    if insecure and url.strip().lower().startswith("http://"):
        click.echo("listok: " + _("warning: --insecure: the venue's token goes unencrypted to %(url)s",
                                  url=url.strip()), err=True)


@listok.command("push")
@click.argument("tournament_id", metavar="ID", type=int)
@click.option("--to", "url", metavar="URL", envvar="LISTOK_FEDERATION_URL", required=True,
              help="The federation server (https://…); default LISTOK_FEDERATION_URL.")
@click.option("--token", metavar="T", envvar="LISTOK_FEDERATION_TOKEN", required=True,
              help="The venue's token from the federation; default LISTOK_FEDERATION_TOKEN.")
@click.option("--insecure", is_flag=True, envvar="LISTOK_FEDERATION_INSECURE",
              help=INSECURE_HELP)
@_guarded
def push(tournament_id: int, url: str, token: str, insecure: bool) -> None:
    """Send finished tournament ID (the file, its hash chain and published heads) to the
    federation. Exit 0 when taken, 2 when refused or already there (the federation's reason).
    The token goes to an https:// address only and never follows a redirect."""
    _warn_insecure(url, insecure)
    with _server_app():
        from ..extensions import db
        from ..models import Tournament
        from ..services.venue_season import push as push_tournament

        t = db.session.get(Tournament, tournament_id)
        if t is None:
            raise BadInput(_("no tournament with id %(id)s", id=tournament_id))
        result = push_tournament(t, url, token, "listok push", insecure=insecure)
        db.session.commit()
    message = one_line(result.answer.get("message", ""))
    if result.status != 201:
        raise BadInput(_("the federation answered %(status)s: %(message)s", status=result.status,
                          message=message))
    _write_utf8(message + "\n")
    for problem in result.answer.get("verdict", {}).get("problems", []):
        _write_utf8(f"  {problem}\n")


@listok.command("season-download")
@click.option("--from", "url", metavar="URL", envvar="LISTOK_FEDERATION_URL", default="",
              help="The federation server; default LISTOK_FEDERATION_URL.")
@click.option("--season", "season_id", metavar="N", type=int, default=None, help="The season's number there.")
@click.option("--token", metavar="T", envvar="LISTOK_FEDERATION_TOKEN", default="",
              help="The venue's token; default LISTOK_FEDERATION_TOKEN.")
@click.option("--file", "path", metavar="FILE", default=None,
              help="Load this season file (from the federation) instead of downloading.")
@click.option("--insecure", is_flag=True, envvar="LISTOK_FEDERATION_INSECURE",
              help=INSECURE_HELP)
@_guarded
def season_download(url: str, season_id: int, token: str, path: str | None, insecure: bool) -> None:
    """Download a season (roster, guest counts, cards) for the registration checks at the venue.
    The token goes to an https:// address only and never follows a redirect."""
    if not path and not (url and token and season_id):
        raise BadInput(_("give --from, --season and --token (or LISTOK_FEDERATION_URL/_TOKEN), or --file"))
    if not path:
        _warn_insecure(url, insecure)
    with _server_app():
        from ..extensions import db
        from ..services.venue_season import fetch_season, import_season

        if path:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                raise BadInput(one_line(_("%(file)s: cannot read the file (%(why)s)", file=path,
                                            why=e.strerror or e))) from None
        else:
            data = fetch_season(url, season_id, token, insecure=insecure)
        copy = import_season(data, "listok season-download")
        db.session.commit()
        players, cards = len(copy.document["players"]), len(copy.document.get("cards", []))
        click.echo(_("season '%(name)s': %(players)s, %(cards)s", name=copy.name,
                      players=ngettext("%(num)d player", "%(num)d players", players),
                      cards=ngettext("%(num)d card", "%(num)d cards", cards)))


def _add_server_commands() -> None:
    from .server import COMMANDS  # only click at import time, like this module

    for command in COMMANDS:
        listok.add_command(command)


_add_server_commands()
