"""Tournaments: so far only the pure core, Swiss pairing (swiss.py) and arena scoring (arena.py)."""
