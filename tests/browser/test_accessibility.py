"""axe-core in Chromium on every kind of page, in the light and the dark theme: no serious or
critical violation. The pages are reached the way people reach them (the match pages by
creating, joining and playing in the browser), so each state of each game is checked: the
states of a match (waiting, to join, each side's turn, watched, finished, against the
computer with hints) in the whole match of each game in tests/browser/test_live_matches.py,
which plays it once for its own checks and these."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from games.rules import GAMES
from tests.browser.helpers import create_match, join, status
from tests.ratings.helpers import account, rated_match, resign, sign_in_browser
from tests.replays import BLUNDER_GAME, played, staff_user
from tests.servers import free_port

NO_MAIL_SERVER = free_port()  # nothing listens there: the reset email is never sent

pytestmark = pytest.mark.browser

SERIOUS = {"serious", "critical"}
THEMES = ("light", "dark")
AXE = Axe()
# Waits for every animation and transition that ends (page.wait_for_function would need
# eval, which the site's Content-Security-Policy rightly refuses).
# Animations in time only: a scroll-driven one (a cut name's fade) has no end in time.
SETTLED = """() => Promise.all(document.getAnimations()
    .filter(a => a.timeline === document.timeline)
    .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
    .map(a => a.finished.catch(() => null)))"""


def violations(page: Page) -> list[str]:
    """The serious and critical violations on the page as it is now, one line each.

    axe-core is put into each document once (``Axe.run`` puts its 500 KB in again at every
    call, and a page is audited in both themes): a page navigated or reloaded since has it no
    more, and gets it again."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.axe_script)
    found = page.evaluate("axe.run({resultTypes: ['violations']})")["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(f"{' '.join(node['target'])} ({why(node)})" for node in v["nodes"][:5])
        for v in found
        if v["impact"] in SERIOUS
    ]


def why(node: dict) -> str:
    """axe's reason for one element, e.g. the colours and the contrast it measured."""
    lines = node.get("failureSummary", "").strip().splitlines()
    return lines[-1].strip() if lines else ""


class Audit:
    """Collects every page's violations in both themes, so one run names them all."""

    def __init__(self):
        self.problems: list[str] = []
        self.checked: list[str] = []

    def __call__(self, page: Page, what: str) -> None:
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)
            # What is judged is the page at rest: a last move's brief glow, or a theme's
            # colours fading in, are over first.
            page.evaluate(SETTLED)
            self.problems += [f"{what} [{theme}]: {line}" for line in violations(page)]
            self.checked.append(f"{what} [{theme}]")
        page.emulate_media(color_scheme="light")

    def verify(self, at_least: int) -> None:
        assert len(self.checked) >= at_least, self.checked
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture
def audit():
    return Audit()


def test_home_rules_new_match_replay_and_admin(live_server_url, new_page, audit):
    page = new_page()
    page.goto(f"{live_server_url}/")
    audit(page, "home")
    for game in GAMES:
        page.goto(f"{live_server_url}/games/{game.slug}/")
        audit(page, f"rules of {game.slug}")
        page.goto(f"{live_server_url}/games/{game.slug}/new/")
        audit(page, f"new match of {game.slug}")
    page.get_by_label("Play the computer").check()  # the level's choices shown
    audit(page, "new match against the computer")
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5}, name="Grace")
    page.goto(f"{live_server_url}/m/{match.public_id}/replay/?ply=3")
    audit(page, "replay")
    staff_user(password="a-long-staff-password-42")
    page.goto(f"{live_server_url}/admin/games/match/")
    audit(page, "admin login")
    page.fill("#id_username", "staff")
    page.fill("#id_password", "a-long-staff-password-42")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#result_list")).to_be_visible()
    audit(page, "admin list of matches")
    page.goto(f"{live_server_url}/m/does-not-exist-00/")
    audit(page, "not found")
    audit.verify(at_least=2 * (1 + 2 * len(GAMES) + 5))


