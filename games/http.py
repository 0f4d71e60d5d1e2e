"""HTTP steps every app's views share: one definition each.

- ``see_other``: the answer to a form that changed something (POST-redirect-GET, 303).
- ``refusal_status``: the HTTP status of each typed refusal of the write path
  (games/rights.py).
- ``plays_as_account``: the mark of a view that acts as the signed-in account in play.
"""

from __future__ import annotations

from django.http import HttpResponseRedirect

from games import rights

# The HTTP status of each refusal of the write path (games/rights.py).
REFUSAL_STATUS = {
    rights.NoSuchMatch: 404,
    rights.NoBoard: 400,
    rights.NotAPlayer: 403,
    rights.NoHints: 403,
    rights.IllegalMove: 422,
    rights.NameTaken: 422,
}


def see_other(url: str) -> HttpResponseRedirect:
    """303 See Other: the browser GETs ``url`` (a reload does not post the form again)."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def refusal_status(refusal: rights.Refused) -> int:
    """400 for a move without its ply, 403 for what this viewer may never do, 404 for no
    match, 422 for a move the rules refuse, and 409 for what conflicts with the match as it
    is now (stale, not your turn, over, not started, seats taken...)."""
    for kind, status in REFUSAL_STATUS.items():
        if isinstance(refusal, kind):
            return status
    return 409


def plays_as_account(view):
    """Marks a view whose POST acts as the signed-in account in play: it makes or joins a
    match, moves or otherwise acts in one, seeks, joins a tournament, or sends or accepts a
    challenge. A bot account plays only through the API: ``accounts.bots.BotWebMiddleware``
    refuses such a POST from a bot signed in on the web. Outermost, so that no other
    decorator hides the mark."""
    view.plays_as_account = True
    return view


def plays(view) -> bool:
    """Whether ``view`` is marked by ``plays_as_account``."""
    return getattr(view, "plays_as_account", False)
