"""Properties of the draw over randomly played tournaments (SEM-B2, B6, B7,
B9..B11, club rule, SEM-D4/D5 field changes)."""
import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from tests.rules.builders import play_round, players, tournament
from webapp.rules.model import Event, Player
from webapp.rules.report import is_final
from webapp.rules.seating import DrawError, cut_leaves_nobody, draw, eligible_field, rating_order
from webapp.rules.sem import SEM_RULES
from webapp.rules.standings import standings

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def fields(draw_, min_tables=2, max_tables=14, third=False):
    """(players, seed): clubs of random sizes, some guests, some unrated players;
    with `third`, no club has more than T/3 players."""
    n_tables = draw_(st.integers(min_tables, max_tables))
    n = 3 * n_tables
    seed = draw_(st.integers(0, 10 ** 6))
    rng = random.Random(seed)
    cap = max(1, n_tables // 3) if third else n
    n_clubs = draw_(st.integers(1, max(1, n // 2)))
    counts: Counter = Counter()
    clubs = {}
    for s in range(1, n + 1):
        c = rng.randrange(n_clubs)
        if rng.random() < 0.15 or counts[c] >= cap:
            clubs[s] = None
        else:
            clubs[s] = f"MK {c}"
            counts[c] += 1
    ratings = {s: (None if rng.random() < 0.2 else rng.randint(0, 50)) for s in range(1, n + 1)}
    return players(n, clubs=clubs, ratings=ratings), seed


def same_club(table, by_no):
    clubs = [by_no[s].club_key for s in table.players if by_no[s].club_key is not None]
    return len(clubs) != len(set(clubs))


def check_flags(d, by_no):
    for table in d.tables:
        assert bool(table.flags) == same_club(table, by_no), (d.round, table)
        assert table.flags in ((), ("same-club",))


@SETTINGS
@given(fields())
def test_every_eligible_player_seated_exactly_once_rounds_1_to_6(case):
    ps, seed = case
    t = tournament(ps)
    by_no = t.by_start_no()
    previous = None
    for n in range(1, 7):
        d = draw(t, n)
        seated = d.seated
        assert len(seated) == len(set(seated))
        assert all(len(tb.players) == 3 for tb in d.tables)
        assert [tb.table for tb in d.tables] == list(range(1, len(d.tables) + 1))
        check_flags(d, by_no)
        if n in SEM_RULES.cuts:
            assert set(seated) == set(d.advancing)
            assert set(d.advancing) | set(d.eliminated) == set(previous)
            assert not set(d.advancing) & set(d.eliminated)
            order = [r.player.start_no for r in standings(t, n - 1) if r.player.start_no in set(previous)]
            assert list(d.advancing) + list(d.eliminated) == order
            points = {r.player.start_no: r.stats.points for r in standings(t, n - 1)}
            threshold = SEM_RULES.cuts[n]
            assert all(s in d.advancing for s in previous if points[s] >= threshold)
            assert len(d.advancing) % 3 == 0
        else:
            assert set(seated) == eligible_field(t, n)
        if not d.tables:
            break
        play_round(t, d, seed=seed)
        previous = seated


@SETTINGS
@given(fields(max_tables=20))
def test_sem_b9_b11_is_final_and_the_cut_alone_agree_with_the_draw(case):
    """SEM-A3 finality after a cut round is decided from the cut (nobody seated):
    the same answer as drawing the next round and finding no table."""
    ps, seed = case
    t = tournament(ps)
    for n in range(1, 7):
        try:
            d = draw(t, n)
        except DrawError:
            assert n in SEM_RULES.cuts and not is_final(t)  # an uneven cut: play on after withdrawals
            break
        if n in SEM_RULES.cuts:
            ranking = standings(t, n - 1)
            assert cut_leaves_nobody(t, n, SEM_RULES) == (not d.tables)
            assert cut_leaves_nobody(t, n, SEM_RULES, ranking=ranking) == (not d.tables)
            assert is_final(t) == (not d.tables) == is_final(t, ranking=ranking)
        if not d.tables:
            break
        play_round(t, d, seed=seed)


@SETTINGS
@given(fields(max_tables=30))
def test_sem_b2_group1_in_exact_rating_order(case):
    ps, _ = case
    d = draw(tournament(ps), 1)
    T = len(d.tables)
    L = [p.start_no for p in rating_order(ps)]
    assert [tb.players[0] for tb in d.tables] == L[:T]
    assert sorted(tb.players[1] for tb in d.tables) == sorted(L[T:2 * T])
    assert sorted(tb.players[2] for tb in d.tables) == sorted(L[2 * T:])


@SETTINGS
@given(fields())
def test_sem_b6_position1_moves_one_table_lower(case):
    ps, seed = case
    t = tournament(ps)
    r1 = draw(t, 1)
    play_round(t, r1, seed=seed)
    r2 = draw(t, 2)
    T = len(r1.tables)
    assert [tb.players[0] for tb in r2.tables] == [r1.tables[(i + 1) % T].players[0] for i in range(T)]
    for p in (1, 2):
        assert sorted(tb.players[p] for tb in r2.tables) == sorted(tb.players[p] for tb in r1.tables)


@st.composite
def small_clubs(draw_):
    """Clubs of at most 2 players, at most T - 2 clubs of two."""
    n_tables = draw_(st.integers(3, 25))
    n = 3 * n_tables
    pairs = draw_(st.integers(0, n_tables - 2))
    order = draw_(st.permutations(range(1, n + 1)))
    clubs = {s: None for s in range(1, n + 1)}
    for k in range(pairs):
        clubs[order[2 * k]] = clubs[order[2 * k + 1]] = f"MK {k}"
    singles = draw_(st.integers(0, n - 2 * pairs))
    for k, s in enumerate(order[2 * pairs:2 * pairs + singles]):
        clubs[s] = f"Solo {k}"
    seed = draw_(st.integers(0, 10 ** 6))
    rng = random.Random(seed)
    ratings = {s: (None if rng.random() < 0.3 else rng.randint(0, 20)) for s in range(1, n + 1)}
    return players(n, clubs=clubs, ratings=ratings), seed


@settings(max_examples=100, deadline=None)
@given(small_clubs())
def test_sem_b2_b6_club_rule_always_kept_with_small_clubs(case):
    # With clubs of at most two players and at most T - 2 such clubs, a swap
    # that leaves both tables clean always exists: at most one table is
    # blocked by the third player's club partner and at most (pairs - 1) by
    # their own unresolved conflicts.
    ps, seed = case
    t = tournament(ps)
    by_no = t.by_start_no()
    d1 = draw(t, 1)
    assert all(not tb.flags for tb in d1.tables)
    check_flags(d1, by_no)
    play_round(t, d1, seed=seed)
    d2 = draw(t, 2)
    assert all(not tb.flags for tb in d2.tables)


@SETTINGS
@given(fields(min_tables=3, max_tables=20))
def test_club_rule_keeps_clubs_apart_except_flagged_tables_rounds_1_to_5(case):
    ps, seed = case
    t = tournament(ps)
    by_no = t.by_start_no()
    for n in range(1, 6):
        d = draw(t, n)
        if not d.tables:
            break
        for table in d.tables:
            assert bool(table.flags) == same_club(table, by_no)
        play_round(t, d, seed=seed)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(fields(min_tables=3, max_tables=25, third=True))
def test_sem_b2_b6_no_flags_when_every_club_has_at_most_a_third_of_the_tables(case):
    # Not a theorem (see the small-clubs test for one), but it held in 23,000
    # random tournaments (20,000 with every player in a club of exactly T/3);
    # derandomized so the suite stays deterministic. Rounds 3-5 can flag bottom tables (SEM-B7 only
    # looks further down the list).
    ps, seed = case
    t = tournament(ps)
    for n in (1, 2):
        d = draw(t, n)
        assert not any(tb.flags for tb in d.tables)
        play_round(t, d, seed=seed)


@SETTINGS
@given(fields(min_tables=3, max_tables=12), st.data())
def test_withdrawals_and_substitutes_keep_the_field_seated(case, data):
    ps, seed = case
    n = len(ps)
    rng = random.Random(seed)
    # withdrawals after round 1 or 2 (SEM-D4), with substitutes (SEM-D5) so that
    # the field stays divisible by 3: 3 without substitutes, or 1-3 each replaced
    after = data.draw(st.sampled_from([1, 2]))
    gone_n, subs_n = data.draw(st.sampled_from([(3, 0), (1, 1), (2, 2), (3, 3)]))
    gone = rng.sample(range(1, n + 1), gone_n)
    subs = [Player(n + 1 + i, f"Náhradník {i}", substitute_for=gone[i],
                   from_round=data.draw(st.sampled_from([None, after + 1]))) for i in range(subs_n)]
    events = [Event("withdrawn", s, after_round=after) for s in gone]
    t = tournament(ps + subs, events=events)
    by_no = t.by_start_no()
    for k in range(1, 7):
        try:
            d = draw(t, k)
        except DrawError as err:
            # D5 substitutes never advance: a tiny field where all ranked players
            # reach the threshold can leave a number not divisible by 3
            assert k in SEM_RULES.cuts and subs_n and "advancing players" in str(err)
            return
        seated = d.seated
        assert len(seated) == len(set(seated))
        check_flags(d, by_no)
        if k not in SEM_RULES.cuts:
            assert set(seated) == eligible_field(t, k)
            assert len(seated) == (n if k <= after else n - gone_n + subs_n)
        if k > after:
            assert not set(gone) & set(seated)
        else:
            assert not {p.start_no for p in subs} & set(seated)
        if k == after + 1 and k == 2:
            # the substitute sits where the withdrawn player would have sat (SEM-B6)
            planned = {}
            r1 = draw(t, 1)
            T = len(r1.tables)
            for i in range(T):
                planned[r1.tables[(i + 1) % T].players[0]] = (i, 0)
                planned[r1.tables[i].players[1]] = (i, 1)
                planned[r1.tables[(i - 1) % T].players[2]] = (i, 2)
            if subs_n == gone_n and not any(tb.flags for tb in d.tables):
                for sub in subs:
                    i, pos = planned[sub.substitute_for]
                    if pos == 0:
                        assert d.tables[i].players[0] == sub.start_no
        for sub in subs:
            if k > after and sub.start_no in seated:
                assert all(r.player.start_no != sub.start_no for r in standings(t, k - 1))
        if not d.tables:
            break
        play_round(t, d, seed=seed)
