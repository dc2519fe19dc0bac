"""agent-tck harness: catalogue, vectors, adapter protocol, runner, reports and CLI.

The harness never contains rule logic of its own beyond comparing outputs; the rules live in
:mod:`reference_impl` and in the vectors, which are the contract.
"""

__version__ = "0.1.0"
