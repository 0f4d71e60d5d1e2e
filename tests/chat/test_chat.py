"""A match's chats (chat/): who reads and writes each room, the limits, mutes, blocks,
reports, moderation, the replay and the admin, every message escaped."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from chat import live, talk
from chat.models import MAX_LENGTH, Message, Mute, Report, Room, Silence
from games.rights import Viewer
from people import challenges
from tests.factories import client_with_token, make_match
from tests.ratings.helpers import account, rated_match, resign
from tests.ratings.helpers import signed_in as signed_in_only

pytestmark = pytest.mark.django_db(transaction=True)

HX = {"HTTP_HX_REQUEST": "true"}
SEAT1, SEAT2, SPECTATOR = Viewer(frozenset({1})), Viewer(frozenset({2})), Viewer()

# What the site's other pages are tested with: markup, handlers, script URLs, entities,
# a closing tag of the log itself.
XSS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">click</a>',
    '"><svg onload=alert(1)>',
    "</ol><script>alert(1)</script>",
    "&lt;b&gt; &amp; {{ 7|add:1 }} {% now 'Y' %}",
]


def signed_in(user, token: str | None = None) -> Client:
    """A browser signed in as ``user``, holding ``token``'s seat if given."""
    client = signed_in_only(user)
    if token:
        session = client.session
        session["token"] = token
        session.save()
    return client


def say_url(match, room):
    return f"/m/{match.public_id}/chat/{room}"


def lines(html: str, room: str) -> list[str]:
    """The texts of the messages a page shows in ``room``'s log, as sent (escaped)."""
    log = re.search(rf'<ol class="chat-log" id="chat-log-{room}".*?</ol>', html, re.S)
    assert log, f"no {room} chat on the page"
    return re.findall(r'<span class="chat-text">(.*?)</span>', log.group(0), re.S)


def page(client, match) -> str:
    return client.get(match.get_absolute_url()).content.decode()


@pytest.fixture
def friends():
    match, t1, t2 = make_match("bit-flip", name="Ada", opponent="Bob")
    return match, client_with_token(t1), client_with_token(t2)


def test_the_two_players_talk_and_a_spectator_reads_neither_side(friends):
    match, ada, bob = friends
    response = ada.post(say_url(match, "players"), {"text": "  good   luck\n"}, **HX)
    assert response.status_code == 200
    assert lines(response.content.decode(), "players") == ["good luck"]
    bob.post(say_url(match, "players"), {"text": "you too"})
    assert lines(page(bob, match), "players") == ["good luck", "you too"]
    assert lines(page(ada, match), "players") == ["good luck", "you too"]
    names = [m.name for m in Message.objects.filter(match=match)]
    assert names == ["Ada", "Bob"]
    watcher = page(Client(), match)
    assert "chat-log-players" not in watcher and "good luck" not in watcher
    assert lines(watcher, "spectators") == []
    assert "Sign in to write in the spectators&#x27; chat." in watcher


def test_without_javascript_a_message_is_a_post_and_a_redirect_to_the_chat(friends):
    match, ada, _ = friends
    response = ada.post(say_url(match, "players"), {"text": "hi"})
    assert response.status_code == 303
    assert response["Location"] == f"{match.get_absolute_url()}#chat-players"
    response = ada.post(say_url(match, "players"), {"text": ""}, follow=True)
    assert "Write something first." in response.content.decode()
    assert Message.objects.count() == 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "Write something first."),
        (" \n\t \u200b\u202e ", "Write something first."),
        ("x" * (MAX_LENGTH + 1), f"at most {MAX_LENGTH} characters ({MAX_LENGTH + 1} written)"),
    ],
)
def test_an_empty_or_too_long_message_is_refused_and_nothing_is_kept(friends, text, said):
    match, ada, _ = friends
    response = ada.post(say_url(match, "players"), {"text": text}, **HX)
    assert response.status_code == 400
    assert said in response.content.decode()
    assert not Message.objects.exists()


def test_control_and_direction_characters_are_taken_out():
    assert talk.clean("a\u202eb\u200bc\x00d\n\ne") == "abcd e"


