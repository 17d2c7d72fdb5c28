"""The ``abstain-build`` command: a thin layer over the Python API.

Exit codes: 0 all went through; 1 the run finished but some samples failed (see
errors.jsonl); 2 the run could not start (bad flags, config, source or output folder) or
was stopped (a model that cannot be used: a refused key, replies never in the format).
"""

from .commands import load_commands
from .commands.app import app

__all__ = ["app", "main"]

load_commands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
