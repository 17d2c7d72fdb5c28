"""The build entry point: stream the source, process samples in parallel, commit in order."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..config import BuildConfig
from ..errors import ConfigError
from ..loaders import Source, open_source
from ..media.files import atomic_write
from ..model import Sample, SampleProblem
from ..models import ClientOptions, ModelClient, merge_stats, parse_spec, public_spec
from ..models.probe import probe_model
from ..qc.verify import OFFLINE_JUDGES, QcSpec, make_judge
from ..transforms.params import ParamError
from ..transforms.registry import RegistryError, get_registry
from ..validity import ValidityPolicy
from .card import write_card
from .distractor_pool import plan_image_distractors, wants_image_distractors
from .jobs import JobSpec, RoutedSample
from .manifest import finish_manifest, start_manifest
from .output import STATE_DIR, RunOutput
from .output_lock import locked_output
from .parallel import executor_runtime, ordered_outcomes
from .routing_pass import family_distribution, route_dataset
from .summary import BuildCounts, count_entries, qc_rates

log = logging.getLogger(__name__)

#: Called with (done, total, phase): phase "route" while samples are routed, then
#: "build" after each committed sample.
ProgressCallback = Callable[[int, int, str], None]


@dataclass
class BuildResult:
    out_dir: Path
    counts: BuildCounts
    manifest: dict[str, Any]
    resumed_samples: int

    @property
    def exit_code(self) -> int:
        """0 when every sample went through; 1 when some failed (they are in errors.jsonl),
        or when QC judged items and every verdict was qc_error (the judges never answered:
        nothing was verified)."""
        if self.counts.failed_samples or self.qc_failed:
            return 1
        return 0

    @property
    def qc_failed(self) -> bool:
        overall = qc_rates(self.counts.qc)["overall"]
        return overall["judged"] > 0 and overall["counts"]["qc_error"] == overall["judged"]


def plan_job(config: BuildConfig) -> tuple[JobSpec, list[dict[str, Any]]]:
    """Resolve transform names and parameters against the registry before anything is written."""
    try:
        registry = get_registry(tuple(config.plugins))
        names = config.transforms if config.transforms else registry.default_names()
        unknown_params = sorted(set(config.transform_params) - set(names))
        if unknown_params:
            raise ConfigError(
                f"parameters given for transform(s) not in this run: {', '.join(unknown_params)}"
            )
        specs = []
        described = []
        terminal: tuple[str, ...] = ()
        if config.routing == "auto":
            # Document chains end in a terminal fallback, named or not.
            terminal = tuple(
                sorted(
                    (n for n in registry.names() if registry.get(n).terminal_fallback),
                    key=lambda n: n != "full_page_blur",  # the method's guaranteed one first
                )
            )
        for name in dict.fromkeys([*names, *terminal]):
            cls = registry.get(name)
            params = cls(**config.transform_params.get(name, {})).config
            specs.append((name, tuple(sorted(params.items()))))
            described.append(
                {
                    "name": name,
                    "family": cls.family,
                    "axis": cls.axis,
                    "target": cls.target,
                    "origin": registry.origin(name),
                    "params": params,
                    "role": "fallback only" if name not in names else "candidate",
                }
            )
    except (RegistryError, ParamError) as exc:
        raise ConfigError(str(exc)) from None
    resolved = dataclasses.replace(
        config,
        out=str(Path(config.out).resolve()),
        ocr_cache=str(Path(config.ocr_cache).resolve()) if config.ocr_cache else None,
    )
    job = JobSpec(
        config=resolved,
        transforms=tuple(specs),
        model_options=model_options(config) if config.llm or config.blind_gate else None,
        terminal=terminal,
        qc=qc_spec(config),
        **questions_from_readings(config),
    )
    for spec in (config.llm, config.blind_gate):
        if spec:  # fails now, before anything is written, when the key is missing
            ModelClient(spec, dataclasses.replace(job.model_options, cache_path=None)).close()
    return job, described


def qc_spec(config: BuildConfig) -> QcSpec | None:
    """The run's verification, its judges checked now (an unknown name, a missing key)."""
    if config.qc == "none":
        return None
    names = tuple(config.judges) if config.qc == "judges" else OFFLINE_JUDGES
    if len(set(names)) < len(names):
        log.warning(
            "the same judge is given twice (%s): the method wants two independent judges, so"
            " their agreement means little",
            ", ".join(sorted({public_spec(n) for n in names if names.count(n) > 1})),
        )
    options = dataclasses.replace(model_options(config), cache_path=None)
    for name in names:
        make_judge(name, options).close()
    return QcSpec(
        judges=names,
        self_check=bool(config.llm),
        model_options=model_options(config),
        validity=validity_policy(config),
    )


