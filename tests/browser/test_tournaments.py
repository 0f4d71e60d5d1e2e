"""Tournaments in Chromium: accounts join an arena and a Swiss event from their pages, see
each other arrive live, are paired when the event starts by itself (daphne's scheduler),
go to their games from the live "Go to your game" button, play them out, and every page
of the event (the players' and an anonymous spectator's) follows the standings live.

The test process makes the accounts and the event (its pages are not open yet); everything
after that goes through the site: joining is a POST from the page, the games are played by
clicking the board, and what the pages show is pushed by the server that made the change.
"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.models import Match
from tests.browser.helpers import (
    SCRIPTS,
    mark_page,
    play,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)
from tests.ratings.helpers import sign_in_browser
from tests.servers import DaphneServer, database_url, server_env
from tests.tournaments.helpers import accounts, event
from tournaments import director
from tournaments.models import Entry, Pairing, Tournament

pytestmark = pytest.mark.browser

SLUG = "last-bit-standing"  # a whole game is five clicks; the second player wins it
LIVE = 20_000  # ms: what a push or the scheduler brings, on two busy cores
START = 600  # s: the event is made to start this long after (the joins come first)
PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1100, "height": 900}  # new_page's own


@pytest.fixture
def live_server_url(transactional_db) -> str:
    """A daphne of the test's own, with the tournaments' scheduler on (it starts and pairs
    the events by itself); the shared servers run without it, so that it never touches
    the events of other tests. Its scheduler ticks every 0.2 s and gathers for 0.1 s (1 s
    and 0.3 s by default): an event due, a round over, is seen sooner, by the same code.
    Stopped after the test."""
    from django.db import connection

    env = server_env(
        database_url(connection.settings_dict),
        BITSITE_TOURNAMENT_SCHEDULER="1",
        BITSITE_TOURNAMENT_TICK="0.2",
        BITSITE_TOURNAMENT_GATHER="0.1",
    )
    server = DaphneServer(env, name="tournaments").start()
    yield server.url
    server.stop()


def no_sideways_scroll(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def start_now(t: Tournament) -> None:
    """Once every join has shown, the start is moved up to now: how long the joins take
    depends on the machine's load (on two busy cores they took longer than a fixed 15 s),
    and the test is about what follows. The event still starts by itself: the scheduler
    sees it due at its next tick, as it sees any event (the pages were drawn with the
    start 10 minutes away, and are told nothing of the move)."""
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.UPCOMING
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())


def open_event(page: Page, url: str) -> Page:
    page.goto(url)
    wait_for_socket(page)
    mark_page(page)
    return page


def row(page: Page, entry: Entry):
    return page.locator(f"#e-{entry.pk}")


def go_to_game(page: Page, match: Match | None = None) -> Page:
    """The player opens their game (``match``, if given) from the live button, in a tab of
    its own (the event's page stays open: a player with neither page open is paused when
    pairing comes), and looks at that tab.

    A tab behind another of its window gets no animation frames, and Playwright waits for
    two before it clicks (to see the target still): a click there took 1-2 s. So each tab is
    brought to the front before it is clicked (what the player does), and the game's when it
    opens."""
    button = page.get_by_role("link", name="Go to your game")
    expect(button).to_be_visible(timeout=LIVE)
    if match is not None:
        expect(button).to_have_attribute("href", match.get_absolute_url(), timeout=LIVE)
    page.bring_to_front()
    with page.context.expect_page() as opened:
        button.click(modifiers=["ControlOrMeta"])
    game = opened.value
    game.bring_to_front()
    game.console_errors = []
    game.on("console", lambda m: game.console_errors.append(m.text) if m.type == "error" else None)
    game.on("pageerror", lambda exc: game.console_errors.append(str(exc)))
    game.wait_for_load_state()
    wait_for_socket(game)
    return game


def to_next_game(event_page: Page, tabs: dict[int, Page], user_id: int, match: Match) -> Page:
    """The player goes to ``match``, their game of a new round: the first time from the
    event's live button, in a tab of its own (``go_to_game``); after that from the page of
    the game they last played (kept open in that tab), which says, live, that the next game
    has started, and links the game the event's page links."""
    tab = tabs.get(user_id)
    if tab is None:
        tab = tabs[user_id] = go_to_game(event_page, match)
        return tab
    button = event_page.get_by_role("link", name="Go to your game")
    expect(button).to_be_visible(timeout=LIVE)
    expect(button).to_have_attribute("href", match.get_absolute_url(), timeout=LIVE)
    told = tab.get_by_role("link", name="Go to your next game")
    expect(told).to_have_attribute("href", match.get_absolute_url(), timeout=LIVE)
    tab.bring_to_front()
    told.click()
    tab.wait_for_url(re.compile(re.escape(match.get_absolute_url()) + "$"))
    wait_for_socket(tab)
    return tab


