"""What a transform is: declared metadata + params, a ``plan`` step, an ``apply`` step.

``plan`` draws every random choice and finds every region before any pixel moves, so the
parameters actually used exist as data: they are recorded in the output, drawn by the
preview and replayable. ``apply`` is deterministic given the plan.

Three target kinds share this shape:

* :class:`ImageTransform` edits each image of an image sample (MMMU-style).
* :class:`DocumentTransform` edits a private copy of the PDF; the pipeline then renders the
  evidence pages.
* :class:`QuestionTransform` rewrites the question; images and document stay as they are.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..content.figures import chart_boxes, find_figures
from ..content.page_content import PageContent, normalised_page, sample_page_content
from ..evidence.context import DEFAULT_CONTEXT
from ..evidence.policy import QUESTION, REMOVE
from ..model import FAMILIES, Edits, Plan, Region, Sample
from ..numbers import find_numbers
from ..questions.evidence_type import classify_evidence
from ..textregions.pages import PageWords, page_words
from ..textregions.words import centre_inside
from .functional.asks import asks_a_count, counted_by_the_reader
from .functional.evidence_edits import seal_related_page
from .leftovers import (
    answer_named_elsewhere,
    charted_comparison,
    counted_elsewhere,
    list_printed_together,
    maker_named_elsewhere,
    named_page_left,
    public_filing,
    removed_boxes,
    winner_stated,
    worked_out,
)
from .params import Param, resolve_params

if TYPE_CHECKING:
    import pymupdf

    from ..evidence.map import EvidenceMap
    from ..media.inputs import SampleInputs
    from ..models import ModelClient
    from ..routing.features import Features
    from ..routing.scoring import Constraint


class NotApplicable(Exception):
    """The transform cannot act on this sample; the message says why (never a silent no-op)."""


@dataclass
class TransformContext:
    """What one transform call gets besides its parameters."""

    sample: Sample
    inputs: SampleInputs
    rng: np.random.Generator
    seed: int
    attempt: int = 0
    #: The run's rewrite model (a ``models.ModelClient``), or None in offline mode.
    llm: ModelClient | None = None
    #: What a model is meant to see of a document: "document" (the whole PDF, as
    #: MMLongBench-Doc evaluates) or "pages" (the evidence pages' images only).
    context: str = DEFAULT_CONTEXT

    def evidence(self) -> EvidenceMap:
        """Where the sample's document states its answer (computed once per sample)."""
        from ..evidence.map import evidence_map

        return evidence_map(self.sample, self.inputs)

    def pages_to_edit(self) -> list[int]:
        """The listed evidence pages and, with the whole document shipped, every other page
        that states the answer."""
        return self.evidence().target_pages(self.context)


