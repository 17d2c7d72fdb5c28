"""The data model: what a source sample is, and what a perturbation did to it.

Everything here is plain data (dataclasses with JSON-friendly fields) so that it can be
pickled to worker processes, written to ``data.jsonl`` and read back without the code
that produced it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

Axis = Literal["modality_dependency", "evidence_sufficiency"]
Target = Literal["image", "document", "question"]

#: The two axes of the method: MMMU-style samples (question + images) are perturbed along
#: modality dependency, document samples (PDF + evidence pages) along evidence sufficiency.
MODALITY: Axis = "modality_dependency"
EVIDENCE: Axis = "evidence_sufficiency"

FAMILIES: dict[str, tuple[str, ...]] = {
    MODALITY: (
        "missing_visual_information",
        "occlusion_ambiguity",
        "semantic_unanswerability",
        "adversarial_ambiguity",
    ),
    EVIDENCE: (
        "evidence_removal",
        "evidence_corruption",
        "semantic_contradiction",
        "inferential_impossibility",
    ),
}


@dataclass(frozen=True)
class ImageRef:
    """One image of a sample: a file inside the dataset root, or bytes from a parquet cell."""

    key: str  # "image_1" ... as named by the source
    path: Path | None = None
    data: bytes | None = None
    name: str | None = None  # original file name, when the source gives one

    def describe(self) -> str:
        return str(self.path) if self.path is not None else f"{self.key} (embedded bytes)"


@dataclass(frozen=True)
class DocumentRef:
    """A PDF inside the dataset root."""

    path: Path
    doc_id: str


@dataclass(frozen=True)
class SourceInfo:
    """Where a sample came from, precisely enough to find it again."""

    dataset: str  # "mmmu", "mmlongbench-doc", "jsonl"
    layout: str  # "hf-parquet", "mmmu-jsonl", "mmlongbench", "jsonl"
    file: str  # record file, relative to the dataset root
    index: int  # position of the record in that file (0-based)
    source_id: str | None = None  # id given by the source, when it has one


@dataclass(frozen=True)
class Sample:
    """An answerable source item, as loaded and validated by a loader."""

    id: str
    source: SourceInfo
    question: str
    answer: str
    answer_format: str | None = None
    options: tuple[str, ...] = ()
    images: tuple[ImageRef, ...] = ()
    document: DocumentRef | None = None
    evidence_pages: tuple[int, ...] = ()  # 1-based
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def axis(self) -> Axis:
        """Documents are perturbed along evidence sufficiency, image items along modality."""
        return EVIDENCE if self.document is not None else MODALITY


@dataclass(frozen=True)
class SampleProblem:
    """A record that could not become a sample: an error, or a deliberate skip."""

    sample_id: str
    stage: str  # "load", "validate", "transform:<name>", "qc", "write"
    reason: str
    skip: bool = False  # True: not an error (e.g. the source item is already unanswerable)
    source: SourceInfo | None = None
    transform: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "stage": self.stage,
            "reason": self.reason,
            "transform": self.transform,
            "source": asdict(self.source) if self.source else None,
        }


@dataclass
class Region:
    """A rectangle that was edited: pixels on an image, or points on a PDF page."""

    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1
    kind: str  # "mask", "blur", "crop_removed", "redact", ...
    image: int | None = None  # index into the sample's images
    page: int | None = None  # 1-based page number
    unit: str = "px"  # "px" for images, "pt" for PDF pages
    #: What found the region: "text_layer", "ocr", "pdf_objects", "image_analysis",
    #: "geometry" (fixed by the method, e.g. a crop edge), "random", "fallback".
    detector: str | None = None
    #: What the region holds when a detector named it: "title", "axis_label", "legend", ...
    role: str | None = None


@dataclass
class TokenEdit:
    """A piece of text that was replaced (or erased when ``new`` is empty)."""

    old: str
    new: str
    where: str  # "question", "page", "image"
    start: int | None = None  # character offsets, for question edits
    end: int | None = None
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None


@dataclass
class PageCrop:
    page: int  # 1-based
    kept: str  # "top" or "bottom"
    reason: str


def edited_pages(edits: Mapping[str, Any]) -> list[int]:
    """1-based pages an ``edits`` record (:class:`Edits` as JSON) says were edited:
    regions, tokens, hidden and cropped pages, in page order."""
    pages: set[int] = set()
    for key in ("regions", "tokens"):
        for edit in edits.get(key) or ():
            page = edit.get("page") if isinstance(edit, Mapping) else None
            if isinstance(page, int):
                pages.add(page)
    pages.update(p for p in edits.get("pages_hidden") or () if isinstance(p, int))
    for crop in edits.get("pages_cropped") or ():
        if isinstance(crop, Mapping) and isinstance(crop.get("page"), int):
            pages.add(crop["page"])
    return sorted(pages)


@dataclass
class Edits:
    """What a perturbation changed. Every key is always present so records share one schema."""

    regions: list[Region] = field(default_factory=list)
    tokens: list[TokenEdit] = field(default_factory=list)
    pages_hidden: list[int] = field(default_factory=list)
    pages_cropped: list[PageCrop] = field(default_factory=list)

    def pages(self) -> list[int]:
        """The 1-based pages edited, in order."""
        return edited_pages(self.to_json())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Edits:
        """The edits a record names (:meth:`to_json`), boxes as tuples again."""

        def box(value: Any) -> tuple[float, float, float, float] | None:
            return None if value is None else tuple(value)  # type: ignore[return-value]

        return cls(
            regions=[Region(**{**r, "bbox": box(r["bbox"])}) for r in data.get("regions") or ()],
            tokens=[
                TokenEdit(**{**t, "bbox": box(t.get("bbox"))}) for t in data.get("tokens") or ()
            ],
            pages_hidden=list(data.get("pages_hidden") or ()),
            pages_cropped=[PageCrop(**c) for c in data.get("pages_cropped") or ()],
        )


@dataclass
class GateScore:
    """One validation gate's verdict on a question rewrite."""

    name: str  # "length", "semantic", "grammar"
    passed: bool
    score: float | None
    detail: str