def game_pages(match: Match, pages_by_user: dict) -> dict[int, Page]:
    """Seat -> the page of the player in it."""
    return {1: pages_by_user[match.seat1_user_id], 2: pages_by_user[match.seat2_user_id]}


def play_out(match: Match, pages: dict[int, Page], moves: list[str]) -> None:
    """Click ``moves`` on the board, each by the player whose turn it is."""
    for ply, move in enumerate(moves):
        match.refresh_from_db()
        assert match.ply == ply
        mover = pages[match.seat_of_player(match.current.to_move)]
        other = pages[3 - match.seat_of_player(match.current.to_move)]
        expect(status(mover)).to_have_text("Your turn", timeout=LIVE)
        play(mover, SLUG, move)
        wait_for_ply(other, ply + 1, timeout=LIVE)


def resign(loser: Page, winner: Page) -> None:
    """Both have moved: the loser resigns from the match page (and confirms)."""
    loser.once("dialog", lambda dialog: dialog.accept())
    loser.get_by_role("button", name="Resign").click()
    expect(status(loser)).to_contain_text("You lose", timeout=LIVE)
    expect(status(winner)).to_contain_text("You win", timeout=LIVE)


def test_an_arena_of_four_pairs_plays_and_scores_live_on_every_page(
    live_server_url, new_page, artifacts
):
    users = accounts("ada", "bob", "cy", "dee")
    players = {}
    for user in users:
        page = new_page()
        sign_in_browser(page, live_server_url, user)
        players[user.pk] = page
    t = event("arena", game=SLUG, starts_in=START, minutes=5, name="Friday arena")
    url = live_server_url + t.get_absolute_url()
    spectator = open_event(new_page(), url)
    for page in players.values():
        open_event(page, url)
    expect(spectator.locator("#t-state")).to_contain_text("Starts in")
    expect(spectator.locator("#t-panel")).to_contain_text("Sign in")
    everyone = [*players.values(), spectator]

    # Each joins from the page; every page shows them arrive, without a reload.
    for n, user in enumerate(users, 1):
        page = players[user.pk]
        page.get_by_role("button", name="Join", exact=True).click()
        expect(page.locator("#t-panel")).to_contain_text("You have joined")
        entry = Entry.objects.get(tournament=t, user=user)
        for other in everyone:
            expect(row(other, entry)).to_contain_text(user.username, timeout=LIVE)
            expect(other.locator("#t-state")).to_contain_text(f"{n} player", timeout=LIVE)
    spectator.screenshot(path=str(artifacts / "arena-upcoming.png"), full_page=True)
    # The rules show the streak's flame: drawn by the style sheet (a row of the standings
    # carries only its name), an em square in its colour.
    flame = spectator.locator(".fire").first
    expect(flame).to_have_attribute("aria-label", "on fire")
    expect(flame).to_be_visible()
    drawn = flame.evaluate(
        "el => { const s = getComputedStyle(el), b = el.getBoundingClientRect();"
        " return [b.width, b.height, s.maskImage || s.webkitMaskImage, s.backgroundColor]; }"
    )
    assert drawn[0] > 8 and drawn[1] > 8 and drawn[2].startswith('url("data:image/svg+xml'), drawn
    assert drawn[3] == "rgb(217, 72, 15)", drawn
    start_now(t)

    # It starts by itself when the countdown ends; everyone is paired, live.
    for page in everyone:
        expect(page.locator("#t-state")).to_contain_text("In progress", timeout=LIVE)
    for page in players.values():
        expect(page.get_by_role("link", name="Go to your game")).to_be_visible(timeout=LIVE)
    expect(spectator.locator(".t-games li")).to_have_count(2, timeout=LIVE)
    players[users[0].pk].screenshot(path=str(artifacts / "arena-paired.png"), full_page=True)
    first_games = {p.match_id for p in Pairing.objects.filter(tournament=t)}
    assert len(first_games) == 2

    # Each goes to the game and plays it out; the second player wins.
    games = {user.pk: go_to_game(players[user.pk]) for user in users}
    moves, winner_number = SCRIPTS[SLUG]
    for match in Match.objects.filter(pk__in=first_games):
        pages = game_pages(match, games)
        expect(pages[1].locator(".event-note")).to_contain_text("A game of the arena Friday arena")
        play_out(match, pages, moves)
    results = {}
    for match in Match.objects.filter(pk__in=first_games):
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        winner = match.seat_of_player(winner_number)
        winner_user, loser_user = (
            (match.seat1_user_id, match.seat2_user_id)
            if winner == 1
            else (match.seat2_user_id, match.seat1_user_id)
        )
        results[winner_user], results[loser_user] = ("2", "W"), ("0", "L")
        expect(status(games[winner_user])).to_contain_text("You win")
        for pk in (winner_user, loser_user):
            note = games[pk].locator("#end-notes")
            expect(note).to_contain_text("Back to Friday arena for your next game.")
    games[users[0].pk].screenshot(path=str(artifacts / "arena-game-over.png"), full_page=True)

    # Every page of the event shows the scores and results, live.
    for user in users:
        entry = Entry.objects.get(tournament=t, user=user)
        score, letters = results[user.pk]
        for page in everyone:
            expect(row(page, entry).locator(".score")).to_have_text(score, timeout=LIVE)
            expect(row(page, entry).locator(".results")).to_have_text(letters, timeout=LIVE)
    for page in everyone:
        assert was_not_reloaded(page)
        first = page.locator(".standings tbody tr").first
        expect(first.locator(".results")).to_have_text("W")

    # Their pages are open: they are paired again (winners together), "Go to your game"
    # comes back, to a new game.
    # The page of the game each finished says so too, live, and links the same new game.
    for user in users:
        button = players[user.pk].get_by_role("link", name="Go to your game")
        old = games[user.pk].url.removeprefix(live_server_url)
        expect(button).to_be_visible(timeout=LIVE)
        expect(button).not_to_have_attribute("href", old, timeout=LIVE)
        told = games[user.pk].get_by_role("link", name="Go to your next game")
        expect(told).to_be_visible(timeout=LIVE)
        expect(told).to_have_attribute("href", button.get_attribute("href"))
    games[users[0].pk].screenshot(path=str(artifacts / "arena-next-game.png"), full_page=False)
    second = Pairing.objects.filter(tournament=t).exclude(match_id__in=first_games)
    assert second.count() == 2
    winners = {pk for pk, (score, _) in results.items() if score == "2"}
    for pairing in second:
        pair = {pairing.first.user_id, pairing.second.user_id}
        assert pair == winners or not pair & winners
    players[users[0].pk].screenshot(path=str(artifacts / "arena-again.png"), full_page=True)
    # The spectator's page, as it is now, on a phone: the same page at 360 px.
    spectator.set_viewport_size(PHONE)
    expect(spectator.locator(".standings tbody tr")).to_have_count(4)
    assert no_sideways_scroll(spectator)
    spectator.screenshot(path=str(artifacts / "arena-360.png"), full_page=True)
    for page in [*everyone, *games.values()]:
        assert page.console_errors == []


