"""Final SEM tournaments whose standings come out in a chosen order.

`final_tournament(name, date, order)` seats the players of `order` (best
first, N divisible by 3, T = N/3 tables) so that the SEM-B12 standings are
exactly `order`:

- rounds 1-3, everybody: table k holds W_k = order[k], S_k = order[T+k] and
  L_k = order[2T+k] (by player), so W gets 15 points, S 9 and L 3. Small
  shifts of c = `cent` order each group by money: round 1 W_k wins 15.00 + (T-1-k)c
  at the table of L_{T-1-k}, who loses the same; round 2 S_k gets 10.00 +
  (T-1-k)c from W_{T-1-k}; round 3 plain 15 / 10 / 5.
  Money: W_k 45 + (T-1-2k)c, S_k 30 + (T-1-k)c, L_k 15 - k c.
- rounds 4, 5, 6: the best `finals[0]`, `finals[1]`, `finals[2]` players in
  `order` play tables of 10 / 10 / 10 (3 points each), so the order holds.
"""
from __future__ import annotations

from decimal import Decimal as D
from typing import Sequence

from webapp.rules.model import Event, Player, Round, TableResult, Tournament

C = D("0.01")


def player(start_no: int, pid: str | None = None, club: str | None = None, *, name: str | None = None,
           status: str | None = None, rating=None, nominated: bool = False, present: bool = True) -> Player:
    if status is None:
        status = "registered" if club else "guest"
    return Player(start_no, name or f"Hráč {pid or start_no}", club=club, status=status,
                  rating=None if rating is None else D(rating), nominated=nominated,
                  present=present, id=pid)


def _table(no: int, players: Sequence[Player], sums: Sequence[D]) -> TableResult:
    return TableResult(no, tuple(p.start_no for p in players), tuple(s.quantize(C) for s in sums))


def default_finals(n: int) -> tuple[int, int, int]:
    t4 = max(1, (n // 3 + 1) // 2)
    t5 = max(1, (t4 + 1) // 2)
    return 3 * t4, 3 * t5, 3


def final_tournament(name: str, date: str, order: Sequence[Player],
                     finals: tuple[int, int, int] | None = None,
                     extra_players: Sequence[Player] = (), events: Sequence[Event] = (),
                     cent: D = C) -> Tournament:
    n = len(order)
    assert n and n % 3 == 0, "N must be a positive multiple of 3"
    T = n // 3
    assert (T - 1) * cent < D("2.50"), "the money shifts must not change who wins a table"
    W, S, L = order[:T], order[T:2 * T], order[2 * T:]
    r1 = [_table(k + 1, (W[k], S[k], L[T - 1 - k]),
                 (D(15) + (T - 1 - k) * cent, D(10), D(5) - (T - 1 - k) * cent)) for k in range(T)]
    r2 = [_table(k + 1, (W[T - 1 - k], S[k], L[k]),
                 (D(15) - (T - 1 - k) * cent, D(10) + (T - 1 - k) * cent, D(5))) for k in range(T)]
    r3 = [_table(k + 1, (W[k], S[k], L[k]), (D(15), D(10), D(5))) for k in range(T)]
    rounds = [Round(1, tuple(r1)), Round(2, tuple(r2)), Round(3, tuple(r3))]
    finals = finals or default_finals(n)
    assert n >= finals[0] >= finals[1] >= finals[2] >= 0 and all(f % 3 == 0 for f in finals)
    for rno, size in zip((4, 5, 6), finals):
        if size:
            rounds.append(Round(rno, tuple(_table(k + 1, order[3 * k:3 * k + 3], (D(10),) * 3)
                                           for k in range(size // 3))))
    return Tournament(list(order) + list(extra_players), rounds, name=name, date=date, events=list(events))


def red_card(start_no: int, rnd: int = 2) -> Event:
    """SEM-E: a red card disqualifies (SEM-D2) without changing the sheets."""
    return Event("card", start_no, colour="red", round=rnd, referees=("A", "B"))


def ranked_tournament(name: str, date: str, n: int, at: dict[int, str | Player],
                      club: str | None = None, **kw) -> Tournament:
    """N players where place p (1-based) is `at[p]` (an id or a Player); the
    other places are one-off players '<name>#<place>'. Start number = place."""
    order = []
    for place in range(1, n + 1):
        who = at.get(place, f"{name}#{place}")
        if isinstance(who, Player):
            order.append(Player(place, who.name, who.club, who.status, who.rating, who.nominated,
                                who.present, who.id))
        else:
            order.append(player(place, who, club))
    return final_tournament(name, date, order, **kw)