def questions_from_readings(config: BuildConfig) -> dict[str, tuple[tuple[str, int], ...]]:
    """The sources blind readers answered from recall, and those they answered with
    another answer than the gold, in the package's readings and the run's ledgers
    (:mod:`..validity.recall`), and the documents readers remembered:
    ``JobSpec.recalled``, ``JobSpec.contested`` and ``JobSpec.recalled_documents``."""
    from ..validity.ledger import read_ledgers
    from ..validity.recall import contested_sources, recalled_documents, recalled_sources

    readings = read_ledgers([Path(p) for p in config.ledgers])
    return {
        "recalled": tuple(recalled_sources(readings).items()),
        "contested": tuple(contested_sources(readings).items()),
        "recalled_documents": tuple(recalled_documents(readings).items()),
    }


def validity_policy(config: BuildConfig) -> ValidityPolicy:
    """The measured validity every verified item is judged by (SPEC 8)."""
    from ..validity import run_policy

    return run_policy(
        config.ledgers,
        config.min_validity,
        offline=config.qc == "offline",
        plugins=config.plugins,
        blind_policy=config.blind_policy,
    )


def probe_models(config: BuildConfig) -> None:
    """One small request to every model the run will use, before anything is built: a model
    that cannot serve its role stops the run here (``ConfigError``: exit 2, one line)."""
    roles: list[tuple[str, str, bool]] = []
    if config.llm:
        roles.append((config.llm, "--llm", True))
    if config.blind_gate:
        roles.append((config.blind_gate, "--blind-gate", False))
    if config.qc == "judges":
        for name in config.judges:
            try:
                parse_spec(name)
            except ConfigError:
                continue  # a registered judge (offline:leak), not a model
            roles.append((name, "--judge", True))
    if not roles:
        return
    options = model_options(config)
    for spec, role, images in dict.fromkeys(roles):
        problem = probe_model(spec, options, role, images)
        if problem:
            raise ConfigError(problem)