def expected_standings(t: Tournament) -> list[tuple[int, float, float, float]]:
    """(entry, score, Buchholz, Sonneborn-Berger), best first, worked out here from the
    pairings: a bye is a win over a virtual opponent who had the player's score before
    that round and drew every later round; in the opponents' tie-breaks it counts as a draw
    (FIDE's rule of 2009-2022, as the event's page says it counts)."""
    rounds = t.rounds
    games: dict[int, list] = {e.pk: [] for e in Entry.objects.filter(tournament=t)}
    for p in Pairing.objects.filter(tournament=t).order_by("round"):
        if p.second_id is None:
            games[p.first_id].append((None, 1.0))
            continue
        first = 1.0 if p.won_by == 1 else 0.5 if p.won_by == 0 else 0.0
        games[p.first_id].append((p.second_id, first))
        games[p.second_id].append((p.first_id, 1 - first))
    score = {pk: sum(s for _, s in g) for pk, g in games.items()}
    seen = {pk: score[pk] - 0.5 * sum(o is None for o, _ in g) for pk, g in games.items()}
    rows = []
    for pk, played in games.items():
        assert len(played) == rounds
        buchholz = sb = before = 0.0
        for number, (opponent, points) in enumerate(played, 1):
            value = before + 0.5 * (rounds - number) if opponent is None else seen[opponent]
            buchholz += value
            sb += points * value
            before += points
        rows.append((pk, score[pk], buchholz, sb))
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t)}
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], -entries[r[0]].rating, r[0]))
    return rows


def points(value: float) -> str:
    """A Swiss score as the page writes it: 3, 2½, ½."""
    whole, half = int(value), value % 1 == 0.5
    return (str(whole) if whole or not half else "") + ("½" if half else "")


