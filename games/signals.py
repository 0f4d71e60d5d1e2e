"""What the write path tells the apps built on games (accounts, ratings, lobby).

``games`` never imports those apps: they connect receivers here (in their AppConfig.ready).

``match_finished`` is sent inside the transaction that ends a match, with the match row
locked and its final fields set on ``match``: a receiver's writes commit or roll back with
the ending (ratings change exactly when the match ends). A receiver that raises rolls the
ending back, so it must only raise for a real fault.

``match_changed`` is sent after a change commits (a match created, joined, moved in,
ended, its rematch made), once per change, in the process that made it, with the match
as it was written. Receivers push what they show of it (a player's games, the lobby);
they must not write to the match.

``spectators_counted`` is sent when a listed match's spectator pages were counted again
(one opened or closed: games/live.py ``Spectators``), in the server's event loop, with
the match's public id and the count. The watch page shows it on the match's card.
"""

from django.dispatch import Signal

match_finished = Signal()  # sender=Match, match=Match
match_changed = Signal()  # sender=Match, match=Match
spectators_counted = Signal()  # sender=Match, public_id=str, count=int
