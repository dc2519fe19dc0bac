"""Step definitions for features/message_parts.feature (family message-parts).

The "the runtime ..." steps only append plain runtime events (vectors/message-parts/README.md)
to the scenario's list; every check sends the whole list to the implementation through
``tck_target`` (operations ``message-parts.parts`` / ``answer`` / ``project`` / ``titles`` /
``branches``) and reads the answer. Quoted step text may contain ``\\"`` for a quote.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import Output, Rejected

PARTS = "message-parts.parts"
ANSWER = "message-parts.answer"
PROJECT = "message-parts.project"
TITLES = "message-parts.titles"
BRANCHES = "message-parts.branches"

Q = r'"((?:[^"\\]|\\.)*)"'  # a quoted step argument, \" inside


def _unq(text: str) -> str:
    return text.replace('\\"', '"').replace("\\\\", "\\")


def _q(name: str) -> str:
    return f'"(?P<{name}>(?:[^"\\\\]|\\\\.)*)"'


@pytest.fixture
def mp() -> dict[str, Any]:
    """The scenario's runtime events, view settings and tool names (for retries)."""
    return {"events": [], "view": None, "names": {}}


def _send(mp: dict[str, Any], event: dict[str, Any]) -> None:
    mp["events"].append(event)


def _payload(mp: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = {"events": copy.deepcopy(mp["events"])}
    if mp["view"] is not None:
        payload["view"] = copy.deepcopy(mp["view"])
    return payload


def _output(tck_target: Any, operation: str, mp: dict[str, Any]) -> Any:
    result = tck_target.call(operation, _payload(mp))
    if isinstance(result, Rejected):
        pytest.fail(f"{operation} rejected the events with {result.code} "
                    f"({result.message}); expected an output", pytrace=False)
    assert isinstance(result, Output)
    return result.value


def _cell(value: Any) -> str:
    """How an output value is written in a table cell."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _turn(output: dict[str, Any], turn: str) -> dict[str, Any]:
    for t in output.get("turns", []):
        if t.get("turn") == turn:
            return t
    pytest.fail(f"turn {turn!r} is not in the output: {_cell(output)}", pytrace=False)


def _find_part(output: dict[str, Any], pid: str) -> dict[str, Any]:
    for t in output.get("turns", []):
        for p in t.get("parts", []):
            if p.get("id") == pid:
                return p
    pytest.fail(f"part {pid!r} is not in the output", pytrace=False)


def _rows(datatable: list[list[str]]) -> list[dict[str, str]]:
    head, *rows = datatable
    return [dict(zip(head, row, strict=True)) for row in rows]


def _pairs(datatable: list[list[str]]) -> list[tuple[str, str]]:
    return [(row[0], row[1]) for row in datatable]


# --- turns ----------------------------------------------------------------------------------


@given(parsers.re(f"{_q('author')} asks {_q('text')} in turn {_q('turn')}$"))
@when(parsers.re(f"{_q('author')} asks {_q('text')} in turn {_q('turn')}$"))
def user_asks(mp: dict[str, Any], author: str, text: str, turn: str) -> None:
    _send(mp, {"type": "turn.start", "turn": turn,
               "user": {"id": f"{turn}.user", "author": _unq(author), "text": _unq(text)}})


@given(parsers.re(f"{_q('author')} asks {_q('text')} in turn {_q('turn')} with context "
                  f"{_q('context')}, mode {_q('mode')} and artifact {_q('artifact')}$"))
def user_asks_with(mp: dict[str, Any], *, author: str, text: str, turn: str, context: str,
                   mode: str, artifact: str) -> None:
    _send(mp, {"type": "turn.start", "turn": turn,
               "user": {"id": f"{turn}.user", "author": _unq(author), "text": _unq(text)},
               "context": [_unq(context)], "mode": _unq(mode), "artifacts": [_unq(artifact)]})


@given(parsers.re(r"the view's policy (?P<policy>allows|forbids|is silent on) reasoning "
                  r"detail and the user (?P<user>allows|forbids|is silent on) it$"))
def view_settings(mp: dict[str, Any], policy: str, user: str) -> None:
    detail: dict[str, bool] = {}
    if policy != "is silent on":
        detail["policy"] = policy == "allows"
    if user != "is silent on":
        detail["user"] = user == "allows"
    mp["view"] = {"reasoning_detail": detail}


@when(parsers.re(f"the runtime completes turn {_q('turn')}$"))
def turn_end(mp: dict[str, Any], turn: str) -> None:
    _send(mp, {"type": "turn.end", "turn": _unq(turn)})


@when(parsers.re(f"the runtime aborts turn {_q('turn')}$"))
def turn_abort(mp: dict[str, Any], turn: str) -> None:
    _send(mp, {"type": "turn.abort", "turn": _unq(turn)})


@when(parsers.re(f"the user regenerates turn {_q('source')} as branch {_q('turn')}$"))
def turn_branch(mp: dict[str, Any], source: str, turn: str) -> None:
    _send(mp, {"type": "turn.branch", "turn": _unq(turn), "from": _unq(source)})


# --- parts ----------------------------------------------------------------------------------


@when(parsers.re(r"the runtime starts an? (?P<kind>[a-z_]+) part " + _q("pid") + "$"))
def part_start(mp: dict[str, Any], kind: str, pid: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": kind})


@when(parsers.re(r"the runtime starts a redacted reasoning_detail part " + _q("pid") + "$"))
def part_start_redacted(mp: dict[str, Any], pid: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "reasoning_detail",
               "redacted": True})


@when(parsers.re(r"the runtime starts an? (?P<kind>runtime_status) part " + _q("pid")
                 + " on the " + _q("surface") + " surface$"))
def part_start_surface(mp: dict[str, Any], kind: str, pid: str, surface: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": kind, "surface": _unq(surface)})


@when(parsers.re(f"the runtime starts a tool call {_q('pid')} to {_q('name')}$"))
def tool_call(mp: dict[str, Any], pid: str, name: str) -> None:
    mp["names"][_unq(pid)] = _unq(name)
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "tool_call", "name": _unq(name)})


@when(parsers.re(f"the runtime retries tool call {_q('earlier')} as {_q('pid')}$"))
def tool_retry(mp: dict[str, Any], earlier: str, pid: str) -> None:
    name = mp["names"][_unq(earlier)]
    mp["names"][_unq(pid)] = name
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "tool_call", "name": name,
               "retry_of": _unq(earlier)})


@when(parsers.re(r"the runtime starts a (?P<failed>failed )?tool result " + _q("pid")
                 + " for " + _q("call") + "$"))
def tool_result(mp: dict[str, Any], failed: str | None, pid: str, call: str) -> None:
    event: dict[str, Any] = {"type": "part.start", "id": _unq(pid), "kind": "tool_result",
                             "call": _unq(call)}
    if failed:
        event["is_error"] = True
    _send(mp, event)


@when(parsers.re(f"the runtime asks {_q('prompt')} as action {_q('pid')} with payload "
                 r"(?P<payload>.+)$"))
def action_required(mp: dict[str, Any], prompt: str, pid: str, payload: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "action_required",
               "prompt": _unq(prompt), "payload": json.loads(payload)})


@when(parsers.re(f"the runtime attaches artifact {_q('artifact')} titled {_q('title')} as "
                 f"part {_q('pid')}$"))
def artifact_ref(mp: dict[str, Any], artifact: str, title: str, pid: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "artifact_ref",
               "artifact": _unq(artifact), "title": _unq(title)})


@when(parsers.re(r"the runtime attaches (?P<entry>source|verification|replay) evidence "
                 + _q("evidence") + " as part " + _q("pid")
                 + r"(?: with pack (?P<pack>.+))?$"))
def evidence_ref(mp: dict[str, Any], entry: str, evidence: str, pid: str,
                 pack: str | None) -> None:
    event: dict[str, Any] = {"type": "part.start", "id": _unq(pid), "kind": "evidence_ref",
                             "evidence": _unq(evidence), "entry": entry}
    if pack is not None:
        event["pack"] = json.loads(pack)
    _send(mp, event)


@when(parsers.re(r"the runtime reports a (?P<rec>recoverable|fatal) error " + _q("message")
                 + " as part " + _q("pid") + " on the " + _q("surface")
                 + " surface with next step " + _q("next") + "$"))
def error_part(mp: dict[str, Any], *, rec: str, message: str, pid: str, surface: str,
               next: str) -> None:
    _send(mp, {"type": "part.start", "id": _unq(pid), "kind": "error",
               "surface": _unq(surface), "message": _unq(message),
               "recoverable": rec == "recoverable", "next_step": _unq(next)})


@when(parsers.re(f"the runtime streams {_q('text')} into part {_q('pid')}"
                 r"(?: as delta (?P<seq>[0-9]+))?$"))
def delta(mp: dict[str, Any], text: str, pid: str, seq: str | None) -> None:
    event: dict[str, Any] = {"type": "part.delta", "id": _unq(pid), "text": _unq(text)}
    if seq is not None:
        event["seq"] = int(seq)
    _send(mp, event)


@when(parsers.re(f"the final payload of part {_q('pid')} is {_q('text')}$"))
def final(mp: dict[str, Any], pid: str, text: str) -> None:
    _send(mp, {"type": "part.final", "id": _unq(pid), "text": _unq(text)})


@when(parsers.re(f"the runtime completes part {_q('pid')}(?: with summary {_q('summary')})?$"))
def part_end(mp: dict[str, Any], pid: str, summary: str | None) -> None:
    event: dict[str, Any] = {"type": "part.end", "id": _unq(pid)}
    if summary is not None:
        event["summary"] = _unq(summary)
    _send(mp, event)


@when(parsers.re(f"the runtime exports part {_q('pid')} as answer$"))
def export(mp: dict[str, Any], pid: str) -> None:
    _send(mp, {"type": "part.export", "id": _unq(pid)})


@when(parsers.re(f"the answer links artifact {_q('artifact')}$"))
def answer_link(mp: dict[str, Any], artifact: str) -> None:
    _send(mp, {"type": "answer.link", "artifact": _unq(artifact)})


@when(parsers.re(f"the answer cites evidence {_q('evidence')}$"))
def answer_cite(mp: dict[str, Any], evidence: str) -> None:
    _send(mp, {"type": "answer.cite", "evidence": _unq(evidence)})


@when(parsers.re(r"the runtime logs (?P<data>.+) on the " + _q("channel") + " channel$"))
def runtime_log(mp: dict[str, Any], data: str, channel: str) -> None:
    _send(mp, {"type": "runtime.log", "channel": _unq(channel), "data": json.loads(data)})


@when(parsers.re(r"the runtime sends the event (?P<raw>.+)$"))
def raw_event(mp: dict[str, Any], raw: str) -> None:
    _send(mp, json.loads(raw))


# --- checks ---------------------------------------------------------------------------------


@then(parsers.re(f"the parts of turn {_q('turn')} are, in order:$"))
def parts_in_order(tck_target: Any, mp: dict[str, Any], turn: str,
                   datatable: list[list[str]]) -> None:
    parts = _turn(_output(tck_target, PARTS, mp), _unq(turn))["parts"]
    expected = _rows(datatable)
    actual = [{k: _cell(p.get(k)) for k in expected[0]} for p in parts]
    assert actual == expected


@then(parsers.re(f"part {_q('pid')} has:$"))
def part_has(tck_target: Any, mp: dict[str, Any], pid: str,
             datatable: list[list[str]]) -> None:
    part = _find_part(_output(tck_target, PARTS, mp), _unq(pid))
    for key, value in _pairs(datatable):
        assert key in part, f"part {pid!r} has no member {key!r}: {_cell(part)}"
        assert _cell(part[key]) == value, f"part {pid!r}: {key} is {_cell(part[key])!r}"


def _answer_of(tck_target: Any, mp: dict[str, Any], turn: str) -> dict[str, Any]:
    return _turn(_output(tck_target, ANSWER, mp), _unq(turn))


@then(parsers.re(f"the final answer of turn {_q('turn')} reads {_q('text')}$"))
def answer_reads(tck_target: Any, mp: dict[str, Any], turn: str, text: str) -> None:
    answer = _answer_of(tck_target, mp, turn)
    assert "".join(s["text"] for s in answer["segments"]) == _unq(text)


@then(parsers.re(f"the final answer of turn {_q('turn')} does not contain {_q('text')}$"))
def answer_lacks(tck_target: Any, mp: dict[str, Any], turn: str, text: str) -> None:
    answer = _answer_of(tck_target, mp, turn)
    assert _unq(text) not in json.dumps(answer, ensure_ascii=False)


@then(parsers.re(f"the final answer of turn {_q('turn')} links {_q('artifact')}$"))
def answer_links(tck_target: Any, mp: dict[str, Any], turn: str, artifact: str) -> None:
    assert _answer_of(tck_target, mp, turn)["links"] == [_unq(artifact)]


@then(parsers.re(f"the final answer of turn {_q('turn')} cites {_q('evidence')}$"))
def answer_cites(tck_target: Any, mp: dict[str, Any], turn: str, evidence: str) -> None:
    assert _answer_of(tck_target, mp, turn)["citations"] == [_unq(evidence)]


@then(parsers.re(f"the view is {_q('view')} and turn {_q('turn')} shows:$"))
def view_shows(tck_target: Any, mp: dict[str, Any], view: str, turn: str,
               datatable: list[list[str]]) -> None:
    out = _output(tck_target, PROJECT, mp)
    assert out["view"] == _unq(view)
    items = _turn(out, _unq(turn))["items"]
    expected = _rows(datatable)
    assert [{k: _cell(i.get(k)) for k in expected[0]} for i in items] == expected


@then("every part is projected exactly once")
def projected_once(tck_target: Any, mp: dict[str, Any]) -> None:
    parts = [p["id"] for t in _output(tck_target, PARTS, mp)["turns"] for p in t["parts"]]
    shown = [i["part"] for t in _output(tck_target, PROJECT, mp)["turns"] for i in t["items"]]
    assert sorted(shown) == sorted(parts)
    assert len(shown) == len(set(shown))


def _title(tck_target: Any, mp: dict[str, Any], pid: str) -> Any:
    for entry in _output(tck_target, TITLES, mp)["titles"]:
        if entry["part"] == _unq(pid):
            return entry["title"]
    pytest.fail(f"no title entry for part {pid!r}", pytrace=False)


@then(parsers.re(f"the title of part {_q('pid')} is {_q('title')}$"))
def title_is(tck_target: Any, mp: dict[str, Any], pid: str, title: str) -> None:
    assert _title(tck_target, mp, pid) == _unq(title)


@then(parsers.re(f"part {_q('pid')} has no title$"))
def no_title(tck_target: Any, mp: dict[str, Any], pid: str) -> None:
    assert _title(tck_target, mp, pid) is None


def _branch_cells(record: dict[str, Any]) -> dict[str, str]:
    user = record["user"]
    return {
        "user": f"{user['id']}: {user['author']}: {user['text']}",
        "context": ", ".join(record["context"]),
        "mode": _cell(record["mode"]),
        "artifacts": ", ".join(record["artifacts"]),
        "process": ", ".join(record["process"]),
        "evidence": ", ".join(record["evidence"]),
    }


@then(parsers.re(f"turn {_q('turn')} is a branch of {_q('source')} with:$"))
def branch_with(tck_target: Any, mp: dict[str, Any], turn: str, source: str,
                datatable: list[list[str]]) -> None:
    record = _turn(_output(tck_target, BRANCHES, mp), _unq(turn))
    assert record["branch_of"] == _unq(source)
    cells = _branch_cells(record)
    for key, value in _pairs(datatable):
        assert cells[key] == value, f"turn {turn!r}: {key} is {cells[key]!r}"


@then(parsers.re(f"turn {_q('turn')} keeps:$"))
def turn_keeps(tck_target: Any, mp: dict[str, Any], turn: str,
               datatable: list[list[str]]) -> None:
    cells = _branch_cells(_turn(_output(tck_target, BRANCHES, mp), _unq(turn)))
    for key, value in _pairs(datatable):
        assert cells[key] == value, f"turn {turn!r}: {key} is {cells[key]!r}"


@then(parsers.re(f"artifact {_q('artifact')} was produced by turn {_q('turn')} in part "
                 f"{_q('pid')}$"))
def produced_by(tck_target: Any, mp: dict[str, Any], artifact: str, turn: str,
                pid: str) -> None:
    produced = _output(tck_target, BRANCHES, mp)["artifacts"]
    wanted = {"artifact": _unq(artifact), "turn": _unq(turn), "part": _unq(pid)}
    assert wanted in produced, f"{wanted} not in {produced}"
    assert [p for p in produced if p["artifact"] == wanted["artifact"]] == [wanted]


@then(parsers.re(r"the events are rejected with " + _q("code") + r" at event (?P<index>[0-9]+)$"))
def rejected(tck_target: Any, mp: dict[str, Any], code: str, index: str) -> None:
    result = tck_target.call(PARTS, _payload(mp))
    assert isinstance(result, Rejected), f"accepted; expected a rejection with {code}"
    assert result.code == _unq(code), f"rejected with {result.code} ({result.message})"
    # MP-D013..MP-D017: the rejection names the event index (pointer, else the message)
    if result.pointer is not None:
        assert result.pointer == f"/events/{index}", result.pointer
    else:
        assert f"event {index}" in result.message, result.message


@then("the same events always give the same parts, answer and view")
def deterministic(tck_target: Any, mp: dict[str, Any]) -> None:
    for operation in (PARTS, ANSWER, PROJECT):
        first = _output(tck_target, operation, mp)
        again = _output(tck_target, operation, mp)
        # the same events with every object's keys in reverse order
        shuffled = {"events": [dict(reversed(list(e.items()))) for e in mp["events"]]}
        other = tck_target.call(operation, shuffled)
        assert isinstance(other, Output)
        assert first == again == other.value, operation
