"""Bring seeded faults up to date with the tree.

``python -m agent_tck.harness.mutation.anchors [YAML...]``

A fault (``tests/mutants/<family>.yaml``, :mod:`harness.mutation.mutants`) names its ``file``
relative to
the checkout and the ``function`` its ``find`` snippet lies in. This tool, run from a checkout,
rewrites the fault files in place (default: every ``tests/mutants/*.yaml``):

* a ``file`` written before the family layout (relative to ``reference_impl/``, e.g.
  ``session_log.py`` or ``ops/wire.py``) becomes its path today (:data:`OLD_FILES`);
* a fault whose snippet (or function) left its file when the module was split follows it to
  the one module of the same folder where it applies (``harness/audit/rules.py`` ->
  ``harness/audit/checks.py``); none or several such modules: the fault is reported;
* a fault without ``function`` gets the innermost definition around the one place its snippet
  occurs in the file (a method ``Class.method``, a function, or a module-level table);
* every fault is then checked as ``agent-tck mutants`` would apply it.

Only those lines change: comments, order and the snippets stay as written. A fault that cannot
be anchored (its file is gone, its snippet occurs nowhere, or more than once in the file and no
``function`` says which) is reported with its name, and the exit status is 1. ``--check``
writes nothing and exits 1 when a file would change.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.safe_yaml import load_own
from agent_tck.harness.mutation.mutants import Mutant, definitions, find_checkout, locate

#: ``file`` values of the flat layout (relative to reference_impl/) -> paths in the checkout.
OLD_FILES = {
    "model.py": "reference_impl/serialize/model.py",
    "serialize_anthropic.py": "reference_impl/serialize/anthropic_messages.py",
    "serialize_openai.py": "reference_impl/serialize/openai_chat.py",
    "ops/serialize.py": "reference_impl/serialize/ops.py",
    "session_log.py": "reference_impl/session_log/format.py",
    "session_recorder.py": "reference_impl/session_log/recorder.py",
    "session_views.py": "reference_impl/session_log/views.py",
    "session_profile_dsh.py": "reference_impl/session_log/profile_dsh.py",
    "dsh_v4.py": "reference_impl/session_log/dsh_v4.py",
    "session_retired_syntax.py": "reference_impl/session_log/retired_syntax.py",
    "session_surface.py": "reference_impl/session_log/surface.py",
    "session_ext_developer_messages.py": "reference_impl/session_log/ext_developer_messages.py",
    "session_ext_log_rules.py": "reference_impl/session_log/ext_log_rules.py",
    "ops/session_log.py": "reference_impl/session_log/ops.py",
    "message_parts.py": "reference_impl/message_parts/reconciler.py",
    "parts_views.py": "reference_impl/message_parts/views.py",
    "ops/message_parts.py": "reference_impl/message_parts/ops.py",
    "subagents.py": "reference_impl/subagents/simulator.py",
    "subagent_model.py": "reference_impl/subagents/model.py",
    "subagent_routes.py": "reference_impl/subagents/routes.py",
    "subagent_scenario.py": "reference_impl/subagents/scenario.py",
    "subagent_table.py": "reference_impl/subagents/table.py",
    "ops/subagents.py": "reference_impl/subagents/ops.py",
    "developer_messages.py": "reference_impl/developer_messages/admission.py",
    "developer_projection.py": "reference_impl/developer_messages/projection.py",
    "ops/developer_messages.py": "reference_impl/developer_messages/ops.py",
    "ops/wire.py": "harness/audit/operations.py",
    "wire_rules.py": "harness/audit/rules.py",
    "conversations.py": "harness/audit/tracker.py",
    "mock_provider.py": "harness/mock_provider/model.py",
    "mock_provider_server.py": "harness/mock_provider/server.py",
    "adapter.py": "harness/reference_adapter.py",
    "wire/dialects.py": "reference_impl/wire/dialects.py",
    "wire/equivalences.py": "reference_impl/wire/equivalences.py",
    "wire/normal_form.py": "reference_impl/wire/normal_form.py",
    "wire/reply.py": "reference_impl/wire/reply.py",
    "wire/sse.py": "reference_impl/wire/sse.py",
    "errors.py": "reference_impl/errors.py",
    "strict_json.py": "reference_impl/strict_json.py",
}

_ITEM = re.compile(r"^\s*- name:\s*(?P<name>\S.*?)\s*$")
_KEY = re.compile(r"^(?P<indent>\s+)(?P<key>file|function):\s*(?P<value>\S.*?)\s*$")


def current_file(value: str, root: Path) -> str:
    """A fault's ``file`` as a path in the checkout: unchanged when it names a file there,
    else mapped from the flat layout."""
    if (root / value).is_file():
        return value
    return OLD_FILES.get(value, value)


def enclosing(find: str, text: str) -> str:
    """The innermost definition around the one occurrence of ``find`` in ``text``."""
    count = text.count(find)
    if count != 1:
        raise ValueError(f"the find snippet occurs {count} times in the file; "
                         "write its function: by hand")
    at = text.index(find)
    around = [(name, a, b) for name, a, b in definitions(text)
              if a <= at and at + len(find) <= b]
    if not around:
        raise ValueError("the find snippet lies in no function, class or module-level table")
    return min(around, key=lambda d: d[2] - d[1])[0]


def update(path: Path, root: Path) -> tuple[str, list[str]]:
    """The new text of one fault file, and a problem per fault that cannot be anchored."""
    doc = load_own(path.read_text(encoding="utf-8")) or {}
    items = {item.get("name"): item for item in doc.get("mutants", [])}
    problems: list[str] = []
    out: list[str] = []
    name = None
    lines = path.read_text(encoding="utf-8").split("\n")
    for index, line in enumerate(lines):
        if match := _ITEM.match(line):
            name = yaml.safe_load(match["name"])
        key = _KEY.match(line)
        item = items.get(name)
        if not key or item is None:
            out.append(line)
            continue
        if key["key"] == "function":
            out.append(line)
            continue
        file = current_file(item["file"], root)
        problem = _check(item, file, root)
        if problem:
            file = _follow_split(item, file, root)
            problem = _check(item, file, root)
        out.append(f"{key['indent']}file: {file}")
        if problem:
            problems.append(f"{path}: fault {name!r}: {problem}")
        elif "function" not in item and not _has_function_below(lines, index, key["indent"]):
            text = (root / file).read_text(encoding="utf-8")
            out.append(f"{key['indent']}function: {enclosing(item['find'], text)}")
    return "\n".join(out), problems


def _follow_split(item: dict, file: str, root: Path) -> str:
    """The one other module of ``file``'s folder where ``item`` applies, else ``file``."""
    folder = (root / file).parent
    if not folder.is_dir():
        return file
    hits = [rel for rel in (p.relative_to(root).as_posix() for p in sorted(folder.glob("*.py")))
            if rel != file and not _check(item, rel, root)]
    return hits[0] if len(hits) == 1 else file


