"""``python -m agent_tck ...`` is the ``agent-tck`` command."""

from agent_tck.harness.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
