"""Running samples in worker processes: results in source order, and crashes contained.

Results are committed in source order, but workers never wait for a slow sample ahead of
them: samples keep being submitted while fewer than ``2 * workers + 2`` are running, and
what finishes early waits in a reorder buffer; beyond a few dozen outcomes the buffer
spills to files under the run's ``state/`` (removed once committed), so memory stays flat
behind one sample that takes an hour.

A sample that kills its worker (a crash inside a native library, the kernel's OOM killer)
breaks the whole process pool. The pool is then rebuilt; the sample at the head of the
queue is retried alone in a fresh process, so a crash is pinned on the sample that causes
it, which gets an error record, and the others are simply resubmitted.

Where the samples run is a :class:`Workers` backend: local processes here, Ray tasks in
:mod:`.ray_workers` (``--executor ray``). The ordering, the buffer and the crash rule are
the same for both, so both write the same bytes.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol

from ..config import BuildConfig
from ..model import SampleProblem
from ..routing.route import SampleScores
from .jobs import JobSpec, SampleOutcome, outcome_for_problem
from .worker import SampleProcessor, init_worker, process_in_worker, score_in_worker

CRASH_REASON = (
    "the worker process died while processing this sample (a crash in a native library,"
    " or killed for using too much memory); it was retried alone and died again"
)


#: Finished outcomes kept in memory while an earlier sample runs; later ones go to disk.
HELD_IN_MEMORY = 32
#: Samples submitted and not yet committed, at most (running, held and spilled).
MAX_AHEAD = 2048
#: Seconds between heartbeats while waiting on workers (progress lines keep coming).
HEARTBEAT_SECONDS = 5.0

#: ``on_progress(finished)``: samples finished so far, committed or waiting to be.
ProgressHook = Callable[[int], None]


class _Spilled:
    """A finished outcome kept in a file until its turn comes."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> Any:
        with self.path.open("rb") as stream:
            outcome = pickle.load(stream)  # written by this run a moment ago (0600, 0700 dir)
        self.path.unlink(missing_ok=True)
        return outcome


def _succeeded(future: Future[Any]) -> bool:
    """Finished with a result (not running, not failed, not cancelled by a pool restart)."""
    return future.done() and not future.cancelled() and future.exception() is None


def _resolved(outcome: Any) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(outcome)
    return future


def _crashed_outcome(item: Any) -> SampleOutcome:
    problem = SampleProblem(
        sample_id=item.id, stage="worker", reason=CRASH_REASON, source=item.source
    )
    return SampleOutcome(sample_id=item.id, problems=[problem])


def _crashed_scores(item: Any) -> SampleScores:
    return SampleScores(item.id, item.axis, problem=CRASH_REASON)


#: What a pool can run per sample: the worker function, the result for a sample that
#: crashes its process, and the SampleProcessor method that does the same in-process.
TASKS = {
    "process": (process_in_worker, _crashed_outcome, "__call__"),
    "score": (score_in_worker, _crashed_scores, "score"),
}


class Workers(Protocol):
    """Where samples run: submit one, tell a crash from an error, retry one alone."""

    #: Samples submitted and not finished, at most.
    running_cap: int
    #: Whether a crash takes the other running samples down with it (a process pool's
    #: does; they are then submitted again).
    crash_breaks_others: bool

    def submit(self, item: Any) -> Future[Any]:
        """Run ``item``; a failure to submit is the returned future's exception."""
        ...

    def crashed(self, error: BaseException) -> bool:
        """Whether ``error`` says the sample's process died (not an error it raised)."""
        ...

    def alone(self, item: Any) -> Any:
        """``item`` retried where nothing else runs: its result, or ``None`` if it crashed
        again (and only then is the crash pinned on it)."""
        ...

    def shutdown(self) -> None: ...


