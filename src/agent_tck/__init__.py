"""agent-tck's one import package: ``agent_tck.harness`` and ``agent_tck.reference_impl``.

The repository keeps the design card's top-level folders ``harness/`` and ``reference_impl/``
(and the data folders ``vectors/``, ``features/``, ``matrix/``); ``src/agent_tck/`` holds a
symlink to each, so every module exists at its import path for the interpreter, a type checker
and an editor alike. A wheel holds real copies in ``agent_tck/``; an editable install puts
``src/`` on the path. One distinctive top-level name lands in site-packages, so nothing of the
kit can shadow, or be shadowed by, another distribution's ``harness``.
"""