class Transform(abc.ABC):
    """Base of every registered transform. Subclass one of the target kinds below."""

    name: ClassVar[str] = ""
    #: What the transform emits, as a number: bump it whenever a change alters its output
    #: (new bytes, a new rewrite, a new rule of applicability). Blind readings are kept per
    #: version (:mod:`abstain_build.validity`), so a bump retires the old ones: what was
    #: measured is no longer what is built.
    version: ClassVar[int] = 1
    family: ClassVar[str] = ""
    axis: ClassVar[str] = ""
    target: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: How ``intensity`` (0..100) is computed, shown by ``transforms show``.
    intensity_doc: ClassVar[str] = ""
    #: True when the output may legitimately change image size (crops, page hides).
    changes_geometry: ClassVar[bool] = False
    #: True for the method's terminal fallbacks: guaranteed on any valid page, meant for the
    #: end of a fallback chain, so a build leaves them out unless they are named.
    terminal_fallback: ClassVar[bool] = False
    #: Routing: what the transform needs of a sample (hard: score x 0.05, soft: x 0.70),
    #: on top of the rules for its kind (:func:`..routing.scoring.axis_constraints`).
    constraints: ClassVar[tuple[Constraint, ...]] = ()
    #: What the re-read gate holds the result to (:mod:`abstain_build.evidence.policy`):
    #: "remove" (no statement of the answer may remain), "attribute" (the value stays in
    #: the table the transform edited, nowhere else) or "question" (evidence unchanged).
    evidence_policy: ClassVar[str] = REMOVE
    #: Question rules under which the edit cannot take the answer away, each giving a
    #: reason or None (:mod:`.functional.asks`): a blur keeps the shapes and colours a
    #: question that counts or colours charts is about, so blurs decline such questions.
    #: Image and document transforms apply them before planning.
    declines_questions: ClassVar[tuple[Callable[[str], str | None], ...]] = ()

    def decline_questions(self, ctx: TransformContext) -> None:
        """:class:`NotApplicable` when one of :attr:`declines_questions` holds."""
        for rule in self.declines_questions:
            reason = rule(ctx.sample.question)
            if reason:
                raise NotApplicable(f"the question {reason}: {self.name} would leave it answerable")

    def __init__(self, **overrides: Any) -> None:
        self.config: dict[str, Any] = resolve_params(self.name, self.params, overrides)

    @classmethod
    def validate_class(cls) -> None:
        """Checks run at registration, so a bad declaration fails loudly and early."""
        if not cls.name or not cls.name.replace("_", "").isalnum() or cls.name.lower() != cls.name:
            raise TypeError(
                f"{cls.__name__}: name must be a lowercase identifier, got {cls.name!r}"
            )
        if not isinstance(cls.version, int) or isinstance(cls.version, bool) or cls.version < 1:
            raise TypeError(f"{cls.name}: version must be a whole number >= 1, got {cls.version!r}")
        if cls.axis not in FAMILIES:
            raise TypeError(f"{cls.name}: axis must be one of {sorted(FAMILIES)}, got {cls.axis!r}")
        if cls.family not in FAMILIES[cls.axis]:
            raise TypeError(
                f"{cls.name}: family must be one of {list(FAMILIES[cls.axis])}, got {cls.family!r}"
            )
        if cls.target not in ("image", "document", "question"):
            raise TypeError(f"{cls.name}: target must be image, document or question")
        for pname, spec in cls.params.items():
            spec.validate(f"{cls.name}.{pname}", spec.default)

    def check(self, sample: Sample) -> str | None:
        """A cheap test on the sample alone: ``None`` if it can take this transform, else why."""
        if sample.axis != self.axis:
            return f"{self.name} works on {self.axis} samples; this sample is {sample.axis}"
        if self.target == "image" and not sample.images:
            return "the sample has no image"
        if self.target == "document" and sample.document is None:
            return "the sample has no document"
        return None

    @abc.abstractmethod
    def plan(self, ctx: TransformContext) -> Plan:
        """Draw parameters and find regions; raise :class:`NotApplicable` with a reason."""

    @classmethod
    def expected_mode(cls, llm: bool) -> str:
        """The ``mode`` its items will record (readings are kept per mode): "rule" for a
        deterministic kernel; rewrites say "template" offline and "llm" with a model."""
        return "rule"

    def affinity(self, features: Features) -> float:
        """Routing: how well the transform suits a sample (0..1) before constraints.

        Default: the method's preferences (the evidence type's preferred family; image
        transforms for image-dependent questions, rewrites for text-sufficient ones).
        """
        from ..routing.scoring import family_affinity

        return family_affinity(self, features)

    @classmethod
    def info(cls) -> dict[str, Any]:
        return {
            "name": cls.name,
            "version": cls.version,
            "family": cls.family,
            "axis": cls.axis,
            "target": cls.target,
            "description": cls.description,
            "intensity": cls.intensity_doc,
            "changes_geometry": cls.changes_geometry,
            "terminal_fallback": cls.terminal_fallback,
            "params": {name: spec.describe() for name, spec in cls.params.items()},
        }


@dataclass
class ImagePlan:
    """The plan for one image of a sample."""

    params: dict[str, Any]
    regions: list[Region] = field(default_factory=list)
    intensity: float = 0.0
    notes: list[str] = field(default_factory=list)


