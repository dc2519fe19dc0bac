"""agent-tck as a pytest plugin (entry point ``agent_tck``).

* ``--impl CMD`` points the Gherkin steps (and the vector tests) at an external adapter; without
  it they drive the reference implementation in process. ``--agent-tck`` collects every vector
  as a test item (``pytest --impl CMD --agent-tck``); the report header says which it is.
* Every catalogue rule ID is registered as a marker, so ``--strict-markers`` turns a scenario
  tag that cites an unknown rule into an error, and ``-m BO-001`` selects by rule.
* The step definitions in ``harness/bdd/steps_*.py`` are loaded as plugins, so pytest-bdd finds
  them from any test tree.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from agent_tck.harness.run.outcome import CallResult, Errored

if TYPE_CHECKING:
    from agent_tck.harness.run.evaluate import Judgment


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agent-tck")
    group.addoption("--impl", metavar="CMD", default=None,
                    help="agent-tck: the adapter command the Gherkin steps (the tck_target "
                         "fixture) call; add --agent-tck to run every vector against it too")
    group.addoption("--impl-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="agent-tck: per-call timeout for --impl (default 10)")
    group.addoption("--agent-tck", action="store_true", default=False,
                    help="agent-tck: also collect every vector as a test item (use with --impl "
                         "from your own test tree)")
    group.addoption("--agent-tck-vectors", action="append", default=[], metavar="DIR",
                    help="agent-tck: extra vector folders for --agent-tck (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    from agent_tck.harness.contract.catalogue import load_catalogue

    for rule in load_catalogue().rules:
        config.addinivalue_line("markers", f"{rule.id}: {rule.level} {rule.title or rule.family}")
    from agent_tck.harness import bdd

    for info in sorted(pkgutil.iter_modules(bdd.__path__), key=lambda i: i.name):
        if info.name.startswith("steps_"):
            name = f"{bdd.__name__}.{info.name}"
            if not config.pluginmanager.has_plugin(name):
                config.pluginmanager.import_plugin(name)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say what ``--impl`` is used for, so a run is never mistaken for another."""
    impl = config.getoption("--impl")
    if not impl:
        return []
    if config.getoption("--agent-tck"):
        return [f"agent-tck: adapter {impl!r}: every vector is a test item, and the Gherkin "
                "steps call it"]
    return [f"agent-tck: adapter {impl!r}, without --agent-tck: only the tests collected here "
            "that use the tck_target fixture call it (pytest --impl CMD --agent-tck collects "
            "every vector as a test item)"]


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
    from agent_tck.harness.run.conformance_run import open_target

    target, _, _ = open_target(request.config.getoption("--impl"),
                               request.config.getoption("--impl-timeout"))
    try:
        yield TargetProxy(target)
    finally:
        target.close()


# --- vectors as pytest items (``pytest --impl CMD --agent-tck`` from any test tree) ------------


class VectorItem(pytest.Item):
    """One vector case and operation, run against the session's target."""

    def __init__(self, *, case: object, expectation: object, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.case = case
        self.expectation = expectation
        for rid in case.rules:  # type: ignore[attr-defined]
            self.add_marker(rid)

    def runtest(self) -> None:
        from agent_tck.harness.run.evaluate import judge

        judgment, _ = judge(_shared_target(self.config), self.case,  # type: ignore[arg-type]
                            self.expectation)  # type: ignore[arg-type]
        if judgment.status == "not-applicable":  # BO-008 without observe: untested, not passed
            pytest.skip(f"not applicable: {judgment.message}")
        if judgment.status != "pass":
            raise VectorFailure(judgment)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, VectorFailure):
            j = excinfo.value.judgment
            return "\n".join([f"{j.status}: {j.message}", *j.transcript[-40:]])
        return super().repr_failure(excinfo, style)  # type: ignore[arg-type, return-value]

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.case.file, None, self.name  # type: ignore[attr-defined]


class VectorFailure(Exception):
    def __init__(self, judgment: Judgment) -> None:
        super().__init__(str(judgment))
        self.judgment = judgment


_TARGET_KEY = pytest.StashKey[object]()


def _shared_target(config: pytest.Config):  # type: ignore[no-untyped-def]
    if _TARGET_KEY not in config.stash:
        from agent_tck.harness.run.conformance_run import open_target

        target, _, _ = open_target(config.getoption("--impl"), config.getoption("--impl-timeout"))
        config.stash[_TARGET_KEY] = target
    return config.stash[_TARGET_KEY]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not config.getoption("--agent-tck"):
        return
    from pathlib import Path

    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases

    extra = [Path(p) for p in config.getoption("--agent-tck-vectors")]
    for case in load_cases(extra, known_rules=load_catalogue().by_id):
        for expectation in case.expect:
            items.append(VectorItem.from_parent(
                session, name=f"agent-tck::{case.family}/{case.id}[{expectation.operation}]",
                case=case, expectation=expectation,
            ))


def pytest_unconfigure(config: pytest.Config) -> None:
    target = config.stash.get(_TARGET_KEY, None)
    if target is not None:
        target.close()  # type: ignore[attr-defined]