@pytest.mark.parametrize("payload", XSS)
def test_every_message_is_escaped_on_the_page_the_push_and_the_replay(friends, payload):
    match, ada, bob = friends
    response = ada.post(say_url(match, "players"), {"text": payload}, **HX)
    assert response.status_code == 200
    for html in (
        response.content.decode(),
        page(bob, match),
        live.log_html(match, Room.PLAYERS, SEAT2, oob=True),  # what the push sends
    ):
        assert lines(html, "players") == [escape(payload)]
        assert "<script>alert" not in html and "onerror=" not in html.replace("onerror=&quot;", "")
    resign(match, ada.session["token"])
    replay = ada.get(f"/m/{match.public_id}/replay/").content.decode()
    assert escape(payload) in replay and "<script>alert(1)" not in replay


def escape(text: str) -> str:
    from django.utils.html import escape as django_escape

    return django_escape(text)


def test_links_are_shown_as_text():
    match, t1, _ = make_match()
    html = (
        client_with_token(t1)
        .post(say_url(match, "players"), {"text": "see https://example.com/x"}, **HX)
        .content.decode()
    )
    assert lines(html, "players") == ["see https://example.com/x"]
    assert 'href="https://example.com' not in html


def test_only_signed_in_spectators_write_in_the_spectators_chat_and_players_do_not(friends):
    match, ada, _ = friends
    anonymous = Client()
    response = anonymous.post(say_url(match, "spectators"), {"text": "hello"}, **HX)
    assert response.status_code == 403
    assert "Sign in to write" in response.content.decode()
    cleo = signed_in(account("cleo"))
    response = cleo.post(say_url(match, "spectators"), {"text": "nice move"}, **HX)
    assert response.status_code == 200
    assert lines(response.content.decode(), "spectators") == ["nice move"]
    assert Message.objects.get().name == "cleo"
    assert lines(page(anonymous, match), "spectators") == ["nice move"]
    # A player neither reads it nor writes in it while playing.
    assert "nice move" not in page(ada, match)
    response = ada.post(say_url(match, "spectators"), {"text": "hi"}, **HX)
    assert response.status_code == 403 and Message.objects.count() == 1
    # Nor does a spectator write in the players' chat.
    response = cleo.post(say_url(match, "players"), {"text": "psst"}, **HX)
    assert response.status_code == 403 and Message.objects.count() == 1


def test_a_match_against_the_computer_or_on_one_device_has_no_players_chat():
    for mode in ("computer", "hotseat"):
        match, t1, _ = make_match(mode=mode)
        client = client_with_token(t1)
        assert "chat-log-players" not in page(client, match)
        assert client.post(say_url(match, "players"), {"text": "hi"}, **HX).status_code == 403
    assert not Message.objects.exists()


def test_an_unknown_room_or_match_is_a_404():
    match, t1, _ = make_match()
    client = client_with_token(t1)
    assert client.post(say_url(match, "everyone"), {"text": "hi"}).status_code == 404
    assert client.post("/m/AAAAAAAAAAAAAAAA/chat/players", {"text": "hi"}).status_code == 404
    assert client.get(say_url(match, "players")).status_code == 405


def test_the_forms_need_the_csrf_token():
    match, t1, _ = make_match()
    client = client_with_token(t1, enforce_csrf_checks=True)
    assert client.post(say_url(match, "players"), {"text": "hi"}).status_code == 403
    assert client.post(f"/m/{match.public_id}/chat/mute", {"muted": "1"}).status_code == 403
    assert not Message.objects.exists() and not Mute.objects.exists()


def test_no_chat_between_two_players_when_one_blocked_the_other():
    ada, bob = account("ada"), account("bob")
    match, t1, t2 = rated_match(ada, bob, rated=False)
    challenges.block(bob, ada)
    for user, token in ((ada, t1), (bob, t2)):
        client = signed_in(user, token)
        response = client.post(say_url(match, "players"), {"text": "hi"}, **HX)
        assert response.status_code == 403
        assert "The chat is off between you and this player." in response.content.decode()
    assert not Message.objects.exists()


