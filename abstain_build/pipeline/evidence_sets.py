"""Evidence sets (``--evidence-sets``): a question asked with some of its evidence.

Beside its edited counterparts, a sample can be asked with

* ``gold``: its evidence only: a document's evidence pages, an image sample's images
  (answerable);
* ``gold+distractors``: that evidence among ``--distractors`` k distractors, in an order
  drawn from the run's seed (answerable);
* ``distractors``: the distractors only (unanswerable, unless the blind check says
  knowledge answers the question: then no evidence is needed, and it is answerable);
* ``none``: nothing, the question alone (answerable only when the blind check says
  knowledge answers it; recorded either way).

This separates "can the model find the evidence" from "does it abstain when the evidence
is gone", and costs no edit. A document's distractors are its own pages most like the
question that print nothing of the answer (:mod:`..evidence.distractors`); each item
ships a PDF of exactly its pages and their renders. An image sample's distractors are
other samples' images, of its subject first, that print nothing of the answer
(:mod:`..evidence.image_distractors`, ranked by the driver:
:mod:`.distractor_pool`); its ``<image N>`` placeholders are renumbered to name the
sample's own images where they are shown. A sample with no eligible distractor gets no
distractor sets, and the card counts why.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..blind.verdict import BlindVerdict
from ..config import BuildConfig
from ..errors import SampleError
from ..evidence.distractors import excluded_pages, rank_distractors, shuffled
from ..evidence.image_distractors import (
    Candidate,
    difference_hash,
    near_duplicate,
    prints_gold,
    subject_of,
)
from ..evidence.map import EvidenceMap
from ..loaders.common import PLACEHOLDER
from ..media.images import decode_image, encode_png, image_format, normalisation
from ..media.inputs import SampleInputs
from ..media.pdf import pages_only, render_pages
from ..model import Sample, SampleProblem
from ..schema import EVIDENCE_SETS
from ..seeding import make_rng
from ..textregions.ocr import OcrError
from .assets import AssetStore
from .distractor_pool import WITH_DISTRACTORS, candidate_bytes, candidates_for
from .jobs import SampleOutcome
from .records import ControlAssets, evidence_set_record

#: The folder of a sample's distractor renders, shared by its two sets that show them.
DISTRACTOR_FOLDER = "distractors"


@dataclass
class EvidenceSets:
    """One sample's evidence-set items, and the sets it could not get (set -> why)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    not_made: dict[str, str] = field(default_factory=dict)


@dataclass
class Shown:
    """What one set shows: the files (renders or images), the PDF of its pages
    (documents), and how the question names the sample's images (image samples)."""

    images: list[str]
    document: str | None = None
    pages: list[int] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    distractors: list[dict[str, Any]] = field(default_factory=list)
    renumbered: dict[int, int] | None = None


def _distractor_json(
    rank: int,
    score: float,
    page: int | None = None,
    sample: str | None = None,
    same_subject: bool | None = None,
) -> dict[str, Any]:
    """One distractor as records carry it (one shape for pages and images)."""
    return {
        "page": page,
        "sample": sample,
        "rank": rank,
        "score": score,
        "same_subject": same_subject,
    }