@dataclass
class RewriteInfo:
    """How a question rewrite was made: empty for transforms that do not rewrite.

    ``generator``: "offline/<bank version>" or "llm:<model>"; ``template``: the offline
    template id, or the prompt id and version; ``attempts``: candidates tried before one
    passed; ``gates``: the passing candidate's gate scores; ``model``: in LLM mode, the
    requests made for this rewrite and their tokens.
    """

    generator: str = ""
    template: str = ""
    attempts: int = 0
    gates: list[GateScore] = field(default_factory=list)
    model: ModelUsage | None = None


@dataclass
class ModelUsage:
    """What one rewrite took from the model (LLM mode): the same whether the replies were
    fresh or cached, so a rebuild writes the same record; the manifest's ``models.usage``
    says what a run actually sent."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Plan:
    """Everything a transform decided before touching any pixel: recorded, then applied."""

    params: dict[str, Any]
    edits: Edits = field(default_factory=Edits)
    intensity: float = 0.0  # 0..100, per-transform definition (see ``transforms show``)
    question: str | None = None  # rewritten question, for question transforms
    notes: list[str] = field(default_factory=list)  # human-readable decisions
    mode: str = "rule"  # "rule" (deterministic kernel), "template", "llm"
    #: Planning's scratch, private to the transform and not recorded: ``apply`` never reads
    #: it (what apply needs is in ``params``, ``edits`` and ``replay``).
    extra: dict[str, Any] = field(default_factory=dict)
    rewrite: RewriteInfo = field(default_factory=RewriteInfo)
    #: Set when the edit replaced the answer by one clean value: the item is then
    #: answerable with this gold (an answer-changed item, SPEC 7), not a counterpart.
    new_answer: str | None = None
    #: What ``apply`` reads beyond ``params`` and ``edits`` (the text edits of a page, the
    #: rules between merged columns), as JSON values: recorded as ``transform.replay``, so
    #: that the record alone re-applies the item (``abstain-build replay``).
    replay: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, transform: Mapping[str, Any], question: str | None = None) -> Plan:
        """The plan a record's ``transform`` block (as written in data.jsonl: ``params`` and
        ``replay`` as JSON text) describes, with the item's ``question`` for a rewrite."""

        def loaded(value: Any) -> dict[str, Any]:
            if isinstance(value, str):
                return json.loads(value) if value else {}
            return dict(value or {})

        return cls(
            params=loaded(transform.get("params")),
            edits=Edits.from_json(transform.get("edits") or {}),
            intensity=float(transform.get("intensity") or 0.0),
            question=question if transform.get("target") == "question" else None,
            notes=list(transform.get("notes") or ()),
            mode=str(transform.get("mode") or "rule"),
            replay=loaded(transform.get("replay")),
        )


@dataclass
class PerturbationRecord:
    """The audit trail of one perturbation, as written under ``transform`` in data.jsonl."""

    name: str
    #: The transform's declared version when it ran (readings are kept per version).
    version: int
    family: str
    axis: str
    target: str
    mode: str
    seed: int
    attempt: int
    params: dict[str, Any]
    edits: Edits
    intensity: float
    notes: list[str]
    rewrite: RewriteInfo = field(default_factory=RewriteInfo)
    #: :attr:`Plan.replay`.
    replay: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["edits"] = self.edits.to_json()
        out["intensity"] = round(float(self.intensity), 2)
        return out


def document_name(doc_id: str | None) -> str:
    """The file name a reading files its document under: a dataset's ``doc_id`` without
    its folders ("docs/report.pdf" is "report.pdf"), "" for none."""
    return PurePosixPath(str(doc_id or "").replace("\\", "/")).name
