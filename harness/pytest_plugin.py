"""agent-tck as a pytest plugin (entry point ``agent_tck``).

* ``--impl CMD`` points the Gherkin steps (and the vector tests) at an external adapter; without
  it they drive the reference implementation in process.
* Every catalogue rule ID is registered as a marker, so ``--strict-markers`` turns a scenario
  tag that cites an unknown rule into an error, and ``-m BO-001`` selects by rule.
* The step definitions in ``harness/bdd/steps_*.py`` are loaded as plugins, so pytest-bdd finds
  them from any test tree.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterator

import pytest

from harness.outcome import CallResult, Errored


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agent-tck")
    group.addoption("--impl", metavar="CMD", default=None,
                    help="agent-tck: run the scenarios against this adapter command")
    group.addoption("--impl-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="agent-tck: per-call timeout for --impl (default 10)")


def pytest_configure(config: pytest.Config) -> None:
    from harness.catalogue import load_catalogue

    for rule in load_catalogue().rules:
        config.addinivalue_line("markers", f"{rule.id}: {rule.level} {rule.title or rule.family}")
    import harness.bdd

    for info in sorted(pkgutil.iter_modules(harness.bdd.__path__), key=lambda i: i.name):
        if info.name.startswith("steps_"):
            name = f"harness.bdd.{info.name}"
            if not config.pluginmanager.has_plugin(name):
                config.pluginmanager.import_plugin(name)


class TargetProxy:
    """The session's target, with a helper that skips calls to undeclared operations."""

    def __init__(self, target: object) -> None:
        self.target = target

    def __getattr__(self, name: str) -> object:
        return getattr(self.target, name)

    def call(self, operation: str, payload: object, case: str | None = None) -> CallResult:
        if operation not in self.target.operations:  # type: ignore[attr-defined]
            pytest.skip(f"not applicable: the implementation does not declare {operation}")
        result = self.target.call(operation, payload, case)  # type: ignore[attr-defined]
        if isinstance(result, Errored):
            pytest.fail(
                f"errored: {result.reason}\n" + "\n".join(result.transcript[-40:]), pytrace=False
            )
        return result


@pytest.fixture(scope="session")
def tck_target(request: pytest.FixtureRequest) -> Iterator[TargetProxy]:
    """The implementation under test (``--impl``), or the reference implementation."""
    from harness.session import open_target

    target, _, _ = open_target(request.config.getoption("--impl"),
                               request.config.getoption("--impl-timeout"))
    try:
        yield TargetProxy(target)
    finally:
        target.close()
