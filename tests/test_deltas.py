"""A push carries what changed: the board's slots that differ from the board before it.

Checked as a page applies it (htmx's websocket extension swaps each element of a message
into the element of the page with its id; site.js then gives the board the version, ply and
last move of ``#board-state``), with a parser of its own rather than the slot markers
``games.boards.delta`` reads: for every game and every kind of viewer, in every mode, over
whole games, the board a page makes from the one it showed and the push is the board a
reload draws.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from games import boards, live, play
from games.models import Match
from games.rights import kinds
from games.rules import GAMES
from tests.factories import make_match

pytestmark = pytest.mark.django_db

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
BOARD_ATTRIBUTES = ("data-version", "data-ply", "data-last-move")


class _Elements(HTMLParser):
    """Where each outermost element of a fragment starts and ends, with its id."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.depth, self.found, self.start, self.attrs = 0, [], 0, {}

    def _offset(self) -> int:
        line, column = self.getpos()
        return sum(len(text) for text in self.lines[: line - 1]) + column

    def handle_starttag(self, tag, attrs):
        if self.depth == 0:
            self.start, self.attrs = self._offset(), dict(attrs)
        if tag not in VOID:
            self.depth += 1
        elif self.depth == 0:
            self.found.append(
                (self.attrs, self.start, self._offset() + len(self.get_starttag_text()))
            )

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        self.depth -= 1
        if self.depth == 0:
            end = self.rawdata.index(">", self._offset()) + 1
            self.found.append((self.attrs, self.start, end))


def outermost(html: str) -> list[tuple[dict, str]]:
    """The outermost elements of ``html``: (attributes, markup)."""
    parser = _Elements()
    parser.lines = html.splitlines(keepends=True)
    parser.feed(html)
    parser.close()
    return [(attrs, html[start:end]) for attrs, start, end in parser.found]


def element_with_id(html: str, id_: str) -> tuple[int, int]:
    """Where the element with this id starts and ends in ``html`` (at any depth)."""
    start = html.index(f'id="{id_}"')
    start = html.rindex("<", 0, start)
    tag = re.match(r"<(\w+)", html[start:]).group(1)
    depth, at = 0, start
    for found in re.finditer(rf"<(/?){tag}\b[^>]*>", html[start:]):
        depth += -1 if found.group(1) else 1
        if depth == 0:
            at = start + found.end()
            break
    return start, at


def apply(page: str, pushed: str) -> str:
    """The board a page showing ``page`` shows after the push ``pushed`` (a delta)."""
    board, _, _ = page.partition(boards.BOARD_END)
    elements = outermost(pushed[pushed.index("-->") + 3 :])
    tail = ""
    for attrs, markup in elements:
        oob = attrs.get("hx-swap-oob", "true")
        if oob.startswith("innerHTML:"):  # the status line and a notice: after the board
            tail += markup
        elif oob == "delete":
            start, end = element_with_id(board, attrs["id"])
            board = board[:start] + board[end:]
        elif oob.startswith("beforeend:#"):  # the element's content, at the target's end
            start, end = element_with_id(board, oob.split("#", 1)[1])
            inner = markup[markup.index(">") + 1 : markup.rindex("<")]
            closing = board.rindex("<", start, end)
            board = board[:closing] + inner + board[closing:]
        else:
            assert oob == "true", oob
            start, end = element_with_id(board, attrs["id"])
            board = board[:start] + markup + board[end:]
    state = dict(re.findall(r'(data-[\w-]+)="([^"]*)"', element_of(board, "board-state")))
    for name in BOARD_ATTRIBUTES:
        value = state[name].replace("\\", "\\\\")
        board = re.sub(rf'(id="board"[^>]*?{name}=")[^"]*"', rf"\g<1>{value}" + '"', board)
    return board, tail


def element_of(html: str, id_: str) -> str:
    start, end = element_with_id(html, id_)
    return html[start:end]


def without_status(html: str) -> tuple[str, str]:
    board, _, tail = html.partition(boards.BOARD_END)
    return board, "".join(markup for _, markup in outermost(tail))


def test_the_move_list_gets_its_new_rows_and_loses_the_rows_that_scrolled_out_of_it():
    """Past the rows it shows (boards.HISTORY_SHOWN), a push of the move list is its new
    row, the deleted oldest one and its count: about as small at every move."""
    match, _, _ = make_match("last-bit-standing")
    pushes: list = []
    play_out(match, boards.HISTORY_SHOWN + 4, {}, safe=True, pushes=pushes)
    assert match.status == Match.Status.PLAYING
    for ply, _, pushed in pushes:
        # The whole list only when its first row comes; then its rows, one at a time.
        assert ('id="history"' in pushed) == (ply == 1), (ply, pushed)
        if ply > 1:
            assert pushed.count('<ol hx-swap-oob="beforeend:#moves-list"><li id=') == 1
            assert pushed.count('hx-swap-oob="delete"') == (ply > boards.HISTORY_SHOWN)
            assert f'id="move-{ply}"' in pushed and f"Moves ({ply})" in pushed


