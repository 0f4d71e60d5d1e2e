"""What the tournaments' write path tells the apps built on it (people: notifications).

``tournaments`` never imports those apps: they connect receivers here (in their
AppConfig.ready).

``tournament_started`` is sent after an event's start has committed (never inside the
write: tournaments/director.py ``_start``), once, in the process that started it, with
the event and the accounts of its entrants at the start (``user_ids``). A receiver that
fails is logged, and the start stands.
"""

from django.dispatch import Signal

tournament_started = Signal()  # sender=Tournament, tournament=Tournament, user_ids=list[int]
