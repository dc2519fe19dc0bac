"""Shared fixtures for the kit's own tests (the agent-tck plugin is loaded by its entry point)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections import Counter
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


def _bytecode_cache_for_the_session() -> None:
    """Under ``PYTHONDONTWRITEBYTECODE`` (set on this project's machines) every process the
    suite starts (each test worker, each ``agent-tck``, adapter and mitmdump subprocess, the
    import check's forked children) compiled the kit and pytest's rewritten modules from source
    again (the import check: 8.1 s of CPU, 4.5 s with bytecode kept). The session writes bytecode
    as Python does by default (``__pycache__``, which git ignores), for itself and its children."""
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_bytecode_cache_for_the_session()


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


def _unique_node_ids(items: list[pytest.Item]) -> None:
    """pytest 9.2 gives schemathesis's items (one per API operation, named
    ``test[POST /v1/messages]``) the node id of their test function, all the same; a
    pytest-xdist worker, told which tests to run by their ids, then ran the first operation
    once for each. Such an item's id gets its name's brackets back."""
    ids = Counter(item.nodeid for item in items)
    for item in items:
        node_id = getattr(item, "_id", None)
        params = item.name.partition("[")[2].removesuffix("]")
        if ids[item.nodeid] > 1 and params and dataclasses.is_dataclass(node_id) and (
                getattr(node_id, "params", "") is None):
            item._id = dataclasses.replace(node_id, params=params)


def _rank(item: pytest.Item) -> int:
    """0: a test sharing a module fixture of its file (the mutation run, the matrix, the audit
    proxy, the built wheels, a server); 1: a ``slow`` test; 2: the others."""
    module = item.nodeid.split("::")[0]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None and any(d.scope != "function" and d.baseid.startswith(module)
                                for defs in info.name2fixturedefs.values() for d in defs):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def _long_files_first(items: list[pytest.Item]) -> None:
    """The suite runs on every core (pytest-xdist, ``-n auto --dist loadfile`` in
    pyproject.toml): a file is one unit of work, run by one worker, so a module fixture is set
    up once (a session fixture of this file runs once in each worker). The files with a shared
    fixture or a ``slow`` test start first, so the short ones fill the other core at the end;
    a stable sort keeps every other order."""
    rank: dict[str, int] = {}
    for item in items:
        file = item.nodeid.split("::")[0]
        rank[file] = min(rank.get(file, 2), _rank(item))
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])


@pytest.hookimpl(trylast=True)  # after the plugin has added the vector items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the checkout, ``--agent-tck`` means what it means in an implementer's tree: the
    vectors and the Gherkin scenarios against the adapter, not the kit's self-tests."""
    _unique_node_ids(items)
    _long_files_first(items)
    if not config.getoption("--agent-tck"):
        return
    from agent_tck.harness.pytest_plugin import VectorItem

    keep = [i for i in items if isinstance(i, VectorItem) or i.path.name == "test_features.py"]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


#: the mutation score a test worker sent (pytest-xdist): the module ran there, not here
_WORKER_SCORE: dict = {}


def _mutation_score() -> dict:
    module = sys.modules.get("tests.test_mutants") or sys.modules.get("test_mutants")
    return getattr(module, "SCORE", None) or _WORKER_SCORE


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)  # set in a pytest-xdist worker
    if output is not None and _mutation_score():
        output["agent_tck_mutation_score"] = json.dumps(_mutation_score())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # pytest-xdist: a worker has finished
    sent = getattr(node, "workeroutput", {}).get("agent_tck_mutation_score")
    if sent:
        _WORKER_SCORE.update(json.loads(sent))


def pytest_terminal_summary(terminalreporter):
    """Print the mutation score when tests/test_mutants.py ran (and, after a run with --impl
    but not --agent-tck, what it ran)."""
    if _impl_without_vectors(terminalreporter.config):
        terminalreporter.write_sep("-", "agent-tck")
        terminalreporter.write_line(CHECKOUT_IMPL_NOTE)
    result = _mutation_score()
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
