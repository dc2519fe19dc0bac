"""One YAML loader for untrusted files (baselines, mock-provider scripts, scenarios).

``yaml.safe_load`` expands aliases, so a few hundred bytes of nested anchors (a "billion laughs")
become gigabytes in memory, and deep nesting ends in ``RecursionError``. Our files never need
an alias: :func:`load` refuses every alias and any nesting deeper than
:data:`reference_impl.strict_json.MAX_DEPTH`, with an error naming the line.

The kit's own files (the rule catalogue, the seeded faults) are read by :func:`load_own`: the
same documents as ``yaml.safe_load``, parsed by libyaml where PyYAML has it (its wheels do),
about 8x faster; every process of the kit reads the catalogue once, and the test suite starts
hundreds of them.
"""

from __future__ import annotations

from typing import Any

import yaml

from agent_tck.reference_impl.strict_json import MAX_DEPTH

#: libyaml's parser with PyYAML's safe constructor, or the pure-Python one where PyYAML was built
#: without libyaml: both give the same values (tests/test_safe_yaml.py compares them on every file)
_OWN_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_own(text: str) -> Any:
    """``yaml.safe_load`` of a file the kit ships (trusted: aliases allowed), on libyaml."""
    return yaml.load(text, Loader=_OWN_LOADER)  # a SafeLoader: safe constructor, no tags


class YAMLInputError(ValueError):
    """The file is not YAML this kit accepts; the message names the line."""


class _Loader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YAMLInputError(
                f"line {event.start_mark.line + 1}: YAML aliases (*{event.anchor}) are not accepted"
            )
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise YAMLInputError(f"line {mark.line + 1}: nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load(text: str) -> Any:
    """Parse one YAML document without aliases; raise YAMLInputError naming the line."""
    try:
        return yaml.load(text, Loader=_Loader)  # _Loader is a SafeLoader
    except YAMLInputError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise YAMLInputError(f"{where}not YAML: {problem}") from None
