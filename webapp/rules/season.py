"""Season level of SEM: tournament points (SEM-A3), club nominations and the
club result of a tournament (SEM-B3), the individual and club season tables
(SEM-A4, A5), historical tables (SEM-A6), the rating ladder (SEM-B1) and the
guest checks of registration (SEM-A2).

Interpretations where RULES.md is silent (shown to the operator as footnotes):

- places in every table here are 1, 2, 3 … without shared places; the last
  tie-break is named in each function;
- tournaments are put in time order by date, then name, then the order they
  were given in; a tournament without a date counts as the earliest;
- a club's `counted` players include its jokers; `jokers` is that subset.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Collection, Iterable, Mapping, Sequence

from .errors import N_, Nn_, Text
from .model import Player, Tournament
from .standings import Standing, shared_ranks, standings

# SEM-A3: bonus points of places 1..50 (places 21-50 get 30 down to 1).
BONUS: tuple[int, ...] = (
    100, 91, 85, 81, 78, 75, 72, 69, 66, 63, 60, 57, 54, 51, 48, 45, 42, 39, 36, 33,
) + tuple(range(30, 0, -1))

NOMINATE_ABOVE = 12  # SEM-B3a: clubs with more present players nominate
NOMINATED = 10
CLUB_COUNTED = 6  # SEM-B3c
MAX_JOKERS = 2
GUEST_LIMIT = 4  # SEM-A2


@dataclass(frozen=True)
class TournamentPoints:
    placement: int
    bonus: int

    @property
    def total(self) -> int:
        return self.placement + self.bonus


def tournament_points(ranking: list[Standing]) -> dict[int, TournamentPoints]:
    """SEM-A3 by start number. `ranking` is the final standings in place order;
    disqualified players and SEM-D5 substitutes are not in it, so N = len(ranking)."""
    n = len(ranking)
    return {
        s.player.start_no: TournamentPoints(n - i, BONUS[i] if i < len(BONUS) else 0)
        for i, s in enumerate(ranking)
    }


# --------------------------------------------------------------------------- SEM-B3


class NominationError(ValueError):
    pass


@dataclass(frozen=True)
class Nomination:
    club: str
    players: tuple[int, ...]  # start numbers, ascending
    automatic: bool
    required: bool


def _rating_order(p: Player) -> tuple:
    """SEM-B2/B3b: rated players by rating descending, then unrated ones; start number last."""
    return (p.rating is None, -(p.rating or 0), p.start_no)


def nomination_duty(t: Tournament) -> dict[str, int]:
    """SEM-B3a: how many players of each club were present at the draw of round 1.

    The duty is fixed between the end of check-in and the start of round 1, so
    only the players who may be seated in round 1 count (present, not withdrawn
    before it, substitutes only when they replace somebody absent); a
    substitute who joins later does not make a club nominate. A server that
    stored the count when round 1 started passes it as `t.nomination_duty`.
    """
    if t.nomination_duty is not None:
        return dict(t.nomination_duty)
    from .seating import eligible_field  # seating imports standings, like this module

    at_draw = eligible_field(t, 1)
    counts: dict[str, int] = {}
    for p in t.players:
        if p.start_no in at_draw and p.club_key is not None:
            counts[p.club_key] = counts.get(p.club_key, 0) + 1
    return counts


def nominations(t: Tournament) -> dict[str, Nomination]:
    """SEM-B3a/b for every club with a player present at the draw of round 1.

    A club with more than 12 players present then (see `nomination_duty`)
    must flag exactly 10 of them; with no flag at all the system nominates its
    10 best-rated players present at the draw; any other count is refused.
    Players who join later (substitutes) are never nominated.
    """
    duty = nomination_duty(t)
    from .seating import eligible_field

    at_draw = eligible_field(t, 1)
    clubs: dict[str, list[Player]] = {club: [] for club in duty}
    for p in t.players:
        if p.start_no in at_draw and p.club_key is not None:
            clubs.setdefault(p.club_key, []).append(p)
    result: dict[str, Nomination] = {}
    for club in sorted(clubs):
        members = sorted(clubs[club], key=lambda p: p.start_no)
        if duty.get(club, len(members)) <= NOMINATE_ABOVE:
            result[club] = Nomination(club, tuple(p.start_no for p in members), False, False)
            continue
        flagged = [p for p in members if p.nominated]
        automatic = not flagged
        if automatic:
            flagged = sorted(members, key=_rating_order)[:NOMINATED]
        elif len(flagged) != NOMINATED:
            raise NominationError(Text(Nn_("club '%(club)s' has %(num)d player present and nominated %(flagged)d: "
                                           "it must nominate exactly %(exactly)d",
                                           "club '%(club)s' has %(num)d players present and nominated %(flagged)d: "
                                           "it must nominate exactly %(exactly)d"),
                                       club=club, num=len(members), flagged=len(flagged), exactly=NOMINATED))
        result[club] = Nomination(club, tuple(sorted(p.start_no for p in flagged)), automatic, True)
    return result


@dataclass(frozen=True)
class ClubResult:
    place: int
    club: str
    score: int
    game_points: Fraction
    counted: tuple[int, ...]  # placing order, jokers included
    jokers: tuple[int, ...]


def club_results(t: Tournament, ranking: list[Standing] | None = None,
                 tp: dict[int, TournamentPoints] | None = None) -> list[ClubResult]:
    """SEM-B3c: walk each club's ranked players in placing order, take a
    nominated player always and a joker only while fewer than 2 are taken,
    stop at 6. Score = their tournament points; game points = their table
    points. Placed by score, then game points, then club name.

    Every club with a present or ranked player is listed, if need be with 0.
    In a club that does not nominate every player counts as nominated, even a
    ranked player not marked present.
    """
    if ranking is None:
        ranking = standings(t)
    if tp is None:
        tp = tournament_points(ranking)
    noms = nominations(t)
    ranked: dict[str, list[Standing]] = {club: [] for club in noms}
    for s in ranking:
        if s.player.club_key is not None:
            ranked.setdefault(s.player.club_key, []).append(s)
    rows = []
    for club, members in ranked.items():
        nom = noms.get(club)
        nominated = set(nom.players) if nom is not None and nom.required else None
        counted: list[Standing] = []
        jokers: list[int] = []
        for s in members:
            if len(counted) == CLUB_COUNTED:
                break
            sn = s.player.start_no
            if nominated is None or sn in nominated:
                counted.append(s)
            elif len(jokers) < MAX_JOKERS:
                counted.append(s)
                jokers.append(sn)
        score = sum(tp[s.player.start_no].total for s in counted)
        game_points = sum((s.stats.points for s in counted), Fraction(0))
        rows.append((club, score, game_points, tuple(s.player.start_no for s in counted), tuple(jokers)))
    rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
    return [ClubResult(i + 1, *r) for i, r in enumerate(rows)]


# --------------------------------------------------------------------------- SEM-A4, A5


@dataclass(frozen=True)
class SeasonPlayer:
    place: int
    id: str
    name: str
    club: str | None
    points: int
    game_points: Fraction
    money: Decimal
    counted: tuple[str, ...]  # tournament names, in time order
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class SeasonClub:
    place: int
    club: str
    points: int
    game_points: Fraction


@dataclass(frozen=True)
class SeasonTable:
    players: list[SeasonPlayer]
    clubs: list[SeasonClub]


@dataclass(frozen=True)
class _Result:
    """One player's result in one tournament."""

    when: int  # position of the tournament in time order
    tournament: str
    points: int
    game_points: Fraction
    money: Decimal


