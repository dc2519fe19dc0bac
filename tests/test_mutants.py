"""Mutation score: every seeded fault must be caught, on the rules it names.

Runs every mutant in tests/mutants/ through the whole vector suite (harness.mutation.mutants) and
fails on any survivor and on any MUST rule of a family with vectors that no killed mutant
covers. The score is printed in the terminal summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.mutation.anchors import update
from agent_tck.harness.mutation.mutants import (
    Mutant,
    _isolated,
    apply,
    at_a_tenth,
    load_mutants,
    run_mutants,
    score,
)

SCORE: dict[str, object] = {}


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest):
    """Every seeded fault's outcome; the run says how far it is (a line per tenth), so the test
    command never sits silent on it."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")

    worker = hasattr(request.config, "workerinput")  # pytest-xdist: its reporter is not shown

    def progress(done: int, total: int) -> None:
        if reporter is not None and capture is not None and at_a_tenth(done, total):
            line = f"mutation run: {done}/{total} seeded faults run"
            with capture.global_and_fixture_disabled():
                if worker:  # a worker's stderr is the terminal's
                    sys.stderr.write(line + "\n")
                    sys.stderr.flush()
                else:
                    reporter.write_line(line)

    return run_mutants(load_mutants(), progress=progress)


def test_mutation_score_is_complete(outcomes):
    families = {c.family for c in load_cases()}
    must = [r.id for r in load_catalogue().rules if r.level == "MUST" and r.family in families]
    result = score(outcomes, must)
    SCORE.update(result)
    errors = {o.mutant.name: o.error for o in outcomes if o.error}
    assert errors == {}, "mutants that broke the import instead of a rule"
    assert result["survivors"] == [], "seeded faults the suite did not catch"
    assert result["accepted_variants_failed"] == {}, "accepted variants a vector fails"
    assert result["must_rules_without_a_killed_mutant"] == []


def test_every_mutant_is_killed_on_each_rule_it_names(outcomes):
    unkilled = {o.mutant.name: sorted(set(o.mutant.rules) - set(o.killed_on))
                for o in outcomes if not o.mutant.survives}
    assert {k: v for k, v in unkilled.items() if v} == {}


def test_every_accepted_variant_fails_no_vector(outcomes):
    """A `survives: true` mutant is another reasonable reading of the notes (the source
    runtime's, or an order no rule governs): the suite must pass it on every case."""
    variants = [o for o in outcomes if o.mutant.survives]
    assert variants, "no accepted variants: the suite never proves it leaves readings open"
    # a variant may fail only the SHOULD/MAY rules it names in fails_only (issue 21 C)
    assert {o.mutant.name: [o.error, *o.failed_cases] for o in variants
            if o.error or (o.failed_cases and not o.mutant.fails_only)} == {}
    assert {o.mutant.name: sorted(set(o.failed_rules) - set(o.mutant.fails_only))
            for o in variants if set(o.failed_rules) - set(o.mutant.fails_only)} == {}


def test_a_fault_breaking_a_must_is_killed_on_that_must(outcomes):
    """Issue 21 D: a fault names the one rule it breaks (``breaks``); a MUST it breaks must be
    the rule it is killed on, never only SHOULD or MAY rules beside it. A fault changing the
    caller's record on a shape no BO-008 case has is still killed on BO-008."""
    level = {r.id: r.level for r in load_catalogue().rules}
    assert [o.mutant.name for o in outcomes if not o.mutant.survives and not o.mutant.breaks] \
        == []
    assert {r for o in outcomes for r in o.mutant.fails_only if level[r] == "MUST"} == set()
    not_on_must = {o.mutant.name: sorted(o.killed_on) for o in outcomes
                   if not o.mutant.survives and level[o.mutant.breaks] == "MUST"
                   and o.mutant.breaks not in o.killed_on}
    assert not_on_must == {}
    cites = {c.id for c in load_cases() if "BO-008" in c.rules}
    spliced = next(o for o in outcomes if o.mutant.name == "bo-system-updates-consumed-in-"
                   "the-record")
    assert spliced.killed_on.get("BO-008") not in cites | {None}


# ---- a fault names its file and function; one that no longer applies fails loudly ------------

SOURCE = """\
TABLE = {"a": 1}


class Serializer:
    def serialize(self, x):
        y = x + 1
        return y

    def other(self, x):
        y = x + 1
        y = x + 1
        return y


def build(x):
    y = x + 1
    return y
"""


