# The native check of reference_impl/_strict_scan.c (built by hatch_build.py).
from typing import Any

def vouch(
    text: str | bytes | bytearray, value: Any, max_depth: int, max_digits: int, /
) -> bool: ...
def vouch_as(
    way: str, text: str | bytes | bytearray, value: Any, max_depth: int, max_digits: int, /
) -> bool: ...
