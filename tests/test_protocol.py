"""The protocol is written twice (schemas and typed commands); this keeps them in sync."""

from __future__ import annotations

import io
import json

import pytest

from agent_tck.harness.common.jsonschema_util import validator
from agent_tck.harness.reference_adapter import serve
from agent_tck.harness.run.protocol import (
    RunCommand,
    StartCommand,
    StopCommand,
    encode,
    parse_result,
    parse_started,
)

COMMANDS = validator("protocol/command.schema.json")


@pytest.mark.parametrize(
    "command",
    [StartCommand("0.1.0"), RunCommand(1, "anthropic.serialize", {"history": []}, "c"),
     RunCommand(2, "a.b", None), StopCommand()],
)
def test_typed_commands_satisfy_the_schema(command):
    line = encode(command)
    assert line.endswith("\n") and "\n" not in line[:-1]
    COMMANDS.validate(json.loads(line))


def test_the_reference_adapter_speaks_the_protocol():
    stdin = io.StringIO(
        encode(StartCommand("0.1.0")) + "\n" + encode(RunCommand(1, "no.such-op", {}))
        + encode(StopCommand())
        + encode(RunCommand(2, "never.reached", {}))
    )
    stdout = io.StringIO()
    assert serve(stdin, stdout) == 0
    started, crashed = stdout.getvalue().splitlines()
    impl = parse_started(started)
    assert impl.name == "agent-tck-reference" and impl.operations
    result = parse_result(crashed, 1)
    assert "unknown operation" in result.reason  # type: ignore[union-attr]


def test_started_reply_must_name_the_implementation():
    with pytest.raises(Exception, match="implementation"):
        parse_started(json.dumps({"protocol": 1, "operations": []}))
