"""Unit tests of developer-message admission, reading, writing and projection (DM-*)."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agent_tck.harness.common.data import vectors_dir
from agent_tck.harness.contract.vectors import Case, load_file
from agent_tck.harness.families import operations as reference_operations
from agent_tck.harness.run.evaluate import failures
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.developer_messages import admission as dm
from agent_tck.reference_impl.developer_messages import projection, records, writers
from agent_tck.reference_impl.serialize import anthropic_messages as serialize_anthropic
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.session_log import format as session_log
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log.ext_developer_messages import DeveloperAdmission

OPERATIONS = reference_operations()

FOLDER = vectors_dir() / "developer-messages"
CASES: list[Case] = [c for p in sorted(FOLDER.glob("*.json")) for c in load_file(p)]
T0 = 1767225600000


def line(etype: str, seq: int, data: dict[str, Any], **envelope: Any) -> dict[str, Any]:
    return {"type": etype, "seq": seq, "time": T0 + seq, "data": data, **envelope}


def header_line() -> dict[str, Any]:
    return {"type": "session", "version": 4, "id": "s", "createdAt": T0}


def schema(name: str, label: str = "v1") -> dict[str, Any]:
    return {"name": name, "description": f"{name} {label}", "parameters": {"type": "object"}}


def developer(seq: int, *blocks: dict[str, Any], header: int | None = None,
              **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"turn": 1, "step": 1,
                            "message": {"role": "developer", "content": list(blocks)}, **extra}
    if header is not None:
        data["headerSeq"] = header
    return line("developer/message", seq, data)


def base_log(*tools: dict[str, Any]) -> list[dict[str, Any]]:
    """seq 1 turn/start, 2 step/start, 3 request/header(tools)."""
    return [
        header_line(),
        line("turn/start", 1, {"turn": 1}),
        line("step/start", 2, {"turn": 1, "step": 1}),
        line("request/header", 3, {"reason": "initial", "header": {"tools": list(tools)}}),
    ]


ADD = {"type": "tool-addition", "toolName": "search"}


# --- rejections name the event's seq and the rule -----------------------------------------------


@pytest.mark.parametrize(
    ("event", "code", "rule", "pointer_end"),
    [
        (developer(4, ADD), "DM_HEADER_SEQ_MISSING", "DM-002", "/data/headerSeq"),
        (developer(4, ADD, header=4), "DM_HEADER_SEQ_FORWARD", "DM-003", "/data/headerSeq"),
        (developer(4, ADD, header=0), "DM_HEADER_SEQ_UNKNOWN", "DM-004", "/data/headerSeq"),
        (developer(4, ADD, header=2), "DM_HEADER_SEQ_NOT_HEADER", "DM-005", "/data/headerSeq"),
        (developer(4, {**ADD, "tool": None}, header=3), "DM_INLINE_DEFINITION", "DM-009",
         "/content/0/tool"),
        (developer(4, {"type": "tool-removal", "toolName": "x"}, header=3),
         "DM_HEADER_SEQ_UNEXPECTED", "DM-011", "/data/headerSeq"),
        (developer(4, {"type": "tool-addition", "toolName": "grep"}, header=3),
         "DM_DEFINITION_MISSING", "DM-007", "/content/0/toolName"),
    ],
)
def test_a_rejection_names_seq_rule_and_member(event, code, rule, pointer_end):
    log = [*base_log(schema("search")), event]
    with pytest.raises(dm.DeveloperMessageError) as caught:
        dm.admit(log)
    err = caught.value
    assert (err.code, err.seq, err.rule) == (code, 4, rule)
    assert err.pointer is not None and err.pointer.startswith("/log/4")
    assert err.pointer.endswith(pointer_end)
    assert f"{rule} (seq 4)" in err.message
    assert dm.ERROR_CODES[code].startswith(rule.split("..")[0]) or rule == "DM-D001"


def test_every_error_code_is_documented_in_the_family_readme():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    codes = {*dm.ERROR_CODES, projection.UNDECLARED_TOOL}
    assert all(f"`{code}`" in readme for code in codes), codes
    assert {c.error_code for c in CASES for e in [c] for c in e.expect if c.error_code} <= (
        codes | {"UNSUPPORTED_CONTENT", "INVALID_HISTORY"}
    )


def test_admission_does_not_mutate_its_input():
    log = [*base_log(schema("search")), developer(4, ADD, header=3)]
    before = copy.deepcopy(log)
    result = dm.admit(log)
    assert log == before
    # the resolved definition is a value of its own, not a view of the input
    definition = result.to_json()["active"]["search"]["definition"]
    definition["description"] = "changed"
    assert log == before
    assert dm.admit(log).to_json()["active"]["search"]["definition"]["description"] == "search v1"


def test_the_typed_model_is_frozen():
    log = [*base_log(schema("search")), developer(4, ADD, header=3)]
    read = records.read_log(log)
    event = read.events[-1]
    assert isinstance(event.data, records.DeveloperData)
    with pytest.raises(AttributeError):
        event.data.header_seq = 99  # type: ignore[misc]
    with pytest.raises(TypeError):
        read.header["id"] = "other"  # type: ignore[index]


def test_remap_renumbers_from_the_first_seq_and_keeps_definitions():
    log = [header_line(),
           line("turn/start", 10, {"turn": 1}),
           line("x/noise", 11, {}, ignorable=True),
           line("step/start", 12, {"turn": 1, "step": 1}),
           line("request/header", 13, {"header": {"tools": [schema("search")]}}),
           developer(14, ADD, header=13)]
    migrated = writers.remap(log, [11])
    assert [e["seq"] for e in migrated[1:]] == [10, 11, 12, 13]
    assert migrated[-1]["data"]["headerSeq"] == 12
    before = dm.admit(log).to_json()["active"]["search"]["definition"]
    after = dm.admit(migrated).to_json()["active"]["search"]
    assert after == {"headerSeq": 12, "definition": before}


# --- the session log reader runs developer admission ----------------------------------------------


def _bytes(lines: list[dict[str, Any]]) -> list[bytes]:
    return [(json.dumps(x) + "\n").encode() for x in lines]


def test_check_log_uses_developer_admission_and_names_line_and_seq():
    vocabulary = session_log.default_vocabulary()
    good = [*base_log(schema("search")), developer(4, ADD, header=3)]
    assert log_reader.check(_bytes(good), vocabulary).events == 4
    bad = [*base_log(schema("search")), developer(4, ADD, header=5)]
    with pytest.raises(session_log.LogRejected) as caught:
        log_reader.check(_bytes(bad), vocabulary)
    assert (caught.value.error.code, caught.value.error.line, caught.value.error.seq) == (
        "DM_HEADER_SEQ_FORWARD", 5, 4)
    assert "DM-003" in caught.value.error.message


def test_the_hook_keeps_only_headers_in_memory():
    admission = DeveloperAdmission()
    admission.admit(line("turn/start", 1, {"turn": 1}), 2)
    admission.admit(line("step/start", 2, {"turn": 1, "step": 1}), 3)
    for seq in range(3, 2003):
        assert admission.admit(line("user/message", seq, {"role": "user", "content": []}),
                               seq + 1) is None
    index = admission.reader.index
    assert index.runs == [[1, 2002]] and not index.headers and not index.opaque
    assert admission.admit(developer(2003, {"type": "tool-removal", "toolName": "x"}), 2004) is None
    assert admission.reader.admitted == []
    assert admission.admit(developer(2004, ADD, header=500), 2005)[0] == (
        "DM_HEADER_SEQ_NOT_HEADER")


@pytest.mark.parametrize("case", [c for c in CASES if isinstance(c.input, dict) and "log" in c.input
                                  and c.expect[0].operation == "developer-messages.admit"],
                         ids=lambda c: c.id)
def test_check_log_agrees_with_admission_on_every_vector_log(case):
    """The same log through ``agent-tck check-log``: valid when admission accepts; when admission
    rejects, check-log rejects too, with the same code unless the reader's own shape check
    (MISSING_FIELD / INVALID_FIELD) catches the same fault first."""
    expectation = case.expect[0]
    try:
        log_reader.check(_bytes(case.input["log"]), session_log.default_vocabulary())
        got = None
    except session_log.LogRejected as rejected:
        got = rejected.error.code
    if expectation.alternatives:  # every outcome the case accepts: a code, or reading the log
        allowed = {e.error_code for e in expectation.alternatives}  # None: an accepted output
        assert got in {*allowed, "MISSING_FIELD", "INVALID_FIELD"}, got
    elif expectation.error_code is None:
        if "DM-034" in case.rules:
            assert got in (None, "INVALID_FIELD", "MISSING_FIELD")  # the decoder's to recover
        else:
            assert got is None
    else:
        assert got in (expectation.error_code, "MISSING_FIELD", "INVALID_FIELD"), got


# --- the vectors: schema, and faulty implementations they catch ----------------------------------


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    folder = vectors_dir() / "schema"
    resources = []
    for path in folder.glob("*.schema.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    registry = Registry().with_resources(resources)
    doc = json.loads((folder / "developer-messages.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    return Draft202012Validator({"$ref": f"{doc['$id']}#/$defs/{name}"}, registry=registry)


def test_vector_inputs_and_outputs_match_the_operation_schemas():
    doc = json.loads((vectors_dir() / "schema" / "developer-messages.schema.json").read_text())
    operations = doc["x-operations"]
    assert set(operations) == {op for op in OPERATIONS if op.startswith("developer-messages.")}
    for case in CASES:
        for expectation in case.expect:
            if not expectation.operation.startswith("developer-messages."):
                continue  # a serializer case kept here (provider-validity.json): its own shapes
            shapes = operations[expectation.operation]
            errors = list(_validator(shapes["input"]).iter_errors(case.input))
            assert not errors, (case.id, errors[0].message)
            for outcome in expectation.alternatives or (expectation,):
                if not outcome.is_error:
                    errors = list(_validator(shapes["output"]).iter_errors(outcome.output))
                    assert not errors, (case.id, errors[0].message)


def _failures(registry: dict[str, Callable[[Any], Any]]) -> dict[str, set[str]]:
    """Case id -> rules of every vector case the given implementation fails (the kit's one
    evaluate loop)."""
    failed: dict[str, set[str]] = {}
    for case, _, judgment in failures(InProcessTarget(registry, name="mutant"), CASES):
        assert judgment.status != "errored", (case.id, judgment.message)
        failed[case.id] = set(case.rules)
    return failed


def test_the_reference_passes_every_vector():
    assert _failures(dict(OPERATIONS)) == {}
    assert len(CASES) >= 100


@contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    original = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, original)


_original_resolve = dm._Reader.resolve
_original_tool = serialize_anthropic._tool


def _latest_header_resolver(self, data, additions, seq, at):  # binds to the newest header
    if isinstance(data.get("headerSeq"), int) and self.index.headers:
        data = {**data, "headerSeq": max(self.index.headers)}
    return _original_resolve(self, data, additions, seq, at)


def _first_match_resolver(self, data, additions, seq, at):  # takes the first of several schemas
    ref = data.get("headerSeq")
    if isinstance(ref, int) and ref in self.index.headers:
        tools = self.index.headers[ref]
        self.index.headers[ref] = {k: v[:1] for k, v in tools.items()}
    return _original_resolve(self, data, additions, seq, at)


_original_admit = dm.admit


def _registry_admit(lines, registry=None):  # resolves additions through the current registry
    result = _original_admit(lines)
    by_name = {t["name"]: t for t in registry or ()}
    return dm.Admission(tuple(
        dm.AdmittedDeveloperMessage(r.seq, r.turn, r.step, r.header_seq, tuple(
            dm.Change(c.kind, c.tool_name, by_name.get(c.tool_name, c.definition))
            if c.kind == "addition" else c for c in r.changes))
        for r in result.developer_messages))


MUTANTS: dict[str, tuple[tuple[Any, str, Any], set[str]]] = {
    # mutant: ((object, attribute, replacement), rules that failing cases must cite)
    "binds to the latest header": ((dm._Reader, "resolve", _latest_header_resolver),
                                   {"DM-016", "DM-019"}),
    "consults the current registry": ((dm, "admit", _registry_admit), {"DM-017", "DM-020"}),
    "accepts ambiguous schemas": ((dm._Reader, "resolve", _first_match_resolver), {"DM-006"}),
    "no open-step check": ((dm._Reader, "step_is_open", lambda self, t, s: True),
                           {"DM-030", "DM-031"}),
    "no role confinement": ((dm, "MESSAGE_SLOTS", {}),
                            {"DM-029", "DM-037", "DM-038", "DM-039", "DM-040", "DM-041",
                             "DM-042", "DM-043"}),
    "complete means a name": ((dm, "is_complete_definition", lambda s: True),
                              {"DM-008", "DM-D002"}),
    "drops unknown members": ((records, "_without", lambda obj, *keys: {}), {"DM-026"}),
    "no defer_loading on the wire": (
        (serialize_anthropic, "_tool",
         lambda tool: {k: v for k, v in _original_tool(tool).items() if k != "defer_loading"}),
        {"DM-047"}),
    "empty developer content splits the system head": (
        (model, "_empty_developer", lambda m: False), {"DM-046"}),
    "no declared-tool check": ((projection, "_check_declared", lambda h, t: None), {"DM-D006"}),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_vectors_catch_a_faulty_implementation(name):
    (obj, attribute, replacement), rules = MUTANTS[name]
    with patched(obj, attribute, replacement):
        failed = _failures(dict(OPERATIONS))
    cited = set().union(*failed.values()) if failed else set()
    assert rules <= cited, f"{name}: failing cases cite {sorted(cited)}"


def test_an_integral_float_seq_is_the_integer_for_admission_and_the_reader_alike():
    """JSON does not tell 3 from 3.0: the developer admission agrees with the log reader."""
    from agent_tck.reference_impl.developer_messages.records import _is_count

    assert _is_count(3.0) and _is_count(0) and _is_count(7)
    assert not _is_count(3.5) and not _is_count(True) and not _is_count(-1.0)
