"""Every page and action through the Django test client: boards, refusals, junk, CSRF."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Match, Move
from games.rules import GAMES
from tests.factories import both_moved, client_with_token, make_match, mover_token

pytestmark = pytest.mark.django_db
SLUGS = [game.slug for game in GAMES]
HTMX = {"HTTP_HX_REQUEST": "true"}


def form_data(slug, **overrides):
    game = next(g for g in GAMES if g.slug == slug)
    data = {f"{slug}-{o.name}": str(o.default) for o in game.options}
    data.update({f"{slug}-first": "me", f"{slug}-opponent": "friend", f"{slug}-level": "strong"})
    data.update({f"{slug}-{k}": v for k, v in overrides.items()})
    return data


def test_home_lists_the_five_games_with_their_links():
    response = Client().get("/")
    html = response.content.decode()
    assert response.status_code == 200
    for game in GAMES:
        assert game.title in html
        assert game.summary in html
        assert f'href="/games/{game.slug}/new/"' in html
        assert f'href="/games/{game.slug}/"' in html
    # The match forms live on each game's page; the home page's is the lobby's (lobby/):
    # its name, which one "Play anyone" per game (and an Accept per open challenge, none
    # here) submits.
    main = html.split("<main", 1)[1]
    assert re.findall(r'<form [^>]*action="([^"]+)"', main) == ["/"]
    actions = re.findall(r'form="lobby-form" formaction="([^"]+)"', main)
    assert actions == [f"/games/{game.slug}/play-anyone" for game in GAMES]


@pytest.mark.parametrize("slug", SLUGS)
def test_rules_page_states_the_perfect_play_result(slug):
    response = Client().get(f"/games/{slug}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "With perfect play" in html
    perfect = re.search(r'id="perfect-play">(.*?)</p>', html, re.S).group(1)
    if slug == "last-bit-standing":
        assert "Nobody can force a win" in perfect
    else:
        assert "wins with perfect play" in perfect


def test_unknown_game_and_unknown_match_are_404_pages():
    client = Client()
    assert client.get("/games/chess/").status_code == 404
    response = client.get("/m/no-such-match/")
    assert response.status_code == 404
    assert "this match does not exist" in response.content.decode()
    assert client.post("/m/no-such-match/move", {"move": "1", "ply": "0"}).status_code == 404


def _game_routes(patterns, prefix=""):
    """Every URL of the site that takes a ``<game:...>`` (any app's)."""
    from django.urls import URLPattern, URLResolver

    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _game_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and "<game:" in route:
            yield route


def test_every_game_path_is_a_404_for_an_unknown_game_before_any_view_runs():
    from django.urls import Resolver404, get_resolver, resolve

    routes = sorted(set(_game_routes(get_resolver().url_patterns)))
    # The game pages of every app: rules, new match, theory, puzzles, analysis, lobby,
    # leaderboard.
    assert len(routes) >= 9
    client = Client()
    for route in routes:
        path = "/" + re.sub(r"<game:\w+>", "chess", route).replace("<int:n>", "1")
        for method in (client.get, client.post):
            response = method(path)
            assert response.status_code == 404, (route, response.status_code)
        with pytest.raises(Resolver404):  # the path matches no route: no view runs
            resolve(path)
        assert resolve(path.replace("chess", SLUGS[0], 1)).func is not None


@pytest.mark.parametrize("slug", SLUGS)
def test_create_a_match_then_the_creator_sees_the_share_link(slug):
    client = Client()
    response = client.post(f"/games/{slug}/new/", form_data(slug, name="Ada"))
    assert response.status_code == 303
    match = Match.objects.get()
    assert response["Location"] == f"/m/{match.public_id}/"
    assert len(match.public_id) >= 16  # 96 random bits
    page = client.get(response["Location"]).content.decode()
    assert "Invite your opponent" in page
    assert f"/m/{match.public_id}/" in page
    assert "Waiting for an opponent" in page
    # The seat secret lives in the session, never in the page or the link.
    token = client.session["token"]
    assert token not in page
    assert match.seat1_secret != token


def test_bad_options_show_the_form_again_with_a_clear_message():
    client = Client()
    response = client.post(
        "/games/bit-flip-divisor/new/", form_data("bit-flip-divisor", divisor="1")
    )
    assert response.status_code == 400
    assert "greater than or equal to 2" in response.content.decode()
    response = client.post(
        "/games/bitwise-battle/new/",
        form_data("bitwise-battle", condition="ones", target="30", max_length="20"),
    )
    assert response.status_code == 400
    assert "from 1 to the maximum length (20)" in response.content.decode()
    assert Match.objects.count() == 0


def test_a_get_claims_nothing_and_join_takes_the_seat_once():
    match, _, _ = make_match("bit-flip", joined=False)
    url = f"/m/{match.public_id}/"
    visitor = Client()
    page = visitor.get(url).content.decode()
    assert "Join as the second player" in page
    match.refresh_from_db()
    assert match.seat2_secret == ""
    assert match.status == Match.Status.WAITING
    response = visitor.post(url + "join", {"name": "Bob"})
    assert response.status_code == 303
    page = visitor.get(url).content.decode()
    assert "You joined: you are Player 2 (Bob)." in page
    late = Client()
    response = late.post(url + "join", {"name": "Eve"}, **HTMX)
    assert response.status_code == 409
    assert "spectator" in response.content.decode()
    match.refresh_from_db()
    assert match.seat2_name == "Bob"


def play_through(slug, options=None):
    """Play a whole friend match through the views, each move by the right browser."""
    from games.rules import get_game

    match, t1, t2 = make_match(slug, options=options)
    clients = {t1: client_with_token(t1), t2: client_with_token(t2)}
    game = get_game(slug)
    while True:
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        move = game.legal_moves(match.current)[0]
        token = mover_token(match, t1, t2)
        response = clients[token].post(
            f"/m/{match.public_id}/move", {"move": move, "ply": match.ply}, **HTMX
        )
        assert response.status_code == 200, response.content.decode()
        assert 'id="board"' in response.content.decode()


@pytest.mark.parametrize(
    ("slug", "options"),
    [
        ("bitwise-battle", None),
        ("bit-flip", None),
        ("bit-flip-divisor", None),
        ("last-digit-standing", None),
        ("bitwise-battle", {"condition": "ones", "target": 2, "max_length": 6}),
    ],
)
def test_a_whole_match_through_the_views(slug, options):
    match = play_through(slug, options)
    assert match.winner in (1, 2)
    assert match.result_text
    assert Move.objects.filter(match=match).count() == match.ply


def test_last_bit_standing_ends_by_a_losing_move_through_the_views():
    match, t1, t2 = make_match("last-bit-standing")
    c1, c2 = client_with_token(t1), client_with_token(t2)
    c1.post(f"/m/{match.public_id}/move", {"move": "0", "ply": "0"})  # 10 = 2
    c2.post(f"/m/{match.public_id}/move", {"move": "0", "ply": "1"})  # 100 = 4
    response = c1.post(f"/m/{match.public_id}/move", {"move": "1", "ply": "2"}, **HTMX)
    html = response.content.decode()
    assert "1001 (decimal 9), which is divisible by 3" in html
    assert "You lose" in html


def test_refusals_come_back_as_the_board_with_a_message_and_a_4xx():
    match, t1, t2 = make_match("bit-flip")
    url = f"/m/{match.public_id}/move"
    c1, c2 = client_with_token(t1), client_with_token(t2)
    cases = [
        (c2, {"move": "1", "ply": "0"}, 409, "not your turn"),
        (c1, {"move": "1 3", "ply": "0"}, 422, "not adjacent"),
        (c1, {"move": "9", "ply": "0"}, 422, "There is no bit 9"),
        (c1, {"move": "banana", "ply": "0"}, 422, "Enter the bit number"),
        (c1, {"move": "1", "ply": "7"}, 409, "out of date"),
        (c1, {"move": "1"}, 400, "without its board"),
        (Client(), {"move": "1", "ply": "0"}, 403, "watching"),
    ]
    for client, data, status, text in cases:
        response = client.post(url, data, **HTMX)
        html = response.content.decode()
        assert response.status_code == status, (data, html)
        assert text in html
        assert 'id="board"' in html
        assert 'hx-swap-oob="innerHTML:#notice"' in html
    assert Move.objects.count() == 0


def test_without_javascript_a_refusal_redirects_and_shows_the_message():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1)
    response = client.post(f"/m/{match.public_id}/move", {"move": "1 3", "ply": "0"})
    assert response.status_code == 303
    page = client.get(response["Location"]).content.decode()
    assert "Bits 1 and 3 are not adjacent" in page
    assert Move.objects.count() == 0


