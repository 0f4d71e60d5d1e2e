"""The Glicko-2 update (ratings/glicko.py, by the glicko2 library): Glickman's worked
example to the paper's digits, and other players against the paper's formulas written out
here independently of the library."""

from __future__ import annotations

import math
import threading

import glicko2
import pytest

from ratings import glicko
from ratings.glicko import Glicko, game, rate

SCALE = 173.7178


def test_glickmans_worked_example():
    # A 1500 / RD 200 / volatility 0.06 player, tau 0.5, beats 1400/30 and loses to
    # 1550/100 and 1700/300 (Glickman, "Example of the Glicko-2 system", 2022).
    after = rate(
        Glicko(1500, 200, 0.06),
        [(Glicko(1400, 30), 1), (Glicko(1550, 100), 0), (Glicko(1700, 300), 0)],
    )
    # The paper's 1464.06 is 173.7178 * -0.2069 + 1500, from mu' rounded to 4 places.
    assert abs(after.rating - 1464.06) < 0.01
    assert round(after.deviation, 2) == 151.52
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999  # the paper: 0.05999
    # On the Glicko-2 scale, the paper's own intermediate figures: mu' = -0.2069,
    # phi' = 0.8722, and step 5's A = ln(sigma'^2) = -5.62696.
    assert round((after.rating - 1500) / SCALE, 4) == -0.2069
    assert round(after.deviation / SCALE, 4) == 0.8722
    assert round(2 * math.log(after.volatility), 5) == -5.62696


def test_the_library_alone_misses_step_5_which_is_why_it_is_corrected():
    # The library's f(x) has mu^2 where the paper has phi^2: its volatility for the
    # worked example comes out with A = -5.62704, not the paper's -5.62696.
    plain = glicko2.Player(1500, 200, 0.06)
    plain.update_player([1400, 1550, 1700], [30, 100, 300], [1, 0, 0])
    assert round(2 * math.log(plain.vol), 5) != -5.62696


def paper(player: Glicko, results, tau=0.5) -> Glicko:
    """Glickman's steps 2 to 8, transcribed from the paper (and only from it)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.deviation / SCALE, player.volatility
    opponents = [((o.rating - 1500) / SCALE, o.deviation / SCALE, s) for o, s in results]

    def g(phi_j):
        return 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)

    def e(mu_j, phi_j):
        return 1 / (1 + math.exp(-g(phi_j) * (mu - mu_j)))

    v = 1 / sum(g(p) ** 2 * e(m, p) * (1 - e(m, p)) for m, p, _ in opponents)
    delta = v * sum(g(p) * (s - e(m, p)) for m, p, s in opponents)
    a = math.log(sigma**2)

    def f(x):
        return (
            math.exp(x)
            * (delta**2 - phi**2 - v - math.exp(x))
            / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > 0.000001:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2)
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * sum(g(p) * (s - e(m, p)) for m, p, s in opponents)
    return Glicko(mu_new * SCALE + 1500, phi_new * SCALE, sigma_new)


@pytest.mark.parametrize(
    ("player", "opponent", "score"),
    [
        (Glicko(2200, 60, 0.06), Glicko(1500, 350), 0),  # an upset: the volatility rises
        (Glicko(1800, 200, 0.06), Glicko(1500, 50), 0),
        (Glicko(1100, 80, 0.09), Glicko(2000, 60), 1),
        (Glicko(1500, 350, 0.06), Glicko(1500, 350), 0.5),
        (Glicko(1620, 90, 0.05), Glicko(1580, 70, 0.07), 0.5),
    ],
)
def test_players_away_from_1500_get_the_papers_numbers(player, opponent, score):
    ours, expected = rate(player, [(opponent, score)]), paper(player, [(opponent, score)])
    assert ours.rating == pytest.approx(expected.rating, abs=1e-6)
    assert ours.deviation == pytest.approx(expected.deviation, abs=1e-6)
    assert ours.volatility == pytest.approx(expected.volatility, abs=1e-9)


def test_one_game_rates_both_from_their_ratings_before_it():
    ada, bob = Glicko(1600, 120, 0.06), Glicko(1450, 250, 0.06)
    ada_after, bob_after = game(ada, bob, 1)
    assert ada_after == rate(ada, [(bob, 1)])
    assert bob_after == rate(bob, [(ada, 0)])
    assert ada_after.rating > ada.rating and bob_after.rating < bob.rating
    drawn = game(Glicko(), Glicko(), 0.5)
    assert drawn[0].rating == pytest.approx(1500) and drawn[1].rating == pytest.approx(1500)
    assert drawn[0].deviation < 350


def test_newcomers_start_provisional_and_settle_below_110():
    player = Glicko()
    assert (player.rating, player.deviation, player.volatility) == (1500, 350, 0.06)
    assert player.provisional
    for n in range(40):
        player = rate(player, [(Glicko(1500, 50), n % 2)])
    assert not player.provisional and player.deviation <= glicko.PROVISIONAL_ABOVE


def test_tau_is_this_modules_and_the_librarys_global_is_left_alone():
    assert glicko._FixedPlayer._tau == glicko.TAU == 0.5
    assert glicko2.Player._tau == 0.5
    assert "_tau" not in vars(glicko2.Player(1500, 200, 0.06))
    # Rating from many threads at once gives every thread the same numbers.
    expected = rate(Glicko(1700, 150, 0.06), [(Glicko(1400, 80), 0)])
    found, lock = [], threading.Lock()

    def work():
        for _ in range(50):
            value = rate(Glicko(1700, 150, 0.06), [(Glicko(1400, 80), 0)])
            with lock:
                found.append(value)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [expected] * 200


def test_a_period_without_games_is_refused():
    with pytest.raises(ValueError, match="at least one game"):
        rate(Glicko(), [])
