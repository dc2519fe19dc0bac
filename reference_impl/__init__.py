"""agent-tck reference implementation: sans-I/O rule logic for every family.

Nothing in this package reads files, sockets or clocks on its own; each operation is a pure
function from plain JSON data to plain JSON data (or a :class:`TckError`). The adapter in
:mod:`reference_impl.adapter` is the thin shell that speaks the protocol over stdin/stdout.
"""

from .errors import TckError
from .ops import OPERATIONS, run_operation

__all__ = ["OPERATIONS", "TckError", "run_operation"]
