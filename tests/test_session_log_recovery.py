"""check-log on damaged v4 logs (issue 22): a recoverable tail is exactly what a crash can leave,
as the source runtime's scanner defines it (reference_impl.session_log.recovery), and the dsh-v4
profile's tool-call/result matching and protected-head compaction rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.commands.check_log import check_file
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import profile_dsh as dsh
from agent_tck.reference_impl.session_log import reader as log_reader
from tests import dsh_v4_logs as logs

DEFAULT = sl.default_vocabulary()
STRICT = dsh.vocabulary(DEFAULT)


def rows() -> list[dict[str, Any]]:
    """A real v4 log (tests/dsh_v4_logs.py): header, then one tool-calling turn ending turn/end."""
    w = logs.one_turn()
    return [w.header, *w.events]


def text(items: list[Any]) -> bytes:
    return b"".join((item if isinstance(item, bytes) else
                     json.dumps(item, separators=(",", ":")).encode()) + b"\n" for item in items)


def checked(tmp_path: Path, data: bytes, profile: str = "default") -> dict[str, Any]:
    path = tmp_path / "session.v4.jsonl"
    path.write_bytes(data)
    return check_file(str(path), profile=profile)


def refused(tmp_path: Path, data: bytes, code: str, profile: str = "default") -> str:
    result = checked(tmp_path, data, profile)
    assert not result["valid"], result
    assert result["error"]["code"] == code, result
    return str(result["error"]["message"])


def edit(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(row))
    for path, value in changes.items():
        target = out
        *parents, last = path.split("__")
        for key in parents:
            target = target[key]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return out


# --- what the runtime refuses stays refused (exit 1) ---------------------------------------------


def test_a_final_turn_end_written_twice_is_refused(tmp_path: Path) -> None:
    log = rows()
    message = refused(tmp_path, text([*log, log[-1]]), sl.SEQ_DUPLICATE)
    assert "written again, not a torn write" in message and "drop it" in message


def test_a_final_turn_end_with_a_bad_turn_field_is_refused(tmp_path: Path) -> None:
    log = rows()
    message = refused(tmp_path, text([*log[:-1], edit(log[-1], data__turn="one")]),
                      sl.INVALID_FIELD)
    assert "not a torn write" in message


def test_a_final_tool_result_with_role_user_fails_row_admission(tmp_path: Path) -> None:
    log = rows()
    cut = next(i for i, r in enumerate(log) if r.get("type") == "tool/result")
    bad = edit(log[cut], data__message__role="user")
    assert "row admission" in refused(tmp_path, text([*log[:cut], bad]), sl.INVALID_FIELD)


def test_a_re_appended_event_is_refused_and_says_what_a_loader_does(tmp_path: Path) -> None:
    log = rows()
    message = refused(tmp_path, text([*log[:9], log[4]]), sl.SEQ_DECREASE)
    assert "would drop it and every later row" in message and "seq-contiguous" in message


@pytest.mark.parametrize("change", [
    {"data__message__content": "text"}, {"data__turn": None}, {"data__message__role": "user"}])
def test_a_field_error_in_the_last_rows_data_is_refused(tmp_path: Path,
                                                         change: dict[str, Any]) -> None:
    log = rows()
    cut = max(i for i, r in enumerate(log) if r.get("type") == "assistant/message")
    code = sl.MISSING_FIELD if None in change.values() else sl.INVALID_FIELD
    refused(tmp_path, text([*log[:cut], edit(log[cut], **change)]), code)


def test_a_seq_gap_on_the_final_turn_end_is_refused(tmp_path: Path) -> None:
    log = rows()
    message = refused(tmp_path, text([*log[:-1], edit(log[-1], seq=log[-1]["seq"] + 2)]),
                      sl.SEQ_GAP)
    assert "itself a turn/end" in message


def test_a_later_turn_end_without_data_still_makes_the_tail_corruption(tmp_path: Path) -> None:
    log = rows()
    refused(tmp_path, text([*log[:-2], b"{torn", {"type": "turn/end"}]), sl.MALFORMED_JSON)


def test_row_admission_runs_on_the_rows_a_tail_drops(tmp_path: Path) -> None:
    log = rows()
    cut = next(i for i, r in enumerate(log) if r.get("type") == "tool/result")
    bad = edit(log[cut], data__message__role="user")
    message = refused(tmp_path, text([*log[:cut], b"{torn", bad]), sl.INVALID_FIELD)
    assert "row admission" in message
    retired = edit(log[cut], data__message__content=[{"type": "tool-result"}])
    refused(tmp_path, text([*log[:cut], b"{torn", retired]), "RETIRED_SYNTAX")


def test_the_dsh_v4_profile_refuses_a_retired_plugin_source_in_a_dropped_row(
        tmp_path: Path) -> None:
    log = rows()
    cut = max(i for i, r in enumerate(log) if r.get("type") == "assistant/message")
    plugin = edit(log[cut], data__message__source={"kind": "plugin"})
    data = text([*log[:cut], b"{torn", plugin])
    assert checked(tmp_path, data)["valid"]  # the default reader does not read sources
    refused(tmp_path, data, dsh.DSH_MESSAGE, profile="dsh-v4")


def test_the_cli_exits_1_on_a_refusal(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    log = rows()
    path = tmp_path / "twice.jsonl"
    path.write_bytes(text([*log, log[-1]]))
    assert main(["check-log", str(path)]) == 1
    assert "SEQ_DUPLICATE" in capsys.readouterr().out


# --- what a crash can leave is a warning (exit 0) -------------------------------------------------


def test_a_torn_last_line_names_the_turn_the_kept_events_close(tmp_path: Path) -> None:
    data = logs.one_turn().bytes()
    lines = data.splitlines(keepends=True)
    extra = json.dumps({"type": "turn/start", "seq": len(lines) - 1, "time": 1,
                        "data": {"turn": 2}}).encode()
    result = checked(tmp_path, data + extra[:20])
    (warning,) = result["warnings"]
    assert warning["code"] == "RECOVERABLE_TAIL" and warning["droppedLines"] == 1
    assert f"the last turn kept closes at line {len(lines)}" in warning["message"]


def test_a_tail_inside_the_first_turn_says_no_kept_line_closes_a_turn(tmp_path: Path) -> None:
    log = rows()
    result = checked(tmp_path, text([*log[:-2], b"{torn"]))
    assert "no kept line closes a turn" in result["warnings"][0]["message"]
    assert "no line from line" in result["warnings"][0]["message"]


def test_an_envelope_or_seq_failure_on_a_non_turn_end_row_is_a_tail(tmp_path: Path) -> None:
    log = rows()
    for bad in (edit(log[-2], time=None), edit(log[-2], seq=99), edit(log[-2], ignorable=1)):
        result = checked(tmp_path, text([*log[:-2], bad]))
        assert result["valid"] and result["warnings"][0]["droppedLines"] == 1, result


def test_an_unterminated_last_line_is_never_read_whatever_it_holds(tmp_path: Path) -> None:
    log = rows()
    body = text([*log[:-1], edit(log[-1], data__turn="one")])[:-1]  # no final newline
    result = checked(tmp_path, body)
    assert result["valid"] and "never reads an unterminated" in result["warnings"][0]["message"]


def test_the_recover_operation_reports_the_tail() -> None:
    from agent_tck.reference_impl.session_log import ops

    log = rows()
    out = ops.recover({"log": text([*log[:-1], b"{torn"]).decode()})
    assert out["tail"] == {"line": len(log), "cause": sl.MALFORMED_JSON, "droppedLines": 1}
    assert out["events"] == len(log) - 2
    assert ops.recover({"log": text(log).decode()})["tail"] is None  # an intact log


# --- the dsh-v4 profile: tool-call/result matching, the protected head ----------------------------


def strict(items: list[Any]) -> sl.LogError | None:
    try:
        log_reader.check(sl.split_lines(text(items)), STRICT)
    except sl.LogRejected as exc:
        return exc.error
    return None


def test_tool_calls_and_results_match_under_dsh_v4() -> None:
    log = rows()
    assert strict(log) is None
    call = next(i for i, r in enumerate(log) if r.get("type") == "tool/call")
    result = next(i for i, r in enumerate(log) if r.get("type") == "tool/result")
    renamed = [*log[:call], edit(log[call], data__name="write_file"), *log[call + 1:]]
    error = strict(renamed)
    assert error is not None and error.code == dsh.DSH_TOOL and "does not match" in error.message
    unanswered = [*log[:result], *[edit(r, seq=r["seq"] - 1) for r in log[result + 1:]]]
    error = strict(unanswered)
    assert error is not None and error.code == dsh.DSH_TOOL and "unresolved" in error.message
    stranger = edit(log[result], data__message__toolCallId="c-9",
                    data__message__source={"kind": "tool", "callId": "c-9"})
    error = strict([*log[:result], stranger, *log[result + 1:]])
    assert error is not None and error.code == dsh.DSH_TOOL
    assert "answers no tool call" in error.message


def test_a_call_never_started_is_answered_only_by_the_exact_repair() -> None:
    log = rows()
    call = next(i for i, r in enumerate(log) if r.get("type") == "tool/call")
    result = edit(log[call + 1], seq=call - 1, data__message__isError=True,
                  data__message__id="interrupted-tool-result-c-1-0",
                  data__message__content=[{"type": "text", "text": dsh._NOT_STARTED_TEXT}],
                  data__error={"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"})
    tail = [edit(r, seq=r["seq"] - 1) for r in log[call + 2:]]
    assert strict([*log[:call], result, *tail]) is None
    wrong = edit(result, data__message__content=[{"type": "text", "text": "interrupted"}])
    error = strict([*log[:call], wrong, *tail])
    assert error is not None and error.code == dsh.DSH_TOOL and "TOOL_NOT_STARTED" in error.message


def test_a_compaction_never_shadows_the_protected_system_head() -> None:
    log = rows()
    system = next(r["seq"] for r in log if r.get("type") == "system/message")
    user = next(r["seq"] for r in log if r.get("type") == "user/message")
    end = log[-1]["seq"]

    def prune(start: int, stop: int, seqs: list[int]) -> dict[str, Any]:
        return {"type": "compaction/prune", "seq": end, "time": 1, "data": {
            "shadowedRange": {"start": start, "end": stop}, "shadowedSeqs": seqs}}
    assert strict([*log[:-1], prune(user, user, [user])]) is None
    error = strict([*log[:-1], prune(system, user, [system, user])])
    assert error is not None and error.code == dsh.DSH_COMPACTION and "protected" in error.message
    error = strict([*log[:-1], prune(system, user, [user])])
    assert error is not None and error.code == dsh.DSH_COMPACTION and "exact span" in error.message
