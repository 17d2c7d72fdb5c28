"""How many evidence pages per second does each document transform perturb, and where does
the time go?

For every registered transform whose target is "document" (terminal fallbacks included, or
those named by --transforms), each sample of SOURCE goes through the steps of
``abstain_build.pipeline.apply.run_transform``, each timed on its own:

* OCR: seconds inside the OCR engine during planning (``ocr_stats()`` deltas; cache hits
  cost no engine time);
* plan: the rest of ``transform.plan(ctx)``: page analysis, detection, cache look-ups;
* edit: ``inputs.writable_document()`` and ``transform.apply(document, plan)`` (OCR an
  apply step would make is counted as OCR);
* save: ``save_pdf(document)``;
* render: opening the saved PDF and ``page.get_pixmap`` of each evidence page;
* encode: ``pixmap.tobytes("png")`` (the two halves of ``render_page_png``).

Left out, as a build does them once per sample and not per transform: opening the original
PDF, and the control renders the structural checks compare against.

Every figure is split by page kind: pages with a usable text layer
(``has_usable_text_layer``) and image-only pages (scans, slide decks exported as pictures).
Per-page steps (render, encode) are timed per page; a sample's other steps are shared
evenly among its evidence pages, except OCR, which goes to its image-only pages.

Reference, measured in the same run on the same pages: render each original evidence page
at 144 dpi and encode it to PNG, the floor every document transform pays (best of two
passes). "x ref" is a transform's seconds over the reference's on the pages it perturbed.

Each transform starts with an empty OCR memory cache and no disk cache; within its pass,
samples sharing a page share the OCR result, as in a build. A last section shows the
cache across transforms on the image-only pages: a first transform with a cold cache
(memory cleared, fresh disk directory), a second one on the same pages, then the first
again with only the disk cache (as a resumed run or another worker sees it).
``page_words`` (text layer, else OCR: what OCR-based transforms call) is shown the same
way, so the cache is visible even when no selected transform reads the pages by OCR.

A last section measures the evidence map and the re-read gate (``bench/evidence_cost.py``):
reading every page of each document cold, split text layer / image-only, and the gate's
seconds per sample after a removal, split by the kind of the pages it read again.

    python bench/documents.py [SOURCE] [--transforms a,b] [--limit N] [--json PATH]
                              [--cache-pair a,b] [--plugin MODULE] [--evidence]

SOURCE defaults to ../shared/data/mmlongbench-doc when present, else the shipped fixture.
A transform raising NotApplicable is counted as n/a (not an error) with its first reasons.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evidence_cost import evidence_section  # noqa: E402

from abstain_build.errors import InputError  # noqa: E402
from abstain_build.loaders import open_source  # noqa: E402
from abstain_build.media.inputs import InputLimits, SampleInputs  # noqa: E402
from abstain_build.media.pdf import open_pdf, save_pdf  # noqa: E402
from abstain_build.model import Sample  # noqa: E402
from abstain_build.seeding import derive_seed  # noqa: E402
from abstain_build.textregions import ocr  # noqa: E402
from abstain_build.textregions.pages import has_usable_text_layer, page_words  # noqa: E402
from abstain_build.transforms.base import (  # noqa: E402
    DocumentTransform,
    NotApplicable,
    TransformContext,
)
from abstain_build.transforms.registry import RegistryError, get_registry  # noqa: E402

PHASES = ("ocr", "plan", "edit", "save", "render", "encode")
KINDS = ("text", "image")
KIND_LABEL = {"text": "text layer", "image": "image-only", "all": "all"}
REASONS_KEPT = 3


# ---------------------------------------------------------------- samples


@dataclass
class Unit:
    """A valid sample and the kind ("text" or "image") of each of its evidence pages."""

    sample: Sample
    kinds: list[str]

    @property
    def has_image_page(self) -> bool:
        return "image" in self.kinds


def load_units(source: str, limit: int | None) -> tuple[list[Unit], int, int]:
    """The first ``limit`` samples (loader problems skipped), with their page kinds; also the
    number of loader problems and of samples whose evidence pages cannot be read."""
    units: list[Unit] = []
    problems = invalid = 0
    documents: dict[Path, pymupdf.Document] = {}
    kinds: dict[tuple[Path, int], str] = {}
    for item in open_source(source):
        if limit is not None and len(units) + invalid >= limit:
            break
        if not isinstance(item, Sample):
            problems += 1
            continue
        if item.document is None or not item.evidence_pages:
            invalid += 1
            continue
        path = item.document.path
        try:
            if path not in documents:
                documents[path] = open_pdf(path.read_bytes(), item.document.doc_id)
        except (OSError, InputError):
            invalid += 1
            continue
        document = documents[path]
        if not all(1 <= page <= document.page_count for page in item.evidence_pages):
            invalid += 1
            continue
        for page in item.evidence_pages:
            if (path, page) not in kinds:
                usable = has_usable_text_layer(document[page - 1])
                kinds[path, page] = "text" if usable else "image"
        units.append(Unit(item, [kinds[path, page] for page in item.evidence_pages]))
    for document in documents.values():
        document.close()
    return units, problems, invalid


# ---------------------------------------------------------------- timing


@dataclass
class Tally:
    """Pages and seconds per phase, for one page kind."""

    pages: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    reference: float = 0.0  # the reference's seconds on the same pages

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    def rate(self) -> float | None:
        return self.pages / self.total if self.pages and self.total > 0 else None

    def ratio(self) -> float | None:
        return self.total / self.reference if self.pages and self.reference > 0 else None

    def shares(self) -> dict[str, float]:
        total = self.total
        return {p: 100 * s / total if total > 0 else 0.0 for p, s in self.seconds.items()}

    def add(self, other: Tally) -> None:
        self.pages += other.pages
        self.reference += other.reference
        for phase, seconds in other.seconds.items():
            self.seconds[phase] += seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "seconds": round(self.total, 4),
            "pages_per_second": self.rate(),
            "ratio_to_reference": self.ratio(),
            "reference_seconds": round(self.reference, 4),
            "phase_seconds": {p: round(s, 4) for p, s in self.seconds.items()},
            "phase_shares": {p: round(s, 2) for p, s in self.shares().items()},
        }


@dataclass
class Result:
    """One transform's pass over the samples."""

    name: str
    tallies: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in KINDS})
    not_applicable: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    n_a_samples: int = 0
    n_a_reasons: list[str] = field(default_factory=list)
    errors: int = 0
    error_reasons: list[str] = field(default_factory=list)
    ocr: dict[str, float] = field(default_factory=dict)  # stats over the pass
    image_ocr_calls: int = 0  # engine calls on samples with an image-only page
    wall: float = 0.0

    def all(self) -> Tally:
        total = Tally()
        for tally in self.tallies.values():
            total.add(tally)
        return total