def chronological(tournaments: Iterable[Tournament]) -> list[Tournament]:
    """Time order: date, then name, then the given order (no date = earliest)."""
    indexed = list(enumerate(tournaments))
    indexed.sort(key=lambda it: (it[1].date or "", it[1].name, it[0]))
    return [t for _, t in indexed]


def _final_results(t: Tournament) -> tuple[list[Standing], dict[int, TournamentPoints]]:
    ranking = standings(t)
    keys: set[str] = set()
    for s in ranking:
        if s.player.key in keys:
            raise ValueError(Text(N_("tournament '%(name)s': player '%(key)s' is listed twice; give the players "
                                     "distinct ids"), name=t.name, key=s.player.key))
        keys.add(s.player.key)
    return ranking, tournament_points(ranking)


def season_table(tournaments: Sequence[Tournament], best: int = 11) -> SeasonTable:
    """SEM-A4 individuals and SEM-A5 clubs from the season's final tournaments.

    Individuals (matched by `Player.key`): the `best` results by tournament
    points count. Which of equal results is dropped: the lower game points,
    then the lower money, then the earlier tournament. Ties in the table:
    (1) game points, (2) money, both over the counted tournaments, (3) the
    tournament points of the dropped tournaments (summed), then the id.
    Name and club are the latest tournament's. A disqualified player has no
    result in that tournament (SEM-D2).

    Clubs: the sum of the club scores (SEM-B3) over all tournaments; ties by
    the game points of all counted players, then the club name.
    """
    if best < 0:
        raise ValueError(Text(N_("best must not be negative")))
    results: dict[str, list[_Result]] = {}
    latest: dict[str, Player] = {}
    club_points: dict[str, int] = {}
    club_game: dict[str, Fraction] = {}
    for when, t in enumerate(chronological(tournaments)):
        ranking, tp = _final_results(t)
        for s in ranking:
            p = s.player
            latest[p.key] = p
            results.setdefault(p.key, []).append(
                _Result(when, t.name, tp[p.start_no].total, s.stats.points, s.stats.money))
        try:
            clubs = club_results(t, ranking, tp)
        except NominationError as e:
            raise NominationError(Text(N_("tournament '%(name)s': %(why)s"), name=t.name, why=e)) from None
        for c in clubs:
            club_points[c.club] = club_points.get(c.club, 0) + c.score
            club_game[c.club] = club_game.get(c.club, Fraction(0)) + c.game_points

    rows = []
    for key, res in results.items():
        keep = sorted(res, key=lambda r: (-r.points, -r.game_points, -r.money, -r.when))
        counted = sorted(keep[:best], key=lambda r: r.when)
        dropped = sorted(keep[best:], key=lambda r: r.when)
        points = sum(r.points for r in counted)
        game = sum((r.game_points for r in counted), Fraction(0))
        money = sum((r.money for r in counted), Decimal("0.00"))
        dropped_points = sum(r.points for r in dropped)
        rows.append(((-points, -game, -money, -dropped_points, key),
                     key, points, game, money, counted, dropped))
    rows.sort(key=lambda r: r[0])
    players = [
        SeasonPlayer(i + 1, key, latest[key].name, latest[key].club, points, game, money,
                     tuple(r.tournament for r in counted), tuple(r.tournament for r in dropped))
        for i, (_, key, points, game, money, counted, dropped) in enumerate(rows)
    ]
    order = sorted(club_points, key=lambda c: (-club_points[c], -club_game[c], c))
    clubs = [SeasonClub(i + 1, c, club_points[c], club_game[c]) for i, c in enumerate(order)]
    return SeasonTable(players, clubs)


