"""Preview: every applicable transform on one sample, side by side with the original."""

from __future__ import annotations

import difflib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, SampleError
from ..loaders import open_source
from ..media.files import atomic_write
from ..media.inputs import InputLimits, SampleInputs
from ..model import Sample, SampleProblem
from ..models import ClientOptions, ModelClient
from ..pipeline.apply import TransformOutput, reread, run_transform
from ..pipeline.assets import AssetStore
from ..pipeline.prefetch import prefetch_rewrites
from ..qc.items import output_item
from ..qc.verify import OFFLINE_JUDGES, QcSpec, Verifier
from ..routing import select_transforms
from ..routing.features import sample_features
from ..routing.route import Balancer, RouteDecision, score_sample
from ..transforms.base import NotApplicable, Transform
from ..transforms.params import ParamError
from ..transforms.registry import RegistryError, get_registry
from ..validity import ValidityPolicy, run_policy
from ..validity.policy import clears_bar
from .html import render_html
from .overlay import region_overlays
from .sheet import contact_sheet

#: What can come of a transform in a preview: it acted; it does not fit the sample; it
#: failed; its output failed the structural checks; the re-read gate still finds the answer.
STATUSES = ("ok", "not_applicable", "error", "qc_failed", "still_stated")


@dataclass
class PreviewItem:
    transform: Transform
    status: str  # one of STATUSES
    reason: str = ""
    output: TransformOutput | None = None
    images: list[str] = field(default_factory=list)  # relative to the preview folder
    overlay: list[str] = field(default_factory=list)
    #: For each ``overlay`` path, the index of the original image it is drawn on.
    overlay_index: list[int] = field(default_factory=list)
    #: The transform's routing score on this sample (None when it was not scored).
    route_score: float | None = None
    #: The re-read gate's finding in one line ("" when the gate does not read this item).
    gate: str = ""
    gate_passed: bool | None = None
    #: What the offline QC of a build would decide: {"status", "judges": [...]}.
    qc: dict[str, Any] | None = None


@dataclass
class PreviewResult:
    out_dir: Path
    index: Path
    contact_sheet: Path
    sample: Sample
    items: list[PreviewItem]


