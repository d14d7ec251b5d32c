"""The functional core: the rules of a scene and nothing else.

No I/O, no clock, no randomness, no logging. ``decide`` turns a command into events (or raises
``Rejected``), ``evolve`` folds one recorded event into the state, ``fold`` folds a log.
"""
