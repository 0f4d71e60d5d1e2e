"""What people/ tells the apps built on it (the API's event streams: api/live.py).

``challenge_changed`` is sent after a challenge's change commits (sent, accepted,
declined, withdrawn), once, in the process that made it, with the challenge as written
and the ids of the two accounts concerned.
"""

from django.dispatch import Signal

challenge_changed = Signal()  # sender=Challenge, challenge=Challenge, user_ids=list[int]