def play_out(
    match: Match, plies: int, seen: dict, *, safe: bool = False, pushes: list | None = None
) -> list[int]:
    """Play ``plies`` moves (a middle legal move each), drawing every kind's board at each
    version and checking each push against the board before it; the sizes of the pushes."""
    sizes = []
    for _ in range(plies + 1):
        match.refresh_from_db()
        for viewer, html in boards.render_kinds(match).items():
            if viewer in seen:
                version, before = seen[viewer]
                pushed = boards.delta(before, html, version)
                assert pushed is not None and pushed.startswith(f"<!--delta:{version}-->")
                board, tail = apply(before, pushed)
                expected_board, expected_tail = without_status(html)
                assert board == expected_board, (match.rules.slug, viewer, match.ply)
                assert tail == expected_tail
                assert len(pushed) < len(html)
                sizes.append(len(pushed.encode()))
                if pushes is not None:
                    pushes.append((match.ply, viewer, pushed))
            seen[viewer] = (match.version, html)
        if match.status != Match.Status.PLAYING:
            break
        moves = match.rules.legal_moves(match.current)
        if safe:  # a move that does not end the game, where there is one
            moves = match.rules.safe_moves(match.current) or moves
        seat = match.seat_of_player(match.current.to_move)
        if seat == match.computer_seat:
            play.computer_move(match.public_id)
            continue
        play.submit_move(
            match.public_id,
            by=play.Actor(frozenset({seat})),
            text=moves[len(moves) // 2],
            ply=match.ply,
        )
    return sizes


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_a_push_turns_the_board_before_it_into_the_board_after_it_in_every_game(slug):
    match, _, _ = make_match(slug)
    sizes = play_out(match, 12, {})
    assert sizes, "no move was pushed"
    clocked, _, _ = make_match(
        slug, time_control={"clock": "realtime", "base": 180, "increment": 2}
    )
    assert play_out(clocked, 6, {})


@pytest.mark.parametrize("mode", ["hotseat", "computer"])
def test_every_kind_of_viewer_of_every_mode(mode):
    match, _, _ = make_match("last-digit-standing", mode=mode)
    seen: dict = {}
    play_out(match, 3, seen)
    assert set(seen) == {viewer.key for viewer in kinds(match)}


def test_the_end_of_a_game_and_a_draw_offer_are_pushed_as_what_changed():
    match, _, _ = make_match("last-digit-standing")
    seen: dict = {}
    play_out(match, 2, seen)
    assert match.status == Match.Status.PLAYING
    play.offer_draw(match.public_id, by=play.Actor(frozenset({1})))
    play_out(match, 0, seen)
    play.resign(match.public_id, by=play.Actor(frozenset({2})))
    play_out(match, 0, seen)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_boards_of_other_slots_are_never_pushed_as_a_delta():
    match, _, _ = make_match("bit-flip")
    html = boards.render_kinds(match)["spectator"]
    fewer = html.replace("<!--s:history-->", "").replace("<!--/s-->\n</section>", "\n</section>")
    assert boards.delta(fewer, html, 1) is None
    assert boards.delta(html, "<p>no board</p>", 1) is None
    # What lies between the slots changed (a seat's frame), or a slot emptied: whole.
    reframed = html.replace('class="player above', 'class="player above is-viewer', 1)
    assert reframed != html and boards.delta(html, reframed, 1) is None
    emptied = re.sub(r"(<!--s:actions-->).*?(<!--/s-->)", r"\1\2", html, count=1, flags=re.S)
    assert emptied != html and boards.delta(html, emptied, 1) is None


def test_the_last_board_pushed_is_kept_per_kind_and_a_late_older_one_never_replaces_it():
    kept = live.Drawn(2)
    assert kept.swap(("m", "spectator"), (1, "one")) is None
    assert kept.swap(("m", "spectator"), (3, "three")) == (1, "one")
    assert kept.swap(("m", "spectator"), (2, "two")) == (3, "three")  # older: not kept
    assert kept.swap(("m", "spectator"), (4, "four")) == (3, "three")
    # The same version drawn again, otherwise: pages keep the first, so neither is kept.
    assert kept.swap(("m", "spectator"), (4, "four, again")) is None
    assert kept.swap(("m", "spectator"), (5, "five")) is None
    kept.swap(("n", "spectator"), (1, "n"))
    assert kept.swap(("n", "spectator"), (2, None)) == (1, "n")  # a finished match's
    assert ("n", "spectator") not in kept.boards
    kept.swap(("n", "spectator"), (1, "n"))
    kept.swap(("o", "spectator"), (1, "o"))  # the least recently used goes: "m"
    assert kept.swap(("m", "spectator"), (6, "six")) is None
