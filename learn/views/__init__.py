"""The learn app's pages, one module each: ``analysis`` (the analysis board)
and ``puzzles``."""