def test_a_swiss_event_of_five_plays_three_rounds_with_one_bye_each_and_ranks_by_tie_breaks(
    live_server_url, new_page, artifacts
):
    users = accounts("ana", "ben", "cat", "dan", "eve")
    strength = {u.pk: n for n, u in enumerate(users)}  # the earlier name wins every game
    players = {}
    for user in users:
        page = new_page()
        sign_in_browser(page, live_server_url, user)
        players[user.pk] = page
    t = event("swiss", game=SLUG, starts_in=START, rounds=3, name="Sunday Swiss")
    url = live_server_url + t.get_absolute_url()
    spectator = open_event(new_page(), url)
    for page in players.values():
        open_event(page, url)
    for n, user in enumerate(users, 1):
        players[user.pk].get_by_role("button", name="Join", exact=True).click()
        expect(players[user.pk].locator("#t-panel")).to_contain_text("You have joined")
        expect(spectator.locator("#t-state")).to_contain_text(f"{n} player", timeout=LIVE)
    start_now(t)
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t)}
    met: set[frozenset] = set()
    byes: set[int] = set()
    tabs: dict[int, Page] = {}  # user -> their game's tab, from round to round
    for number in (1, 2, 3):
        expect(spectator.locator("#t-state")).to_contain_text(f"Round {number} of 3", timeout=LIVE)
        pairings = list(Pairing.objects.filter(tournament=t, round=number))
        assert len(pairings) == 3
        (bye,) = [p for p in pairings if p.is_bye]
        assert bye.first_id not in byes, "a second bye for one player"
        byes.add(bye.first_id)
        bye_page = players[bye.first.user_id]
        expect(bye_page.locator("#t-panel")).to_contain_text("bye", timeout=LIVE)
        for p in pairings:
            if p.is_bye:
                continue
            pair = frozenset({p.first_id, p.second_id})
            assert pair not in met, f"round {number} pairs {p} again"
            met.add(pair)
            match = p.match
            pages = {
                seat: to_next_game(players[user_id], tabs, user_id, match)
                for seat, user_id in ((1, match.seat1_user_id), (2, match.seat2_user_id))
            }
            expect(pages[1].locator(".event-note")).to_contain_text(
                f"Round {number} of the Swiss tournament Sunday Swiss"
            )
            play_out(match, pages, SCRIPTS[SLUG][0][:2])  # both moved: resigning counts
            seat1_wins = strength[match.seat1_user_id] < strength[match.seat2_user_id]
            winner, loser = (pages[1], pages[2]) if seat1_wins else (pages[2], pages[1])
            resign(loser, winner)
            for page in pages.values():
                assert page.console_errors == []
        if number == 1:
            spectator.screenshot(path=str(artifacts / "swiss-round-1.png"), full_page=True)
            bye_page.screenshot(path=str(artifacts / "swiss-bye.png"), full_page=True)
    assert len(byes) == 3

    # The event ends by itself; every page shows the podium and the final order, live.
    expected = expected_standings(t)
    names = {e.pk: e.name for e in entries.values()}
    for page in [spectator, *players.values()]:
        expect(page.locator("#t-state")).to_contain_text("Finished", timeout=LIVE)
        podium = page.locator(".podium li")
        expect(podium).to_have_count(3)
        for place, (pk, score, *_) in enumerate(expected[:3]):
            expect(podium.nth(place)).to_contain_text(names[pk])
            expect(podium.nth(place)).to_contain_text(points(score))
        assert was_not_reloaded(page)
    spectator.screenshot(path=str(artifacts / "swiss-finished.png"), full_page=True)
    # The page as the server draws it now (loaded again), on a desktop and on a phone.
    page = spectator
    page.goto(url)
    for viewport, shot in ((DESKTOP, "swiss-finished-page"), (PHONE, "swiss-finished-360")):
        page.set_viewport_size(viewport)
        rows = page.locator(".standings tbody tr")
        expect(rows).to_have_count(5)
        for n, (pk, score, buchholz, sb) in enumerate(expected):
            cells = rows.nth(n).locator("td")
            expect(cells.nth(0)).to_have_text(str(n + 1))
            expect(cells.nth(1)).to_contain_text(names[pk])
            expect(cells.nth(3)).to_have_text(points(score))
            expect(cells.nth(4)).to_have_text(f"{buchholz:.1f}")
            expect(cells.nth(5)).to_have_text(f"{sb:.2f}")
        expect(page.locator(".podium li")).to_have_count(3)
        assert no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"{shot}.png"), full_page=True)
    # Ties on score are broken: the order is not the names' order of strength alone.
    scores = [score for _, score, *_ in expected]
    assert len(set(scores)) < len(scores), "no tie on score to break"
    # Each player's own panel says where they finished, live.
    places = ["1st", "2nd", "3rd", "4th", "5th"]
    for place, (pk, score, *_) in zip(places, expected, strict=True):
        user_id = next(u for u, e in entries.items() if e.pk == pk)
        expect(players[user_id].locator("#t-panel")).to_contain_text(
            f"You finished {place} with {points(score)} point"
        )
    for page in [spectator, *players.values()]:
        assert page.console_errors == []