def model_options(config: BuildConfig) -> ClientOptions:
    """The client settings each worker builds its model client from.

    ``model_concurrency`` bounds the calls in flight over the whole run, so each of the
    ``workers`` processes gets its share. Replies are cached in OUT/state/models.sqlite,
    shared by the workers and by a resumed run.
    """
    return ClientOptions(
        cache_path=Path(config.out).resolve() / "state" / "models.sqlite",
        concurrency=max(1, config.model_concurrency // config.workers),
        timeout=config.model_timeout,
        max_unusable_replies=config.max_unusable_replies,
    )


def _limited(source: Source, limit: int | None) -> Iterator[Any]:
    for position, item in enumerate(source):
        if limit is not None and position >= limit:
            return
        yield item


def build(config: BuildConfig, progress: ProgressCallback | None = None) -> BuildResult:
    """Build (or resume) the dataset described by ``config``; see the README for the layout.

    The output folder is checked to be this tool's (or new) and locked for the run: a
    second run on it stops with the first one's PID (:mod:`.output_lock`)."""
    started = time.perf_counter()
    source = open_source(config.source, config.format)
    job, described = plan_job(config)  # a refused configuration writes no folder
    out = RunOutput(Path(config.out))
    out.refuse_foreign(Path(config.source))
    # Ray first: a cluster that cannot be reached leaves no output folder behind.
    with executor_runtime(config), locked_output(out.root, "transform", create=True):
        return _build(config, progress, out, source, (job, described), started)


def _build(
    config: BuildConfig,
    progress: ProgressCallback | None,
    out: RunOutput,
    source: Source,
    planned: tuple[JobSpec, list[dict[str, Any]]],
    started: float,
) -> BuildResult:
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    job, described = planned
    resolved = dict(config.to_dict(), source=str(Path(config.source).resolve()))
    resolved["out"] = str(Path(config.out).resolve())
    resolved["overwrite"] = False
    record_hashes = source.fingerprint()
    # A changed source (or changed validity figures) must not be mixed into a build of the
    # old one.
    fingerprint = dict(config.fingerprint(), source_files_sha256=record_hashes)
    if job.qc is not None and job.qc.validity is not None:
        fingerprint["validity_ledger_sha256"] = job.qc.validity.ledger
    # So must other recalled or contested questions (the blind check from readings), QC
    # or not.
    flagged = json.dumps([job.recalled, job.contested, job.recalled_documents]).encode("utf-8")
    fingerprint["blind_readings_sha256"] = hashlib.sha256(flagged).hexdigest()
    done_entries = out.prepare(fingerprint, config.overwrite)
    given = Path(config.source)
    out.source_root = given if given.is_dir() else given.parent
    probe_models(config)
    done_ids = {entry["id"] for entry in done_entries}
    total = source.count()
    if config.limit is not None:
        total = min(total, config.limit)

    manifest = start_manifest(resolved, source, record_hashes, total, described)
    if job.qc is not None and job.qc.validity is not None:
        manifest["validity"] = job.qc.validity.describe()
    _write_json(out.root / "manifest.json", manifest)

    usage: list[dict[str, Any]] = []
    processed = len(done_ids)
    try:
        if wants_image_distractors(config):
            manifest["image_distractors"] = plan_image_distractors(
                lambda: _limited(source, config.limit),
                config,
                out.root / STATE_DIR,
                (lambda done, of: progress(done, of, "distractors")) if progress else None,
            )
            _write_json(out.root / "manifest.json", manifest)
        if config.routing == "auto":
            routed = route_dataset(
                _limited(source, config.limit),
                job,
                config.workers,
                out.root / STATE_DIR,
                progress=(lambda done: progress(done, total, "route")) if progress else None,
            )
            decisions, usage = routed.decisions, routed.usage
            manifest["routing"] = {
                "mode": "auto",
                "families": family_distribution(decisions.values()),
                "seconds_this_run": round(routed.seconds, 3),
            }
            _write_json(out.root / "manifest.json", manifest)
        else:
            decisions = {}
            manifest["routing"] = {"mode": "none"}
        pending_items = (
            RoutedSample(item, decisions[item.id])
            if isinstance(item, Sample) and item.id in decisions
            else item
            for item in _limited(source, config.limit)
            if _item_id(item) not in done_ids
        )
        if progress:
            progress(processed, total, "build")
        finished = 0

        def report(done: int) -> None:
            """Samples finished (committed or waiting their turn), every heartbeat."""
            nonlocal finished
            finished = done
            if progress:
                progress(processed, total, "build", f"{len(done_ids) + finished} finished")

        outcomes = ordered_outcomes(
            pending_items, job, config.workers, out.root / STATE_DIR, report
        )
        for outcome in outcomes:
            out.commit(outcome)
            usage = merge_stats([*usage, *outcome.model_usage])
            processed += 1
            finished = max(finished, processed - len(done_ids))
            if progress:
                progress(processed, total, "build", f"{len(done_ids) + finished} finished")
    except BaseException:
        out.close()
        manifest["status"] = "interrupted"
        manifest["models"]["usage"] = usage
        with contextlib.suppress(OSError):  # a full disk must not hide why the run stopped
            _write_json(out.root / "manifest.json", manifest)
        raise
    out.close()

    counts = count_entries(out.entries())
    manifest["models"]["usage"] = usage
    finish_manifest(
        manifest,
        counts,
        started_at,
        time.perf_counter() - started,
        processed - len(done_ids),
        len(done_ids),
    )
    write_card(out.root, manifest, counts)
    _write_json(out.root / "manifest.json", manifest)
    return BuildResult(
        out_dir=out.root, counts=counts, manifest=manifest, resumed_samples=len(done_ids)
    )


def _item_id(item: Any) -> str:
    return item.sample_id if isinstance(item, SampleProblem) else item.id


def _write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