def note(reasons: list[str], reason: str) -> None:
    if reason not in reasons and len(reasons) < REASONS_KEPT:
        reasons.append(reason)


def stats_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {key: after[key] - before.get(key, 0) for key in after}


def spread(
    unit: Unit, shared: dict[str, float], per_page: list[dict[str, float]]
) -> list[tuple[str, dict[str, float]]]:
    """Each evidence page's kind and seconds per phase: per-page phases as timed, the
    sample's other phases shared evenly, OCR among its image-only pages."""
    count = len(unit.kinds)
    image_pages = unit.kinds.count("image")
    pages = []
    for kind, own in zip(unit.kinds, per_page, strict=True):
        seconds = dict.fromkeys(PHASES, 0.0)
        for phase, value in shared.items():
            if phase == "ocr" and image_pages:
                seconds[phase] += value / image_pages if kind == "image" else 0.0
            else:
                seconds[phase] += value / count
        for phase, value in own.items():
            seconds[phase] += value
        pages.append((kind, seconds))
    return pages


def render_and_encode(
    document: pymupdf.Document, pages: Iterable[int], limits: InputLimits
) -> list[dict[str, float]]:
    """``render_pages`` step by step: per page, pixmap seconds and PNG encoding seconds."""
    timings = []
    scale = limits.dpi / 72.0
    for number in pages:
        page = document[number - 1]
        width, height = int(page.rect.width * scale), int(page.rect.height * scale)
        if width * height > limits.max_pixels:
            raise InputError(f"page {number}: {width}x{height} px is above --max-pixels")
        started = time.perf_counter()
        pixmap = page.get_pixmap(dpi=limits.dpi, alpha=False)
        rendered = time.perf_counter()
        pixmap.tobytes("png")
        timings.append({"render": rendered - started, "encode": time.perf_counter() - rendered})
    return timings


