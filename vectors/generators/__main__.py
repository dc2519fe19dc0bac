"""python -m vectors.generators [--check] [--root DIR] [FAMILY ...]

Writes every generated vector file (or those of the named families) into the checkout's
vectors/ folder, or into DIR/<family>/; with --check it writes nothing and exits 1 when a file
is missing or differs, or a generated family's folder holds a file no generator claims.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vectors.generators import VECTORS, stale, unclaimed, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vectors.generators", description=__doc__)
    parser.add_argument("families", nargs="*", metavar="FAMILY")
    parser.add_argument("--root", type=Path, default=VECTORS,
                        help="the vectors folder to write or check (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 when anything differs")
    args = parser.parse_args(argv)
    try:
        if not args.check:
            written = write(args.root, args.families)
            print(f"wrote {len(written)} files under {args.root}")
            return 0
        problems = [f"{rel}: differs from what its generator writes (regenerate)"
                    for rel in stale(args.root, args.families)]
        problems += [f"{rel}: no generator writes it and none lists it as HAND_WRITTEN"
                     for rel in unclaimed(args.root)]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
