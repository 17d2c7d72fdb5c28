"""Running samples in worker processes: results in source order, and crashes contained.

A sample that kills its worker (a crash inside a native library, the kernel's OOM killer)
breaks the whole process pool. The pool is then rebuilt; the sample at the head of the
queue is retried alone in a fresh process, so a crash is pinned on the sample that causes
it, which gets an error record, and the others are simply resubmitted.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..model import SampleProblem
from ..routing.route import SampleScores
from .worker import (
    JobSpec,
    SampleOutcome,
    SampleProcessor,
    init_worker,
    outcome_for_problem,
    process_in_worker,
    score_in_worker,
)

CRASH_REASON = (
    "the worker process died while processing this sample (a crash in a native library,"
    " or killed for using too much memory); it was retried alone and died again"
)


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


class OrderedPool:
    """Run ``task`` on samples with ``workers`` processes; yield results in the order given.

    ``SampleProblem`` items (loader errors) pass through as their outcome, unprocessed.
    """

    def __init__(self, job: JobSpec, workers: int, task: str = "process") -> None:
        self.job = job
        self.workers = workers
        self.work, self.crashed, _ = TASKS[task]
        self.window = 2 * workers + 2  # bounded look-ahead keeps memory flat on large sources
        self.context = multiprocessing.get_context("spawn")
        self.pool = self._new_pool(workers)
        self.restarts = 0

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=self.context,
            initializer=init_worker,
            initargs=(self.job,),
        )

    def _submit(self, item: Any) -> Future[SampleOutcome]:
        if isinstance(item, SampleProblem):
            return _resolved(outcome_for_problem(item))
        try:
            return self.pool.submit(self.work, item)
        except BrokenProcessPool as broken:
            # The pool died between two submissions; _take rebuilds it and resubmits.
            future: Future[SampleOutcome] = Future()
            future.set_exception(broken)
            return future

    def run(self, items: Iterable[Any]) -> Iterator[SampleOutcome]:
        pending: deque[tuple[Any, Future[SampleOutcome]]] = deque()
        try:
            for item in items:
                pending.append((item, self._submit(item)))
                while len(pending) >= self.window:
                    yield self._take(pending)
            while pending:
                yield self._take(pending)
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)

    def _take(self, pending: deque[tuple[Any, Future[SampleOutcome]]]) -> SampleOutcome:
        item, future = pending.popleft()
        try:
            return future.result()
        except BrokenProcessPool:
            pass
        self.restarts += 1
        self.pool.shutdown(wait=False, cancel_futures=True)
        outcome = self._alone(item)
        self.pool = self._new_pool(self.workers)
        for index, (other, other_future) in enumerate(pending):
            finished = other_future.done() and other_future.exception() is None
            if not finished:
                pending[index] = (other, self._submit(other))
        return outcome

    def _alone(self, item: Any) -> SampleOutcome:
        """Retry one sample in a process of its own: did it, or a neighbour, crash the pool?"""
        with self._new_pool(1) as solo:
            try:
                return solo.submit(self.work, item).result()
            except BrokenProcessPool:
                return self.crashed(item)


def ordered_outcomes(items: Iterable[Any], job: JobSpec, workers: int) -> Iterator[SampleOutcome]:
    """Outcomes in source order. One worker runs in this process (simplest to debug)."""
    yield from ordered_results(items, job, workers, "process")


def ordered_results(items: Iterable[Any], job: JobSpec, workers: int, task: str) -> Iterator[Any]:
    """``task`` ("process" or "score") over ``items``, results in source order."""
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
    yield from OrderedPool(job, workers, task).run(items)
