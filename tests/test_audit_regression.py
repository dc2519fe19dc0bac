"""``agent-tck audit --save-vectors``: a captured violation becomes a minimized regression vector
that fails a faulty implementation on the same rule and passes the reference."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.audit import regression
from agent_tck.harness.cli import main
from agent_tck.harness.families import run_operation
from agent_tck.harness.reports import read

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = f"{sys.executable} -m agent_tck.harness.reference_adapter"
KEY = "sk-ant-api03-PLANTEDregressionKEY0123456789"


def exchange(body: dict[str, Any], api: str = "anthropic") -> dict[str, Any]:
    url = ("https://api.anthropic.com/v1/messages" if api == "anthropic"
           else "https://api.openai.com/v1/chat/completions")
    return {"method": "POST", "url": url,
            "request": {"headers": [["x-api-key", KEY]], "body": {"model": "m", **body}},
            "response": {"status": 200, "headers": {"content-type": "application/json"},
                         "body": {"type": "message", "content": [{"type": "text", "text": "ok"}]}}}


def capture(folder: Path, *exchanges: dict[str, Any]) -> Path:
    path = folder / "live.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in exchanges) + "\n")
    return path


#: a session whose third request carries a thinking block inside a user turn (BO-001), with a
#: secret and unrelated user content around it
VIOLATING = exchange({
    "system": "internal system prompt: the launch code is 4711",
    "tools": [{"name": "ls", "description": "list", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "my medical record says X; keep it private"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t1", "name": "ls", "input": {"path": "/home/alice"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "diary.txt"},
            {"type": "text", "text": f"use key {KEY} please"},
            {"type": "thinking", "thinking": "the child agent's private reasoning",
             "signature": "c2ln"}]},
    ]})


def saved_cases(folder: Path) -> list[dict[str, Any]]:
    return [c for p in sorted(folder.rglob("*.json")) for c in json.loads(p.read_text())["cases"]]


def test_round_trip_fails_a_faulty_adapter_on_the_same_rule_and_passes_the_reference(
        tmp_path: Path, fake_adapter: Any, capsys: pytest.CaptureFixture[str]) -> None:
    vectors = tmp_path / "vectors"
    code = main(["audit", "--read", str(capture(tmp_path, VIOLATING)), "--report-dir",
                 str(tmp_path / "audit"), "--save-vectors", str(vectors)])
    assert code == 1
    found = {f["rule"] for x in json.loads((tmp_path / "audit" / "audit.json").read_text())[
        "exchanges"] for f in x.get("findings", [])}
    assert "BO-001" in found
    cases = saved_cases(vectors)
    assert [c["rules"] for c in cases] == [["BO-001"]]
    capsys.readouterr()

    faulty = tmp_path / "faulty"
    assert main(["run", "--impl", fake_adapter("flattening"), "--vectors", str(vectors),
                 "--only-vectors", "--report-dir", str(faulty)]) == 1
    run = read(faulty / "results.jsonl")
    assert {r for c in run.cases if c.status == "fail" for r in c.rules} == {"BO-001"}

    good = tmp_path / "reference"
    assert main(["run", "--impl", REFERENCE, "--vectors", str(vectors), "--only-vectors",
                 "--report-dir", str(good)]) == 0
    assert {c.status for c in read(good / "results.jsonl").cases} == {"pass"}


def test_the_saved_case_is_minimal_and_keeps_no_unrelated_or_secret_content(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vectors = tmp_path / "vectors"
    main(["audit", "--read", str(capture(tmp_path, VIOLATING)), "--report-dir",
          str(tmp_path / "audit"), "--save-vectors", str(vectors)])
    capsys.readouterr()
    text = "".join(p.read_text() for p in vectors.rglob("*.json"))
    for secret in (KEY, "4711", "medical", "alice", "diary", "private reasoning", "Let me look"):
        assert secret not in text
    (case,) = saved_cases(vectors)
    # one user turn: the reasoning block the finding names and a text block that keeps the turn
    # on the wire (so the case does not also bear on BO-D001), both blanked
    assert case["input"] == {"history": [{"role": "user", "content": [
        {"type": "text", "text": regression.PLACEHOLDER},
        {"type": "reasoning", "text": regression.PLACEHOLDER, "signature": "c2ln"}]}]}
    assert case["expect"] == {"anthropic.serialize": {"output": {"messages": [
        {"role": "user", "content": [{"type": "text", "text": regression.PLACEHOLDER}]}]}}}


def test_a_text_the_rule_needs_is_kept_and_chat_completions_is_read_back(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path, exchange({"messages": [
        {"role": "user", "content": [{"type": "text", "text": ""},
                                     {"type": "text", "text": "hello"}]}]}),
        exchange({"messages": [{"role": "system", "content": "sys"},
                               {"role": "user", "content": "hi", "reasoning_content": "mine"},
                               {"role": "assistant", "content": "ok"}]}, api="openai"))
    vectors = tmp_path / "vectors"
    main(["audit", "--read", str(path), "--report-dir", str(tmp_path / "a"),
          "--save-vectors", str(vectors)])
    capsys.readouterr()
    cases = {c["rules"][0]: c for c in saved_cases(vectors)}
    assert set(cases) == {"BO-D008", "BO-001"}
    empty = cases["BO-D008"]["input"]["history"][0]["content"]
    assert {"type": "text", "text": ""} in empty  # BO-D008 is about exactly that empty text
    assert list(cases["BO-001"]["expect"]) == ["openai.serialize"]
    for case in cases.values():  # the expectation is what the reference does with the input
        (op, want), = case["expect"].items()
        assert run_operation(op, case["input"]) == want["output"]


def test_what_cannot_be_read_back_is_a_note_not_a_vector(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # IHU-D003: a system message first on the wire; what the runtime omitted before it is
    # not in the capture, so no honest history exists for it
    path = capture(tmp_path, exchange({"messages": [
        {"role": "system", "content": [{"type": "text", "text": "update"}]},
        {"role": "user", "content": "hi"}]}))
    vectors = tmp_path / "vectors"
    assert main(["audit", "--read", str(path), "--report-dir", str(tmp_path / "a"),
                 "--save-vectors", str(vectors)]) == 1
    err = capsys.readouterr().err
    assert "no regression vector for IHU-D003" in err
    assert "Traceback" not in err
    assert not vectors.exists()


def test_save_vectors_goes_with_read_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--listen", "8080", "--upstream", "http://x",
                 "--save-vectors", "v"]) == 2
    assert "--save-vectors goes with --read" in capsys.readouterr().err


def test_ddmin_finds_a_one_minimal_sublist() -> None:
    calls = []

    def needs_3_and_7(xs: list[int]) -> bool:
        calls.append(xs)
        return 3 in xs and 7 in xs

    assert regression.ddmin(list(range(20)), needs_3_and_7) == [3, 7]
    assert regression.ddmin([1, 2], lambda xs: True) == []
    assert len(calls) < 100


@pytest.mark.parametrize("family", ["block-omission", "in-history-update"])
def test_the_inverse_reads_back_what_the_reference_serializer_writes(family: str) -> None:
    """serialize(history_of(wire)) == wire for every expected request of the built-in vectors:
    the inverse loses nothing the serializer's output carries."""
    checked = 0
    for path in sorted((ROOT / "vectors" / family).glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            for op, dialect in (("anthropic.serialize", "anthropic"),
                                ("openai.serialize", "openai")):
                want = case["expect"].get(op, {}).get("output")
                if not isinstance(want, dict) or not want.get("messages"):
                    continue
                try:
                    back = regression.history_of(want, dialect)
                except regression.NotReconstructible:
                    continue
                assert run_operation(op, back) == want, (case["id"], op)
                checked += 1
    assert checked >= 10


# --- audit --read --jobs N ----------------------------------------------------------------------


def _placements(audit_json: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Per exchange (by capture reference): its placement and findings, conversation ids aside
    (they are numbered per stream)."""
    out = []
    for x in audit_json["exchanges"]:
        out.append((x.get("ref"), x.get("placement"),
                    sorted((f["rule"], f["pointer"]) for f in x.get("findings", []))))
    return sorted(out, key=str)


def test_jobs_audits_independent_files_apart_and_linked_files_together(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = [{"role": "user", "content": "list the files"}]
    reply = [{"role": "assistant", "content": [{"type": "text", "text": "a.txt"}]}]
    files = {
        # a conversation that goes on in the next file: request 2 continues request 1
        "one.jsonl": [exchange({"messages": first})],
        "two.jsonl": [exchange({"messages": [*first, *reply, {"role": "user", "content": [
            {"type": "text", "text": "thanks"},
            {"type": "thinking", "thinking": "t", "signature": "s"}]}]})],
        # unrelated
        "three.jsonl": [exchange({"messages": [{"role": "user", "content": "weather?"}]})],
    }
    for name, xs in files.items():
        x = xs[0]
        x["response"]["body"]["content"] = [{"type": "text", "text": "a.txt"}]
        (tmp_path / name).write_text("\n".join(json.dumps(e) for e in xs) + "\n")
    paths = [str(tmp_path / n) for n in files]
    runs = {}
    for jobs in ("1", "2"):
        code = main(["audit", "--read", *paths, "--jobs", jobs, "--report-dir",
                     str(tmp_path / f"r{jobs}"), "--save-vectors", str(tmp_path / f"v{jobs}")])
        assert code == 1
        runs[jobs] = (json.loads((tmp_path / f"r{jobs}" / "audit.json").read_text()),
                      capsys.readouterr().err)
    (seq, seq_err), (par, par_err) = runs["1"], runs["2"]
    assert _placements(par) == _placements(seq)
    assert [x.get("placement") for x in seq["exchanges"]] == ["new", "continuation", "new"]
    assert "conversations may cross files one.jsonl, two.jsonl" in par_err
    assert "three.jsonl" not in par_err.split("conversations may cross")[1].split("\n")[0]
    assert "cross files" not in seq_err
    assert [c["rules"] for c in saved_cases(tmp_path / "v2")] == [["BO-001"]]
    assert saved_cases(tmp_path / "v2")[0]["input"] == saved_cases(tmp_path / "v1")[0]["input"]


def test_linked_groups_are_connected_components() -> None:
    from agent_tck.harness.audit.batch import linked

    keys = [frozenset({"a"}), frozenset({"x"}), frozenset({"b", "a"}), frozenset({"b"}),
            frozenset()]
    assert linked(keys) == [[0, 2, 3], [1], [4]]