def _has_function_below(lines: list[str], index: int, indent: str) -> bool:
    for line in lines[index + 1:]:
        if _ITEM.match(line) or (line.strip() and not line.startswith(indent)):
            return False
        if line.startswith(f"{indent}function:"):
            return True
    return False


def _check(item: dict, file: str, root: Path) -> str:
    """Why ``item`` cannot be anchored, or ``""``."""
    target = root / file
    if not target.is_file():
        return f"no file {file} (nor a flat-layout name this tool knows)"
    text = target.read_text(encoding="utf-8")
    try:
        function = item.get("function") or enclosing(item["find"], text)
        locate(Mutant(item["name"], "", (), file, function, item["find"], "", ""), text)
    except ValueError as exc:
        return str(exc)
    except HarnessError as exc:  # "fault 'name' (file): why" -> "why"
        return exc.message.split(": ", 1)[-1]
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    root = find_checkout()
    paths = [Path(a) for a in args if a != "--check"] or sorted(
        (root / "tests" / "mutants").glob("*.yaml"))
    changed: list[Path] = []
    problems: list[str] = []
    for path in paths:
        text, found = update(path, root)
        problems += found
        if text != path.read_text(encoding="utf-8"):
            changed.append(path)
            if not check:
                path.write_text(text, encoding="utf-8")
    for problem in problems:
        print(problem, file=sys.stderr)
    verb = "would change" if check else "changed"
    print(f"{verb} {len(changed)} of {len(paths)} fault files; {len(problems)} faults cannot "
          "be anchored")
    return 1 if problems or (check and changed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