class ImageTransform(Transform):
    """Edits every image of a sample independently, in order, from one generator."""

    target: ClassVar[str] = "image"

    def plan_image(
        self, image: np.ndarray, index: int, rng: np.random.Generator, ctx: TransformContext
    ) -> ImagePlan:
        """Draw this image's parameters. Default: the configured parameters, nothing drawn."""
        return ImagePlan(params={})

    @abc.abstractmethod
    def apply_image(self, image: np.ndarray, params: dict[str, Any]) -> np.ndarray:
        """The pixel edit for one image; pure given ``params``."""

    def plan(self, ctx: TransformContext) -> Plan:
        self.decline_questions(ctx)
        per_image: list[dict[str, Any]] = []
        edits = Edits()
        intensities: list[float] = []
        notes: list[str] = []
        for index, image in enumerate(ctx.inputs.images()):
            image_plan = self.plan_image(image, index, ctx.rng, ctx)
            per_image.append(image_plan.params)
            for region in image_plan.regions:
                region.image = index
                edits.regions.append(region)
            intensities.append(image_plan.intensity)
            notes.extend(f"image {index + 1}: {note}" for note in image_plan.notes)
        params: dict[str, Any] = dict(self.config)
        if any(per_image):
            params["per_image"] = per_image
        return Plan(
            params=params,
            edits=edits,
            intensity=float(np.mean(intensities)) if intensities else 0.0,
            notes=notes,
        )

    def apply(self, images: list[np.ndarray], plan: Plan) -> list[np.ndarray]:
        per_image = plan.params.get("per_image") or [{} for _ in images]
        return [
            self.apply_image(image, {**self.config, **image_params})
            for image, image_params in zip(images, per_image, strict=True)
        ]


class DocumentTransform(Transform):
    """Edits a private, writable copy of the sample's PDF in place.

    The plan's edits name every page ``apply`` changes (a region, a token, a hidden or
    cropped page): a page named nowhere is taken to ship exactly as it was read, and the
    build fails an attempt whose plan leaves a page stating the answer that way before
    applying it (:func:`~abstain_build.pipeline.apply.left_whole_gate`).
    """

    target: ClassVar[str] = "document"
    changes_geometry: ClassVar[bool] = False
    #: Decline when what the edit leaves still gives the answer (:meth:`refuse_leftovers`).
    #: A corruption says False: a total that no longer matches its parts is its point.
    refuses_leftovers: ClassVar[bool] = True

    def refuse_leftovers(
        self, ctx: TransformContext, pages: list[int], plan: Plan | None = None
    ) -> None:
        """:class:`NotApplicable` when what the edit of ``pages`` leaves still gives the
        answer (:mod:`.leftovers`): the counted things named on a page left whole, or (once
        ``plan`` is made) the answer worked out from what it leaves."""
        if ctx.sample.document is None or not self.refuses_leftovers:
            return
        emap = ctx.evidence()
        question = ctx.sample.question
        if plan is None:
            shipped = sorted(emap.readings) if ctx.context == "document" else []
            # A page edited for its operand rows alone keeps its sentences.
            edited_whole = [p for p in pages if not emap.related_only(p)]
            reason = (
                public_filing(emap)
                or named_page_left(question, emap, pages)
                or counted_elsewhere(question, emap, pages, shipped)
                or maker_named_elsewhere(question, ctx.sample.answer, emap, pages, shipped)
                or answer_named_elsewhere(question, emap, pages, shipped)
                or list_printed_together(question, emap, edited_whole, shipped)
                or winner_stated(
                    question,
                    ctx.sample.answer,
                    ctx.sample.answer_format,
                    emap,
                    edited_whole,
                    shipped,
                )
            )
        else:
            reason = worked_out(question, emap, removed_boxes(plan))
        if reason:
            raise NotApplicable(reason)

    @abc.abstractmethod
    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        """Edit ``document`` (a private copy) as planned."""


