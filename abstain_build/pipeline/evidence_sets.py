"""Evidence sets (``--evidence-sets``): a document question asked with some of its pages.

Beside its edited counterparts, a document sample can be asked with

* ``gold``: its evidence pages only (answerable);
* ``gold+distractors``: its evidence pages among ``--distractors`` k distractor pages,
  in an order drawn from the run's seed (answerable);
* ``distractors``: the distractor pages only (unanswerable, unless the blind check says
  knowledge answers the question: then no page is needed, and it is answerable);
* ``none``: no page at all, the question alone (answerable only when the blind check
  says knowledge answers it; recorded either way).

This separates "can the model find the evidence" from "does it abstain when the evidence
is gone", and costs no edit: each item ships a PDF of exactly its pages and their renders.
Distractors are the pages most like the question that print nothing of the answer
(:mod:`..evidence.distractors`). A sample whose document has no eligible page gets no
distractor set, and the card counts why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..blind.verdict import BlindVerdict
from ..config import BuildConfig
from ..errors import SampleError
from ..evidence.distractors import excluded_pages, rank_distractors, shuffled
from ..evidence.map import EvidenceMap
from ..media.inputs import SampleInputs
from ..media.pdf import pages_only, render_pages
from ..model import Sample, SampleProblem
from ..schema import EVIDENCE_SETS
from ..seeding import make_rng
from .assets import AssetStore
from .jobs import SampleOutcome
from .records import ControlAssets, evidence_set_record

#: Why an image sample gets no evidence set (its distractors would be other samples'
#: images, which a worker does not see).
IMAGE_SAMPLES = "image samples get no evidence sets in this release (documents only)"
#: The sets that need distractors.
WITH_DISTRACTORS = ("gold+distractors", "distractors")
#: The folder of a sample's distractor renders, shared by its two sets that show them.
DISTRACTOR_FOLDER = "distractors"


@dataclass
class EvidenceSets:
    """One sample's evidence-set items, and the sets it could not get (set -> why)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    not_made: dict[str, str] = field(default_factory=dict)


def build_evidence_sets(
    sample: Sample,
    inputs: SampleInputs,
    control: ControlAssets,
    emap: EvidenceMap,
    verdict: BlindVerdict,
    wanted: list[str],
    count: int,
    seed: int,
    assets: AssetStore,
) -> EvidenceSets:
    """The items of the sets in ``wanted`` (names of :data:`EVIDENCE_SETS`) for ``sample``."""
    made = EvidenceSets()
    names = [name for name in EVIDENCE_SETS if name in wanted]
    evidence = list(dict.fromkeys(sample.evidence_pages))
    excluded = excluded_pages(emap)
    chosen = []
    if any(name in WITH_DISTRACTORS for name in names):
        chosen = rank_distractors(emap, sample.question, count, excluded)
        if not chosen:
            why = "no page of the document is eligible as a distractor (each is evidence or"
            why += " prints the answer, an operand or a candidate)"
            for name in WITH_DISTRACTORS:
                if name in names:
                    made.not_made[name] = why
            names = [name for name in names if name not in WITH_DISTRACTORS]
    document = inputs.document()
    shown = dict(zip(sample.evidence_pages, control.images, strict=True))
    renders = render_pages(
        document, [d.page for d in chosen], inputs.limits.dpi, inputs.limits.max_pixels
    )
    for distractor, png in zip(chosen, renders, strict=True):
        shown[distractor.page] = assets.variant_file(
            sample.id, DISTRACTOR_FOLDER, f"page-{distractor.page:04d}.png", png
        )
    check = {
        "name": "distractors",
        "passed": True,
        "detail": f"{len(chosen)} chosen of {len(emap.readings) - len(excluded)} eligible"
        f" pages; {len(excluded)} excluded as evidence or for printing the answer, an"
        " operand row or a candidate (evidence map, every page and channel)",
    }
    rng = make_rng(seed, sample.id, "evidence_set:gold+distractors")
    for name in names:
        if name == "gold":
            pages = evidence
        elif name == "gold+distractors":
            pages = shuffled(evidence + [d.page for d in chosen], rng)
        elif name == "distractors":
            pages = [d.page for d in chosen]
        else:
            pages = []
        answerable = name in ("gold", "gold+distractors") or verdict.knowledge
        variant = f"set-{name.replace('+', '-')}"
        pdf = (
            assets.variant_file(sample.id, variant, "document.pdf", pages_only(document, pages))
            if pages
            else None
        )
        checks = [check] if name in WITH_DISTRACTORS else []
        if name == "none":
            checks = [
                {
                    "name": "blind",
                    "passed": True,
                    "detail": f"blind check ({verdict.method}): {verdict.verdict}"
                    + (f" ({verdict.reason()})" if verdict.knowledge else ""),
                }
            ]
        listed = [d for d in chosen if d.page in pages]
        made.records.append(
            evidence_set_record(
                sample,
                name,
                answerable,
                images=[shown[p] for p in pages if p in shown],
                document=pdf,
                evidence_set={
                    "name": name,
                    "pages": pages,
                    "distractors": [d.to_json() for d in listed],
                },
                checks=checks,
                blind=verdict.to_json(),
                context="document" if pages else "question",
            )
        )
    return made


def add_evidence_sets(
    outcome: SampleOutcome,
    sample: Sample,
    inputs: SampleInputs,
    control: ControlAssets,
    emap: EvidenceMap | None,
    verdict: BlindVerdict,
    config: BuildConfig,
    assets: AssetStore,
) -> None:
    """The sample's evidence-set items into ``outcome`` (their files written to
    ``assets``), the sets it could not get as not applicable, a failure as the sample's
    error record."""
    if emap is None:  # an image sample
        for name in config.evidence_sets:
            outcome.not_applicable[f"evidence_set:{name}"] = IMAGE_SAMPLES
        return
    started = time.perf_counter()
    try:
        made = build_evidence_sets(
            sample,
            inputs,
            control,
            emap,
            verdict,
            config.evidence_sets,
            config.distractors,
            config.seed,
            assets,
        )
    except SampleError as error:
        problem = SampleProblem(sample.id, "evidence_sets", error.reason, source=sample.source)
        outcome.problems.append(problem)
        return
    outcome.records.extend(made.records)
    for name, why in made.not_made.items():
        outcome.not_applicable[f"evidence_set:{name}"] = why
    outcome.seconds["evidence_sets"] = time.perf_counter() - started
