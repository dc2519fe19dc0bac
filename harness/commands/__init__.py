"""Subcommands beyond ``run`` and ``rules``: each module defines ``register(subparsers)``."""