def at_both_sizes(page: Page, artifacts, shot: str) -> None:
    """The page as it is now, on a desktop and on a phone: nothing scrolls sideways, and a
    screenshot of each (``{shot}-desktop.png``, ``{shot}-360.png``). Left at the phone's."""
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "360")):
        page.set_viewport_size(viewport)
        assert no_sideways_scroll(page), size
        page.screenshot(path=str(artifacts / f"{shot}-{size}.png"), full_page=True)


def test_a_player_creates_a_tournament_from_the_list_and_joins_and_leaves_it(
    live_server_url, new_page, artifacts
):
    """Played once, on a phone (where a control out of reach would show); each page it
    reaches is looked at on a desktop and on a phone."""
    (ada,) = accounts("ada")
    event("arena", starts_in=-60, minutes=45, name="Hourly Bit Flip arena")  # due: it starts
    page = new_page(viewport=PHONE)
    sign_in_browser(page, live_server_url, ada)
    page.goto(live_server_url + "/tournaments/")
    expect(page.get_by_role("heading", name="Create a tournament")).to_be_visible()
    page.get_by_label("Name (optional)").fill("Ada's " + "very long " * 4 + "Swiss")
    page.get_by_label("Kind").select_option("swiss")
    page.get_by_label("Game").select_option(SLUG)
    page.get_by_label("Swiss: rounds").select_option("3")
    at_both_sizes(page, artifacts, "tournaments-list")
    page.get_by_role("button", name="Create the tournament").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+/$"))
    wait_for_socket(page)
    expect(page.locator(".flash")).to_contain_text("is made: share this page with the players")
    expect(page.locator("#t-state")).to_contain_text("Starts in")
    expect(page.locator(".lead")).to_contain_text("Swiss · Last Bit Standing · 3+2")
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.locator("#t-panel")).to_contain_text("You have joined")
    expect(page.locator(".standings tbody tr")).to_have_count(1)
    at_both_sizes(page, artifacts, "tournament-joined")
    page.get_by_role("button", name="Leave").click()
    expect(page.locator("#t-notice")).to_contain_text("You left the tournament")
    expect(page.get_by_role("button", name="Join", exact=True)).to_be_visible()
    expect(page.locator("#t-live")).to_contain_text("Nobody has joined yet", timeout=LIVE)
    # Players of the longest user names (30 characters) fit the standings at 360 px.
    for user in accounts("W" * 30, "Grace_Brewster_Murray_Hopper_1"):
        director.join(page.url.rstrip("/").rsplit("/", 1)[1], user)
    page.reload()
    expect(page.locator(".standings tbody tr")).to_have_count(2)
    at_both_sizes(page, artifacts, "tournament-long-names")
    page.goto(live_server_url + "/tournaments/")
    expect(page.locator("#running-title + .t-list")).to_contain_text("Hourly Bit Flip arena")
    expect(page.locator("#upcoming-title + .t-list")).to_contain_text("very long")
    assert page.console_errors == []


def test_join_after_the_session_ended_signs_in_and_comes_back_to_the_event(
    live_server_url, new_page
):
    """Signed out in another tab, Ada presses Join on the event's page: the whole page goes
    to the sign-in page (before, the sign-in page was drawn inside the event's page, a
    second header and all, and signing in there led to the Join button's address by GET,
    an empty 405). Signed in, she is back on the event's page and joins."""
    (ada,) = accounts("ada")
    t = event("arena", starts_in=3600, minutes=30, name="Evening arena")
    page = new_page()
    sign_in_browser(page, live_server_url, ada)
    url = live_server_url + t.get_absolute_url()
    open_event(page, url)
    other = page.context.new_page()  # the same browser: signing out there ends the session
    other.goto(live_server_url + "/")
    other.locator(".account-nav").get_by_role("button", name="Sign out").click()
    expect(other.get_by_role("link", name="Sign in")).to_be_visible()
    other.close()
    page.get_by_role("button", name="Join", exact=True).click()
    page.wait_for_url(re.compile(r"/accounts/login/\?next=" + re.escape(t.get_absolute_url())))
    expect(page.locator("#id_username")).to_have_count(1)  # the page itself, not inside one
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("pw-ada")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(url)
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.locator("#t-panel")).to_contain_text("You have joined")
    assert page.console_errors == []