# --------------------------------------------------------------------------- SEM-A6


def historical_coefficient(best_ever: int | Fraction, best_this_season: int | Fraction) -> Fraction:
    """SEM-A6: highest season total ever (this season included) / highest this season."""
    best_ever, best_this = Fraction(best_ever), Fraction(best_this_season)
    if best_this <= 0:
        raise ValueError(Text(N_("the season's highest total must be positive")))
    if best_ever < best_this:
        raise ValueError(Text(N_("the highest total ever (%(ever)s) is below this season's highest (%(this)s); it "
                                 "must include this season"), ever=best_ever, this=best_this))
    return best_ever / best_this


def historical_points(season_totals: Mapping[str, int], best_ever_before: int) -> dict[str, Fraction]:
    """SEM-A6 for one season's final table (individuals or clubs): every total
    times max(best ever before, best this season) / best this season."""
    if not season_totals:
        return {}
    best_this = max(season_totals.values())
    k = historical_coefficient(max(best_ever_before, best_this), best_this)
    return {key: total * k for key, total in season_totals.items()}


# --------------------------------------------------------------------------- SEM-B1


@dataclass(frozen=True)
class Rating:
    id: str
    name: str
    rating: int
    tournaments: int


def ratings(tournaments: Sequence[Tournament], window: int = 12) -> list[Rating]:
    """SEM-B1: tournament points summed over the `window` most recent
    tournaments (a window of tournaments held, not of a player's
    appearances). Players without a result in the window are unrated and not
    listed. Highest first, ties by id; the name is the latest in the window."""
    if window < 1:
        raise ValueError(Text(N_("the rating window must be at least 1 tournament")))
    recent = chronological(tournaments)[-window:]
    total: dict[str, int] = {}
    count: dict[str, int] = {}
    name: dict[str, str] = {}
    for t in recent:
        ranking, tp = _final_results(t)
        for s in ranking:
            key = s.player.key
            total[key] = total.get(key, 0) + tp[s.player.start_no].total
            count[key] = count.get(key, 0) + 1
            name[key] = s.player.name
    order = sorted(total, key=lambda k: (-total[k], k))
    return [Rating(k, name[k], total[k], count[k]) for k in order]


