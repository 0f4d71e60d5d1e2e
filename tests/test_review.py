"""Replays: frames, verdicts, the summary, and the replay page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import review, review_views
from games.models import Match
from games.presenters.last_bit_standing import TILES
from games.rules import GAMES, Verdict, get_game
from tests.replays import (
    BLUNDER_GAME,
    logged_in,
    long_last_bit_match,
    played,
    seeded_moves,
    staff_user,
)

pytestmark = pytest.mark.django_db


def test_a_known_blunder_throws_the_win_and_the_summary_counts_it():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    assert (match.status, match.winner) == (Match.Status.FINISHED, 2)

    frames = review.replay_frames(match)
    assert [f.ply for f in frames] == [0, 1, 2, 3, 4]
    assert [f.position.bits for f in frames] == ["00000", "00100", "10100", "11100", "11111"]
    assert [f.verdict.verdict for f in frames[1:]] == [
        Verdict.KEEPS_WIN,
        Verdict.NO_WIN,
        Verdict.THROWS_WIN,
        Verdict.KEEPS_WIN,
    ]
    assert [f.verdict.blunder for f in frames[1:]] == [False, False, True, False]
    assert [f.analysis.winner for f in frames] == [1, 1, 1, 2, 2]
    assert set(frames[2].analysis.best_moves) == {"4", "5"}

    summary = review.summarize(match, frames)
    assert summary.blunders == {1: 1, 2: 0}
    assert summary.blunder_plies == (3,)
    assert [(f.ply, f.player, f.move, f.before, f.after) for f in summary.flips] == [
        (3, 1, "2", 1, 2)
    ]
    assert not summary.capped


def test_the_replay_page_shows_the_blunder_and_the_summary():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    html = Client().get(f"/m/{match.public_id}/replay/?ply=3").content.decode()
    status = re.search(r'id="replay-status".*?</p>', html, re.S).group(0)
    assert "Player 1 (Ada) <strong>flipped bit 2</strong>" in status
    assert "throws away the win: a blunder" in status
    assert "Player 2 (Bob) wins with perfect play, in 1 move." in html
    assert "Best move: flip bits 4 and 5." in html
    # The board is the live board's own partial, at ply 3, with the bit just flipped marked.
    assert 'id="binary" role="img" aria-label="Bits, 1 to 5: 11100"' in html
    shown = html.split("<template", 1)[0]  # the ply shown (then every ply's frame, held)
    assert re.findall(r'<span class="bit one last" data-position="(\d+)"', shown) == ["2"]
    # The summary: where it flipped and the blunders per player.
    flips = re.search(r'<ol class="flips".*?</ol>', html, re.S).group(0)
    assert "Move 3</a>: Player 1 (Ada) flipped bit 2;" in flips
    assert "from Player 1 (Ada) to Player 2 (Bob)" in flips
    blunders = re.search(r'id="blunders".*?</dl>', html, re.S).group(0)
    assert re.findall(r"<d[td]>(.*?)</d[td]>", blunders) == [
        "Player 1 (Ada)",
        "1",
        "Player 2 (Bob)",
        "0",
    ]
    # The current ply is the highlighted move.
    current = re.findall(r'<li value="(\d+)" data-ply="\d+" class="current"', html)
    assert current == ["3"]


# ---- every game, seeded ----------------------------------------------------------------


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
@pytest.mark.parametrize("seed", [1, 2])
def test_replay_verdicts_match_the_analysis_on_seeded_games(slug, seed):
    moves = seeded_moves(slug, seed)
    match = played(slug, moves)
    game = get_game(slug)
    frames = review.replay_frames(match)
    assert len(frames) == len(moves) + 1
    pos = game.start(**match.options)
    for frame, move in zip(frames[1:], moves, strict=True):
        assert frame.move.text == move
        assert frame.move.player == pos.to_move
        assert frame.verdict == game.analyse(pos).verdict(move)
        pos = game.play(pos, move)
        assert frame.position == pos
        assert frame.analysis == game.analyse(pos)
    # The replayed end is the stored position and result.
    assert game.to_json(frames[-1].position) == match.position
    assert frames[-1].position.result.winner == match.winner
    summary = review.summarize(match, frames)
    assert sum(summary.blunders.values()) == sum(f.verdict.blunder for f in frames[1:])


def test_only_the_plies_asked_for_are_kept():
    match = played("last-digit-standing", seeded_moves("last-digit-standing", 3))
    frames = review.replay_frames(match, [2, 0, 99])
    assert [f.ply for f in frames] == [0, 2]
    assert frames[1].move.ply == 2


def test_last_bit_standing_losing_bit_loses_at_once_and_is_a_blunder():
    match = played("last-bit-standing", ["0", "0", "1"])  # 10, 100 = 4, 1001 = 9: a multiple of 3
    frames = review.replay_frames(match)
    assert [f.verdict.verdict for f in frames[1:]] == [
        Verdict.SAFE,
        Verdict.SAFE,
        Verdict.LOSES_AT_ONCE,
    ]
    summary = review.summarize(match, frames)
    assert summary.blunders == {1: 1, 2: 0}
    assert [(f.ply, f.before, f.after) for f in summary.flips] == [(3, None, 2)]


def test_a_divisor_forfeit_replays_and_loses_at_once():
    match = played("bit-flip-divisor", ["8", "8"])  # bit 8 is already 1: an invalid move loses
    assert match.winner == 1
    frames = review.replay_frames(match)
    assert frames[2].verdict.verdict is Verdict.LOSES_AT_ONCE
    html = Client().get(f"/m/{match.public_id}/replay/?ply=2").content.decode()
    assert "loses at once" in html


def test_a_resigned_match_replays_to_its_last_move_and_says_who_resigned():
    match = played("bit-flip", ["1", "2"], resign=True)  # Player 1 (Ada) resigns
    html = Client().get(f"/m/{match.public_id}/replay/?ply=2").content.decode()
    assert "Player 1 (Ada) resigned." in html
    assert 'id="replay-next" aria-disabled="true"' in html


# ---- the page --------------------------------------------------------------------------


def test_stepping_links_work_without_javascript_and_the_ply_is_clamped():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"/m/{match.public_id}/replay/"
    assert 'id="replay" class="replay" data-ply="4"' in Client().get(url).content.decode()
    first = Client().get(url + "?ply=0").content.decode()
    assert 'data-ply="0"' in first
    assert f'id="replay-next" href="{url}?ply=1"' in first
    assert f'id="replay-last" href="{url}?ply=4"' in first
    assert 'id="replay-previous" aria-disabled="true"' in first
    assert "The start. Player 1 (Ada) moves first." in first
    last = Client().get(url + "?ply=999").content.decode()
    assert 'data-ply="4"' in last
    assert f'id="replay-previous" href="{url}?ply=3"' in last
    assert 'class="replay" data-ply="4"' in Client().get(url + "?ply=abc").content.decode()
    assert 'class="replay" data-ply="0"' in Client().get(url + "?ply=-3").content.decode()


def test_the_page_holds_every_plys_frame_drawn_by_the_server():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    html = Client().get(f"/m/{match.public_id}/replay/").content.decode()
    # The page asks for the frames once it has loaded: they are not in its first load.
    assert f'data-frames="/m/{match.public_id}/replay/frames"' in html
    assert "<template data-frame" not in html
    held = Client().get(f"/m/{match.public_id}/replay/frames").content.decode()
    assert held.startswith('<div id="replay-frames" hidden>')
    frames = dict(re.findall(r'<template data-frame="(\d+)">(.*?)</template>', held, re.S))
    assert sorted(map(int, frames)) == [0, 1, 2, 3, 4]
    # Each is what the page of that ply shows, drawn by the same partial.
    for ply, frame in frames.items():
        page = Client().get(f"/m/{match.public_id}/replay/?ply={ply}").content.decode()
        for part in ("replay-status", "position", "value"):
            assert f'id="{part}"' in frame
        shown = re.search(r'<p class="status" id="replay-status".*?</p>', page, re.S).group(0)
        assert shown in frame
    assert "1 to 5: 10100" in frames["2"] and "1 to 5: 11100" in frames["3"]
    assert "throws away the win: a blunder" in frames["3"]
    # The board comes first, the summary after it.
    assert html.index('id="position"') < html.index('id="summary"')


def test_a_match_too_long_to_hold_holds_no_frames():
    match = long_last_bit_match(1000)
    assert match.ply > review_views.HELD
    html = Client().get(f"/m/{match.public_id}/replay/").content.decode()
    assert 'id="replay-frames"' not in html  # nothing to ask for: every step asks the server
    assert f'data-ply="{match.ply}"' in html
    held = Client().get(f"/m/{match.public_id}/replay/frames").content.decode()
    assert "<template data-frame" not in held


def test_htmx_gets_only_the_replay_partial():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    response = Client().get(f"/m/{match.public_id}/replay/?ply=2", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="replay"')
    assert 'data-ply="2"' in html
    assert "<html" not in html
    assert "HX-Request" in response["Vary"]


def test_every_game_draws_its_board_with_the_live_partial():
    for game in GAMES:
        match = played(game.slug, seeded_moves(game.slug, 5))
        html = Client().get(f"/m/{match.public_id}/replay/?ply=1").content.decode()
        assert 'id="position"' in html
        marker = 'class="digits"' if game.slug == "last-digit-standing" else 'id="binary"'
        assert marker in html, game.slug


def test_the_finished_live_board_links_to_the_replay():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    html = Client().get(f"/m/{match.public_id}/").content.decode()
    assert f'href="/m/{match.public_id}/replay/" id="replay-link"' in html
    playing = played("bit-flip", ["3"], options={"width": 5})
    assert "replay-link" not in Client().get(f"/m/{playing.public_id}/").content.decode()


def test_an_unfinished_match_has_no_public_replay_but_staff_may_open_it():
    match = played("bit-flip", ["3"], options={"width": 5})
    url = f"/m/{match.public_id}/replay/"
    response = Client().get(url)
    html = response.content.decode()
    assert response.status_code == 404
    assert "opens once the game is over" in html
    assert "00100" not in html and "Ada" not in html and "wins with perfect play" not in html
    # Staff without the permission to view matches are treated like anyone else.
    assert logged_in(staff_user("nobody", perms=())).get(url).status_code == 404
    staff = logged_in(staff_user())
    html = staff.get(url + "?ply=1").content.decode()
    assert "00100" in html
    assert "not over yet" in html


def test_a_missing_match_is_404():
    assert Client().get("/m/nope/replay/").status_code == 404


# ---- long matches --------------------------------------------------------------------


def test_a_100000_move_match_replays_one_ply_at_a_time():
    match = long_last_bit_match(100_000)
    assert match.ply == 100_001 and match.status == Match.Status.FINISHED
    url = f"/m/{match.public_id}/replay/"
    html = Client().get(url + "?ply=50000").content.decode()
    assert "Ply <output" in html and ">50,000</output> of 100,001" in html
    listed = re.findall(r'<li value="(\d+)"', html)
    assert listed == [str(p) for p in range(50_000 - review.WINDOW, 50_000 + review.WINDOW + 1)]
    # The strip draws FULL + 1 plies around the one shown, with the ply shown marked.
    cells = strip_cells(html)
    assert [c["ply"] for c in cells] == list(range(49_900, 50_101))
    assert [c["ply"] for c in cells if c["now"]] == [50_000]
    assert "Moves 49,900 to 50,100 of 100,001 in a picture" in html
    assert html.count('class="current"') == 1
    # One board, of at most TILES tiles (a "…" and the last bits): never the whole number.
    assert html.count('id="binary"') == 1 and 0 < len(re.findall(r'class="bit[ "]', html)) <= TILES
    # The summary is capped, says so, and still finds the losing bit at the end.
    assert "the summary judges only the last 5,000 (moves 95,002 to 100,001)" in html
    assert "Move 100,001</a>" in html
    blunders = re.search(r'id="blunders".*?</dl>', html, re.S).group(0)
    assert re.findall(r"<dd>(\d+)</dd>", blunders) == ["1", "0"]
    end = Client().get(url + "?ply=100001").content.decode()
    assert "loses at once: a blunder" in end
    cells = strip_cells(end)
    assert [c["ply"] for c in cells] == list(range(100_001 - review.FULL, 100_002))
    assert [c["ply"] for c in cells if c["blunder"]] == [100_001]
    assert cells[-1]["winner"] == 2 and {c["winner"] for c in cells[:-1]} == {None}
    assert "which is divisible by 3" in end


def test_a_cancelled_match_says_there_is_nothing_to_replay():
    match = played("bit-flip", joined=False, resign=True)  # cancelled before anyone joined
    assert (match.status, match.winner, match.ply) == (Match.Status.FINISHED, None, 0)
    response = Client().get(f"/m/{match.public_id}/replay/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "Nothing to replay" in html
    assert "cancelled before an opponent joined: there is nothing to replay" in html
    assert 'id="replay-next"' not in html and "<li value=" not in html  # no empty replay
    assert 'href="/games/bit-flip/new/"' in html


# ---- every move listed, and the strip -------------------------------------------------


def strip_cells(html: str) -> list[dict]:
    """The strip's cells as drawn: ply, link, winner bar, blunder mark, current, title."""
    svg = re.search(r'<svg class="strip".*?</svg>', html, re.S).group(0)
    cells = []
    for match in re.finditer(r"<a (.*?)>(.*?)</a>", svg, re.S):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(1)))
        classes = attrs["class"].split()
        winner = {"w1": 1, "w2": 2, "w0": None}[classes[0]]
        cells.append(
            {
                "ply": int(attrs["data-ply"]),
                "href": attrs["href"],
                "winner": winner,
                "blunder": "blunder" in classes,
                "marked": 'class="mark"' in match.group(2),
                "now": "now" in classes,
                "current": attrs.get("aria-current") == "step",
                "tabindex": attrs["tabindex"],
                "title": re.search(r"<title>(.*?)</title>", match.group(2)).group(1),
            }
        )
    return cells