def find_sample(source_path: str | Path, sample_id: str, format: str | None = None) -> Sample:
    """Stream the source until ``sample_id`` (or the source's own id) turns up."""
    source = open_source(source_path, format)
    seen: list[str] = []
    for item in source:
        item_id = item.sample_id if isinstance(item, SampleProblem) else item.id
        source_id = item.source.source_id if item.source else None
        if sample_id in (item_id, source_id):
            if isinstance(item, SampleProblem):
                raise ConfigError(f"sample {sample_id} cannot be previewed: {item.reason}")
            return item
        seen.append(item_id)
    close = difflib.get_close_matches(sample_id, seen, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise ConfigError(
        f"no sample {sample_id!r} in {source_path}.{hint}"
        " List ids with: abstain-build samples SOURCE"
    )


def _transforms(
    names: list[str] | None, params: dict[str, dict[str, Any]], plugins: list[str], axis: str
) -> list[Transform]:
    """The named transforms, or every registered one for the sample's axis."""
    try:
        registry = get_registry(tuple(plugins))
        chosen = names or [n for n in registry.names() if registry.get(n).axis == axis]
        return [registry.get(name)(**params.get(name, {})) for name in chosen]
    except (RegistryError, ParamError) as exc:
        raise ConfigError(str(exc)) from None


def _route(
    sample: Sample,
    inputs: SampleInputs,
    transforms: list[Transform],
    llm: ModelClient | None,
    policy: ValidityPolicy | None = None,
) -> RouteDecision | None:
    """How routing would choose for this sample alone (no dataset to balance against),
    the transforms that clear the validity bar first, as a build routes."""
    try:
        features = sample_features(sample, inputs, llm)
    except Exception as exc:  # shown on the page; the transforms still run
        return RouteDecision(sample.id, [], None, None, f"routing failed: {exc}")
    balancer = Balancer(
        terminal=("full_page_blur",), clears=clears_bar(policy, transforms, llm is not None)
    )
    return balancer.choose(score_sample(sample, transforms, features))


def _prepare_folder(out_dir: Path) -> Path:
    """The preview folder; never a build output, whose assets it would replace."""
    if (out_dir / "manifest.json").exists() or (out_dir / "state").exists():
        raise ConfigError(
            f"{out_dir} holds an abstain-build dataset; give preview a folder of its own"
        )
    if (out_dir / "assets").exists():
        shutil.rmtree(out_dir / "assets")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


def _run_one(
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    seed: int,
    llm: ModelClient | None = None,
    verifier: Verifier | None = None,
) -> PreviewItem:
    item = PreviewItem(transform=transform, status="ok")
    try:
        item.output = run_transform(transform, sample, inputs, seed, llm=llm)
    except NotApplicable as reason:
        item.status, item.reason = "not_applicable", str(reason)
    except SampleError as error:
        item.status, item.reason = "error", error.reason
    except Exception as exc:  # shown in the page, not raised: the preview is for diagnosis
        item.status, item.reason = "error", f"{type(exc).__name__}: {exc}"
    if item.output is not None and not item.output.qc["passed"]:
        item.status = "qc_failed"
        item.reason = "; ".join(c["name"] for c in item.output.qc["checks"] if not c["passed"])
    elif item.output is not None:
        try:
            gate = reread(transform, sample, inputs, item.output)
        except Exception as exc:  # shown in the page: the preview is for diagnosis
            item.status, item.reason = "error", f"re-read gate: {type(exc).__name__}: {exc}"
        else:
            if gate is not None:
                item.gate, item.gate_passed = gate.reason(), gate.passed
            if gate is not None and not gate.passed:
                # A build would move on to the next transform; the preview shows why.
                item.status = "still_stated"
                item.reason = f"re-read gate: {gate.reason()}"
    if item.status == "ok" and item.output is not None and verifier is not None:
        item.qc = _offline_qc(verifier, transform, sample, inputs, item.output)
    return item


def _offline_qc(
    verifier: Verifier,
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    output: TransformOutput,
) -> dict[str, Any]:
    """The offline judges' verdicts, as a build's default QC would give them."""
    try:
        return verifier.verify(output_item(sample, inputs, transform.name, output)).to_json()
    except Exception as exc:  # shown in the page: the preview is for diagnosis
        return {"status": "error", "judges": [], "error": f"{type(exc).__name__}: {exc}"}


def _write_item(
    item: PreviewItem,
    store: AssetStore,
    names: list[str],
    originals: list[bytes],
    original_paths: list[str],
    pages: list[int],
    dpi: int,
) -> None:
    """Result images (or the originals, for question rewrites) and the edited-regions overlays."""
    assert item.output is not None
    name = item.transform.name
    if item.output.images is not None:
        item.images = [
            store.write(f"assets/{name}/{file.rsplit('.', 1)[0]}.png", png)
            for file, png in zip(names, item.output.images, strict=True)
        ]
    else:
        item.images = list(original_paths)
    for index, png in region_overlays(originals, item.output.plan.edits.regions, pages, dpi):
        item.overlay.append(store.write(f"assets/{name}/regions-{index + 1}.png", png))
        item.overlay_index.append(index)


def preview(
    source: str | Path,
    sample_id: str,
    out: str | Path,
    transforms: list[str] | None = None,
    seed: int = 0,
    params: dict[str, dict[str, Any]] | None = None,
    plugins: list[str] | None = None,
    format: str | None = None,
    limits: InputLimits | None = None,
    llm: str | None = None,
) -> PreviewResult:
    """Write ``index.html`` and ``contact_sheet.png`` for one sample into ``out``.

    ``llm``: a model spec for the question rewrites (LLM mode); replies are cached in
    ``out/cache/models.sqlite``, so previewing again costs no calls.
    """
    sample = find_sample(source, sample_id, format)
    chosen = _transforms(transforms, params or {}, plugins or [], sample.axis)
    out_dir = _prepare_folder(Path(out))
    client = (
        ModelClient(llm, ClientOptions(cache_path=out_dir / "cache" / "models.sqlite"))
        if llm
        else None
    )
    store = AssetStore(out_dir)
    inputs = SampleInputs(sample, limits or InputLimits())
    # What a build's default QC decides, the validity bar included.
    policy = run_policy([], None, offline=True, plugins=plugins or [])
    verifier = Verifier(QcSpec(judges=OFFLINE_JUDGES, validity=policy))
    try:
        try:
            inputs.validate()
        except SampleError as error:
            raise ConfigError(f"sample {sample.id} cannot be previewed: {error.reason}") from None
        if sample.document is not None:
            pages = list(sample.evidence_pages)
            originals = inputs.evidence_renders()
            names = [f"page-{p:04d}.png" for p in pages]
        else:
            pages = []
            control = inputs.control_images()
            originals = [data for data, _ in control]
            names = [
                f"{ref.key}.{ext}" for ref, (_, ext) in zip(sample.images, control, strict=True)
            ]
        original_paths = [
            store.write(f"assets/original/{name}", data)
            for name, data in zip(names, originals, strict=True)
        ]
        decision = _route(sample, inputs, chosen, client, policy)
        selection = select_transforms(sample, chosen)
        items: list[PreviewItem] = [
            PreviewItem(t, status="not_applicable", reason=selection.not_applicable[t.name])
            for t in chosen
            if t.name in selection.not_applicable
        ]
        if client is not None:
            prefetch_rewrites(selection.candidates, sample, inputs, client)
        for transform in selection.candidates:
            item = _run_one(transform, sample, inputs, seed, client, verifier)
            if item.output is not None:
                _write_item(item, store, names, originals, original_paths, pages, inputs.limits.dpi)
            items.append(item)
    finally:
        inputs.close()
        verifier.close()
        if client is not None:
            client.close()
    order = {t.name: i for i, t in enumerate(chosen)}
    items.sort(key=lambda it: (it.status != "ok", order[it.transform.name]))

    sheet_path = out_dir / "contact_sheet.png"
    atomic_write(sheet_path, contact_sheet(sample, originals, items, out_dir))
    index = out_dir / "index.html"
    scores = {s["transform"]: s["score"] for s in decision.scores} if decision else {}
    for item in items:
        item.route_score = scores.get(item.transform.name)
    page = render_html(sample, original_paths, items, seed, decision)
    atomic_write(index, page.encode("utf-8"))
    return PreviewResult(
        out_dir=out_dir, index=index, contact_sheet=sheet_path, sample=sample, items=items
    )