def _set_records(
    sample: Sample,
    names: list[str],
    shown: dict[str, Shown],
    verdict: BlindVerdict,
    check: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """The records of the sets in ``names``, each showing ``shown[name]``."""
    records = []
    for name in names:
        show = shown[name]
        answerable = name in ("gold", "gold+distractors") or verdict.knowledge
        checks = [check] if check is not None and name in WITH_DISTRACTORS else []
        if name == "none":
            checks = [
                {
                    "name": "blind",
                    "passed": True,
                    "detail": f"blind check ({verdict.method}): {verdict.verdict}"
                    + (f" ({verdict.reason()})" if verdict.knowledge else ""),
                }
            ]
        if sample.document is not None:
            context = "document" if show.pages else "question"
        else:
            context = "images" if show.images else "question"
        records.append(
            evidence_set_record(
                sample,
                name,
                answerable,
                images=show.images,
                document=show.document,
                evidence_set={
                    "name": name,
                    "pages": show.pages,
                    "images": show.sources,
                    "distractors": show.distractors,
                },
                checks=checks,
                blind=verdict.to_json(),
                context=context,
                question=renumber(sample.question, show.renumbered or {}),
                options=[renumber(option, show.renumbered or {}) for option in sample.options],
            )
        )
    return records


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
    """The items of the sets in ``wanted`` (names of :data:`EVIDENCE_SETS`) for the
    document sample ``sample``."""
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
            names = _without_distractors(names, made, why)
    document = inputs.document()
    files = dict(zip(sample.evidence_pages, control.images, strict=True))
    renders = render_pages(
        document, [d.page for d in chosen], inputs.limits.dpi, inputs.limits.max_pixels
    )
    for distractor, png in zip(chosen, renders, strict=True):
        files[distractor.page] = assets.variant_file(
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
    shown: dict[str, Shown] = {}
    for name in names:
        if name == "gold":
            pages = evidence
        elif name == "gold+distractors":
            pages = shuffled(evidence + [d.page for d in chosen], rng)
        elif name == "distractors":
            pages = [d.page for d in chosen]
        else:
            pages = []
        variant = f"set-{name.replace('+', '-')}"
        pdf = (
            assets.variant_file(sample.id, variant, "document.pdf", pages_only(document, pages))
            if pages
            else None
        )
        shown[name] = Shown(
            images=[files[p] for p in pages if p in files],
            document=pdf,
            pages=pages,
            distractors=[
                _distractor_json(d.rank, d.score, page=d.page) for d in chosen if d.page in pages
            ],
        )
    made.records = _set_records(sample, names, shown, verdict, check)
    return made


def _without_distractors(names: list[str], made: EvidenceSets, why: str) -> list[str]:
    for name in WITH_DISTRACTORS:
        if name in names:
            made.not_made[name] = why
    return [name for name in names if name not in WITH_DISTRACTORS]


@dataclass
class _Lent:
    """A candidate that passed the checks: the bytes it ships as, and where they went."""

    candidate: Candidate
    data: bytes
    ext: str
    file: str = ""


@dataclass
class _Choice:
    """The image distractors of one sample: those kept, and what was dropped, by why."""

    ranked: int
    kept: list[_Lent] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)

    def dropped_text(self) -> str:
        return ", ".join(f"{n} {why}" for why, n in sorted(self.dropped.items())) or "none"


def _choose_images(sample: Sample, inputs: SampleInputs, count: int, state_dir: Path) -> _Choice:
    """The first ``count`` of the driver's candidates, in rank order, that are neither one
    of the sample's images (difference hash) nor print its gold (OCR)."""
    candidates = candidates_for(state_dir, sample.id)
    own = [difference_hash(image) for image in inputs.images()]
    choice = _Choice(ranked=len(candidates))
    for candidate in candidates:
        if len(choice.kept) == count:
            break
        data = candidate_bytes(state_dir, candidate)
        try:
            pixels = decode_image(
                data, f"distractor {candidate.sample_id}", inputs.limits.max_pixels
            )
        except SampleError:
            choice.dropped["unreadable"] += 1
            continue
        if any(near_duplicate(difference_hash(pixels), mine) for mine in own):
            choice.dropped["the sample's own image"] += 1
        elif prints_gold(pixels, sample):
            choice.dropped["prints the gold"] += 1
        elif normalisation(data):  # shipped as the decoded pixels, as the control is
            choice.kept.append(_Lent(candidate, encode_png(pixels), "png"))
        else:
            choice.kept.append(_Lent(candidate, data, image_format(data)))
    return choice


def _image_check(sample: Sample, choice: _Choice) -> dict[str, Any]:
    """The distractors' line of ``qc.preliminary``."""
    subject = subject_of(sample)
    same = sum(lent.candidate.same_subject for lent in choice.kept)
    where = f"{same} of its subject, {subject}" if subject else "its subject unknown: ranked"
    where += "" if subject else " over the dataset"
    return {
        "name": "distractors",
        "passed": True,
        "detail": f"{len(choice.kept)} chosen of {choice.ranked} ranked images of other"
        f" samples ({where}); dropped: {choice.dropped_text()} (OCR of each image for the"
        " gold's words; difference hash against the sample's images)",
    }


def renumber(text: str, mapping: dict[int, int]) -> str:
    """``text`` with each ``<image N>`` naming ``<image mapping[N]>`` (others unchanged)."""

    def place(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return f"<image {mapping.get(number, number)}>"

    return PLACEHOLDER.sub(place, text)


def _referenced(sample: Sample) -> int:
    """The highest ``<image N>`` the question or an option names (0: none)."""
    numbers = [
        int(n) for text in (sample.question, *sample.options) for n in PLACEHOLDER.findall(text)
    ]
    return max(numbers, default=0)


def build_image_evidence_sets(
    sample: Sample,
    inputs: SampleInputs,
    control: ControlAssets,
    verdict: BlindVerdict,
    wanted: list[str],
    count: int,
    seed: int,
    state_dir: Path,
    assets: AssetStore,
) -> EvidenceSets:
    """The items of the sets in ``wanted`` for the image sample ``sample``; distractors
    from the driver's ranking (``state_dir``), checked here."""
    made = EvidenceSets()
    names = [name for name in EVIDENCE_SETS if name in wanted]
    kept: list[_Lent] = []
    check = None
    if any(name in WITH_DISTRACTORS for name in names):
        try:
            choice = _choose_images(sample, inputs, count, state_dir)
        except OcrError as exc:
            why = f"OCR is unavailable ({exc}): no candidate image can be checked for the gold"
            names = _without_distractors(names, made, why)
        else:
            kept, check = choice.kept, _image_check(sample, choice)
            if not kept:
                why = "no other sample's image is eligible as a distractor"
                why += f" ({choice.ranked} ranked; dropped: {choice.dropped_text()})"
                names = _without_distractors(names, made, why)
            elif "distractors" in names and _referenced(sample) > len(kept):
                made.not_made["distractors"] = (
                    f"the question names <image {_referenced(sample)}> and only {len(kept)}"
                    " distractor images are eligible"
                )
                names.remove("distractors")
    if any(name in WITH_DISTRACTORS for name in names):
        for number, lent in enumerate(kept, start=1):
            name = f"image-{number}.{lent.ext}"
            lent.file = assets.variant_file(sample.id, DISTRACTOR_FOLDER, name, lent.data)
    own = [ref.key for ref in sample.images]
    rng = make_rng(seed, sample.id, "evidence_set:gold+distractors")
    shown: dict[str, Shown] = {}
    for name in names:
        if name == "gold":
            order: list[int | _Lent] = list(range(len(own)))
        elif name == "gold+distractors":
            pool: list[int | _Lent] = [*range(len(own)), *kept]
            order = [pool[i] for i in rng.permutation(len(pool))]
        elif name == "distractors":
            order = list(kept)
        else:
            order = []
        shown[name] = _shown_images(order, own, control, renumber=name == "gold+distractors")
    made.records = _set_records(sample, names, shown, verdict, check)
    return made


def _shown_images(
    order: list[int | _Lent], own: list[str], control: ControlAssets, renumber: bool
) -> Shown:
    """What a set shows, in ``order`` (the sample's image by index, or a lent one)."""
    show = Shown(images=[], renumbered={} if renumber else None)
    for position, item in enumerate(order, start=1):
        if isinstance(item, int):
            show.images.append(control.images[item])
            show.sources.append(own[item])
            if show.renumbered is not None:
                show.renumbered[int(own[item].split("_")[-1])] = position
        else:
            c = item.candidate
            show.images.append(item.file)
            show.sources.append(f"{c.sample_id}/image_1")
            show.distractors.append(
                _distractor_json(c.rank, c.score, sample=c.sample_id, same_subject=c.same_subject)
            )
    return show


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
    started = time.perf_counter()
    try:
        if emap is None:
            made = build_image_evidence_sets(
                sample,
                inputs,
                control,
                verdict,
                config.evidence_sets,
                config.distractors,
                config.seed,
                Path(config.out) / "state",
                assets,
            )
        else:
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