def reference(units: list[Unit], limits: InputLimits) -> list[list[dict[str, float]]]:
    """Per sample and evidence page: render + encode seconds of the original (best of 2)."""
    best: list[list[dict[str, float]]] = []
    for attempt in range(2):
        for index, unit in enumerate(units):
            with open_pdf(unit.sample.document.path.read_bytes(), "reference") as document:
                timings = render_and_encode(document, unit.sample.evidence_pages, limits)
            if attempt == 0:
                best.append(timings)
                continue
            for kept, new in zip(best[index], timings, strict=True):
                if sum(new.values()) < sum(kept.values()):
                    kept.update(new)
    return best


def run_one(
    transform: DocumentTransform, unit: Unit, limits: InputLimits, seed: int
) -> tuple[dict[str, float], list[dict[str, float]], dict[str, float]]:
    """``run_transform``'s steps for a document transform, timed one by one: the sample's
    phase seconds, the per-page ones, and the OCR counters. Raises what the transform
    raises (NotApplicable included)."""
    sample = unit.sample
    inputs = SampleInputs(sample, limits)
    try:
        inputs.document()  # opened by validate() in a build, before any transform
        reason = transform.check(sample)
        if reason is not None:
            raise NotApplicable(reason)
        call_seed = derive_seed(seed, sample.id, transform.name, 0)
        ctx = TransformContext(
            sample=sample,
            inputs=inputs,
            rng=np.random.default_rng(call_seed),
            seed=call_seed,
            attempt=0,
        )
        before = ocr.ocr_stats()
        started = time.perf_counter()
        plan = transform.plan(ctx)
        planned = time.perf_counter()
        after_plan = ocr.ocr_stats()
        document = inputs.writable_document()
        try:
            transform.apply(document, plan)
            edited = time.perf_counter()
            pdf = save_pdf(document)
            saved = time.perf_counter()
        finally:
            document.close()
        after_edit = ocr.ocr_stats()
        with open_pdf(pdf, "perturbed document") as output:
            opened = time.perf_counter()
            per_page = render_and_encode(output, sample.evidence_pages, limits)
        per_page[0]["render"] += opened - saved
        ocr_plan = after_plan["engine_seconds"] - before["engine_seconds"]
        ocr_edit = after_edit["engine_seconds"] - after_plan["engine_seconds"]
        shared = {
            "ocr": ocr_plan + ocr_edit,
            "plan": planned - started - ocr_plan,
            "edit": edited - planned - ocr_edit,
            "save": saved - edited,
        }
        return shared, per_page, stats_delta(before, ocr.ocr_stats())
    finally:
        inputs.close()


def run_pass(
    transform: DocumentTransform,
    units: list[Unit],
    floor: list[list[dict[str, float]]],
    limits: InputLimits,
    seed: int,
) -> Result:
    """One transform over every sample, with a cold OCR cache (memory cleared, no disk)."""
    result = Result(transform.name)
    ocr.configure_ocr_cache(None)
    ocr.clear_memory_cache()
    start_stats = ocr.ocr_stats()
    started = time.perf_counter()
    for unit, reference_pages in zip(units, floor, strict=True):
        try:
            shared, per_page, stats = run_one(transform, unit, limits, seed)
        except NotApplicable as reason:
            result.n_a_samples += 1
            for kind in set(unit.kinds):
                result.not_applicable[kind] += 1
            note(result.n_a_reasons, str(reason))
            continue
        except Exception as exc:
            result.errors += 1
            note(result.error_reasons, f"{unit.sample.id}: {type(exc).__name__}: {exc}")
            continue
        if unit.has_image_page:
            result.image_ocr_calls += int(stats["engine_calls"])
        pages = spread(unit, shared, per_page)
        for (kind, seconds), ref in zip(pages, reference_pages, strict=True):
            tally = result.tallies[kind]
            tally.pages += 1
            tally.reference += sum(ref.values())
            for phase, value in seconds.items():
                tally.seconds[phase] += value
    result.wall = time.perf_counter() - started
    result.ocr = stats_delta(start_stats, ocr.ocr_stats())
    return result


