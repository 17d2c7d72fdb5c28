"""Samples as Ray tasks (``--executor ray``): the same ordered build, on a cluster.

Each sample is one task (one CPU, no automatic retry). The pool in :mod:`.parallel` keeps
at most ``--workers`` of them in flight and commits their outcomes in source order, as it
does with local processes, so the bytes written are the same. A task that kills its
worker process (a native crash, the OOM killer) is run once more; if it dies again the
sample gets the error record a local crash gets. Ray runs one task at a time in a worker
process, so the crash is the sample's own: the other tasks keep running.

The job is put in Ray's object store once per run; a worker process builds its
:class:`~.worker.SampleProcessor` on its first task and keeps it for the later ones.

Every node must see the source and the output folder at the same paths (a shared
filesystem): workers read documents and write assets there, and share the page-reading
cache (``OUT/state/ocr`` or ``--ocr-cache``), so a document's pages are read once for
all its samples. What travels through Ray is the job, the samples' descriptions and their
outcomes, never document bytes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .jobs import JobSpec

if TYPE_CHECKING:
    from .worker import SampleProcessor

#: Where a cluster is when ``--ray-address`` is not given (Ray's own convention).
ADDRESS_ENV = "RAY_ADDRESS"
INSTALL_HINT = "--executor ray needs Ray: pip install 'abstain-build[ray]'"

#: The SampleProcessor method each pool task calls.
METHODS = {"process": "__call__", "score": "score"}


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return ray


#: Ray's switch for nodes that serve no cluster (named for Windows and macOS, where it is
#: off by default): off, a node's address is the loopback.
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def _not_auth_default(record: logging.LogRecord) -> bool:
    return "Token authentication is enabled" not in record.getMessage()


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """``values`` in this process's environment for the block (what a started Ray inherits)."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _added_paths() -> list[str]:
    """This process's import path beyond the interpreter's own folders ("" is the current
    folder)."""
    own = (sys.prefix, sys.base_prefix)
    return [path or os.getcwd() for path in sys.path if not path.startswith(own)]


def cluster_address(address: str | None) -> str | None:
    """The cluster to connect to: ``address``, else ``$RAY_ADDRESS``; None: start one."""
    return address or os.environ.get(ADDRESS_ENV) or None


#: How a build's Ray talks: no dashboard, the workers' output kept out of the build's.
QUIET = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}


@contextlib.contextmanager
def ray_runtime(address: str | None, workers: int) -> Iterator[None]:
    """Ray for the block: the cluster at ``address`` (or ``$RAY_ADDRESS``), or else a
    local Ray on 127.0.0.1 with ``workers`` CPUs, stopped when the block ends, on Ctrl-C
    and on an error too. A Ray this process had already joined is used as it is."""
    # Ray reports usage to its authors unless told not to; a build sends nothing anywhere.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    target = cluster_address(address)
    # A Ray of its own listens on the loopback only: Ray turns 127.0.0.1 into the
    # machine's network address unless told, when ray is imported, that the node serves
    # no cluster.
    loopback = {} if target or LOOPBACK_ENV in os.environ else {LOOPBACK_ENV: "0"}
    with _environment(**loopback):
        ray = _ray()
    if ray.is_initialized():
        yield
        return
    if target:
        ray.init(address=target, **QUIET)
        try:
            yield
        finally:
            ray.shutdown()
        return
    reap_stale_local_rays()
    # Ray turns token authentication on for a new local cluster and warns that it did: a
    # line that says nothing to the user of a build.
    logging.getLogger(AUTH_LOGGER).addFilter(_not_auth_default)
    # "local": a new instance, never one a previous run or another user left running. Its
    # workers import what this process imports (a plugin found in the current folder, a
    # checkout on PYTHONPATH), as local worker processes do.
    with _environment(PYTHONPATH=os.pathsep.join(_added_paths()), **loopback):
        ray.init(address="local", num_cpus=workers, _node_ip_address="127.0.0.1", **QUIET)
    record = record_local_ray()
    try:
        yield
    finally:
        ray.shutdown()
        record.unlink(missing_ok=True)


