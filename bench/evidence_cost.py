"""The cost of the evidence map and of the re-read gate (a section of bench/documents.py).

* **Map, reading**: every page of every document of the source read as the map reads it
  (text layer; OCR of image-only pages; sparse-text OCR of the charts on text pages), with a
  cold OCR cache (memory cleared, a fresh disk directory), timed page by page and split by
  page kind: pages with a usable text layer, image-only pages. Reported as pages per second.
* **Map, matching**: per sample, the gold forms, anchors and statements over the readings
  already made (what every further sample of the same document pays).
* **Gate**: per sample, ``remove_visual_element`` (a removal that edits the evidence
  pages and every page stating the answer), then the gate with the map warm: the pages it
  had to read again (edited ones) and its seconds, split by the kind of those pages; pages
  read again per second. The reference is the same as the transforms': rendering and
  encoding those pages once.

Run through ``python bench/documents.py --evidence`` (this section only) or as part of the
whole bench.
"""

from __future__ import annotations

import hashlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abstain_build.evidence.map import build_map, page_labels
from abstain_build.evidence.reading import forget_documents, read_page
from abstain_build.media.inputs import InputLimits, SampleInputs
from abstain_build.media.pdf import open_pdf, render_page_png
from abstain_build.model import Sample
from abstain_build.pipeline.apply import reread, run_transform
from abstain_build.textregions import ocr
from abstain_build.textregions.pages import has_usable_text_layer
from abstain_build.transforms.registry import get_registry

KINDS = ("text", "image")


def _rate(pages: int, seconds: float) -> float | None:
    return pages / seconds if pages and seconds > 0 else None


def _fmt(value: float | None, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def read_documents(samples: Sequence[Sample]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every page of every document, read cold; per-kind pages and seconds, and readings."""
    documents: dict[str, Sample] = {}
    for sample in samples:
        assert sample.document is not None
        documents.setdefault(str(sample.document.path), sample)
    tally = {kind: {"pages": 0, "seconds": 0.0} for kind in KINDS}
    readings: dict[str, Any] = {}
    cache = Path(tempfile.mkdtemp(prefix="bench-evidence-ocr-"))
    previous = ocr.ocr_cache_dir()
    ocr.configure_ocr_cache(cache)
    ocr.clear_memory_cache()
    try:
        for path in documents:
            data = Path(path).read_bytes()
            with open_pdf(data, path) as document:
                pages = {}
                for number in range(1, document.page_count + 1):
                    kind = "text" if has_usable_text_layer(document[number - 1]) else "image"
                    started = time.perf_counter()
                    pages[number] = read_page(document, number)
                    tally[kind]["seconds"] += time.perf_counter() - started
                    tally[kind]["pages"] += 1
                readings[path] = (pages, page_labels(document))
    finally:
        ocr.configure_ocr_cache(previous)
        shutil.rmtree(cache, ignore_errors=True)
    return tally, readings


def match_samples(samples: Sequence[Sample], readings: dict[str, Any]) -> list[float]:
    """Seconds to build each sample's map over readings already made."""
    seconds = []
    for sample in samples:
        assert sample.document is not None
        pages, labels = readings[str(sample.document.path)]
        started = time.perf_counter()
        build_map(
            sample.evidence_pages,
            sample.question,
            sample.answer,
            sample.answer_format,
            sample.options,
            pages,
            labels,
        )
        seconds.append(time.perf_counter() - started)
    return seconds


def gate_samples(samples: Sequence[Sample], limits: InputLimits, seed: int) -> dict[str, Any]:
    """The gate after remove_visual_element on each sample, the map and readings warm."""
    transform = get_registry().get("remove_visual_element")()
    tally = {kind: {"pages": 0, "seconds": 0.0, "reference": 0.0} for kind in KINDS}
    per_sample: list[float] = []
    skipped = 0
    cache = Path(tempfile.mkdtemp(prefix="bench-gate-ocr-"))
    previous = ocr.ocr_cache_dir()
    ocr.configure_ocr_cache(cache)
    try:
        for sample in samples:
            inputs = SampleInputs(sample, limits)
            try:
                inputs.validate()
                output = run_transform(transform, sample, inputs, seed)
            except Exception:  # a sample the removal cannot take (NotApplicable included)
                skipped += 1
                inputs.close()
                continue
            document = inputs.document()
            started = time.perf_counter()
            gate = reread(transform, sample, inputs, output)
            spent = time.perf_counter() - started
            per_sample.append(spent)
            assert gate is not None and output.pdf is not None
            kinds = [
                "text" if has_usable_text_layer(document[n - 1]) else "image"
                for n in gate.pages_reread
            ]
            with open_pdf(output.pdf, "perturbed") as shipped:
                floor = 0.0
                for number in gate.pages_reread:
                    begun = time.perf_counter()
                    render_page_png(shipped[number - 1], limits.dpi, limits.max_pixels)
                    floor += time.perf_counter() - begun
            for kind in set(kinds):
                share = kinds.count(kind) / len(kinds)
                tally[kind]["pages"] += kinds.count(kind)
                tally[kind]["seconds"] += spent * share
                tally[kind]["reference"] += floor * share
            inputs.close()
    finally:
        ocr.configure_ocr_cache(previous)
        shutil.rmtree(cache, ignore_errors=True)
    return {"tally": tally, "per_sample": per_sample, "skipped": skipped}


def evidence_section(samples: Sequence[Sample], limits: InputLimits, seed: int) -> dict[str, Any]:
    """Print and return the map's and the gate's figures."""
    documents = len({hashlib.sha1(str(s.document.path).encode()).hexdigest() for s in samples})
    print(f"\n== evidence map and re-read gate ({len(samples)} samples, {documents} documents)")
    forget_documents()
    reading, readings = read_documents(samples)
    print("map, reading every page (cold OCR cache):")
    for kind in KINDS:
        row = reading[kind]
        print(
            f"  {kind:>5} pages: {row['pages']:4d} in {row['seconds']:6.1f} s"
            f" = {_fmt(_rate(row['pages'], row['seconds']))} pages/s"
        )
    matching = match_samples(samples, readings)
    print(
        f"map, matching per sample (readings warm): median {statistics.median(matching):.3f} s,"
        f" max {max(matching):.3f} s"
    )
    gate = gate_samples(samples, limits, seed)
    per = gate["per_sample"]
    if per:
        p90 = sorted(per)[int(0.9 * (len(per) - 1))]
        print(
            f"gate after remove_visual_element: {len(per)} samples ({gate['skipped']} skipped),"
            f" median {statistics.median(per):.2f} s, p90 {p90:.2f} s per sample"
        )
    else:
        print("gate: no sample measured")
    for kind in KINDS:
        row = gate["tally"][kind]
        ratio = row["seconds"] / row["reference"] if row["reference"] > 0 else None
        print(
            f"  {kind:>5} pages read again: {row['pages']:4d} in {row['seconds']:6.1f} s"
            f" = {_fmt(_rate(row['pages'], row['seconds']))} pages/s"
            f" ({_fmt(ratio)} x rendering them once)"
        )
    return {
        "map_reading": reading,
        "map_matching_seconds": {"median": statistics.median(matching), "max": max(matching)},
        "gate": {
            "samples": len(per),
            "skipped": gate["skipped"],
            "median_seconds": statistics.median(per) if per else None,
            "by_kind": gate["tally"],
        },
    }
