"""The learn app's pages, one module each: ``analysis`` (the analysis board),
``puzzles`` and ``theory``."""