def test_a_player_mutes_the_other_who_is_not_told(friends):
    match, ada, bob = friends
    bob.post(say_url(match, "players"), {"text": "first"})
    response = ada.post(f"/m/{match.public_id}/chat/mute", {"muted": "1"}, **HX)
    assert "You no longer read the other player&#x27;s messages" in response.content.decode()
    assert lines(response.content.decode(), "players") == []
    bob.post(say_url(match, "players"), {"text": "second"})
    ada.post(say_url(match, "players"), {"text": "mine"})
    assert lines(page(ada, match), "players") == ["mine"]
    bob_page = page(bob, match)
    assert lines(bob_page, "players") == ["first", "second", "mine"]
    assert "mute" not in bob_page.lower().split("chat-log-players")[1].split("</section>")[0] or (
        "Mute the other player" in bob_page
    )  # Bob sees his own mute button, nothing about Ada's
    ada.post(f"/m/{match.public_id}/chat/mute", {"muted": "0"})
    assert lines(page(ada, match), "players") == ["first", "second", "mine"]


def test_a_players_page_reads_whether_they_muted_the_other_once(friends):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match, ada, bob = friends
    ada.post(f"/m/{match.public_id}/chat/mute", {"muted": "1"})
    bob.post(say_url(match, "players"), {"text": "hidden from Ada"})
    with CaptureQueriesContext(connection) as seen:
        html = page(ada, match)
    assert lines(html, "players") == []
    assert 'name="muted" value="0"' in html  # the button offers to unmute
    assert sum('"chat_mute"' in q["sql"] for q in seen.captured_queries) == 1


def test_an_account_muted_site_wide_is_read_by_nobody_else():
    ada, bob, cleo = account("ada"), account("bob"), account("cleo")
    match, t1, t2 = rated_match(ada, bob, rated=False)
    staff = account("mod")
    talk.silence(ada, 24, "abuse", staff)
    a, b = signed_in(ada, t1), signed_in(bob, t2)
    response = a.post(say_url(match, "players"), {"text": "you are bad"}, **HX)
    assert response.status_code == 200  # the author is not told...
    assert lines(response.content.decode(), "players") == ["you are bad"]
    assert lines(page(a, match), "players") == ["you are bad"]
    assert lines(page(b, match), "players") == []  # ...and nobody else reads it
    assert lines(live.log_html(match, Room.PLAYERS, SEAT2), "players") == []
    assert Message.objects.get().shadowed
    # In a spectators' chat its words would reach nobody but itself: refused, with when.
    talk.silence(cleo, 1, "spam", staff)
    response = signed_in(cleo).post(say_url(match, "spectators"), {"text": "buy"}, **HX)
    assert response.status_code == 403
    assert "Your account is muted in chat until" in response.content.decode()
    assert Message.objects.count() == 1
    # Once the silence is over, what it writes is read again.
    Silence.objects.filter(user=ada).delete()
    a.post(say_url(match, "players"), {"text": "sorry"})
    assert lines(page(b, match), "players") == ["sorry"]


def test_a_report_keeps_the_messages_around_it_and_reaches_the_admin(friends):
    match, ada, bob = friends
    for n in range(8):
        (ada if n % 2 else bob).post(say_url(match, "players"), {"text": f"line {n}"})
    reported = Message.objects.get(text="line 4")  # Bob's
    url = f"/m/{match.public_id}/chat/{reported.pk}/report"
    response = ada.post(url, {"reason": "abuse"}, **HX)
    assert response.status_code == 200
    assert "the moderators will read" in response.content.decode()
    report = Report.objects.get()
    assert report.by_name == "Ada" and report.reason == "abuse" and report.match == match
    assert [m["text"] for m in report.context] == [f"line {n}" for n in range(8)]
    assert [m["reported"] for m in report.context].index(True) == 4
    again = ada.post(url, {"reason": "spam"}, **HX)
    assert again.status_code == 409 and "reported this message already" in again.content.decode()
    own = Message.objects.get(text="line 3")  # Ada's
    mine = ada.post(f"/m/{match.public_id}/chat/{own.pk}/report", {"reason": "abuse"}, **HX)
    assert mine.status_code == 400 and "That message is yours." in mine.content.decode()
    bad = ada.post(url, {"reason": "<b>"}, **HX)
    assert bad.status_code == 400
    # A stranger cannot report what they cannot read.
    assert Client().post(url, {"reason": "abuse"}, **HX).status_code == 404
    assert Report.objects.count() == 1
    staff = get_user_model().objects.create_superuser("mod", "mod@example.com", "pw-Long-enough-1")
    admin = Client()
    admin.force_login(staff)
    listing = admin.get("/admin/chat/report/").content.decode()
    assert "line 4" in listing and "Insult or harassment" in listing
    detail = admin.get(f"/admin/chat/report/{report.pk}/change/").content.decode()
    assert "line 0" in detail and "line 7" in detail
    # The staff hide it: nobody reads it any more; then mute its author (an anonymous
    # seat has no account: said so).
    admin.post(
        "/admin/chat/report/",
        {"action": "hide_messages", "_selected_action": [report.pk]},
    )
    assert Message.objects.get(pk=reported.pk).hidden
    assert "line 4" not in lines(page(ada, match), "players")
    assert "line 4" not in lines(page(bob, match), "players")
    assert Report.objects.get().resolved
    match_admin = admin.get(f"/admin/games/match/{match.pk}/change/").content.decode()
    assert "line 7" in match_admin  # the chat is kept with the match