def test_without_javascript_a_move_redirects_to_the_board():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1)
    response = client.post(f"/m/{match.public_id}/move", {"move": "4 5", "ply": "0"})
    assert response.status_code == 303
    page = client.get(response["Location"]).content.decode()
    assert "00011000" in page
    assert "Waiting for Player 2 (Bob)" in page


def test_csrf_applies_to_every_post():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1, enforce_csrf_checks=True)
    for action in ("move", "resign", "rematch", "hints", "join", "computer"):
        response = client.post(f"/m/{match.public_id}/{action}", {"move": "1", "ply": "0"})
        assert response.status_code == 403, action
    response = client.post("/games/bit-flip/new/", form_data("bit-flip"))
    assert response.status_code == 403
    assert Move.objects.count() == 0
    assert Match.objects.count() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_gets_are_refused_on_actions():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1)
    for action in ("move", "resign", "rematch", "hints", "join", "computer"):
        assert client.get(f"/m/{match.public_id}/{action}").status_code == 405


def test_spectators_see_the_board_without_controls():
    match, t1, _ = make_match("bit-flip")
    client_with_token(t1).post(f"/m/{match.public_id}/move", {"move": "3", "ply": "0"})
    page = Client().get(f"/m/{match.public_id}/").content.decode()
    assert "Player 2 (Bob) to move" in page
    assert "00100000" in page
    assert 'name="move"' not in page
    assert "Resign" not in page
    assert "Join" not in page


