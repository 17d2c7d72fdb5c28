"""The ``abstain-build`` commands, a module each; :mod:`.app` holds the app, the options
and helpers they share. Importing a command's module registers it."""

import importlib

#: In the order ``--help`` lists them.
COMMANDS = (
    "transform",
    "preview",
    "qc",
    "replay",
    "predict",
    "export",
    "audit",
    "validity",
    "evaluate",
    "samples",
    "classify",
    "transforms",
    "review",
    "fixtures",
)


def load_commands() -> None:
    """Register every command on the app (idempotent: a module is imported once)."""
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}")