def test_account_pages_and_my_games(live_server_url, servers, new_page, audit):
    base = live_server_url
    ada, bob = new_page(), new_page()
    ada.goto(f"{base}/accounts/signup/")
    audit(ada, "sign up")
    ada.get_by_label("Username").fill("x y")
    ada.get_by_label("Password", exact=True).fill("a-long-enough-password-42")
    ada.get_by_label("Password confirmation").fill("another-password-42")
    ada.get_by_role("button", name="Sign up").click()
    expect(ada.locator("#form-errors")).to_be_visible()
    audit(ada, "sign up with errors")
    ada.goto(f"{base}/accounts/login/")
    audit(ada, "sign in")
    ada.get_by_label("Username").fill("nobody")
    ada.get_by_label("Password").fill("wrong-password")
    ada.get_by_role("button", name="Sign in").click()
    expect(ada.locator("#form-errors")).to_be_visible()
    audit(ada, "sign in with an error")
    for page, name in ((ada, "ada"), (bob, "bob")):
        page.goto(f"{base}/accounts/signup/")
        page.get_by_label("Username").fill(name)
        page.get_by_label("Password", exact=True).fill("a-long-enough-password-42")
        page.get_by_label("Password confirmation").fill("a-long-enough-password-42")
        page.get_by_role("button", name="Sign up").click()
        page.wait_for_url(f"{base}/accounts/games/")
    audit(ada, "my games, empty")
    url = create_match(ada, base, "bit-flip")
    join(bob, url)
    create_match(ada, base, "last-digit-standing", opponent="hotseat")
    ada.once("dialog", lambda dialog: dialog.accept())
    ada.get_by_role("button", name="Resign").click()
    expect(status(ada)).to_contain_text("wins")
    create_match(ada, base, "bit-flip-divisor", first="opponent")  # waiting, not her turn
    ada.goto(f"{base}/accounts/games/")
    expect(ada.locator("#ongoing .badge.turn")).to_have_count(1)
    expect(ada.locator("#finished .game")).to_have_count(1)
    audit(ada, "my games: your turn, waiting, finished")
    ada.get_by_label("Result").select_option("won")
    ada.get_by_role("button", name="Filter").click()
    expect(ada.locator("#finished")).to_contain_text("No finished game matches")
    audit(ada, "my games, filtered")
    ada.goto(f"{base}/accounts/logout/")
    audit(ada, "sign out")

    # Password reset, on a server that can send email (its pages are 404 otherwise), by a
    # visitor: Ada's browser with its cookies cleared (no other browser opened for it).
    mailing = servers(EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(NO_MAIL_SERVER))
    page = ada
    page.context.clear_cookies()
    page.goto(f"{mailing.url}/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    audit(page, "password reset")
    page.get_by_label("Email").fill("nobody@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    audit(page, "password reset sent")
    page.goto(f"{mailing.url}/accounts/reset/MQ/set-password/")
    expect(page.locator("#message")).to_contain_text("does not work any more")
    audit(page, "password reset, an old link")
    page.goto(f"{mailing.url}/accounts/reset/done/")
    audit(page, "password changed")
    audit.verify(at_least=2 * 12)


def test_rated_games_player_pages_and_leaderboards(live_server_url, new_page, audit):
    from games import play as write_path
    from ratings.models import Rating
    from tests.factories import actor

    ada, bob = account("ada"), account("bob")
    for opponent in ("cy", "dee"):
        Rating.objects.create(user=account(opponent), game="bit-flip", rating=1600, deviation=70)
    match, token1, token2 = rated_match(ada, bob)
    write_path.submit_move(match.public_id, by=actor(match, token1), text="3", ply=0)
    resign(match, token2)
    waiting = write_path.create_match("bit-flip", token="ada-waits", user=ada, rated=True)
    page = new_page()
    page.goto(f"{live_server_url}{match.get_absolute_url()}")
    expect(page.locator("#end-notes")).to_be_visible()
    audit(page, "a finished rated match (spectator)")
    page.goto(f"{live_server_url}{match.get_absolute_url()}replay/")
    expect(page.locator("#end-notes")).to_be_visible()
    audit(page, "the replay of a rated match")
    page.goto(f"{live_server_url}{waiting.get_absolute_url()}")
    expect(page.locator("#rated-join")).to_be_visible()
    audit(page, "a rated match to join")
    page.goto(f"{live_server_url}/players/ada/")
    expect(page.locator("#chart-bit-flip")).to_be_visible()
    audit(page, "player page")
    page.goto(f"{live_server_url}/players/nobody/")
    audit(page, "unknown player")
    page.goto(f"{live_server_url}/games/bit-flip/leaderboard/")
    expect(page.locator("#leaderboard")).to_be_visible()
    audit(page, "leaderboard")
    page.goto(f"{live_server_url}/games/last-digit-standing/leaderboard/")
    audit(page, "empty leaderboard")
    sign_in_browser(page, live_server_url, ada)
    page.goto(f"{live_server_url}/games/bit-flip/new/")
    expect(page.get_by_role("checkbox", name=re.compile("^Rated"))).to_be_visible()
    audit(page, "new match, signed in (the Rated choice)")
    audit.verify(at_least=2 * 8)


def test_the_lobby_and_the_watch_page(live_server_url, new_page, audit):
    """The home page with open challenges, as a visitor and as a creator (with its
    "Withdraw" and the lobby's message), and the watch page with its small pictures."""
    from games import play
    from games.models import new_secret
    from tests.factories import client_with_token

    ada = new_secret()
    for game in GAMES:
        token = ada if game.slug == "bit-flip" else new_secret()
        play.create_match(game.slug, token=token, listed=True, name=f"{game.title} fan")
    taken = play.create_match("last-digit-standing", token=new_secret(), listed=True, name="Cy")
    play.join(taken.public_id, token=new_secret(), name="Bob")
    visitor = new_page()
    visitor.goto(f"{live_server_url}/")
    expect(visitor.locator("#challenge-list li")).to_have_count(len(GAMES))
    audit(visitor, "home with open challenges")
    creator = new_page()
    session = client_with_token(ada).cookies["sessionid"].value
    creator.context.add_cookies([{"name": "sessionid", "value": session, "url": live_server_url}])
    creator.goto(f"{live_server_url}/")
    creator.get_by_role("button", name=re.compile("^Withdraw")).click()
    expect(creator.locator("#lobby-notice")).to_contain_text("withdrawn")
    audit(creator, "home as a creator, with the lobby's message")
    visitor.locator("#challenge-list li").first.get_by_role("button").click()
    visitor.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    visitor.goto(f"{live_server_url}/watch/")
    expect(visitor.locator("#watch-list li")).to_have_count(2)
    audit(visitor, "watch page")
    audit.verify(at_least=2 * 3)


def test_the_tournament_pages(live_server_url, new_page, audit):
    """The list with its form; an arena to join, and running (a player's "Go to your game",
    the standings, the games in play); a finished Swiss event with its podium."""
    from tests.tournaments.helpers import accounts, event, finish
    from tournaments import director
    from tournaments.models import Pairing

    players = accounts("ada", "bob", "cy", "di", "eve")
    upcoming = event("arena", starts_in=600, name="Evening arena")
    arena = event("arena", starts_in=-1, name="Running arena")
    swiss = event("swiss", starts_in=-1, rounds=2, name="Sunday Swiss")
    for user in players:
        director.join(arena.public_id, user)
        director.join(swiss.public_id, user)
    director.advance(arena.public_id)
    director.advance(swiss.public_id)
    for number in (1, 2):
        for p in Pairing.objects.filter(tournament=swiss, round=number, match__isnull=False):
            finish(p.match, winner=p.first.user)
        director.advance(swiss.public_id)
    for p in Pairing.objects.filter(tournament=arena)[:1]:
        finish(p.match, winner=p.first.user)
    page = new_page()
    sign_in_browser(page, live_server_url, players[0])
    page.goto(f"{live_server_url}/tournaments/")
    expect(page.get_by_role("heading", name="Create a tournament")).to_be_visible()
    audit(page, "tournaments, signed in")
    page.goto(live_server_url + upcoming.get_absolute_url())
    expect(page.get_by_role("button", name="Join", exact=True)).to_be_visible()
    audit(page, "an arena to join")
    page.goto(live_server_url + arena.get_absolute_url())
    expect(page.locator(".standings .results").first).to_have_text("W")
    audit(page, "a running arena")
    playing = Pairing.objects.filter(tournament=arena, match__status="playing").first()
    page.context.clear_cookies()
    sign_in_browser(page, live_server_url, playing.first.user)
    page.goto(live_server_url + arena.get_absolute_url())
    expect(page.get_by_role("link", name="Go to your game")).to_be_visible()
    audit(page, "a running arena, a player's game")
    page.goto(live_server_url + swiss.get_absolute_url())
    expect(page.locator(".podium li")).to_have_count(3)
    audit(page, "a finished Swiss event")
    audit.verify(at_least=2 * 5)