class EvidencePageTransform(DocumentTransform):
    """A document transform planned one evidence page at a time.

    :meth:`plan` takes the pages to edit (sorted, each once; :class:`NotApplicable` when
    there are none): the sample's listed evidence pages and, when the whole document is
    shipped, every other page the evidence map finds stating the answer
    (``edits_statement_pages``), so that a 10-K restating the figure on another page gets
    the same edit there. Each page, normalised (rotation removed, as
    :mod:`.functional.pdf_edit` edits it), goes to :meth:`plan_page`, and the plan's
    intensity comes from what the pages return (:meth:`plan_intensity`).
    """

    #: Edit every page that states the answer, not only the listed ones.
    edits_statement_pages: ClassVar[bool] = True
    #: A page edited only for the operand rows it prints gets black rectangles over their
    #: numbers (:func:`.functional.evidence_edits.seal_related_page`) instead of
    #: :meth:`plan_page`; transforms that edit it their own way (erase, blur) say False.
    seals_related_pages: ClassVar[bool] = False
    #: Decline a comparison of values a chart on the page draws, answered by a name: the
    #: edit leaves the chart's shapes (a blur), and they rank the values.
    declines_charted_comparisons: ClassVar[bool] = False
    #: Decline a "how many" question whose count no page prints: the reader counts the
    #: things, and a blur or masks keep their layout (a table's rows, a list's entries, a
    #: menu's icons, a run of slides). Held-out readers counted 4 of 4 such blurs.
    declines_reader_counts: ClassVar[bool] = False

    def pages(self, ctx: TransformContext) -> list[int]:
        """The pages :meth:`plan` hands to :meth:`plan_page`."""
        if not ctx.sample.evidence_pages:
            return []
        if self.edits_statement_pages:
            return ctx.pages_to_edit()
        return sorted(set(ctx.sample.evidence_pages))

    def plan_params(self, ctx: TransformContext) -> dict[str, Any]:
        """The recorded parameters. Default: the configured ones."""
        return dict(self.config)

    @abc.abstractmethod
    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        """Add page ``number``'s regions and notes to ``plan``; return its share (0..1)."""

    def plan_intensity(self, shares: list[float]) -> float:
        """The plan's intensity from the pages' shares. Default: 100 * their mean."""
        return 100.0 * float(np.mean(shares))

    def plan(self, ctx: TransformContext) -> Plan:
        self.decline_questions(ctx)
        if self.declines_reader_counts:
            self.refuse_reader_count(ctx)
        pages = self.pages(ctx)
        if not pages:
            raise NotApplicable("the sample lists no evidence pages")
        self.refuse_leftovers(ctx, pages)
        plan = Plan(params=self.plan_params(ctx))
        extra = [p for p in pages if p not in ctx.sample.evidence_pages]
        emap = ctx.evidence() if extra else None
        stating = [p for p in extra if emap is not None and not emap.related_only(p)]
        operands = [p for p in extra if p not in stating]
        if stating:
            plan.notes.append(
                f"page(s) {stating} also state the answer: edited like the evidence pages"
            )
        if operands:
            plan.notes.append(
                f"page(s) {operands} print rows the answer is computed from: their numbers"
                " are taken away"
            )
        document = ctx.inputs.document()
        shares: list[float] = []
        for number in pages:
            with normalised_page(document, number) as page:
                if self.seals_related_pages and emap is not None and emap.related_only(number):
                    content = self.page_content(page, number, ctx)
                    evidence = emap.evidence(number)
                    shares.append(seal_related_page(number, plan, page.rect, evidence, content))
                else:
                    if self.declines_charted_comparisons:
                        self.refuse_charted_comparison(page, number, ctx)
                    shares.append(self.plan_page(page, number, plan, ctx))
        plan.intensity = self.plan_intensity(shares)
        self.refuse_leftovers(ctx, pages, plan)
        return plan

    def refuse_reader_count(self, ctx: TransformContext) -> None:
        """:class:`NotApplicable` when the question counts things no page prints a number
        for (see :attr:`declines_reader_counts`)."""
        question = ctx.sample.question
        if not asks_a_count(question):
            return
        reason = counted_by_the_reader(question, ctx.evidence().prints_the_count())
        if reason:
            raise NotApplicable(
                f"the question {reason}: the edit keeps the layout of what is counted"
                " (a table's rows, a list's entries, icons, slides), and readers count it"
            )

    def charts(
        self, page: pymupdf.Page, number: int, ctx: TransformContext
    ) -> list[tuple[float, ...]]:
        """The figures of page ``number`` that chart values: :func:`chart_boxes` over the
        numbers of every reading of the page (a raster chart's ticks and labels are in no
        text layer)."""
        readings = ctx.evidence().readings.get(number)
        labels = [
            w.bbox
            for reading in (readings.readings if readings is not None else ())
            for w in reading.words
            if find_numbers(w.text)
        ]
        return chart_boxes(self.figure_boxes(page, number, ctx), labels, page.rect)

    def refuse_charted_comparison(
        self, page: pymupdf.Page, number: int, ctx: TransformContext
    ) -> None:
        """:class:`NotApplicable` when the question compares values a chart on page
        ``number`` draws and its answer is a name (:func:`.leftovers.charted_comparison`)."""
        sample = ctx.sample
        selects = bool(ctx.evidence().candidates())
        if not selects and classify_evidence(sample.question).label != "Comparative":
            return  # before finding figures: most questions do not compare
        boxes = self.figure_boxes(page, number, ctx)
        readings = ctx.evidence().readings.get(number)
        charted = 0
        for reading in readings.readings if readings is not None else ():
            values = [w for w in reading.words if find_numbers(w.text)]
            charted = max(charted, sum(1 for w in values if centre_inside(w.bbox, boxes)))
        reason = charted_comparison(
            sample.question,
            sample.answer,
            sample.answer_format,
            number,
            charted,
            self.leaves,
            selects=selects,
        )
        if reason:
            raise NotApplicable(reason)

    #: What the edit leaves of a chart, for :meth:`refuse_charted_comparison`'s reason.
    leaves: ClassVar[str] = "blurred labels"

    @staticmethod
    def page_content(page: pymupdf.Page, number: int, ctx: TransformContext) -> PageContent:
        """The content analysis of evidence page ``number``, made once per sample."""
        return sample_page_content(ctx.inputs, page, number)

    @staticmethod
    def figure_boxes(
        page: pymupdf.Page, number: int, ctx: TransformContext
    ) -> list[tuple[float, ...]]:
        """The figure boxes of evidence page ``number``, found once per sample."""
        return ctx.inputs.derived(
            ("figure_boxes", number),
            lambda: [
                tuple(figure.rect)
                for figure in find_figures(
                    page, EvidencePageTransform.page_content(page, number, ctx)
                )
            ],
        )

    def answer_charts(
        self,
        page: pymupdf.Page,
        number: int,
        ctx: TransformContext,
        labels: list[tuple[float, ...]],
        answer: list[tuple[float, ...]],
    ) -> tuple[list[tuple[float, ...]], bool]:
        """The charts of page ``number`` that draw the answer, and whether it is computed:
        those an answer's printing (``answer``, boxes) labels, or, for a numeric answer
        printed nowhere, every chart of a listed evidence page (its values are what it is
        computed from). ``labels``: the boxes of the page's numbers, which make a figure a
        chart (:func:`..content.figures.chart_boxes`). A label erased or masked leaves
        the bar, slice or point it labels: readers measured them."""
        emap = ctx.evidence()
        if not emap.numeric():
            return [], False
        charts = chart_boxes(self.figure_boxes(page, number, ctx), labels, page.rect)
        if not charts:
            return [], False
        labelled = [c for c in charts if any(centre_inside(a, [c]) for a in answer)]
        if labelled:
            return labelled, False
        if number in ctx.sample.evidence_pages and emap.computed_number():
            return charts, True
        return [], False

    @staticmethod
    def page_words(page: pymupdf.Page, number: int, ctx: TransformContext) -> PageWords:
        """The words of evidence page ``number`` (text layer, else OCR), read once per sample."""
        return ctx.inputs.derived(("page_words", number), lambda: page_words(page))

    @staticmethod
    def page_regions(plan: Plan, kind: str) -> dict[int, list[Region]]:
        """The plan's page regions of ``kind``, by page number in ascending order."""
        out: dict[int, list[Region]] = {}
        for region in plan.edits.regions:
            if region.kind == kind and region.page is not None:
                out.setdefault(region.page, []).append(region)
        return dict(sorted(out.items()))


class QuestionTransform(Transform):
    """Rewrites the question; ``plan`` must set ``Plan.question``."""

    target: ClassVar[str] = "question"
    evidence_policy: ClassVar[str] = QUESTION