# -- local Rays left by a killed driver ----------------------------------------------------
# A SIGKILLed driver takes its Ray's GCS and raylet with it, but the raylet's agents are
# left running, adopted by init. The processes a local Ray started are written down when
# it starts; a later run removes those of any driver that is gone.


def _records_dir() -> Path:
    return Path(os.environ.get("RAY_TMPDIR") or tempfile.gettempdir()) / "abstain-build-ray"


def _start_time(pid: int) -> int | None:
    """The process's start (clock ticks after boot), which tells it from a later one that
    reuses its PID; None if it is gone (or on a system without /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found, stack = [], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def _alive(process: list[int]) -> bool:
    return _start_time(process[0]) == process[1]


def record_local_ray() -> Path:
    """Write down this driver and the processes its local Ray runs (``[pid, start]``)."""
    me = os.getpid()
    processes = [[pid, _start_time(pid)] for pid in _descendants(me)]
    folder = _records_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{me}.json"
    record = {"driver": [me, _start_time(me)], "processes": processes}
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def reap_stale_local_rays() -> int:
    """Stop what the local Rays of drivers that are gone left running; how many stopped."""
    stopped = 0
    for path in sorted(_records_dir().glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if _alive(record["driver"]):
            continue
        for process in record["processes"]:
            if _alive(process):
                with contextlib.suppress(OSError):
                    os.kill(process[0], signal.SIGKILL)
                    stopped += 1
        path.unlink(missing_ok=True)
    return stopped


# -- in the worker processes --------------------------------------------------------------

_RUN: tuple[str, SampleProcessor] | None = None


def _run_sample(job_ref: list[Any], run_id: str, method: str, item: Any) -> Any:
    """One sample, in a Ray worker process. ``job_ref`` is a list so that Ray passes the
    reference as it is; the job is fetched once per process and run."""
    global _RUN
    from .worker import SampleProcessor

    if _RUN is None or _RUN[0] != run_id:
        if _RUN is not None:
            _RUN[1].close()
        _RUN = (run_id, SampleProcessor(_ray().get(job_ref[0])))
    return getattr(_RUN[1], method)(item)


# -- in the driver ------------------------------------------------------------------------


class RayWorkers:
    """The :class:`~.parallel.Workers` backend on Ray: one task per sample, at most
    ``workers`` in flight. Needs a running Ray (:func:`ray_runtime`)."""

    crash_breaks_others = False

    def __init__(self, job: JobSpec, workers: int, task: str) -> None:
        self.ray = _ray()
        if not self.ray.is_initialized():
            raise RuntimeError("RayWorkers needs ray_runtime() around the run")
        self.running_cap = workers
        self.method = METHODS[task]
        self.run_id = uuid.uuid4().hex
        self.job_ref = [self.ray.put(job)]
        self.remote = self.ray.remote(_run_sample).options(num_cpus=1, max_retries=0)
        self.in_flight: dict[Future[Any], Any] = {}

    def _start(self, item: Any) -> Any:
        return self.remote.remote(self.job_ref, self.run_id, self.method, item)

    def submit(self, item: Any) -> Future[Any]:
        ref = self._start(item)
        future: Future[Any] = ref.future()
        self.in_flight[future] = ref
        future.add_done_callback(lambda done: self.in_flight.pop(done, None))
        return future

    def crashed(self, error: BaseException) -> bool:
        exceptions = self.ray.exceptions
        return isinstance(error, exceptions.WorkerCrashedError | exceptions.OutOfMemoryError)

    def alone(self, item: Any) -> Any:
        try:
            return self.ray.get(self._start(item))
        except Exception as error:
            if self.crashed(error):
                return None
            raise

    def shutdown(self) -> None:
        """Cancel what is still running (a Ctrl-C, an error in the driver)."""
        for ref in list(self.in_flight.values()):
            with contextlib.suppress(Exception):
                self.ray.cancel(ref)
        self.in_flight.clear()
