"""What a viewer sees of a match: the context of the board partial.

Used by the views (HTTP and htmx), by the live layer (which renders each change once
per kind of viewer, games/live.py) and by the websocket consumer's snapshots, so a
pushed board is exactly the board a reload would show. What a viewer may do comes
from games/rights.py, which the write path also asks. No rules here: everything about
the game comes from games.rules.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from games import clock, extras, presence
from games.models import Match
from games.presenters import presenter_for
from games.rights import Viewer, kinds, rights, shows_hints
from games.rules import IllegalMove

HISTORY_SHOWN = 40
# The move list says what each move made ("appended 1: 1011 = 11"). A move's words are
# made once, when it is the newest (from the stored position), and kept in this
# process's memory: the log only grows, so they never change. Words this process has
# not kept (after a restart, or made by another process) come from one replay of the
# log while the match is at most DESCRIBED_PLIES long; beyond, those moves are told
# without the position they made.
DESCRIBED_PLIES = 300
WORDS_KEPT = 50_000  # moves' words in memory, least recently used dropped first
# The rows of the move list (ply, player, text) of a match's version, kept in memory too:
# a push extends the previous version's rows by the move the write path just recorded,
# so a move costs no query for its move list. Keyed by (match, ply): a committed ply's
# last moves never change (no move is ever taken back or rewritten), so the rows kept are
# right in every process, whichever one wrote the move.
ROWS_KEPT = 5_000


@dataclass(frozen=True)
class Scene:
    """What every viewer of one version of a match shares: read and drawn once, then put
    into each viewer's board."""

    match: Match
    moves: list[dict]  # the last moves shown: ply, player, name, text, words, touched
    online: frozenset[int]
    history: str  # the move list, drawn
    urls: dict[str, str]  # the match's actions
    notes: tuple = ()  # the notes under a finished match's result (games/extras.py)
    away: dict = field(default_factory=dict)  # seat -> seconds since its last page closed
    marks: dict = field(default_factory=dict)  # seat -> HTML after its name (games/extras.py)

    @property
    def last_move(self) -> str:
        """The last move in plain words: "Player 1 (Ann) appended 1: 1011 = 11"."""
        if not self.moves or self.moves[-1]["ply"] != str(self.match.ply):
            return ""
        move = self.moves[-1]
        return f"{move['name']} {move['words']}"

    @property
    def touched(self) -> frozenset[str]:
        """The board's cells the last move touched."""
        if not self.moves or self.moves[-1]["ply"] != str(self.match.ply):
            return frozenset()
        return self.moves[-1]["touched"]


@dataclass(frozen=True)
class DrawDeclined:
    """What a change tells the player whose draw offer it declined (the write path says
    so when it declines one: games/play.py); the sentence is made where it is shown
    (``told_notice``)."""

    offerer: int  # the seat whose offer it was
    by_move: bool = False  # declined by the opponent's move, not by an answer


def told_notice(match: Match, viewer: Viewer, told: DrawDeclined | None) -> str:
    """The notice a change tells this viewer: a declined offer, to its offerer only."""
    if told is None or told.offerer not in viewer.seats or 3 - told.offerer in viewer.seats:
        return ""
    by = 3 - told.offerer
    if by == match.computer_seat:
        if told.by_move:
            return "The computer played on: your draw offer is declined."
        return "The computer declines: one side can still force a win."
    name = match.player_name(match.player_of_seat(by))
    if told.by_move:
        return f"{name} played on: your draw offer is declined."
    return f"{name} declines your draw offer."


ACTIONS = (
    "match",  # the share link
    "move",
    "join",
    "computer",
    "hints",
    "resign",
    "rematch",
    "replay",
    "offer_draw",
    "answer_draw",
    "withdraw_draw",
    "abort",
    "claim",
    "analyse_match",  # the analysis board from the end of a finished match (a GET)
)
_PLACEHOLDER = "__MATCH__ID__16_"  # a match id's form: 16 URL-safe characters
_action_paths: dict[str, str] = {}