def listed_plies(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'<li value="(\d+)"', html)]


def test_every_ply_of_an_11_ply_game_is_listed_and_drawn():
    match = long_last_bit_match(10)  # 10 safe bits, then the losing one
    assert match.ply == 11
    url = f"/m/{match.public_id}/replay/"
    for ply in (0, 5, 11):
        html = Client().get(f"{url}?ply={ply}").content.decode()
        assert listed_plies(html) == list(range(12))
        assert "not listed" not in html
        cells = strip_cells(html)
        assert [c["ply"] for c in cells] == list(range(12))
        assert [c["ply"] for c in cells if c["now"]] == [ply]
        assert [c["ply"] for c in cells if c["current"]] == [ply]
        assert [c["tabindex"] for c in cells].count("0") == 1  # one tab stop: the ply shown


def test_every_ply_of_a_200_ply_game_is_listed_and_one_more_makes_a_window():
    match = long_last_bit_match(200, lose=False)  # still in play: staff may replay it
    assert match.ply == review.FULL == 200
    url = f"/m/{match.public_id}/replay/"
    html = logged_in(staff_user()).get(f"{url}?ply=100").content.decode()
    assert listed_plies(html) == list(range(201))
    assert "not listed" not in html
    svg = re.search(r'<svg class="strip".*?</svg>', html, re.S).group(0)
    assert len(strip_cells(html)) == 201
    # Compact: no text drawn per cell but the <title>, a few short elements per ply.
    assert "<text" not in svg and svg.count("<title>") == 201
    assert len(svg) < 201 * 420, len(svg)

    longer = long_last_bit_match(200)
    assert longer.ply == 201 and longer.status == Match.Status.FINISHED
    url = f"/m/{longer.public_id}/replay/"
    html = Client().get(f"{url}?ply=100").content.decode()
    assert listed_plies(html) == list(range(100 - review.WINDOW, 100 + review.WINDOW + 1))
    earlier = re.search(r'<p class="hint" id="earlier">.*?</p>', html, re.S).group(0)
    assert "92 earlier plies not listed" in earlier
    assert re.findall(r'href="([^"]*)"', earlier) == [f"{url}?ply=0"]  # 200 back is the start
    later = re.search(r'<p class="hint" id="later">.*?</p>', html, re.S).group(0)
    assert "93 later plies not listed" in later
    assert re.findall(r'href="([^"]*)"', later) == [f"{url}?ply=201"]
    assert [c["ply"] for c in strip_cells(html)] == list(range(0, 201))
    html = Client().get(f"{url}?ply=201").content.decode()
    assert [c["ply"] for c in strip_cells(html)] == list(range(1, 202))


