"""The wheel's one compiled part: ``reference_impl/_strict_scan.c``, the strict JSON reader's
native check (reference_impl/strict_json.py).

It is compiled with the compiler and flags this Python was built with (sysconfig's ``LDSHARED``)
into ``reference_impl/`` beside its source (git ignores it), where an editable install imports
it, and copied into a standard wheel, which is then tagged for this interpreter. Without a
compiler, or when it fails, the build goes on pure: strict_json.py makes the same checks in
Python, with the same verdicts, more slowly (``agent-tck --version`` says which).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("reference_impl") / "_strict_scan.c"


def compile_extension(root: Path) -> Path | None:
    """The compiled module beside its source (built again only when the source is newer), or
    None with the reason on stderr."""
    source = root / SOURCE
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    link = sysconfig.get_config_var("LDSHARED")
    if not (suffix and link):
        print(f"agent-tck: no C toolchain known to this Python; {SOURCE} not built "
              "(the strict JSON reader checks in Python)", file=sys.stderr)
        return None
    target = source.with_name("_strict_scan" + suffix)
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    command = [*shlex.split(link), *shlex.split(sysconfig.get_config_var("CCSHARED") or ""),
               "-O2", f"-I{sysconfig.get_paths()['include']}", str(source)]
    # written aside, then moved into place: a process that imported the old one keeps it
    fd, partial = tempfile.mkstemp(suffix=suffix, dir=source.parent)
    os.close(fd)
    try:
        done = subprocess.run([*command, "-o", partial], capture_output=True, text=True,
                              check=False, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        done = None
        reason = str(exc)
    else:
        reason = done.stderr.strip()
    if done is None or done.returncode != 0:
        os.unlink(partial)
        print(f"agent-tck: {SOURCE} not built (the strict JSON reader checks in Python): "
              f"{reason}", file=sys.stderr)
        return None
    os.replace(partial, target)
    return target


class StrictScanHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        built = compile_extension(Path(self.root))
        if built is None:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":  # an editable install imports it from the tree
            build_data["force_include"][str(built)] = f"agent_tck/reference_impl/{built.name}"
