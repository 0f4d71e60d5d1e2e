"""Reviewing past matches: replay the move log, judge every move, export.

Used by the replay page, the admin and ``manage.py export_matches``. The move log
is replayed through the rules from ``match.initial_position``; every value
and verdict comes from ``game.analyse`` and ``game.verdict_of``, none is worked
out here. ``closed_response`` is the 404 page of a match whose replay is closed (the
replay's views and the analysis board answer with it).

A Last Bit Standing match can run to 100,000 moves. Replaying them is cheap (a
few microseconds a move), so the log is replayed on each request, but only the
plies asked for are analysed and kept: ``replay_frames(match, plies=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise

from django.db.models import Prefetch, Q
from django.shortcuts import render

from games.models import Match, Move
from games.presenters import presenter_for
from games.rules import Analysis, IllegalMove, MoveVerdict, Position

# The summary judges at most this many moves: all of a shorter match, the last
# ones of a longer match (where it was decided). The replay page says so.
SUMMARY_LIMIT = 5_000
# A match of up to this many plies lists every move, and its strip draws every ply.
FULL = 200
# Beyond FULL plies the move list shows this many plies either side of the one shown,
# and the strip draws FULL + 1 plies around it.
WINDOW = 8
FORMAT = "bitsite-match/1"


class ReplayError(ValueError):
    """The stored move log does not replay through the rules."""


@dataclass(frozen=True)
class LoggedMove:
    """A move of the log (the Move row's values, without the row)."""

    ply: int
    player: int
    seat: int
    text: str
    created_at: datetime | None
    time_ms: int | None = None  # how long the mover took (the server's clock)


@dataclass(frozen=True)
class Frame:
    """The match after ``ply`` moves (ply 0: the start)."""

    ply: int
    position: Position
    move: LoggedMove | None  # the move that led here; None at ply 0
    verdict: MoveVerdict | None  # that move, judged in the position before it
    analysis: Analysis  # this position's perfect-play value and best moves


@dataclass(frozen=True)
class Flip:
    """A move after which the perfect-play winner changed."""

    ply: int
    player: int
    move: str
    before: int | None  # who won with perfect play before the move (None: nobody could force it)
    after: int | None


@dataclass(frozen=True)
class Summary:
    first_ply: int  # the first move judged (1 unless the match is longer than SUMMARY_LIMIT)
    last_ply: int  # the last move judged (the match's last)
    start_winner: int | None  # who wins with perfect play before the first judged move
    start_plies: int | None
    flips: tuple[Flip, ...]
    blunders: dict[int, int] = field(default_factory=dict)  # player -> blunders made
    blunder_plies: tuple[int, ...] = ()

    @property
    def capped(self) -> bool:
        return self.first_ply > 1


def _runs(plies: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted plies as runs of consecutive numbers: [1, 2, 3, 7, 8] -> [(1, 3), (7, 8)]."""
    runs: list[tuple[int, int]] = []
    for ply in sorted(set(plies)):
        if runs and runs[-1][1] == ply - 1:
            runs[-1] = (runs[-1][0], ply)
        else:
            runs.append((ply, ply))
    return runs


def logged_moves(match: Match, plies: Iterable[int] | None = None) -> list[LoggedMove]:
    """The log's moves, all or those of ``plies`` (one query, a range per run of plies)."""
    moves = match.moves.order_by("ply")
    if plies is not None:
        runs = _runs(plies)
        if not runs:
            return []
        wanted = Q()
        for first, last in runs:
            wanted |= Q(ply__range=(first, last))
        moves = moves.filter(wanted)
    return [
        LoggedMove(*values)
        for values in moves.values_list("ply", "player", "seat", "text", "created_at", "time_ms")
    ]


def time_text(ms: int | None) -> str:
    """How long a move took, in a few characters: "4.2 s", "1 min 5 s", "2 h 10 min"."""
    if ms is None:
        return ""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    return f"{hours // 24} days {hours % 24} h"


def replay_frames(match: Match, plies: Iterable[int] | None = None) -> list[Frame]:
    """The frames of the match, in order: every ply, or only those in ``plies``.

    The whole log up to the last ply asked for is replayed; only the frames asked
    for are analysed and kept, so a window of a 100,000-move match stays cheap.
    """
    game = match.rules
    wanted = None if plies is None else {p for p in plies if 0 <= p <= match.ply}
    last = match.ply if wanted is None else max(wanted, default=-1)
    if last < 0:
        return []
    texts = list(match.moves.filter(ply__lte=last).order_by("ply").values_list("text", flat=True))
    rows = {move.ply: move for move in logged_moves(match, None if wanted is None else wanted)}
    position = match.initial_position
    frames = []
    if wanted is None or 0 in wanted:
        frames.append(Frame(0, position, None, None, game.analyse(position)))
    for ply, text in enumerate(texts, start=1):
        before = position
        try:
            position = game.play(before, text)
        except IllegalMove as error:
            raise ReplayError(f"Move {ply} ({text!r}) does not replay: {error}") from None
        if wanted is None or ply in wanted:
            frames.append(
                Frame(
                    ply,
                    position,
                    rows.get(ply),
                    game.verdict_of(before, text),
                    game.analyse(position),
                )
            )
    return frames


def summarize(match: Match, frames: list[Frame]) -> Summary:
    """Where the perfect-play winner flipped, and each player's blunders.

    ``frames`` are consecutive, from the ply before the first judged move to the
    last ply (``summary_plies`` says which).
    """
    flips = []
    blunders = {1: 0, 2: 0}
    blunder_plies = []
    for before, after in pairwise(frames):
        player = before.position.to_move
        if after.verdict.blunder:
            blunders[player] += 1
            blunder_plies.append(after.ply)
        if before.analysis.winner != after.analysis.winner:
            flips.append(
                Flip(
                    after.ply,
                    player,
                    after.move.text,
                    before.analysis.winner,
                    after.analysis.winner,
                )
            )
    start = frames[0] if frames else None
    return Summary(
        first_ply=start.ply + 1 if start else 1,
        last_ply=frames[-1].ply if frames else 0,
        start_winner=start.analysis.winner if start else None,
        start_plies=start.analysis.plies if start else None,
        flips=tuple(flips),
        blunders=blunders,
        blunder_plies=tuple(blunder_plies),
    )


def summary_plies(match: Match) -> range:
    """The plies the summary needs: the position before the first judged move, to the end."""
    return range(max(0, match.ply - SUMMARY_LIMIT), match.ply + 1)


def position_text(game, pos: Position) -> str:
    """A position on one line, as its presenter writes it (for the admin's log)."""
    return presenter_for(game).position_text(pos)


# ---- the strip: the game in a picture ------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One ply of the strip: who could force a win after it, and whether it was a blunder."""

    ply: int
    player: int | None  # who made the move that led here (None at ply 0)
    move: str  # that move as logged ("" at ply 0)
    winner: int | None  # who can force a win in the position (analysis.winner)
    blunder: bool  # the move's verdict says so (the one definition: MoveVerdict.blunder)
    current: bool  # the ply shown


@dataclass(frozen=True)
class Strip:
    cells: tuple[Cell, ...]
    last_ply: int  # the match's last ply (the strip may draw only some of them)

    @property
    def first(self) -> int:
        return self.cells[0].ply if self.cells else 0

    @property
    def last(self) -> int:
        return self.cells[-1].ply if self.cells else 0

    @property
    def partial(self) -> bool:
        return self.first > 0 or self.last < self.last_ply

    def runs(self) -> list[tuple[int | None, int, int]]:
        """Consecutive cells with the same winner: (winner, first ply, last ply)."""
        runs: list[tuple[int | None, int, int]] = []
        for cell in self.cells:
            if runs and runs[-1][0] == cell.winner:
                runs[-1] = (cell.winner, runs[-1][1], cell.ply)
            else:
                runs.append((cell.winner, cell.ply, cell.ply))
        return runs


def listed_plies(last_ply: int, ply: int, window: int = WINDOW) -> range:
    """The plies the move list shows: all of them up to FULL, else a window around ``ply``."""
    if last_ply <= FULL:
        return range(last_ply + 1)
    return range(max(0, ply - window), min(last_ply, ply + window) + 1)


def strip_plies(last_ply: int, ply: int) -> range:
    """The plies the strip draws: all of them up to FULL, else FULL + 1 around ``ply``."""
    if last_ply <= FULL:
        return range(last_ply + 1)
    first = min(max(0, ply - FULL // 2), last_ply - FULL)
    return range(first, first + FULL + 1)


def strip(frames: Iterable[Frame], current: int, last_ply: int) -> Strip:
    """The strip's cells for consecutive ``frames``, straight from their analysis and verdicts."""
    return Strip(
        cells=tuple(
            Cell(
                ply=frame.ply,
                player=frame.move.player if frame.move else None,
                move=frame.move.text if frame.move else "",
                winner=frame.analysis.winner,
                blunder=bool(frame.verdict and frame.verdict.blunder),
                current=frame.ply == current,
            )
            for frame in frames
        ),
        last_ply=last_ply,
    )


@dataclass(frozen=True)
class Review:
    """What the replay page shows at one ply."""

    frame: Frame  # the ply shown
    window: list[Frame]  # the moves listed: every ply up to FULL, else a window around it
    summary: Summary
    last_ply: int
    strip: Strip


def review(match: Match, ply: int, window: int = WINDOW) -> Review:
    """The replay at ``ply`` (clamped to the match): one replay of the log, analysed only
    for the listed plies, the strip and the summary."""
    ply = min(max(ply, 0), match.ply)
    shown = listed_plies(match.ply, ply, window)
    drawn = strip_plies(match.ply, ply)
    judged = summary_plies(match)
    frames = {
        frame.ply: frame for frame in replay_frames(match, set(shown) | set(drawn) | set(judged))
    }
    return Review(
        frame=frames[ply],
        window=[frames[p] for p in shown],
        summary=summarize(match, [frames[p] for p in judged]),
        last_ply=match.ply,
        strip=strip([frames[p] for p in drawn], ply, match.ply),
    )


# ---- export ------------------------------------------------------------------------


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def serialize_match(match: Match) -> dict:
    """The one JSON form of a match: for the admin action, the page link and the command.

    No secrets. ``players`` are by the rules' player number (1 moves first).
    Uses ``match.moves.all()``, so a prefetch covers a list of matches.
    """
    players = []
    for player in (1, 2):
        seat = match.seat_of_player(player)
        players.append(
            {
                "player": player,
                "seat": seat,
                "name": match.seat_name(seat),
                "label": match.player_name(player),
                "computer": seat == match.computer_seat,
            }
        )
    moves = sorted(match.moves.all(), key=lambda move: move.ply)
    words = moves_in_words(match, [move.text for move in moves])
    return {
        "format": FORMAT,
        "public_id": match.public_id,
        "game": match.game,
        "game_title": match.rules.title,
        "options": match.options,
        # The moves from the game's start to where the match began (a practice from the
        # analysis board); empty for a match from the start.
        "setup": list(match.setup),
        "mode": match.mode,
        "computer_level": match.computer_level or None,
        "first_seat": match.first_seat,
        "players": players,
        "moves": [
            {
                "ply": move.ply,
                "player": move.player,
                "text": move.text,
                "words": said,
                "time": _iso(move.created_at),
                "time_ms": move.time_ms,
            }
            for move, said in zip(moves, words, strict=True)
        ],
        "result": {
            "status": match.status,
            "winner": match.winner,
            "winner_name": match.player_name(match.winner) if match.winner else None,
            "ending": match.ending,
            "reason": match.result_text,
            "plies": match.ply,
        },
        "created": _iso(match.created_at),
        "started": _iso(match.started_at),
        "finished": _iso(match.finished_at),
    }


def moves_in_words(match: Match, texts: list[str]) -> list[str]:
    """Each move of the log in its presenter's words ("flipped bits 4 and 5"), told
    with the position it made; a log that stops replaying is told without them."""
    game = match.rules
    presenter = presenter_for(game)
    position = match.initial_position
    said = []
    for text in texts:
        try:
            position = game.play(position, text) if position is not None else None
        except IllegalMove:
            position = None
        said.append(presenter.describe(text, position))
    return said


def export_queryset(queryset):
    """Matches ready for ``serialize_match``: their moves in one query per batch, not per match."""
    return queryset.prefetch_related(Prefetch("moves", queryset=Move.objects.order_by("ply")))


def closed_response(request, match: Match, nothing: str = ""):
    """The 404 page for a match whose replay (or analysis) is closed: the match is not
    over, or (``nothing``, the reason) it ended before anything happened that a replay
    could show. Used by the replay views and the analysis board."""
    context = {"match": match, "nothing": nothing, "game": match.rules}
    return render(request, "games/replay_closed.html", context, status=404)