def test_a_long_window_links_jump_back_and_on():
    match = long_last_bit_match(1000)
    url = f"/m/{match.public_id}/replay/"
    html = Client().get(f"{url}?ply=500").content.decode()
    earlier = re.search(r'<p class="hint" id="earlier">.*?</p>', html, re.S).group(0)
    later = re.search(r'<p class="hint" id="later">.*?</p>', html, re.S).group(0)
    assert re.findall(r'href="([^"]*)">([^<]*)</a>', earlier) == [
        (f"{url}?ply=300", "200 plies back"),
        (f"{url}?ply=0", "the start"),
    ]
    assert re.findall(r'href="([^"]*)">([^<]*)</a>', later) == [
        (f"{url}?ply=700", "200 plies on"),
        (f"{url}?ply=1001", "the end"),
    ]
    jumped = Client().get(f"{url}?ply=700").content.decode()
    assert 'data-ply="700" data-last="1001"' in jumped


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_the_strip_agrees_with_the_analysis_and_the_verdicts(slug):
    moves = seeded_moves(slug, 7)
    match = played(slug, moves)
    game = get_game(slug)
    url = f"/m/{match.public_id}/replay/"
    html = Client().get(f"{url}?ply=2").content.decode()
    cells = strip_cells(html)
    assert [c["ply"] for c in cells] == list(range(len(moves) + 1))
    assert listed_plies(html) == list(range(len(moves) + 1))
    pos = game.start(**match.options)
    blunders = []
    for cell, move in zip(cells, [None, *moves], strict=True):
        if move is not None:
            verdict = game.analyse(pos).verdict(move)
            pos = game.play(pos, move)
            if verdict.blunder:
                blunders.append(cell["ply"])
        assert cell["winner"] == game.analyse(pos).winner, (slug, cell["ply"])
        assert cell["href"] == f"{url}?ply={cell['ply']}"  # a link (replay.js takes it over)
        assert cell["blunder"] == cell["marked"]
    assert [c["ply"] for c in cells if c["blunder"]] == blunders
    # The one definition: the summary's blunders are the strip's marks.
    summary = review.summarize(match, review.replay_frames(match))
    assert tuple(blunders) == summary.blunder_plies