def action_urls(public_id: str) -> dict[str, str]:
    """The paths of a match's actions, each reversed once per process (a public id is
    URL-safe text, so it goes into the path as it is)."""
    if not _action_paths:
        for name in ACTIONS:
            _action_paths[name] = reverse(name, args=[_PLACEHOLDER])
    return {name: path.replace(_PLACEHOLDER, public_id) for name, path in _action_paths.items()}


def shows_presence(match: Match) -> bool:
    """Whether the players are connected matters between two browsers: a friend's match."""
    return match.mode == Match.Mode.FRIEND


def presence_seats(match: Match) -> tuple[int, ...]:
    """The seats whose "connected" mark the board draws: a friend's match's joined seats."""
    if not shows_presence(match):
        return ()
    return tuple(seat for seat in (1, 2) if match.seat_secret_hash(seat))


class Kept(OrderedDict):
    """A bounded map, least recently used dropped first."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def get_kept(self, key):
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def keep(self, key, value) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


_words = Kept(WORDS_KEPT)  # (match id, ply) -> (words, touched)
_words_lock = threading.Lock()
_rows = Kept(ROWS_KEPT)  # (match id, ply) -> ((ply, player, text), ...), oldest first
_rows_lock = threading.Lock()


def last_rows(match: Match, added: tuple[int, int, str] | None = None) -> tuple:
    """The last HISTORY_SHOWN moves of this version of ``match`` as (ply, player, text),
    oldest first: from memory when kept, or made from the previous version's and
    ``added`` (the move that made this version, as the write path recorded it), else one
    query (after a restart, or a version another process wrote). Call it only for a
    committed version: what it reads is kept."""
    key = (match.public_id, match.ply)
    with _rows_lock:
        rows = _rows.get_kept(key)
        if rows is None and added is not None and added[0] == match.ply:
            before = () if match.ply == 1 else _rows.pop((match.public_id, match.ply - 1), None)
            if before is not None:
                rows = (*before, added)[-HISTORY_SHOWN:]
                _rows.keep(key, rows)
    if rows is not None:
        return rows
    # Up to this version's ply: a push drawn after a later move committed lists its own.
    moves = match.moves.filter(ply__lte=match.ply).order_by("-ply")
    rows = tuple(reversed(list(moves.values_list("ply", "player", "text")[:HISTORY_SHOWN])))
    with _rows_lock:
        _rows.keep(key, rows)
    return rows


def recent_moves(match: Match, added: tuple[int, int, str] | None = None) -> list[dict]:
    """The moves the board lists: the last HISTORY_SHOWN, oldest first, each in words
    (``last_rows``: from memory, else one query; the words from memory too, see
    DESCRIBED_PLIES). Numbers as text: the template would localize every one of them, on
    every board."""
    rows = last_rows(match, added)
    presenter = presenter_for(match.rules)
    with _words_lock:
        told = {ply: _words.get_kept((match.public_id, ply)) for ply, _, _ in rows}
    untold = [ply for ply, said in told.items() if said is None]
    after = positions_after(match, untold) if untold else {}
    moves = []
    for ply, player, text in rows:
        said = told[ply]
        if said is None:
            pos = after.get(ply)
            said = (presenter.describe(text, pos), presenter.touched(text, pos))
            if pos is not None:  # told in full: keep it
                with _words_lock:
                    _words.keep((match.public_id, ply), said)
        moves.append(
            {
                "ply": str(ply),
                "player": str(player),
                "name": match.player_name(player),
                "text": text,
                "words": said[0],
                "touched": said[1],
            }
        )
    return moves


def positions_after(match: Match, plies: list[int]) -> dict:
    """The position after each of ``plies``: by one replay of the log while the match
    is short, else only the last (the stored position)."""
    if not plies:
        return {}
    game = match.rules
    found = {}
    if plies[-1] == match.ply:
        found[match.ply] = game.from_json(match.position)
    if match.ply > DESCRIBED_PLIES or set(plies) <= found.keys():
        return found
    wanted = set(plies)
    pos = match.initial_position
    texts = match.moves.filter(ply__lte=plies[-1]).order_by("ply").values_list("text", flat=True)
    try:
        for ply, text in enumerate(texts, start=1):
            pos = game.play(pos, text)
            if ply in wanted:
                found[ply] = pos
    except (IllegalMove, ValueError):
        pass  # a log that does not replay is told without its positions
    return found


def scene(
    match: Match,
    *,
    online: frozenset[int] | None = None,
    moves: list[dict] | None = None,
    away: dict | None = None,
) -> Scene:
    """The shared part of a board: the last moves and who is connected, and for how long
    the others have been away (read here unless the caller read them already), the move
    list drawn once, and a finished match's end notes (the apps' additions,
    games/extras.py)."""
    if moves is None:
        moves = recent_moves(match)
    if not shows_presence(match):
        online, away = frozenset(), {}
    elif online is None:
        seen = presence.marks(match.public_id, (1, 2))
        online, away = seen.online, seen.away
    history = render_to_string(
        "games/match.html#history",
        {"match": match, "moves": moves, "earlier_moves": max(0, match.ply - len(moves))},
    )
    return Scene(
        match,
        moves,
        online or frozenset(),
        history,
        action_urls(match.public_id),
        extras.end_notes(match),
        dict(away or {}),
        extras.seat_marks(match),
    )


def board_context(
    match: Match,
    viewer: Viewer,
    *,
    shared: Scene | None = None,
    message: str = "",
    message_level: str = "error",
    share_url: str = "",
    told: DrawDeclined | None = None,
) -> dict:
    """``message``: the notice of an answer to this viewer's own request; ``told``: what
    the change drawn tells its viewers (a notice for some of them). Either goes into the
    page's notice area, which keeps it until the viewer's next action (static/site/site.js)."""
    shared = shared or scene(match)
    if not message and told is not None:
        message, message_level = told_notice(match, viewer, told), "info"
    game = match.rules
    pos = game.from_json(match.position)
    playing = match.status == Match.Status.PLAYING
    to_move = pos.to_move
    now = timezone.now()
    may = rights(match, viewer, to_move=to_move, now=now)
    hints = shows_hints(match, viewer)
    legal = game.legal_moves(pos) if may.move else []
    analysis = game.analyse(pos) if may.move and hints else None
    if analysis is None:
        hinted = set()
    elif analysis.winner is None:  # nobody can force a win: the hint is the safe moves
        hinted = set(analysis.best_moves)
    else:
        hinted = set(analysis.winning_moves)

    computer_seat = match.computer_seat
    faces = {face.seat: face for face in clock.faces(match, match.seat_of_player(to_move), now)}
    players = []
    for player in (1, 2):
        seat = match.seat_of_player(player)
        joined = bool(match.seat_secret_hash(seat)) or seat == computer_seat
        marked = seat in presence_seats(match)
        players.append(
            {
                "number": player,
                "seat": seat,
                "label": match.player_name(player),
                "mark": shared.marks.get(seat, ""),
                "is_viewer": seat in viewer.seats and len(viewer.seats) == 1,
                "mine": seat in viewer.seats,
                "computer": seat == computer_seat,
                "joined": joined,
                "presence": marked,
                "clock": faces.get(seat),
                "online": seat in shared.online,
                "away_ms": _ms(shared.away.get(seat)),
            }
        )
    # As lichess draws them: a player's own seat below the board, the opponent's above; a
    # spectator (or one device holding both seats) has Player 1 below.
    above, below = players[::-1] if not players[1]["is_viewer"] else players
    due = clock.deadline(match) if playing else None
    moves = shared.moves
    presenter = presenter_for(game)
    if analysis is None or not hinted:
        hint_moves = ""
    else:
        hint_moves = presenter.hint_text(hinted, safe=analysis.winner is None)
    return {
        "match": match,
        "game": game,
        "pos": pos,
        "viewer": viewer,
        "may": may,
        "hints": hints,
        "players": players,
        "above": above,
        "below": below,
        "low_ms": clock.LOW_TIME_MS,
        "status_text": status_text(match, viewer, to_move),
        # The player whose turn it is, marked on the board's state (their seat is drawn
        # marked from it: a move leaves the seats as they were).
        "player_to_move": to_move if playing else None,
        "result_kind": result_kind(match, viewer),
        "my_turn": may.move,
        "legal": legal,
        "hinted": hinted,
        "analysis": analysis,
        "computer_thinking": match.computer_to_move,
        "moves": moves,
        "history": shared.history,
        "urls": shared.urls,
        "message": message,
        "message_level": message_level,
        # Pushes go to every page of the match: the link is made absolute by the page.
        "share_url": share_url or shared.urls["match"],
        "clock_text": clock.describe(match),
        "deadline": due,
        "due_iso": due.isoformat(timespec="seconds") if due else "",  # site.js: local time
        "draw_offer": draw_offer_context(match, viewer),
        "board_template": presenter.template,
        **presenter.board(pos, legal, hinted, shared.touched),
        "keys_help": presenter.keys(pos),
        "last_move": shared.last_move,
        "hint_moves": hint_moves,
        "end_notes": shared.notes,
        **countdowns(match, viewer, may, shared, now),
    }


def countdowns(match: Match, viewer: Viewer, may, shared: Scene, now) -> dict:
    """What the board counts down (the page goes on counting between boards, and enables
    the buttons at zero; the write path still decides): when this player may abort, when
    the server aborts a first move that has not come, and when this player may claim the
    game of an opponent who left (``settings.ABANDON_AFTER``)."""
    from django.conf import settings

    out: dict = {
        "abandon_words": duration_words(settings.ABANDON_AFTER),
    }
    opens, aborts = clock.abort_opens_at(match), clock.aborted_at(match)
    if may.abort and opens is not None:
        out["abort_wait"] = _wait(opens - now)
    if aborts is not None:
        out["first_move"] = {
            "name": match.player_name(match.current.to_move),
            "wait": _wait(aborts - now),
        }
    if may.claim and len(viewer.seats) == 1:
        opponent = 3 - min(viewer.seats)
        after = settings.ABANDON_AFTER
        away = shared.away.get(opponent) if opponent not in shared.online else None
        out["claim"] = {
            "opponent": opponent,
            "after_ms": int(after * 1000),
            "wait": _wait_seconds(after - away if away is not None else after),
        }
    return out


def _wait(delta) -> dict:
    return _wait_seconds(delta.total_seconds())


def _wait_seconds(seconds: float) -> dict:
    """A wait as the board draws it: ms (for the page's countdown) and whole seconds."""
    ms = max(0, int(seconds * 1000))
    return {"ms": ms, "s": (ms + 999) // 1000}


def duration_words(seconds: float) -> str:
    """A setting's length in words: "a minute", "2 minutes", "90 seconds", "1 second"."""
    whole = round(seconds)
    if whole == 60:
        return "a minute"
    if whole and whole % 60 == 0:
        return f"{whole // 60} minutes"
    return f"{whole} second{'' if whole == 1 else 's'}"


def draw_offer_context(match: Match, viewer: Viewer) -> dict | None:
    """A standing draw offer, as this viewer sees it."""
    if match.draw_offer is None or match.status != Match.Status.PLAYING:
        return None
    by = match.player_name(match.player_of_seat(match.draw_offer))
    return {"by": by, "mine": match.draw_offer in viewer.seats}


def result_kind(match: Match, viewer: Viewer) -> str:
    """How a finished match's result box looks to this viewer (``Match.result_for``): won,
    lost or drawn for a player; for anyone else, drawn or decided (someone won); none
    without a result (cancelled, aborted)."""
    result = match.result_for(viewer.seats)
    if result != Match.Result.NONE:
        return result.value
    if not match.has_result:
        return "none"
    return "drawn" if match.winner is None else "decided"


def status_text(match: Match, viewer: Viewer, to_move: int) -> str:
    if match.status == Match.Status.WAITING:
        if viewer.seats:
            return "Waiting for an opponent: share the link below."
        return "This match is waiting for a second player."
    if match.status == Match.Status.FINISHED:
        return match.headline(viewer.seats)
    name = match.player_name(to_move)
    seat = match.seat_of_player(to_move)
    if seat == match.computer_seat:
        return "The computer is thinking…"
    if seat in viewer.seats:
        return f"{name}: your turn" if len(viewer.seats) == 2 else "Your turn"
    if viewer.seats:
        return f"Waiting for {name}"
    return f"{name} to move"


def render_board(
    match: Match,
    viewer: Viewer,
    *,
    request=None,
    shared: Scene | None = None,
    **kwargs,
) -> str:
    """The board partial for a response or a push; with a notice for this viewer (the
    ``message`` of an answer, or what ``told`` tells them), the notice area too. Without
    one the notice area is left as it is: a notice stays until its viewer acts."""
    context = board_context(match, viewer, shared=shared, **kwargs)
    context["partial_response"] = True
    return render_to_string("games/match.html#board", context, request=request)


def render_kinds(
    match: Match,
    *,
    only: frozenset[str] | None = None,
    online: frozenset[int] | None = None,
    moves: list[dict] | None = None,
) -> dict[str, str]:
    """The board of this version of the match for each kind of viewer (``only``: those
    kinds), drawn once each from one read of the shared part."""
    if only is not None and not only:
        return {}
    shared = scene(match, online=online, moves=moves)
    return {
        viewer.key: render_board(match, viewer, shared=shared)
        for viewer in kinds(match)
        if only is None or viewer.key in only
    }


# ---- what changed: a push that carries only the board's slots that changed -----------------

SLOT_START, SLOT_NAMED, SLOT_END = "<!--s:", "-->", "<!--/s-->"
BOARD_END = "</section>"
BOARD_TAG_RE = re.compile(r'<section id="board"[^>]*>')
# Before a push that carries only what changed since the board of version N: the page
# swaps its slots in (each is one element with an id: htmx's websocket extension swaps a
# message's elements by id) when it shows version N, and asks for the whole board
# (``{"type": "sync"}``) when it shows another (static/site/site.js).
DELTA = "<!--delta:{base}-->"


@dataclass(frozen=True)
class Drawing:
    """A drawn board taken apart (once: the live layer keeps it for the next push)."""

    slots: dict[str, str]  # name -> its element
    frame: tuple[str, ...]  # what lies between the slots, the board's own tag left out
    tail: str  # what follows the board: the status line, a notice


def drawing(html: str) -> Drawing | None:
    """The slots of a drawn board (templates/games/match.html marks them), what lies
    between them and what follows it; None for what is no board."""
    board, end, tail = html.partition(BOARD_END)
    if not end:
        return None
    head, *pieces = board.split(SLOT_START)
    found, frame = {}, [BOARD_TAG_RE.sub("", head, count=1)]
    for piece in pieces:
        name, _, rest = piece.partition(SLOT_NAMED)
        part, _, between = rest.partition(SLOT_END)
        found[name] = part
        frame.append(between)
    return Drawing(found, tuple(frame), tail)


def delta(before: str | Drawing, after: str | Drawing, base: int) -> str | None:
    """What turns the page showing board ``before`` (of version ``base``) into ``after``:
    the slots of ``after`` that differ (the move list by its rows: ``_rows_changed``), and
    what follows the board (the status line, a notice). None when only the whole board
    will do: the two have other slots, what lies between them changed, or a slot emptied or
    filled (no element of it on the page, or none to send)."""
    old = drawing(before) if isinstance(before, str) else before
    new = drawing(after) if isinstance(after, str) else after
    if old is None or new is None or not new.slots or old.slots.keys() != new.slots.keys():
        return None
    if old.frame != new.frame:
        return None
    changed = []
    for name, part in new.slots.items():
        was = old.slots[name]
        if was == part:
            continue
        if not was.strip() or not part.strip():
            return None
        rows = _rows_changed(was, part) if name == "history" else None
        changed.append(part if rows is None else rows)
    return DELTA.format(base=base) + "".join(changed) + new.tail


ROW_RE = re.compile(r'<li id="move-(\d+)".*?</li>', re.S)
MOVES_COUNT_RE = re.compile(r'<summary id="moves-count">.*?</summary>', re.S)
MOVES_EARLIER_RE = re.compile(r'<p class="hint" id="moves-earlier".*?</p>', re.S)


def _rows_changed(before: str, after: str) -> str | None:
    """The move list's change as a page applies it: its count and its "earlier moves"
    line, the rows that scrolled out of it deleted, the new rows added at its end. None
    when the list changed otherwise (its first move: the whole list)."""
    old = {int(row.group(1)): row.group(0) for row in ROW_RE.finditer(before)}
    new = {int(row.group(1)): row.group(0) for row in ROW_RE.finditer(after)}
    if not old or not new:
        return None
    kept = old.keys() & new.keys()
    gone, added = sorted(old.keys() - kept), sorted(new.keys() - kept)
    if any(old[ply] != new[ply] for ply in kept) or (
        kept and ((gone and max(gone) > min(kept)) or (added and min(added) < max(kept)))
    ):
        return None
    outside = [ROW_RE.sub("", part) for part in (before, after)]
    for pattern in (MOVES_COUNT_RE, MOVES_EARLIER_RE):
        outside = [pattern.sub("", part) for part in outside]
    if outside[0] != outside[1]:  # the list's frame changed (opened, say): the whole list
        return None
    parts = []
    for pattern in (MOVES_COUNT_RE, MOVES_EARLIER_RE):
        now, was = pattern.search(after), pattern.search(before)
        if (now is None) != (was is None):
            return None
        if now is not None and now.group(0) != was.group(0):
            parts.append(now.group(0))
    parts += [f'<li id="move-{ply}" hx-swap-oob="delete"></li>' for ply in gone]
    if added:
        rows = "".join(new[ply] for ply in added)
        parts.append(f'<ol hx-swap-oob="beforeend:#moves-list">{rows}</ol>')
    return "".join(parts)


def mini_picture(match: Match) -> dict:
    """A small picture of the match's position (the lobby's watch page), for the template
    ``games/boards/_mini.html``: the presenter's tiles, and the position in words."""
    game = match.rules
    pos = game.from_json(match.position)
    presenter = presenter_for(game)
    return {"tiles": presenter.mini(pos), "label": presenter.position_text(pos)}


def render_notice(message: str, level: str = "error") -> str:
    """The notice area of an answer, swapped out of band."""
    return render_to_string(
        "games/match.html#notice_oob", {"message": message, "message_level": level}
    )


def spectators_fragment(count: int | None) -> str:
    """The match page's "N watching" (the spectators' pages open), as a page or a push
    shows it."""
    return render_to_string("games/match.html#watching", {"watching": count})


def presence_fragment(seat: int, online: bool, away: float | None = None) -> str:
    """The small update a presence change sends: one seat's "connected" mark (``away``:
    seconds since its last page closed, for the claim's countdown)."""
    return render_to_string(
        "games/match.html#presence", {"seat": seat, "online": online, "away_ms": _ms(away)}
    )


def _ms(seconds: float | None) -> int:
    return int((seconds or 0) * 1000)