def test_computer_match_replies_and_hints_mark_winning_moves():
    client = Client()
    data = form_data("bit-flip", opponent="computer", level="perfect")
    response = client.post("/games/bit-flip/new/", data)
    match = Match.objects.get()
    url = response["Location"]
    page = client.get(url).content.decode()
    assert "Show hints" in page
    assert "(hint: winning)" not in page
    client.post(f"/m/{match.public_id}/hints", **HTMX)
    page = client.get(url).content.decode()
    assert 'aria-label="Flip bits 4 and 5 (hint: winning)"' in page
    response = client.post(f"/m/{match.public_id}/move", {"move": "4 5", "ply": "0"}, **HTMX)
    html = response.content.decode()
    assert "The computer is thinking" in html
    assert f'hx-post="/m/{match.public_id}/computer"' in html
    response = client.post(f"/m/{match.public_id}/computer", **HTMX)
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.ply == 2
    assert "Your turn" in response.content.decode()


def test_hints_are_not_offered_between_friends():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1)
    assert "Show hints" not in client.get(f"/m/{match.public_id}/").content.decode()
    response = client.post(f"/m/{match.public_id}/hints", **HTMX)
    assert response.status_code == 403


@pytest.mark.parametrize("mode", ["computer", "hotseat"])
def test_hints_are_refused_once_the_game_is_over_and_not_offered(mode):
    """The board hides the toggle on a finished match because the write path refuses it:
    one definition (games.rights.hints_refusal)."""
    match, t1, _ = make_match("bit-flip", mode=mode)
    client = client_with_token(t1)
    assert "Show hints" in client.get(f"/m/{match.public_id}/").content.decode()
    client.post(f"/m/{match.public_id}/resign", **HTMX)
    assert "Show hints" not in client.get(f"/m/{match.public_id}/").content.decode()
    response = client.post(f"/m/{match.public_id}/hints", **HTMX)
    assert response.status_code == 409 and "The game is over" in response.content.decode()
    match.refresh_from_db()
    assert match.hints is False


