"""``python -m abstain_build.fixturegen [OUT_DIR]``: rewrite the fixtures (default ``fixtures``)."""

from __future__ import annotations

import sys
from pathlib import Path

from . import generate


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0] in ("-h", "--help")):
        print("usage: python -m abstain_build.fixturegen [OUT_DIR]  (default: fixtures)")
        return 0 if args and args[0] in ("-h", "--help") else 2
    out_dir = Path(args[0] if args else "fixtures")
    for path in generate(out_dir):
        print(f"{path}  ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