# ---------------------------------------------------------------- printing


def fmt(value: float | None, spec: str, width: int) -> str:
    return f"{value:{width}{spec}}" if value is not None else f"{'-':>{width}}"


HEADER = (
    f"{'transform':<24} {'kind':<10} {'pages':>5} {'pages/s':>8} {'x ref':>6}"
    + "".join(f" {p + '%':>7}" for p in PHASES)
    + f" {'n/a':>4} {'err':>4}"
)


def tally_row(label: str, kind: str, tally: Tally, n_a: int | None, errors: int | None) -> str:
    shares = tally.shares() if tally.pages else {}
    cells = "".join(fmt(shares.get(p), ".1f", 8) if tally.pages else f"{'-':>8}" for p in PHASES)
    tail = f" {n_a if n_a is not None else '':>4} {errors if errors is not None else '':>4}"
    return (
        f"{label:<24} {KIND_LABEL[kind]:<10} {tally.pages:5d} {fmt(tally.rate(), '.2f', 8)}"
        f" {fmt(tally.ratio(), '.2f', 6)}{cells}{tail}"
    )


def print_reference(units: list[Unit], floor: list[list[dict[str, float]]]) -> dict[str, Any]:
    tallies = {kind: Tally() for kind in KINDS}
    for unit, pages in zip(units, floor, strict=True):
        for kind, seconds in zip(unit.kinds, pages, strict=True):
            tallies[kind].pages += 1
            tallies[kind].reference += sum(seconds.values())
            for phase, value in seconds.items():
                tallies[kind].seconds[phase] += value
    total = Tally()
    for tally in tallies.values():
        total.add(tally)
    print()
    print("Reference: each original evidence page rendered at 144 dpi and encoded to PNG")
    print(HEADER)
    print("-" * len(HEADER))
    label = "render + PNG"
    for kind, tally in [*tallies.items(), ("all", total)]:
        print(tally_row(label, kind, tally, None, None))
        label = ""
    return {kind: tally.as_dict() for kind, tally in [*tallies.items(), ("all", total)]}


def print_results(results: list[Result]) -> None:
    print()
    print(
        "Transforms: evidence pages per second, x ref = seconds / reference seconds on the"
        " same pages, phase shares of the transform's time (n/a, err: samples)"
    )
    print(HEADER)
    print("-" * len(HEADER))
    for result in results:
        label = result.name
        for kind in KINDS:
            n_a = result.not_applicable[kind]
            print(tally_row(label, kind, result.tallies[kind], n_a, None))
            label = ""
        print(tally_row("", "all", result.all(), result.n_a_samples, result.errors))
    for result in results:
        ocr_line = (
            f"OCR engine calls {int(result.ocr.get('engine_calls', 0))},"
            f" memory hits {int(result.ocr.get('memory_hits', 0))},"
            f" {result.ocr.get('engine_seconds', 0.0):.2f} s"
        )
        print(f"{result.name}: pass {result.wall:.1f} s; {ocr_line}")
        for reason in result.n_a_reasons:
            print(f"    n/a: {reason}")
        for reason in result.error_reasons:
            print(f"    error: {reason}")


# ---------------------------------------------------------------- the OCR cache


@dataclass
class CacheStep:
    label: str
    seconds: float
    stats: dict[str, float]
    n_a: int = 0
    errors: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.label,
            "seconds": round(self.seconds, 4),
            "n_a": self.n_a,
            "errors": self.errors,
            **self.stats,
        }


def cache_pass(
    label: str, transform: DocumentTransform, units: list[Unit], limits: InputLimits, seed: int
) -> CacheStep:
    before = ocr.ocr_stats()
    step = CacheStep(label, 0.0, {})
    started = time.perf_counter()
    for unit in units:
        try:
            run_one(transform, unit, limits, seed)
        except NotApplicable:
            step.n_a += 1
        except Exception:
            step.errors += 1
    step.seconds = time.perf_counter() - started
    step.stats = stats_delta(before, ocr.ocr_stats())
    return step


