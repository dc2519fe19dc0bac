"""Validate plain data against the kit's JSON Schemas, with errors naming a JSON pointer."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from agent_tck.harness.common.data import vectors_dir
from agent_tck.harness.common.errors import HarnessError
from agent_tck.reference_impl.json_pointer import pointer


@cache
def validator(relpath: str) -> Draft202012Validator:
    schema = json.loads((vectors_dir() / "schema" / relpath).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate(instance: Any, relpath: str, *, code: str, where: str) -> None:
    """Raise HarnessError(code) naming ``where`` and the JSON pointer of the first problem."""
    errors = sorted(validator(relpath).iter_errors(instance), key=lambda e: list(e.path))
    if errors:
        best = errors[0]
        # the deepest, most specific error among those at the first path
        where = f"{where}#{pointer(best.path)}"
        raise HarnessError(code, f"{best.message} (schema {relpath})", where)
