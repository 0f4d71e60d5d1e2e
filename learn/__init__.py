"""Learn: the pages for studying the games, beside playing them: the analysis board,
the puzzles and the theory pages.

It reads the rules, the presenters and finished matches, and never writes a match
(nothing here imports ``games.play``); nothing in ``games`` imports it (games links to
its pages by URL name only). tests/learn/test_layout.py checks both.
"""