# --------------------------------------------------------------------------- SEM-A2


def guest_check(player_key: str, status: str, season_history: Sequence[Tournament],
                registered: Collection[str] = (), rejected: Collection[str] = ()) -> str | None:
    """SEM-A2: why `player_key` cannot be entered with `status`, or None.

    `season_history` is the season's earlier tournaments; `registered` the keys
    on any club roster, `rejected` the keys a club proposed and the board
    rejected. Interpretation: a player who played a season tournament as
    registered counts as registered; the current entry is the guest's
    (GUEST_LIMIT+1)-th only if GUEST_LIMIT earlier tournaments were as guest.
    """
    if status != "guest":
        return None
    entries = [p for t in season_history for p in t.players if p.key == player_key]
    if player_key in registered or any(p.status == "registered" for p in entries):
        return f"'{player_key}' is a registered player and cannot play as a guest (SEM-A2)"
    if player_key in rejected:
        return (f"'{player_key}' was put on a club roster and rejected by the board: "
                "cannot play as a guest (SEM-A2)")
    as_guest = sum(1 for t in season_history
                   if any(p.key == player_key and p.status == "guest" and p.present for p in t.players))
    if as_guest >= GUEST_LIMIT:
        return (f"'{player_key}' has already played {as_guest} SEM tournaments this season "
                f"as a guest: the limit is {GUEST_LIMIT} (SEM-A2)")
    return None


# --------------------------------------------------------------------------- other rule sets


def _ranked(t: Tournament) -> list[Standing]:
    ranking = standings(t)
    keys: set[str] = set()
    for s in ranking:
        if s.player.key in keys:
            raise ValueError(Text(N_("tournament '%(name)s': player '%(key)s' is listed twice; give the players "
                                     "distinct ids"), name=t.name, key=s.player.key))
        keys.add(s.player.key)
    return ranking


def placement_season_report(tournaments: Sequence[Tournament], best: int = 11) -> dict:
    """The season table of a rule set without SEM-A3 (BB liga, SMU, Thousand).

    Interpretation (docs/RULES.md): a player placed p of N ranked players gets
    N - p + 1 placement points; the `best` results count (ties among equal
    results: the lower table points, then the lower money or score, then the
    earlier tournament is dropped). Ranked by the counted placement points,
    then table points, then money (score), then the id. Clubs: the placement
    points of all their players over all tournaments, then table points, then
    the club name. Rows as SEM-A4/A5; `money` is `score` where the rule set
    has no money (Thousand)."""
    from .model import json_number, money_text
    from .ruleset import get_ruleset

    results: dict[str, list[tuple]] = {}
    latest: dict[str, Player] = {}
    club_points: dict[str, int] = {}
    club_game: dict[str, Fraction] = {}
    has_money = True
    for when, t in enumerate(chronological(tournaments)):
        has_money = get_ruleset(t.ruleset).currency is not None
        ranking = _ranked(t)
        n = len(ranking)
        for i, s in enumerate(ranking):
            p = s.player
            latest[p.key] = p
            results.setdefault(p.key, []).append((n - i, Fraction(s.stats.points), s.stats.money, when, t.name))
            if p.club_key is not None:
                club_points[p.club_key] = club_points.get(p.club_key, 0) + n - i
                club_game[p.club_key] = club_game.get(p.club_key, Fraction(0)) + s.stats.points
    rows = []
    for key, res in results.items():
        keep = sorted(res, key=lambda r: (-r[0], -r[1], -r[2], -r[3]))
        counted = sorted(keep[:best], key=lambda r: r[3])
        dropped = sorted(keep[best:], key=lambda r: r[3])
        points = sum(r[0] for r in counted)
        game = sum((r[1] for r in counted), Fraction(0))
        money = sum((r[2] for r in counted), Decimal(0))
        rows.append(((-points, -game, -money, key), key, points, game, money, counted, dropped))
    rows.sort(key=lambda r: r[0])
    players = []
    for i, (_, key, points, game, money, counted, dropped) in enumerate(rows):
        row = {"place": i + 1, "id": key, "name": latest[key].name, "club": latest[key].club,
               "points": points, "game_points": json_number(game)}
        if has_money:
            row["money"] = money_text(money)
        else:
            row["score"] = json_number(money)
        row.update(counted=[r[4] for r in counted], dropped=[r[4] for r in dropped])
        players.append(row)
    order = sorted(club_points, key=lambda c: (-club_points[c], -club_game[c], c))
    clubs = [{"place": i + 1, "club": c, "points": club_points[c], "game_points": json_number(club_game[c])}
             for i, c in enumerate(order)]
    return {"players": players, "clubs": clubs}


