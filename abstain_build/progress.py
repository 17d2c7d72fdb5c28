"""Progress by phase, for a terminal and for a log alike.

On a terminal each phase (routing, building, QC, audit) gets its own bar, so the build does
not seem to restart from zero after routing. Anywhere else (``nohup``, a batch scheduler,
a pipe) one plain line per phase every ``every`` seconds goes to stderr, and a last one
when the phase ends, so a log shows where a long run stands.
"""

from __future__ import annotations

import time
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

#: What each phase is called in bars and lines.
PHASES = {
    "distractors": "ranking distractors",
    "route": "routing",
    "build": "building",
    "qc": "QC",
    "audit": "auditing",
    "classify": "classifying",
    "predict": "predicting",
}
#: Seconds between plain lines when stderr is not a terminal.
DEFAULT_EVERY = 30.0


class PhaseProgress:
    """``progress(done, total, phase)``: a bar per phase, plain lines, or nothing."""

    def __init__(self, console: Console, *, quiet: bool = False, every: float | None = None):
        self.console = console
        self.mode = "off" if quiet else ("bar" if console.is_terminal else "lines")
        self.every = DEFAULT_EVERY if every is None else every
        self._bar: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._lines: dict[str, dict[str, float]] = {}  # start, last, done, total, printed
        self._started: dict[str, float] = {}
        self._details: dict[str, str] = {}

    def __enter__(self) -> PhaseProgress:
        if self.mode == "bar":
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                console=self.console,
                transient=False,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
        for phase in list(self._lines):
            self._line(phase, final=True)

    def __call__(
        self, done: int, total: int | None, phase: str = "build", detail: str = ""
    ) -> None:
        """``detail``: what else the phase has done so far ("40 calls, 9120 tokens")."""
        label = PHASES.get(phase, phase)
        if self.mode == "bar" and self._bar is not None:
            if label not in self._tasks:
                self._tasks[label] = self._bar.add_task(label, total=total, rate="")
                self._started[label] = time.monotonic()
            elapsed = time.monotonic() - self._started[label]
            rate = f"{done / elapsed:.2f}/s" if done and elapsed > 0 else ""
            rate = f"{rate}  {detail}" if detail else rate
            self._bar.update(self._tasks[label], completed=done, total=total, rate=rate)
        elif self.mode == "lines":
            now = time.monotonic()
            if label not in self._lines:
                # A phase that starts closes the ones before it: their last lines go out
                # now, not after the new phase's ("routing: 89/90" after "building: 90/90"
                # when a sample failed to load).
                for earlier in list(self._lines):
                    self._line(earlier, final=True)
            state = self._lines.setdefault(
                label, {"start": now, "last": now, "done": 0, "total": 0, "printed": -1}
            )
            state.update(done=done, total=total or 0)
            self._details[label] = detail
            if now - state["last"] >= self.every or (total and done >= total):
                self._line(label)

    def _line(self, label: str, final: bool = False) -> None:
        state = self._lines[label]
        if final and state["printed"] == state["done"]:
            return  # the phase's last line is out already
        now = time.monotonic()
        elapsed = now - state["start"]
        done, total = int(state["done"]), int(state["total"])
        rate = f", {done / elapsed:.2f}/s" if done and elapsed > 0 else ""
        of = f"/{total}" if total else ""
        stream: TextIO = self.console.file
        detail = self._details.get(label)
        extra = f"; {detail}" if detail else ""
        print(f"{label}: {done}{of}{rate}, {elapsed:.0f} s{extra}", file=stream, flush=True)
        state.update(last=now, printed=done)