class ProcessWorkers:
    """``workers`` local processes (spawned, so a worker starts as a fresh interpreter)."""

    crash_breaks_others = True

    def __init__(self, job: JobSpec, workers: int, work: Callable[[Any], Any]) -> None:
        self.job = job
        self.workers = workers
        self.work = work
        self.running_cap = 2 * workers + 2  # enough queued that no worker waits for work
        self.context = multiprocessing.get_context("spawn")
        self.pool = self._new_pool(workers)

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=self.context,
            initializer=init_worker,
            initargs=(self.job,),
        )

    def submit(self, item: Any) -> Future[Any]:
        try:
            return self.pool.submit(self.work, item)
        except BrokenProcessPool as broken:
            # The pool died between two submissions; the pool rebuilds it and resubmits.
            future: Future[Any] = Future()
            future.set_exception(broken)
            return future

    def crashed(self, error: BaseException) -> bool:
        return isinstance(error, BrokenProcessPool)

    def alone(self, item: Any) -> Any:
        """Retry one sample in a process of its own: did it, or a neighbour, crash the pool?
        The pool is rebuilt afterwards (the others are submitted again)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        try:
            with self._new_pool(1) as solo:
                try:
                    return solo.submit(self.work, item).result()
                except BrokenProcessPool:
                    return None
        finally:
            self.pool = self._new_pool(self.workers)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class OrderedPool:
    """Run ``task`` on samples with ``workers`` processes; yield results in the order given.

    ``SampleProblem`` items (loader errors) pass through as their outcome, unprocessed.
    ``spill_dir``: where finished outcomes wait when too many are held (a temporary folder
    is made inside it and removed at the end); None keeps them all in memory.
    ``backend``: where the samples run (default: local processes).
    """

    def __init__(
        self,
        job: JobSpec,
        workers: int,
        task: str = "process",
        spill_dir: Path | None = None,
        on_progress: ProgressHook | None = None,
        backend: Workers | None = None,
    ) -> None:
        self.job = job
        self.workers = workers
        work, self.crash_record, _ = TASKS[task]
        self.backend: Workers = backend or ProcessWorkers(job, workers, work)
        self.running_cap = self.backend.running_cap
        self.restarts = 0
        self.spill_root = spill_dir
        self.spill_dir: Path | None = None
        self.on_progress = on_progress
        self.committed = 0
        self.spilled = 0

    def _submit(self, item: Any) -> Future[Any]:
        if isinstance(item, SampleProblem):
            return _resolved(outcome_for_problem(item))
        return self.backend.submit(item)

    def run(self, items: Iterable[Any]) -> Iterator[SampleOutcome]:
        pending: deque[tuple[Any, Any]] = deque()  # (item, Future or _Spilled), in order
        try:
            for item in items:
                pending.append((item, self._submit(item)))
                yield from self._ready(pending)
                while self._running(pending) >= self.running_cap or len(pending) >= MAX_AHEAD:
                    self._wait(pending)
                    yield from self._ready(pending)
            while pending:
                yield from self._ready(pending)
                if pending:
                    self._wait(pending)
        finally:
            self.backend.shutdown()
            if self.spill_dir is not None:
                shutil.rmtree(self.spill_dir, ignore_errors=True)

    @staticmethod
    def _running(pending: deque[tuple[Any, Any]]) -> int:
        return sum(1 for _, slot in pending if isinstance(slot, Future) and not slot.done())

    def _wait(self, pending: deque[tuple[Any, Any]]) -> None:
        """Until a sample finishes (or a heartbeat passes); then count, and spill what is
        held beyond the buffer's share of memory."""
        running = [slot for _, slot in pending if isinstance(slot, Future) and not slot.done()]
        head = pending[0][1]
        if running and not (isinstance(head, Future) and head.done()):
            wait(running, timeout=HEARTBEAT_SECONDS, return_when=FIRST_COMPLETED)
        self._count(pending)
        self._spill(pending)

    def _count(self, pending: deque[tuple[Any, Any]]) -> None:
        if self.on_progress is None:
            return
        waiting = sum(1 for _, slot in pending if isinstance(slot, _Spilled) or _succeeded(slot))
        self.on_progress(self.committed + waiting)

    def _spill(self, pending: deque[tuple[Any, Any]]) -> None:
        if self.spill_root is None:
            return
        held = [
            index
            for index, (_, slot) in enumerate(pending)
            if index > 0 and isinstance(slot, Future) and _succeeded(slot)
        ]
        for index in held[HELD_IN_MEMORY:]:
            item, future = pending[index]
            if self.spill_dir is None:
                self.spill_root.mkdir(parents=True, exist_ok=True)
                self.spill_dir = Path(tempfile.mkdtemp(prefix="reorder-", dir=self.spill_root))
            self.spilled += 1
            path = self.spill_dir / f"{self.spilled}.pickle"
            with path.open("wb") as stream:
                pickle.dump(future.result(), stream, protocol=pickle.HIGHEST_PROTOCOL)
            pending[index] = (item, _Spilled(path))

    def _ready(self, pending: deque[tuple[Any, Any]]) -> Iterator[SampleOutcome]:
        """Commit the head of the queue for as long as it is finished."""
        while pending:
            slot = pending[0][1]
            if isinstance(slot, Future) and not slot.done():
                return
            yield self._take(pending)

    def _take(self, pending: deque[tuple[Any, Any]]) -> SampleOutcome:
        item, slot = pending.popleft()
        self.committed += 1
        if isinstance(slot, _Spilled):
            return slot.load()
        try:
            return slot.result()
        except Exception as error:
            if not self.backend.crashed(error):
                raise
        self.restarts += 1
        outcome = self.backend.alone(item)
        if self.backend.crash_breaks_others:
            for index, (other, other_slot) in enumerate(pending):
                if isinstance(other_slot, Future) and not _succeeded(other_slot):
                    pending[index] = (other, self._submit(other))
        return self.crash_record(item) if outcome is None else outcome


def executor_runtime(config: BuildConfig) -> contextlib.AbstractContextManager[None]:
    """What the build's executor needs around the run: a Ray session for ``ray``."""
    if config.executor != "ray":
        return contextlib.nullcontext()
    from .ray_workers import ray_runtime

    return ray_runtime(config.ray_address, config.workers)


def ordered_outcomes(
    items: Iterable[Any],
    job: JobSpec,
    workers: int,
    spill_dir: Path | None = None,
    on_progress: ProgressHook | None = None,
) -> Iterator[SampleOutcome]:
    """Outcomes in source order (see :func:`ordered_results`)."""
    yield from ordered_results(items, job, workers, "process", spill_dir, on_progress)


def ordered_results(
    items: Iterable[Any],
    job: JobSpec,
    workers: int,
    task: str,
    spill_dir: Path | None = None,
    on_progress: ProgressHook | None = None,
) -> Iterator[Any]:
    """``task`` ("process" or "score") over ``items``, results in source order: on Ray
    tasks with ``--executor ray`` (at most ``workers`` in flight), else in ``workers``
    local processes, or in this one for a single worker (simplest to debug)."""
    if job.config.executor == "ray":
        from .ray_workers import RayWorkers

        backend = RayWorkers(job, workers, task)
        yield from OrderedPool(job, workers, task, spill_dir, on_progress, backend).run(items)
        return
    if workers <= 1:
        processor = SampleProcessor(job)
        method = getattr(processor, TASKS[task][2])
        try:
            for item in items:
                if isinstance(item, SampleProblem):
                    yield outcome_for_problem(item)
                else:
                    yield method(item)
        finally:
            processor.close()
        return
    yield from OrderedPool(job, workers, task, spill_dir, on_progress).run(items)