def test_the_admin_mutes_an_author_for_a_day():
    ada, bob = account("ada"), account("bob")
    match, t1, _ = rated_match(ada, bob, rated=False)
    signed_in(ada, t1).post(say_url(match, "players"), {"text": "spam spam"})
    staff = get_user_model().objects.create_superuser("mod", "mod@example.com", "pw-Long-enough-1")
    admin = Client()
    admin.force_login(staff)
    message = Message.objects.get()
    admin.post("/admin/chat/message/", {"action": "mute_day", "_selected_action": [message.pk]})
    silence = Silence.objects.get(user=ada)
    assert silence.by == staff and Silence.active_for(ada.pk) == silence


def test_the_replay_shows_the_spectators_chat_to_all_and_the_players_chat_to_its_players():
    ada, bob, cleo = account("ada"), account("bob"), account("cleo")
    match, t1, t2 = rated_match(ada, bob, rated=False)
    a = signed_in(ada, t1)
    a.post(say_url(match, "players"), {"text": "good game"})
    signed_in(cleo).post(say_url(match, "spectators"), {"text": "well played"})
    resign(match, t2)
    replay = f"/m/{match.public_id}/replay/"
    mine = a.get(replay).content.decode()
    assert "good game" in mine and "well played" in mine
    theirs = Client().get(replay).content.decode()
    assert "well played" in theirs and "good game" not in theirs


def test_one_account_is_limited_on_every_browser_and_address_together(settings):
    """One account signed in on many browsers, from as many addresses, is one writer."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "chat": ("3/m", "100/m")}
    match, _, _ = make_match()
    eve = get_user_model().objects.create_user("eve", password=None)
    browsers = [signed_in(eve) for _ in range(5)]
    answers = [
        browser.post(
            say_url(match, "spectators"), {"text": f"e{n}"}, REMOTE_ADDR=f"198.51.100.{n}", **HX
        ).status_code
        for n, browser in enumerate(browsers)
    ]
    assert answers == [200, 200, 200, 429, 429]
    assert Message.objects.count() == 3
    # Another account, from the same addresses, writes on.
    cy = signed_in(get_user_model().objects.create_user("cy", password=None))
    answer = cy.post(say_url(match, "spectators"), {"text": "hi"}, REMOTE_ADDR="198.51.100.1", **HX)
    assert answer.status_code == 200


def test_writing_is_limited_per_browser_and_per_address(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "chat": ("3/m", "5/m")}
    match, t1, t2 = make_match()
    ada = client_with_token(t1, REMOTE_ADDR="203.0.113.7")
    answers = [
        ada.post(say_url(match, "players"), {"text": f"m{n}"}, **HX).status_code for n in range(4)
    ]
    assert answers == [200, 200, 200, 429]
    assert Message.objects.count() == 3
    # Bob, from the same address: two more, then the address's limit.
    bob = client_with_token(t2, REMOTE_ADDR="203.0.113.7")
    answers = [
        bob.post(say_url(match, "players"), {"text": f"b{n}"}, **HX).status_code for n in range(3)
    ]
    assert answers == [200, 200, 429]
    limited = bob.post(say_url(match, "players"), {"text": "kept"}, **HX).content.decode()
    assert "faster than anyone plays" in limited and 'value="kept"' in limited
    assert Message.objects.count() == 5
