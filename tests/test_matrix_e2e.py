"""``agent-tck matrix`` end to end, offline: the Python ``anthropic`` and ``openai`` clients
(installed with the kit's test extras) and misbehaving fake drivers, each run behind a real
``agent-tck audit --listen`` (mitmdump) in front of the mock provider, on 127.0.0.1 only.

One module fixture runs the whole matrix once; the tests read what it wrote. Nothing here
depends on timing: the hanging driver never finishes, whatever the machine's speed, and every
wait is a bound, not an expectation.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import jsonschema
import pytest

from agent_tck.harness.commands.audit import find_mitmdump
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.matrix import model as mm
from agent_tck.harness.matrix import run as mr

pytestmark = pytest.mark.slow
pytest.importorskip("mitmproxy")
for _sdk in ("anthropic", "openai"):  # installed? (not imported here: tests/lazy_import.py)
    if importlib.util.find_spec(_sdk) is None:
        pytest.skip(f"the {_sdk} client is not installed", allow_module_level=True)

FAKE = Path(__file__).resolve().parent / "fakes" / "matrix_driver.py"
PLANTED = {
    # credential-named: dropped from the drivers' environment (placeholders instead)
    "ANTHROPIC_API_KEY": "sk-ant-api03-PLANTEDmatrixANTHROPIC0123456789",
    "MY_SERVICE_TOKEN": "plantedTOKENvalue-not-key-shaped-42",
    # not credential-named: reaches the drivers; the leaking one prints and sends it
    "AGENT_TCK_PLANTED": "sk-ant-api03-PLANTEDmatrixLEAK0123456789",
}


def _fake(mode: str, timeout: float | None = None) -> mm.Client:
    return mm.Client(id=f"fake-{mode}", package=f"fake-{mode}", language="python",
                     kind="command", version="0", driver=str(FAKE), apis=("anthropic",),
                     command=(sys.executable, str(FAKE), mode), timeout=timeout)


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    try:
        find_mitmdump(None)
    except HarnessError:
        pytest.skip("mitmdump is not installed")
    out = tmp_path_factory.mktemp("matrix")
    clients, _agents = mr.load_registry()
    # the versions the test extras installed (the pins may differ): never an install here
    real = [replace(c, version=importlib.metadata.version(c.package)) for c in clients
            if c.id in ("py-anthropic", "py-openai")]
    scenarios = [s for s in mr.load_scenarios() if s.id in ("multi-turn", "history-reasoning")]
    fakes = [_fake("hang", timeout=3), _fake("crash"), _fake("silent"), _fake("unsupported"),
             _fake("leak")]
    cells = mm.plan(real, scenarios) + mm.plan(fakes, scenarios, (), ("multi-turn",))
    with mock.patch.dict(os.environ, PLANTED):
        doc = mr.run_matrix(cells, [mm.Agent("an-agent", "@x/agent", "cannot be scripted")],
                            mr.Settings(out=out, timeout=120, save_vectors=True), jobs=2)
    yield {"doc": doc, "out": out}


def cell(doc: dict[str, Any], column: str, rule: str) -> dict[str, Any]:
    col = next(c for c in doc["columns"] if c["id"] == column)
    return col["cells"][[r["id"] for r in doc["rules"]].index(rule)]


def run(doc: dict[str, Any], cell_id: str) -> dict[str, Any]:
    return next(r for r in doc["runs"] if r["cell"] == cell_id)


def test_the_written_matrix_matches_its_schema(matrix: dict[str, Any]) -> None:
    schema = json.loads((mr.MATRIX_DIR / "schema" / "matrix.schema.json").read_text())
    written = json.loads((matrix["out"] / "matrix.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(written)
    assert written["columns"] == matrix["doc"]["columns"]
    assert (matrix["out"] / "matrix.md").read_text().startswith("# Conformance matrix")
    assert '<table class="matrix" id="matrix">' in (matrix["out"] / "matrix.html").read_text()


def test_a_known_violation_is_a_fail_cell_with_its_rule_pointer_and_excerpt(
        matrix: dict[str, Any]) -> None:
    doc = matrix["doc"]
    failed = cell(doc, "py-anthropic/anthropic", "BO-001")
    assert failed["status"] == "fail"
    assert failed["severity"] == "error"
    [finding] = failed["findings"]
    assert finding["scenario"] == "history-reasoning"
    assert finding["pointer"] == "/request/body/messages/4/content/1"
    assert json.loads(finding["excerpt"])["thinking"] == "Child reasoning that leaked."
    assert (matrix["out"] / finding["report"] / "report.html").is_file()
    assert cell(doc, "py-anthropic/anthropic", "BO-003")["status"] == "fail"
    openai_fail = cell(doc, "py-openai/openai", "BO-001")
    assert [f["pointer"] for f in openai_fail["findings"]] == [
        "/request/body/messages/5/reasoning_content"]


def test_a_clean_scenario_is_a_pass_and_an_unchecked_rule_not_exercised(
        matrix: dict[str, Any]) -> None:
    doc = matrix["doc"]
    for column in ("py-anthropic/anthropic", "py-openai/openai"):
        assert cell(doc, column, "WA-D006")["status"] == "pass", column
        assert cell(doc, column, "WA-D007")["status"] == "pass", column
    assert cell(doc, "py-anthropic/anthropic", "BO-D001")["status"] == "pass"
    # BO-D001 is a Messages rule: the audit does not check it on Chat Completions
    assert cell(doc, "py-openai/openai", "BO-D001")["status"] == "not-exercised"
    assert run(doc, "py-anthropic.anthropic.multi-turn")["requests"] == 3


@pytest.mark.parametrize(("mode", "reason", "in_log"), [
    ("hang", "did not finish within 3s", "[killed: timed out]"),
    ("crash", "exited with 1", "the driver fell over"),
    ("silent", "sent no request", "[exit 0]"),
])
def test_a_driver_that_hangs_crashes_or_sends_nothing_could_not_run(
        matrix: dict[str, Any], mode: str, reason: str, in_log: str) -> None:
    doc = matrix["doc"]
    r = run(doc, f"fake-{mode}.anthropic.multi-turn")
    assert r["status"] == "could-not-run"
    assert reason in r["reason"]
    assert in_log in (matrix["out"] / r["log"]).read_text()
    col = next(c for c in doc["columns"] if c["id"] == f"fake-{mode}/anthropic")
    named = {"WA-D006", "WA-D007", "BO-D001", "BO-D002"}
    assert {c["rule"]: c["status"] for c in col["cells"] if c["rule"] in named} == {
        "WA-D006": "could-not-run", "WA-D007": "could-not-run", "BO-D001": "could-not-run",
        "BO-D002": "could-not-run"}


def test_a_scenario_the_client_cannot_express_is_not_exercised(matrix: dict[str, Any]) -> None:
    doc = matrix["doc"]
    assert run(doc, "fake-unsupported.anthropic.multi-turn")["status"] == "unsupported"
    c = cell(doc, "fake-unsupported/anthropic", "WA-D006")
    assert c["status"] == "not-exercised"
    assert "not expressible: this fake has no way to say it" in c["notes"][0]


def test_no_planted_secret_reaches_any_artifact(matrix: dict[str, Any]) -> None:
    out = matrix["out"]
    leak = run(matrix["doc"], "fake-leak.anthropic.multi-turn")
    assert leak["requests"] == 1  # the leaking driver did send its request
    log = (out / leak["log"]).read_text()
    assert "[REDACTED" in log  # the planted key was printed, and scrubbed
    # the driver was given a placeholder, not the planted ANTHROPIC_API_KEY
    assert "anthropic credential given: placeholder-anthropic-key" in log
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 20
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        for name, value in PLANTED.items():
            assert value not in text, (name, path)
            assert value[12:30] not in text, (name, path)


def test_saved_regression_vectors_give_the_findings_they_came_from(
        matrix: dict[str, Any]) -> None:
    from agent_tck.harness.audit.operations import wire_check

    failed = cell(matrix["doc"], "py-anthropic/anthropic", "BO-001")
    path, _, case_id = failed["findings"][0]["vector"].partition("#")
    vectors = json.loads((matrix["out"] / path).read_text())
    schema = json.loads((Path(mr.MATRIX_DIR).parent / "vectors" / "schema" /
                         "vector-file.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(vectors)
    [case] = [c for c in vectors["cases"] if c["id"] == case_id]
    assert set(case["rules"]) == {"BO-001", "BO-002", "BO-003"}
    for c in vectors["cases"]:
        assert wire_check(c["input"]) == c["expect"]["wire.check"]["output"], c["id"]