def fault(function: str, find: str, file: str = "pkg/m.py") -> Mutant:
    return Mutant("bo-example", "block-omission", ("BO-001",), file, function, find, "y = x - 1",
                  "<test>")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def test_a_fault_applies_inside_its_function_only(checkout: Path):
    # the snippet occurs in three definitions; the fault changes the one it names
    apply(fault("Serializer.serialize", "y = x + 1"), checkout)
    text = (checkout / "pkg" / "m.py").read_text(encoding="utf-8")
    assert text == SOURCE.replace("        y = x + 1\n        return y\n\n    def other",
                                  "        y = x - 1\n        return y\n\n    def other")
    apply(fault("build", "y = x + 1"), checkout)
    assert (checkout / "pkg" / "m.py").read_text(encoding="utf-8").endswith(
        "def build(x):\n    y = x - 1\n    return y\n")


def test_a_fault_may_name_a_module_level_table(checkout: Path):
    apply(fault("TABLE", '"a": 1'), checkout)
    assert 'TABLE = {y = x - 1}' in (checkout / "pkg" / "m.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(("file", "function", "find", "message"), [
    ("pkg/gone.py", "build", "y = x + 1", "fault 'bo-example': no file pkg/gone.py"),
    ("pkg/m.py", "Serializer.gone", "y = x + 1",
     "fault 'bo-example' (pkg/m.py): no function 'Serializer.gone' in pkg/m.py"),
    ("pkg/m.py", "build", "y = x * 2",
     "fault 'bo-example' (pkg/m.py): the find snippet is not in function 'build'"),
    ("pkg/m.py", "Serializer.other", "y = x + 1",
     "fault 'bo-example' (pkg/m.py): the find snippet occurs 2 times in function "
     "'Serializer.other'"),
])
def test_a_fault_that_no_longer_applies_is_an_error_naming_it(checkout, file, function, find,
                                                             message):
    with pytest.raises(HarnessError) as caught:
        apply(fault(function, find, file), checkout)
    assert caught.value.code == "MUTANT_INVALID"
    assert caught.value.message.startswith(message)
    assert (checkout / "pkg" / "m.py").read_text(encoding="utf-8") == SOURCE  # nothing applied


def test_a_fault_without_a_function_is_an_error_naming_the_tool(tmp_path: Path):
    (tmp_path / "f.yaml").write_text(
        "family: block-omission\nmutants:\n  - name: bo-x\n    rules: [BO-001]\n"
        "    file: reference_impl/serialize/model.py\n    find: a\n    replace: b\n")
    with pytest.raises(HarnessError, match=r"fault 'bo-x': missing \['function'\] "
                                           r"\(python -m agent_tck.harness.mutation.anchors"):
        load_mutants(tmp_path)


def test_the_anchor_tool_maps_an_old_file_and_fills_the_function(checkout: Path):
    (checkout / "reference_impl" / "session_log").mkdir(parents=True)
    (checkout / "reference_impl" / "session_log" / "format.py").write_text(SOURCE)
    faults = checkout / "f.yaml"
    faults.write_text(
        "family: chunk-free-persistence\nmutants:\n\n  # a comment stays\n"
        "  - name: cfp-x\n    rules: [CFP-001]\n    file: session_log.py\n"
        "    # why\n    find: |-\n      return y\n\n\n      def build(x):\n"
        "    replace: |-\n      pass\n"
        "  - name: cfp-y\n    rules: [CFP-001]\n    file: session_log.py\n"
        "    find: '\"a\": 1'\n    replace: b\n")
    text, problems = update(faults, checkout)
    # the first snippet spans two definitions: the tool says so and leaves it to a person
    assert problems == [f"{faults}: fault 'cfp-x': the find snippet lies in no function, class "
                        "or module-level table"]
    assert text == faults.read_text().replace(
        "file: session_log.py", "file: reference_impl/session_log/format.py").replace(
        "file: reference_impl/session_log/format.py\n    find: '",
        "file: reference_impl/session_log/format.py\n    function: TABLE\n    find: '")


