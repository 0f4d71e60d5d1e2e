"""A player's rating history as a small chart, drawn on the server as inline SVG (no
JavaScript; the colours come from site.css classes, as the page's policy allows no inline
style). The picture is hidden from screen readers: its caption says the numbers in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

WIDTH = 320
HEIGHT = 96
LEFT = 44  # room for the axis labels
RIGHT = 8
TOP = 10
BOTTOM = 10
MIN_SPAN = 50  # a flat history still gets a little height
DATE_ROW = 16  # below the chart: the first and the last game's dates


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: str  # the polyline's "x,y x,y ..."
    dots: list[tuple[float, float]]
    last: tuple[float, float]
    top_label: str
    bottom_label: str
    top_y: float  # the labels' baselines
    bottom_y: float
    top_line: float  # the lines at the highest and lowest values
    bottom_line: float
    label_x: int
    left: int
    right: int
    description: str
    start_label: str = ""  # the first game's date, under the left end ("" without dates)
    end_label: str = ""  # the last game's, under the right end
    dates_y: float = 0


def day(when: datetime) -> str:
    return f"{when.day} {when:%b %Y}"


def rating_chart(
    ratings: list[float],
    *,
    game_title: str,
    name: str,
    dates: tuple[datetime, datetime] | None = None,
) -> Chart | None:
    """The chart of ``ratings`` (the rating before the first game shown, then after each),
    or None with fewer than two. ``dates``: when the first and the last game shown were
    played, written under the chart's ends and in its caption."""
    if len(ratings) < 2:
        return None
    low, high = min(ratings), max(ratings)
    if high - low < MIN_SPAN:
        middle = (high + low) / 2
        low, high = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = inner_w / (len(ratings) - 1)

    def y(value: float) -> float:
        return round(TOP + (high - value) / (high - low) * inner_h, 1)

    coords = [(round(LEFT + i * step, 1), y(value)) for i, value in enumerate(ratings)]
    games = len(ratings) - 1
    first, last = round(ratings[0]), round(ratings[-1])
    description = (
        f"{name}'s {game_title} rating over the last {games} rated game"
        f"{'' if games == 1 else 's'}: from {first} to {last}, "
        f"lowest {round(min(ratings))}, highest {round(max(ratings))}."
    )
    start_label = end_label = ""
    if dates is not None:
        start_label, end_label = day(dates[0]), day(dates[1])
        played = start_label if start_label == end_label else f"{start_label} to {end_label}"
        description = (
            description[:-1] + f"; played {'on' if start_label == end_label else 'from'} {played}."
        )
    return Chart(
        width=WIDTH,
        height=HEIGHT + (DATE_ROW if dates is not None else 0),
        points=" ".join(f"{x},{y}" for x, y in coords),
        dots=coords if len(coords) <= 30 else [],
        last=coords[-1],
        top_label=str(round(high)),
        bottom_label=str(round(low)),
        top_y=TOP + 4,
        bottom_y=HEIGHT - BOTTOM + 4,
        top_line=TOP,
        bottom_line=HEIGHT - BOTTOM,
        label_x=LEFT - 6,
        left=LEFT,
        right=WIDTH - RIGHT,
        description=description,
        start_label=start_label,
        end_label=end_label,
        dates_y=HEIGHT + DATE_ROW - 4,
    )