def test_the_strip_of_the_known_blunder_and_its_words():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"/m/{match.public_id}/replay/"
    html = Client().get(f"{url}?ply=1").content.decode()
    cells = strip_cells(html)
    assert [(c["ply"], c["winner"], c["blunder"]) for c in cells] == [
        (0, 1, False),
        (1, 1, False),
        (2, 1, False),
        (3, 2, True),
        (4, 2, False),
    ]
    assert cells[0]["title"] == "The start: Player 1 (Ada) can force a win."
    assert cells[3]["title"] == (
        "Move 3: Player 1 (Ada) flipped bit 2, a blunder. Then Player 2 (Bob) can force a win."
    )
    label = re.search(r'<svg class="strip"[^>]*aria-label="([^"]*)"', html).group(1)
    assert label == (
        "The whole game in a picture: who could force a win after each move: "
        "Player 1 (Ada) from the start to move 2; Player 2 (Bob) from move 3 to the end. "
        "Blunders: move 3."
    )
    # Each cell's link is the replay at its ply: following one shows that ply.
    jumped = Client().get(cells[3]["href"]).content.decode()
    assert 'data-ply="3"' in jumped
    assert [c["ply"] for c in strip_cells(jumped) if c["now"]] == [3]
    # htmx gets the strip inside the partial it swaps.
    partial = Client().get(cells[3]["href"], headers={"HX-Request": "true"}).content.decode()
    assert [c["ply"] for c in strip_cells(partial) if c["now"]] == [3]
