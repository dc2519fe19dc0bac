"""The command line's conventions, in one place, for every ``agent-tck`` subcommand.

* A multi-value flag is repeatable *and* takes a comma list: ``--family a,b --family c`` is
  ``[a, b, c]`` (:class:`ListOption`; a flag that always took several words, ``--read A B``,
  still does). A value naming a file or folder that exists is taken whole, commas and all.
* A name given on the command line (a family, a rule id, a client) is matched exactly, then
  case-insensitively (``ihu-001`` is IHU-001), then as an alias (a client's package name); one
  that matches several is refused, listing what it matches; an unknown one is refused with the
  closest known names (:func:`pick`).
* A typo of a flag or of a choice gets "did you mean" (:func:`suggest`), from the usage of the
  subcommand it was given to (``harness/cli.py``).
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError


class ListOption(argparse.Action):
    """Repeatable, comma-separated values appended to one list (``convert`` turns each item into
    its value, e.g. ``Path``; with ``Path`` an existing file or folder is never split)."""

    def __init__(self, option_strings: Sequence[str], dest: str, *,
                 convert: Callable[[str], Any] = str, **kwargs: Any) -> None:
        kwargs.setdefault("default", [])
        super().__init__(option_strings, dest, **kwargs)
        self.convert = convert

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        words = [values] if isinstance(values, str) else list(values or ())
        items = list(getattr(namespace, self.dest, None) or [])  # never the shared default
        for word in words:
            for item in split_list(word, keep_paths=self.convert is Path):
                try:
                    items.append(self.convert(item))
                except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
                    raise argparse.ArgumentError(self, f"invalid value {item!r}: {exc}") from None
        setattr(namespace, self.dest, items)


def split_list(word: str, *, keep_paths: bool = False) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; a word naming an existing path, when
    ``keep_paths``, is one item."""
    if keep_paths and Path(word).exists():
        return [word]
    return [item.strip() for item in word.split(",") if item.strip()]


def suggest(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known words (the best in spelling, in any case,
    and those containing the word), or nothing."""
    known = list(dict.fromkeys(known))
    score = {k: difflib.SequenceMatcher(None, word.casefold(), k.casefold()).ratio()
             for k in known}
    best = max(score.values(), default=0.0)
    close = [k for k in known if score[k] >= max(0.6, best - 0.05)]
    close += [k for k in known if len(word) > 2 and word.casefold() in k.casefold()]
    close = list(dict.fromkeys(close))[:3]
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def pick(option: str, given: str, choices: Mapping[str, Sequence[str]], *,
         what: str = "name", elsewhere: str = "") -> str:
    """The one key of ``choices`` (id -> its aliases) that ``given`` names: the id itself, else
    the id ignoring case, else an alias (ignoring case). Several matches or none: a usage error
    (exit 2) naming them, or the closest and the known ids (``elsewhere`` says where to find
    them when there are too many to list)."""
    if given in choices:
        return given
    folded = given.casefold()
    for matches in ([k for k in choices if k.casefold() == folded],
                    [k for k, aliases in choices.items()
                     if any(a.casefold() == folded for a in aliases)]):
        if len(matches) == 1:
            return matches[0]
        if matches:
            listed = ", ".join(f"{k} ({', '.join(choices[k])})" if choices[k] else k
                               for k in matches)
            raise HarnessError("USAGE", f"{what} {given!r} is ambiguous: it matches {listed}; "
                                        "give one of those", option)
    known = [*choices, *(a for aliases in choices.values() for a in aliases)]
    listed = f"known: {', '.join(choices)}" if len(choices) <= 12 else elsewhere
    raise HarnessError("USAGE", f"no {what} named {given!r}{suggest(given, known)}; {listed}",
                       option)


def pick_all(option: str, given: Iterable[str], choices: Mapping[str, Sequence[str]], *,
             what: str = "name", elsewhere: str = "") -> list[str]:
    """:func:`pick` for each of ``given``, in order, without repeats."""
    return list(dict.fromkeys(pick(option, g, choices, what=what, elsewhere=elsewhere)
                              for g in given))
