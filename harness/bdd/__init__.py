"""pytest-bdd step definitions, one module per family (``steps_<family>.py``).

Steps reach the implementation only through the ``tck_target`` fixture, whose ``call`` skips
an undeclared operation (not applicable) and fails on an errored call with its transcript.
"""
