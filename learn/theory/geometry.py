"""Small SVG geometry shared by the pictures: arrows between circles, and grids."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Arrow:
    """A curved arrow for the template: the path's ``d`` and where its label sits."""

    d: str
    label_x: float
    label_y: float


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def arrow(a: tuple[float, float], b: tuple[float, float], radius: float, bend: float = 34):
    """A curve from the circle at ``a`` to the circle at ``b`` (both of ``radius``),
    bent to the left of its direction so that two opposite arrows do not overlap; from
    a circle to itself, a loop above it."""
    ax, ay = a
    bx, by = b
    if (ax, ay) == (bx, by):
        top = ay - radius
        d = (
            f"M {_fmt(ax - 12)} {_fmt(top + 2)} "
            f"C {_fmt(ax - 46)} {_fmt(top - 58)} {_fmt(ax + 46)} {_fmt(top - 58)} "
            f"{_fmt(ax + 12)} {_fmt(top + 2)}"
        )
        return Arrow(d, ax, top - 50)
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    # The control point: the middle, moved to the left of the direction a -> b.
    nx, ny = dy / length, -dx / length
    cx, cy = (ax + bx) / 2 + nx * bend, (ay + by) / 2 + ny * bend

    def rim(px: float, py: float, qx: float, qy: float, gap: float) -> tuple[float, float]:
        ux, uy = qx - px, qy - py
        u = math.hypot(ux, uy)
        return px + ux / u * (radius + gap), py + uy / u * (radius + gap)

    sx, sy = rim(ax, ay, cx, cy, 1)
    ex, ey = rim(bx, by, cx, cy, 3)
    d = f"M {_fmt(sx)} {_fmt(sy)} Q {_fmt(cx)} {_fmt(cy)} {_fmt(ex)} {_fmt(ey)}"
    # The label: just outside the curve's middle.
    mx, my = 0.25 * sx + 0.5 * cx + 0.25 * ex, 0.25 * sy + 0.5 * cy + 0.25 * ey
    return Arrow(d, mx + nx * 14, my + ny * 14 + 5)


def grid(count: int, columns: int, cell_width: float, cell_height: float, gap: float = 4):
    """(x, y) of the top left corner of ``count`` cells laid out in rows of ``columns``,
    and the whole grid's width and height."""
    corners = [
        ((i % columns) * (cell_width + gap), (i // columns) * (cell_height + gap))
        for i in range(count)
    ]
    rows = max(1, math.ceil(count / columns))
    width = min(count, columns) * (cell_width + gap) - gap
    height = rows * (cell_height + gap) - gap
    return corners, width, height