def test_computer_that_starts_moves_at_creation():
    client = Client()
    client.post(
        "/games/last-digit-standing/new/",
        form_data("last-digit-standing", opponent="computer", level="random", first="opponent"),
    )
    match = Match.objects.get()
    assert match.ply == 1
    assert match.moves.get().seat == 2


def test_hotseat_tells_whose_turn_it_is():
    client = Client()
    client.post(
        "/games/bit-flip/new/",
        form_data("bit-flip", opponent="hotseat", name="Ada", opponent_name="Bob"),
    )
    match = Match.objects.get()
    url = f"/m/{match.public_id}/"
    assert "Player 1 (Ada): your turn" in client.get(url).content.decode()
    client.post(url + "move", {"move": "1", "ply": "0"})
    assert "Player 2 (Bob): your turn" in client.get(url).content.decode()


def test_resign_and_rematch_through_the_views():
    match, t1, t2 = make_match("bit-flip")
    both_moved(match)
    c1, c2 = client_with_token(t1), client_with_token(t2)
    response = c1.post(f"/m/{match.public_id}/resign", **HTMX)
    assert "You lose" in response.content.decode()
    assert "Rematch" in response.content.decode()
    response = c2.post(f"/m/{match.public_id}/rematch", **HTMX)
    assert response.status_code == 200
    match.refresh_from_db()
    rematch_url = f"/m/{match.rematch.public_id}/"
    assert f'href="{rematch_url}" id="rematch-link" data-follow' in response.content.decode()
    # Both players hold their seats in the rematch, and Player 1 is now seat 2.
    page = c2.get(rematch_url).content.decode()
    assert "Your turn" in page
    page = c1.get(f"/m/{match.public_id}/").content.decode()
    assert "Go to the rematch" in page


junk_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["", " ", "1 2 3", "0", "-1", "99999999999999999999", "1\x00", "٣", "1e3"]),
)
junk_ply = st.one_of(st.none(), st.text(max_size=12), st.integers(-5, 5).map(str))


@pytest.mark.parametrize("slug", SLUGS)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=junk_text,
    ply=junk_ply,
    extra=st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3),
)
def test_junk_move_data_never_500s_and_writes_nothing_illegal(slug, text, ply, extra):
    match, t1, _ = make_match(slug)
    client = client_with_token(t1)
    game = match.rules
    data = {**extra, "move": text}
    if ply is not None:
        data["ply"] = ply
    before = Move.objects.filter(match=match).count()
    for headers in ({}, HTMX):
        response = client.post(f"/m/{match.public_id}/move", data, **headers)
        assert response.status_code < 500
    match.refresh_from_db()
    moves = list(match.moves.values_list("text", flat=True))
    legal = set(game.legal_moves(game.start(**match.options)))
    if moves:  # only a real move for ply 0 may have been written
        assert len(moves) == 1
        assert int(ply) == 0  # "0", " 0", "-0", "00" all name ply 0
        if slug != "bit-flip-divisor":  # there, an invalid bit is a recorded forfeit
            assert moves[0] in legal
    else:
        assert before == 0


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.dictionaries(st.text(max_size=20), st.text(max_size=30), max_size=6))
def test_junk_new_match_data_never_500s(data):
    for slug in SLUGS:
        response = Client().post(f"/games/{slug}/new/", data)
        assert response.status_code in (303, 400)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(max_size=80))
def test_junk_names_never_500_and_are_stored_clean(name):
    match, _, _ = make_match("bit-flip", joined=False)
    response = Client().post(f"/m/{match.public_id}/join", {"name": name})
    match.refresh_from_db()
    if "\x00" in name:  # refused at the edge (bitsite/edge.py): nothing changes
        assert response.status_code == 400
        assert match.seat2_secret == ""
        return
    assert response.status_code == 303
    assert len(match.seat2_name) <= 40
    assert "\x00" not in match.seat2_name
    assert match.seat2_name == match.seat2_name.strip()
