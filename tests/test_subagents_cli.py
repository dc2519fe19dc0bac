"""``agent-tck subagents FILE...``: scenario files in, canonical traces (or comparisons) out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from agent_tck.harness.cli import main
from agent_tck.reference_impl.subagents.simulator import canonical_json, simulate

SCENARIO = {
    "scenario": "cli",
    "world": {"agents": [{"id": "root", "state": "idle"},
                         {"id": "c1", "parent": "root", "mode": "continuable"}]},
    "actions": [{"do": "send", "from": "c1", "to": "root", "message": "hi"},
                {"do": "boundary", "agent": "root"}],
}


def test_json_and_yaml_files_print_the_reference_trace(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(SCENARIO), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(SCENARIO), encoding="utf-8")
    assert main(["subagents", "--format", "json", str(tmp_path / "a.json"),
                 str(tmp_path / "b.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [canonical_json(simulate(SCENARIO))] * 2


def test_a_trace_is_printed_one_observation_a_line(tmp_path, capsys):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    assert main(["subagents", str(path)]) == 0
    trace = simulate(SCENARIO)["trace"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{path}: scenario 'cli', {len(trace)} observations"
    assert len(lines) == 1 + len(trace)
    first = trace[0]
    assert lines[1].split()[:3] == ["action", str(first["action"]), first["event"]]
    text = "\n".join(lines)
    assert "content=hi " in text and 'framing="Agent c1 sent a message:"' in text  # JSON when
    # a value is not one plain word


def test_a_vector_file_is_named_as_one(tmp_path, capsys):
    root = Path(__file__).resolve().parent.parent
    vectors = root / "vectors" / "send-message-adjacency" / "routes.json"
    assert main(["subagents", str(vectors)]) == 2
    err = capsys.readouterr().err
    assert "a vector file (send-message-adjacency" in err and "agent-tck run --vectors" in err


def test_a_bad_scenario_names_the_file_and_the_step(tmp_path, capsys):
    bad = {**SCENARIO, "actions": [*SCENARIO["actions"], {"do": "finish", "agent": "c9"}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["subagents", str(path)]) == 2
    err = capsys.readouterr().err
    assert "INVALID_SCENARIO" in err and str(path) in err and "step 2" in err and "'cli'" in err


def test_an_unreadable_file_is_a_usage_error(tmp_path, capsys):
    assert main(["subagents", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.slow
def test_an_adapter_is_compared_with_the_reference(tmp_path, capsys):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    impl = f"{sys.executable} -m agent_tck.harness.reference_adapter"
    assert main(["subagents", "--impl", impl, str(path)]) == 0
    assert "same trace as the reference" in capsys.readouterr().out
