"""How fast does `abstain-build` start, next to the least any Typer + Rich command must do?

Reference, measured in the same run: `python -c "import typer, rich"`. Each command is run
in a fresh interpreter, the commands in turn (reference, --help, transform --help,
transforms list, then again), so the ratios hold while the machine's speed drifts. Printed:
the median wall seconds of each and its median ratio to the reference (round by round);
the target for --help is 2.5 x the reference.

Also timed, as a floor: a bare Typer app of two commands, its `--help` and one command's
`--help`. A command's help costs more than the app's in any Typer app (Typer builds the
group's parameters' validators first, which imports pydantic), so `transform --help` is
read against that floor. `transforms list` loads the transform registry (every built-in
transform module) and runs a command, so it stays above both.

Bytecode is cached for the run in a temporary folder (PYTHONPYCACHEPREFIX, after warm-up
runs), as it is in an installed package, even where PYTHONDONTWRITEBYTECODE is set.

    python bench/startup.py [--runs 15] [--warmup 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

REFERENCE = "import typer, rich"
TARGET = 2.5  # --help within this many times the reference

#: The least a Typer app with commands does for its help.
BARE_APP = """
from typing import Annotated
import typer
app = typer.Typer(help="A bare app.", no_args_is_help=True, add_completion=False)
@app.command()
def first(count: Annotated[int, typer.Option(help="A number.")] = 1) -> None:
    \"\"\"The first command.\"\"\"
@app.command()
def second(name: Annotated[str, typer.Option(help="A name.")] = "") -> None:
    \"\"\"The second command.\"\"\"
app()
"""

COMMANDS = {
    "reference": ["-c", REFERENCE],
    "bare --help": ["-c", BARE_APP, "--help"],
    "bare first --help": ["-c", BARE_APP, "first", "--help"],
    "--help": ["-m", "abstain_build", "--help"],
    "transform --help": ["-m", "abstain_build", "transform", "--help"],
    "transforms list": ["-m", "abstain_build", "transforms", "list"],
}
LABELS = {
    "reference": f'python -c "{REFERENCE}"',
    "bare --help": "bare Typer app --help",
    "bare first --help": "bare Typer app first --help",
}


def run_once(args: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one fresh interpreter running ``args``."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15, help="counted runs of each command")
    parser.add_argument("--warmup", type=int, default=2, help="runs of each not counted, first")
    args = parser.parse_args()

    cache = Path(tempfile.mkdtemp(prefix="abstain-startup-pyc-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    try:
        for _ in range(args.warmup):
            for command in COMMANDS.values():
                run_once(command, env)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            for name, command in COMMANDS.items():
                times[name].append(run_once(command, env))
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    def ratio(name: str, to: str = "reference") -> float:
        return statistics.median(a / b for a, b in zip(times[name], times[to], strict=True))

    print(f"{args.runs} runs of each, in turn; python {sys.version.split()[0]}")
    print(f"{'command':<36} {'median s':>9} {'min s':>7} {'x reference':>12}")
    for name, seconds in times.items():
        label = LABELS.get(name, f"abstain-build {name}")
        print(
            f"{label:<36} {statistics.median(seconds):9.3f} {min(seconds):7.3f} {ratio(name):12.2f}"
        )
    helps = ratio("--help")
    verdict = "within" if helps <= TARGET else "above"
    print(f"target: --help within {TARGET} x the reference; now {helps:.2f} x ({verdict})")
    print(
        f"transform --help / bare Typer app's command --help: "
        f"{ratio('transform --help', 'bare first --help'):.2f} x"
    )


if __name__ == "__main__":
    main()
