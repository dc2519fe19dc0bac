"""One style for every ``agent-tck`` subcommand (harness/common/options.py): multi-value
flags, names, typos, missing files."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from agent_tck.harness.cli import build_parser, main
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.options import ListOption, pick, split_list

ROOT = Path(__file__).resolve().parent.parent


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def multi_value_options() -> list[tuple[str, argparse.Action]]:
    """Every option of every subcommand that takes more than one value."""
    found = []
    for name, sub in subcommands().items():
        for action in sub._actions:
            many = action.nargs in ("+", "*") or isinstance(
                action, argparse._AppendAction | argparse._ExtendAction | ListOption)
            if action.option_strings and many:
                found.append((name, action))
    return found


def test_the_tree_has_multi_value_options_to_check():
    names = {(name, action.option_strings[-1]) for name, action in multi_value_options()}
    assert {("run", "--family"), ("run", "--rule"), ("run", "--vectors"), ("rules", "--family"),
            ("mutants", "--family"), ("matrix", "--clients"), ("audit", "--read")} <= names


@pytest.mark.parametrize(("command", "action"), multi_value_options(),
                         ids=lambda x: x if isinstance(x, str) else x.option_strings[-1])
def test_every_multi_value_flag_is_repeatable_and_takes_a_comma_list(command, action, tmp_path):
    assert isinstance(action, ListOption), f"{command} {action.option_strings[-1]}"
    flag = action.option_strings[-1]
    parser = subcommands()[command]
    namespace = argparse.Namespace(**{action.dest: list(action.default)})
    for value in ("a,b", "c"):
        action(parser, namespace, [value] if action.nargs == "+" else value, flag)
    expected = ["a", "b", "c"]
    assert [str(v) for v in getattr(namespace, action.dest)] == expected
    assert action.default == []  # the default list is never the one appended to


def test_a_path_list_keeps_a_file_whose_name_has_a_comma(tmp_path):
    odd = tmp_path / "a,b.json"
    odd.write_text("{}")
    assert split_list(str(odd), keep_paths=True) == [str(odd)]
    assert split_list("x, y,,z") == ["x", "y", "z"]


@pytest.mark.parametrize("argv", [
    ["run", "--family", "block-omission,in-history-update"],
    ["run", "--family", "block-omission", "--family", "in-history-update"],
])
def test_both_forms_select_the_same_families(argv, tmp_path):
    from agent_tck.harness.reports import read

    assert main([*argv, "--report-dir", str(tmp_path)]) == 0
    families = {c.family for c in read(tmp_path / "results.jsonl").cases}
    assert families == {"block-omission", "in-history-update"}


def test_rule_ids_are_case_insensitive(tmp_path):
    from agent_tck.harness.reports import read

    assert main(["run", "--rule", "ihu-001", "--report-dir", str(tmp_path)]) == 0
    cases = read(tmp_path / "results.jsonl").cases
    assert cases and all("IHU-001" in c.rules for c in cases)


def test_an_ambiguous_name_is_refused_listing_what_it_matches():
    clients = {"py-openai": ("openai",), "js-openai": ("openai",), "py-anthropic": ("anthropic",)}
    assert pick("--clients", "anthropic", clients) == "py-anthropic"
    assert pick("--clients", "PY-OPENAI", clients) == "py-openai"
    with pytest.raises(HarnessError) as caught:
        pick("--clients", "openai", clients, what="client")
    assert caught.value.message.startswith("client 'openai' is ambiguous: it matches py-openai "
                                           "(openai), js-openai (openai)")


def test_matrix_refuses_a_package_two_clients_share(capsys):
    assert main(["matrix", "--clients", "openai", "--offline"]) == 2
    err = capsys.readouterr().err
    assert "'openai' is ambiguous" in err and "py-openai" in err and "js-openai" in err


def test_a_mistyped_flag_gets_the_subcommands_usage_and_a_suggestion(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--famly", "block-omission"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: agent-tck run ")
    assert "--famly (did you mean '--family'?)" in err


def test_an_unquoted_impl_command_gets_the_quoting_hint(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--impl", "node", "x.js", "--strict"])
    assert stopped.value.code == 2
    assert "quote it, --impl 'node x.js'" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "hint"), [
    (["rnu"], "did you mean 'run'?"),
    (["rules", "--format", "jsn"], "did you mean 'json'?"),
])
def test_a_mistyped_choice_gets_a_suggestion(argv, hint, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "hint"), [
    (["rules", "--family", "block"], "did you mean 'block-omission'?"),
    (["run", "--rule", "bo-99"], "did you mean 'BO-009'?"),
])
def test_an_unknown_name_gets_the_closest(argv, hint, capsys):
    assert main(argv) == 2
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["check-log", "{missing}"],
    ["subagents", "{missing}"],
    ["report", "{missing}"],
    ["baseline", "{missing}"],
    ["run", "--expect", "{missing}", "--report-dir", "{tmp}"],
    ["run", "--vectors", "{missing}", "--report-dir", "{tmp}"],
    ["simulate-provider", "--script", "{missing}"],
    ["audit", "--read", "{missing}", "--report-dir", "{tmp}"],
], ids=lambda argv: " ".join(a for a in argv[:2] if "{" not in a))
def test_a_missing_input_file_is_exit_2(argv, tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    code = main([a.format(missing=missing, tmp=tmp_path / "out") for a in argv])
    assert code == 2
    said = capsys.readouterr()
    assert str(missing) in said.err + said.out  # check-log's verdicts go to stdout
