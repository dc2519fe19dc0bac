"""The message-parts vectors: valid and passed (tests/test_generators.py keeps them what their
generator, vectors/generators/message_parts/, writes).

* every input that expects an output is valid against parts-input.schema.json and every
  expected output against parts-output.schema.json (the schemas and the vectors agree);
* the reference implementation passes every case, and its rejections point at the event
  that broke the sequence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agent_tck.harness.common.jsonschema_util import validate
from agent_tck.harness.families import run_operation
from agent_tck.harness.run.compare import first_difference
from agent_tck.reference_impl.errors import TckError

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "vectors" / "message-parts"
SCHEMAS = ROOT / "vectors" / "schema"
CASES = [
    (path.name, case)
    for path in sorted(FOLDER.glob("*.json"))
    for case in json.loads(path.read_text(encoding="utf-8"))["cases"]
]
PAIRS = [(name, case, op, exp) for name, case in CASES for op, exp in case["expect"].items()]


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


INPUT = Draft202012Validator(_schema("parts-input.schema.json"))
OUTPUT_DOC = _schema("parts-output.schema.json")
REGISTRY = Registry().with_resource(OUTPUT_DOC["$id"], Resource.from_contents(OUTPUT_DOC))


def output_validator(operation: str) -> Draft202012Validator:
    ref = f"{OUTPUT_DOC['$id']}#/$defs/{operation.split('.', 1)[1]}"
    return Draft202012Validator({"$ref": ref}, registry=REGISTRY)


def test_there_are_enough_cases_and_ids_are_unique():
    ids = [case["id"] for _, case in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 80


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.json")), ids=lambda p: p.name)
def test_each_file_is_a_valid_vector_file(path: Path):
    validate(json.loads(path.read_text(encoding="utf-8")), "vector-file.schema.json",
             code="VECTOR_INVALID", where=str(path))


def test_schemas_are_valid():
    Draft202012Validator.check_schema(_schema("parts-input.schema.json"))
    Draft202012Validator.check_schema(OUTPUT_DOC)


@pytest.mark.parametrize(("file", "case"), CASES, ids=[c["id"] for _, c in CASES])
def test_inputs_that_expect_outputs_match_the_input_schema(file: str, case: dict[str, Any]):
    expects_output = any("output" in e for e in case["expect"].values())
    errors = [e.message for e in INPUT.iter_errors(case["input"])]
    if expects_output:
        assert errors == []


@pytest.mark.parametrize(
    ("file", "case", "operation", "expectation"), PAIRS,
    ids=[f"{c['id']}[{op}]" for _, c, op, _ in PAIRS],
)
def test_reference_passes(file: str, case: dict[str, Any], operation: str,
                          expectation: dict[str, Any]):
    if "error" in expectation:
        with pytest.raises(TckError) as caught:
            run_operation(operation, case["input"])
        assert caught.value.code == expectation["error"]["code"], caught.value
        return
    actual = run_operation(operation, json.loads(json.dumps(case["input"])))
    assert first_difference(expectation["output"], actual) is None
    assert [e.message for e in output_validator(operation).iter_errors(expectation["output"])] \
        == []


ERROR_CASES = [
    (case, op) for _, case, op, exp in PAIRS
    if "error" in exp and exp["error"]["code"] != "MALFORMED_INPUT"
]


@pytest.mark.parametrize(("case", "operation"), ERROR_CASES,
                         ids=[f"{c['id']}[{op}]" for c, op in ERROR_CASES])
def test_rejections_name_the_event_that_broke_the_sequence(case: dict[str, Any],
                                                           operation: str):
    # every error vector breaks at its last event (MP-D013..MP-D017)
    last = len(case["input"]["events"]) - 1
    with pytest.raises(TckError) as caught:
        run_operation(operation, case["input"])
    assert caught.value.pointer == f"/events/{last}"
    assert caught.value.message.startswith(f"event {last}")


def test_the_readme_documents_every_operation_and_error_code():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    code = "".join(
        (ROOT / "reference_impl" / "message_parts" / name).read_text(encoding="utf-8")
        for name in ("tables.py", "reconciler.py", "views.py", "ops.py")
    )
    codes = set(re.findall(r'"(?:reject:)?([A-Z][A-Z_]{4,})"', code)) - {"ABSENT", "OPEN"}
    from agent_tck.reference_impl.message_parts.ops import OPERATIONS

    for name in OPERATIONS:
        assert f"`{name}`" in readme, name
    for c in sorted(codes):
        assert f"`{c}`" in readme, c