def csm_season_report(tournaments: Sequence[Tournament], strike: int = 0) -> dict:
    """CSM-6: the league table `# Hráč ZB PB SB B` and the team table.

    A player's tournament result is the tournament's ZB, PB, SB and BP (the sum
    of the rounds' BP, CSM-4); B sums the BP. The `strike` worst tournaments
    of each player (and team) do not count. Interpretation (docs/RULES.md): a
    tournament the player missed is a result of zero and is struck first; of
    the played ones the lowest BP, then SB, then ZB, then the earlier is
    struck. Ranked by B, then SB, then ZB, then the id (the team name).

    Teams are the players' clubs: in each tournament a team's SB is its
    members' SB summed (ZB, PB likewise); teams are ranked by SB, then ZB,
    equal teams sharing the place, and get team BP = number of teams - place + 1.
    """
    if strike < 0:
        raise ValueError(Text(N_("--strike must not be negative")))
    ordered = chronological(tournaments)
    held = len(ordered)
    people: dict[str, list[tuple]] = {}
    latest: dict[str, Player] = {}
    teams: dict[str, list[tuple]] = {}
    for when, t in enumerate(ordered):
        totals: dict[str, list[int]] = {}
        for s in _ranked(t):
            st = s.stats
            p = s.player
            latest[p.key] = p
            people.setdefault(p.key, []).append((st.bp, st.sb, st.zb, st.pb, when, t.name))
            if p.club:
                agg = totals.setdefault(p.club, [0, 0])
                agg[0] += st.zb
                agg[1] += st.pb
        names = sorted(totals)
        places = shared_ranks([(-(totals[c][0] + totals[c][1]), -totals[c][0]) for c in names])
        for c, place in zip(names, places):
            zb, pb = totals[c]
            teams.setdefault(c, []).append((len(names) - place + 1, zb + pb, zb, pb, when, t.name))

    def table(results: dict[str, list[tuple]], label: str) -> list[dict]:
        rows = []
        for key, res in results.items():
            struck = max(0, strike - (held - len(res)))
            worst_first = sorted(res, key=lambda r: (r[0], r[1], r[2], r[4]))
            dropped = sorted(worst_first[:struck], key=lambda r: r[4])
            counted = sorted(worst_first[struck:], key=lambda r: r[4])
            b = sum(r[0] for r in counted)
            sb = sum(r[1] for r in counted)
            zb = sum(r[2] for r in counted)
            pb = sum(r[3] for r in counted)
            rows.append(((-b, -sb, -zb, key), key, zb, pb, sb, b, counted, dropped))
        rows.sort(key=lambda r: r[0])
        out = []
        for i, (_, key, zb, pb, sb, b, counted, dropped) in enumerate(rows):
            row: dict = {"place": i + 1}
            if label == "player":
                row.update(id=key, name=latest[key].name, club=latest[key].club)
            else:
                row["team"] = key
            row.update(zb=zb, pb=pb, sb=sb, b=b, counted=[r[5] for r in counted],
                       dropped=[r[5] for r in dropped])
            out.append(row)
        return out

    return {"players": table(people, "player"), "teams": table(teams, "team")}