def test_the_anchor_tool_follows_a_function_into_the_module_it_was_split_into(checkout: Path):
    (checkout / "pkg" / "built.py").write_text("def build(x):\n    return x * 3\n")
    (checkout / "pkg" / "m.py").write_text(SOURCE.partition("def build")[0])  # build moved out
    faults = checkout / "f.yaml"
    entry = ("family: block-omission\nmutants:\n  - name: bo-x\n    rules: [BO-001]\n"
             "    file: pkg/m.py\n    function: build\n    find: x * 3\n    replace: x\n")
    faults.write_text(entry)
    assert update(faults, checkout) == (entry.replace("pkg/m.py", "pkg/built.py"), [])
    (checkout / "pkg" / "copy.py").write_text("def build(x):\n    return x * 3\n")
    text, problems = update(faults, checkout)  # two modules would do: the tool does not guess
    assert text == entry and problems == [
        f"{faults}: fault 'bo-x': no function 'build' in pkg/m.py"]


def test_every_committed_fault_is_anchored():
    """What the anchor tool would change in tests/mutants/ (nothing, once it has run)."""
    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "tests" / "mutants").glob("*.yaml")):
        text, problems = update(path, root)
        assert problems == []
        fix = "run python -m agent_tck.harness.mutation.anchors"
        assert text == path.read_text(encoding="utf-8"), fix


# ---- every citation can be moved by a fault (issue 11, "no coincidental passes") --------------

UNMOVED = Path(__file__).resolve().parent / "mutants" / "unmoved-citations.txt"


def unmoved_citations(outcomes) -> set[tuple[str, str]]:
    """(case, rule) pairs where no seeded fault naming the rule changes the case's result.

    A case cites a rule because its result bears on it; if no realistic fault of that rule moves
    the result, the citation is either unproven (a fault is missing) or wrong (narrow it)."""
    moved: set[tuple[str, str]] = set()
    for o in outcomes:
        if not o.mutant.survives:
            moved |= {(case, rule) for case in o.failed_cases for rule in o.mutant.rules}
    cited = {(c.id, rule) for c in load_cases() for e in c.expect for rule in c.rules_for(e)}
    return cited - moved


def _recorded() -> set[tuple[str, str]]:
    out = set()
    for raw in UNMOVED.read_text(encoding="utf-8").splitlines():
        entry = raw.split("#", 1)[0].strip()
        if entry:
            case, rule = entry.split()
            out.add((case, rule))
    return out


def test_each_citation_is_moved_by_some_fault_or_recorded(outcomes):
    """The report of citations no seeded fault moves is tests/mutants/unmoved-citations.txt:
    a new one must be given a fault (or the citation narrowed); a fixed one leaves the list."""
    unmoved = unmoved_citations(outcomes)
    SCORE["unmoved_citations"] = len(unmoved)
    recorded = _recorded()
    assert sorted(unmoved - recorded) == [], "citations no seeded fault moves (add a fault)"
    assert sorted(recorded - unmoved) == [], "recorded citations a fault now moves (remove)"


# ---- the runner: each fault in a child of a long-lived worker -------------------------------

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="runs inline without os.fork")


@needs_fork
@pytest.mark.parametrize(("work", "timeout", "error"), [
    # only the hang meets its bound (it never ends); the others have all the time they need,
    # so a busy machine cannot turn a death or an exception into a timeout
    (lambda: (time.sleep(3600), {})[1], 0.2, "the run did not finish within 0.2 s"),
    (lambda: os._exit(3), 600, "the run died (wait status 768)"),
    (lambda: {"x": 1 // 0}, 600, "ZeroDivisionError: integer division or modulo by zero"),
])
def test_a_fault_that_hangs_dies_or_raises_is_an_error_outcome(work, timeout, error):
    assert _isolated(work, timeout=timeout) == {"error": error}


@needs_fork
def test_a_child_answers_through_the_pipe():
    assert _isolated(lambda: {"failed": [["case", ["BO-001"]]]}, timeout=3600) == {
        "failed": [["case", ["BO-001"]]]}


def test_what_a_mutated_module_prints_never_reaches_the_answers():
    """The worker protocol: one fault per line in, one answer per line out, whatever the kit
    prints (here a family descriptor every run imports afresh, mutated to print)."""
    root = Path(__file__).resolve().parent.parent
    path = root / "harness" / "families" / "block_omission.py"
    job = {"index": 7, "module": "agent_tck.harness.families.block_omission",
           "path": str(path), "source": path.read_text(encoding="utf-8") + "\nprint('noise')\n",
           "rules": ["BO-001"], "survives": False}
    proc = subprocess.run([sys.executable, "-m", "agent_tck.harness.mutation.mutants", "--worker",
                           str(root)], input=json.dumps(job) + "\n", capture_output=True,
                          text=True, cwd=root, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"index": 7, "failed": []}]
    assert "noise" in proc.stderr
