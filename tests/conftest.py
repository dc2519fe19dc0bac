"""Shared fixtures for the kit's own tests (the agent-tck plugin is loaded by its entry point)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw their examples from a fixed seed, so the README's test command gives the
# same verdict on every run (CI is a busy 2-core box: a test failing one run in twenty is broken).
# Exploring with fresh random examples is a separate, deliberate act:
#   AGENT_TCK_HYPOTHESIS=explore python -m pytest tests/test_*_properties.py
# A counterexample found that way becomes a plain regression test beside the property.
settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True, max_examples=1000)
settings.load_profile(os.environ.get("AGENT_TCK_HYPOTHESIS", "deterministic"))

ROOT = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fakes"


@pytest.fixture(autouse=True, scope="session")
def _only_installed_import_names():
    """Installed, the packages are ``agent_tck.harness`` and ``agent_tck.reference_impl``; a
    bare ``harness`` imported in this session worked only because the checkout is the working
    folder, and breaks from a wheel (tools/namespace.py)."""
    yield
    bare = sorted(m for m in sys.modules if m.split(".")[0] in ("harness", "reference_impl"))
    assert not bare, f"imported by names the wheel does not install: {bare}"


@pytest.fixture
def fake_adapter():
    """The command line that runs one of the misbehaving fake adapters in tests/fakes/."""

    def command(name: str, *args: str) -> str:
        parts = [sys.executable, str(FAKES / f"{name}.py"), *args]
        return " ".join(f"'{p}'" if " " in p else p for p in parts)

    return command


@pytest.fixture
def reference_adapter_command() -> str:
    return f"{sys.executable} -m agent_tck.harness.reference_adapter"


CHECKOUT_IMPL_NOTE = (
    "agent-tck checkout: --impl without --agent-tck runs the kit's whole self-test suite "
    "(minutes; only its vector and Gherkin tests call your adapter). To test an adapter: "
    "pytest --impl CMD --agent-tck (the vectors and the Gherkin scenarios, nothing else)")


def _impl_without_vectors(config: pytest.Config) -> bool:
    return bool(config.getoption("--impl")) and not config.getoption("--agent-tck")


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [CHECKOUT_IMPL_NOTE] if _impl_without_vectors(config) else []


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``--agent-tck`` the self-test modules are not even imported (see below)."""
    if config.getoption("--agent-tck") and collection_path.suffix == ".py" and (
            collection_path.name != "test_features.py"):
        return True
    return None


@pytest.hookimpl(trylast=True)  # after the plugin has added the vector items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the checkout, ``--agent-tck`` means what it means in an implementer's tree: the
    vectors and the Gherkin scenarios against the adapter, not the kit's self-tests."""
    if not config.getoption("--agent-tck"):
        return
    from agent_tck.harness.pytest_plugin import VectorItem

    keep = [i for i in items if isinstance(i, VectorItem) or i.path.name == "test_features.py"]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_terminal_summary(terminalreporter):
    """Print the mutation score when tests/test_mutants.py ran (and, after a run with --impl
    but not --agent-tck, what it ran)."""
    if _impl_without_vectors(terminalreporter.config):
        terminalreporter.write_sep("-", "agent-tck")
        terminalreporter.write_line(CHECKOUT_IMPL_NOTE)
    module = sys.modules.get("tests.test_mutants") or sys.modules.get("test_mutants")
    result = getattr(module, "SCORE", None)
    if result and "killed" in result:  # the score tests ran (not deselected)
        terminalreporter.write_sep("-", "agent-tck mutation score")
        terminalreporter.write_line(
            f"{result['killed']}/{result['mutants']} seeded faults killed; "
            f"{result['must_rules'] - len(result['must_rules_without_a_killed_mutant'])}/"
            f"{result['must_rules']} MUST rules have a mutant killed on them"
        )
        if "unmoved_citations" in result:
            terminalreporter.write_line(
                f"{result['accepted_variants']} accepted variants pass every vector; "
                f"{result['unmoved_citations']} case citations no seeded fault moves "
                "(tests/mutants/unmoved-citations.txt)"
            )