def page_words_pass(label: str, units: list[Unit]) -> CacheStep:
    before = ocr.ocr_stats()
    started = time.perf_counter()
    for unit in units:
        with open_pdf(unit.sample.document.path.read_bytes(), "page_words") as document:
            for page, kind in zip(unit.sample.evidence_pages, unit.kinds, strict=True):
                if kind == "image":
                    page_words(document[page - 1])
    return CacheStep(label, time.perf_counter() - started, stats_delta(before, ocr.ocr_stats()))


def cache_section(
    results: list[Result],
    transforms: dict[str, DocumentTransform],
    pair: list[str] | None,
    units: list[Unit],
    limits: InputLimits,
    seed: int,
) -> dict[str, Any]:
    image_units = [unit for unit in units if unit.has_image_page]
    pages = sum(unit.kinds.count("image") for unit in image_units)
    print()
    if not image_units:
        print("OCR cache: no image-only evidence page in these samples: skipped")
        return {"skipped": "no image-only evidence page"}
    if not ocr.ocr_available():
        print("OCR cache: no OCR engine available: skipped")
        return {"skipped": "no OCR engine"}
    explicit = pair is not None
    if pair is None:
        reading = [r.name for r in results if r.image_ocr_calls > 0]
        pair = (reading + [r.name for r in results if r.name not in reading])[:2]
    print(
        f"OCR cache on the {pages} image-only evidence pages ({len(image_units)} samples);"
        f" engine {ocr.engine_name()}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="abstain-bench-ocr-"))
    steps: list[CacheStep] = []
    try:

        def cold(directory: str) -> None:
            ocr.clear_memory_cache()
            ocr.configure_ocr_cache(scratch / directory)

        if pair:
            first, second = pair[0], pair[-1]
            cold("transforms")
            steps.append(
                cache_pass(
                    f"1. {first}, cold (memory cleared, fresh disk dir)",
                    transforms[first],
                    image_units,
                    limits,
                    seed,
                )
            )
            if second != first:
                steps.append(
                    cache_pass(
                        f"2. {second}, same pages, warm cache",
                        transforms[second],
                        image_units,
                        limits,
                        seed,
                    )
                )
            ocr.clear_memory_cache()
            steps.append(
                cache_pass(
                    f"3. {first} again, memory cleared, disk kept",
                    transforms[first],
                    image_units,
                    limits,
                    seed,
                )
            )
        cold("page_words")
        steps.append(
            page_words_pass("page_words, cold (memory cleared, fresh disk dir)", image_units)
        )
        steps.append(page_words_pass("page_words, same pages again (memory)", image_units))
        ocr.clear_memory_cache()
        steps.append(page_words_pass("page_words again, memory cleared, disk kept", image_units))
    finally:
        ocr.configure_ocr_cache(None)
        shutil.rmtree(scratch, ignore_errors=True)

    width = max(len(step.label) for step in steps)
    header = (
        f"{'step':<{width}} {'seconds':>8} {'engine calls':>12} {'engine s':>9}"
        f" {'memory hits':>11} {'disk hits':>9}"
    )
    print(header)
    print("-" * len(header))
    for step in steps:
        stats = step.stats
        flags = f"  (n/a {step.n_a})" if step.n_a else ""
        flags += f"  (errors {step.errors})" if step.errors else ""
        print(
            f"{step.label:<{width}} {step.seconds:8.2f} {int(stats['engine_calls']):12d}"
            f" {stats['engine_seconds']:9.2f} {int(stats['memory_hits']):11d}"
            f" {int(stats['disk_hits']):9d}{flags}"
        )
    if pair and steps[0].stats["engine_calls"] == 0:
        if not any(result.image_ocr_calls for result in results):
            why = "none of the measured transforms OCRs image-only pages"
        else:
            why = f"{pair[0]} does not OCR these pages"
        print(f"note: {why}; page_words shows the cache instead")
    elif len(pair or []) == 2 and pair[0] != pair[1]:
        second = steps[1].stats
        if second["engine_calls"] + second["memory_hits"] + second["disk_hits"] == 0:
            why = "" if explicit else f": {pair[0]} is the only measured one that OCRs them"
            print(f"note: {pair[1]} makes no OCR call and no cache look-up on these pages{why}")
    return {"pair": pair, "pages": pages, "steps": [step.as_dict() for step in steps]}


# ---------------------------------------------------------------- main


def document_transforms(names: str | None, plugins: list[str]) -> dict[str, DocumentTransform]:
    try:
        registry = get_registry(plugins)
    except RegistryError as exc:
        raise SystemExit(str(exc)) from None
    if names is None:
        chosen = [cls.name for cls in registry if cls.target == "document"]
    else:
        chosen = [name.strip() for name in names.split(",") if name.strip()]
    transforms: dict[str, DocumentTransform] = {}
    for name in chosen:
        try:
            cls = registry.get(name)
        except RegistryError as exc:
            raise SystemExit(str(exc)) from None
        if not issubclass(cls, DocumentTransform):
            raise SystemExit(f"{name} is not a document transform (target {cls.target!r})")
        transforms[name] = cls()
    if not transforms:
        raise SystemExit("no document transform to measure")
    return transforms


def main() -> None:
    shared = ROOT.parent / "shared" / "data" / "mmlongbench-doc"
    default = shared if shared.is_dir() else ROOT / "fixtures" / "mmlongbench-doc"
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", nargs="?", default=str(default))
    parser.add_argument(
        "--transforms", default=None, help="comma-separated names (default: every document one)"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N samples")
    parser.add_argument("--seed", type=int, default=0, help="run seed, as in `transform`")
    parser.add_argument(
        "--cache-pair",
        default=None,
        help="first,second transform of the OCR cache section (default: the first two that"
        " OCR image-only pages, else the first two measured)",
    )
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        help="import this module first (its transforms register themselves); repeatable",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--evidence",
        action="store_true",
        help="only the evidence map and re-read gate section (see bench/evidence_cost.py)",
    )
    args = parser.parse_args()
    bench_started = time.perf_counter()
    if args.evidence:
        units, _, _ = load_units(args.source, args.limit)
        figures = evidence_section([u.sample for u in units], InputLimits(), args.seed)
        print(f"\nbench time: {time.perf_counter() - bench_started:.0f} s")
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        return

    transforms = document_transforms(args.transforms, args.plugin)
    measured = list(transforms)
    pair = None
    if args.cache_pair:
        pair = [name.strip() for name in args.cache_pair.split(",") if name.strip()][:2]
        extra = document_transforms(",".join(pair), args.plugin)
        transforms.update({name: t for name, t in extra.items() if name not in transforms})
    limits = InputLimits()
    units, problems, invalid = load_units(args.source, args.limit)
    if not units:
        raise SystemExit(f"no usable sample in {args.source}")
    text_pages = sum(unit.kinds.count("text") for unit in units)
    image_pages = sum(unit.kinds.count("image") for unit in units)
    engine = ocr.engine_name() if ocr.ocr_available() else "none"  # loads the model once
    print(
        f"source: {args.source}: {len(units)} samples, {text_pages + image_pages} evidence pages"
        f" ({text_pages} text layer, {image_pages} image-only);"
        f" skipped {problems} loader problems, {invalid} unreadable"
    )
    print(f"OCR engine: {engine}; {limits.dpi} dpi; seed {args.seed}")
    print(f"transforms: {', '.join(transforms)}")

    floor = reference(units, limits)
    reference_figures = print_reference(units, floor)
    results = []
    for name in measured:
        results.append(run_pass(transforms[name], units, floor, limits, args.seed))
    print_results(results)
    cache = cache_section(results, transforms, pair, units, limits, args.seed)
    evidence = evidence_section([u.sample for u in units], limits, args.seed)
    print(f"\nbench time: {time.perf_counter() - bench_started:.0f} s")

    if args.json is not None:
        figures = {
            "source": args.source,
            "samples": len(units),
            "pages": {"text": text_pages, "image": image_pages},
            "ocr_engine": engine,
            "dpi": limits.dpi,
            "seed": args.seed,
            "reference": reference_figures,
            "transforms": {
                result.name: {
                    **{kind: result.tallies[kind].as_dict() for kind in KINDS},
                    "all": result.all().as_dict(),
                    "not_applicable": result.n_a_samples,
                    "not_applicable_by_kind": result.not_applicable,
                    "not_applicable_reasons": result.n_a_reasons,
                    "errors": result.errors,
                    "error_reasons": result.error_reasons,
                    "ocr": result.ocr,
                    "pass_seconds": round(result.wall, 3),
                }
                for result in results
            },
            "ocr_cache": cache,
            "evidence": evidence,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
