"""The re-read gate: read everything a perturbed item ships, and fail it if it still states
the answer.

Run after a document transform and before QC. What is read is what the record says a model
sees (its ``context``): every page of the perturbed PDF ("document") or the evidence pages
only ("pages"). Each page is read through every channel:

* pages whose content is unchanged (same content stream and images as the original) reuse
  the evidence map's readings: nothing is read twice, so the cost stays in the pages the
  transform edited;
* an edited page is read again from scratch: its text layer, its strings in the
  structure tree, outlines, annotations, form fields and links (a tagged PDF's
  ``/ActualText`` holds a copy of its text), OCR of its image as the item ships it
  (always: the original's OCR missing a word is no excuse), OCR of the raster images left
  on it, and OCR after undoing the perturbation where the transform blurred,
  darkened or veiled it.

A statement found (:mod:`.statements`) that the transform's policy (:mod:`.policy`) does not
allow is a failed attempt: the place is recorded and the next transform of the chain runs.
The unchanged pages are looked at first: a statement there fails the attempt before any
edited page is read (its reason then names those places only), so an attempt that fails
costs no OCR; one that passes has read every page. The build looks even earlier, once the
plan is made (:func:`left_whole_leaks`): the pages the record names no edit on are shipped
as read, so a statement there fails the attempt before the edit is applied.
:func:`read_shipped` and :func:`find_leaks` are shared with ``abstain-build audit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pymupdf

from ..content.page_content import PageContent, normalised_page
from ..media.images import decode_image
from ..media.pdf import open_pdf, render_page_png
from ..media.pdf_channels import ChannelText, channel_texts
from ..model import edited_pages
from ..textregions import ocr
from ..textregions.words import Box, Word, centre_inside
from .derivations import Derivation, find_derivations
from .map import EvidenceMap
from .operands import candidate_rows, page_operands
from .paraphrase import GATE_SIMILARITY, paraphrased
from .policy import ATTRIBUTE, QUESTION, REMOVE
from .reading import (
    OCR,
    TEXT_LAYER,
    PageReadings,
    Reading,
    add_figure_readings,
    page_digest,
    read_pixels,
)
from .seen import untouched_pictures
from .statements import OPERAND, STATEMENT, Mention, page_mentions

#: Region kinds whose effect a restoration may undo, and what reads the restored pixels.
RESTORABLE = frozenset({"blur", "darken", "overlay"})


@dataclass
class GateResult:
    """What the gate read and what it found."""

    policy: str
    passed: bool = True
    found: list[Mention] = field(default_factory=list)
    pages_read: int = 0
    pages_reread: list[int] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    #: Listed pages whose pictures a seen answer can still be read off (:mod:`.seen`).
    untouched: list[str] = field(default_factory=list)
    #: Sums and differences of what the edited and listed pages still print that give the
    #: gold (:mod:`.derivations`).
    derived: list[Derivation] = field(default_factory=list)

    def reason(self) -> str:
        """One line: where the answer is still stated, computed from or seen (and what
        could not be read fully)."""
        unread = f" ({'; '.join(self.unread[:3])})" if self.unread else ""
        if self.passed:
            return "no page the item ships states the answer" + unread
        stated = [m for m in self.found if m.status != OPERAND]
        operands = [m for m in self.found if m.status == OPERAND]
        parts = []
        if stated:
            parts.append(f"the answer is still stated: {_places(stated)}")
        if operands:
            parts.append(f"the answer can still be computed from operand rows: {_places(operands)}")
        if self.derived:
            shown = "; ".join(f"page {d.page} ({d.rule}): {d.how}" for d in self.derived[:3])
            parts.append(f"the answer can still be derived: {shown}")
        parts += self.untouched
        return "; ".join(parts) + unread

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "passed": self.passed,
            "pages_read": self.pages_read,
            "pages_reread": list(self.pages_reread),
            "channels": list(self.channels),
            "found": [m.to_json() for m in self.found],
            "untouched": list(self.untouched),
            "derived": [d.to_json() for d in self.derived],
            "images_read": 0,
            "read_again": [],
            "detail": self.reason(),
        }


def _places(mentions: Sequence[Mention], shown: int = 4) -> str:
    places = "; ".join(m.where() for m in mentions[:shown])
    more = f" and {len(mentions) - shown} more" if len(mentions) > shown else ""
    return places + more


def _restorations(image: np.ndarray, kinds: Iterable[str]) -> dict[str, np.ndarray]:
    from ..content.restorations import gray, restorations

    return restorations(gray(image), kinds)


def read_changed_page(
    document: pymupdf.Document,
    number: int,
    png: bytes | None,
    kinds: Iterable[str],
    dpi: int,
    max_pixels: int,
    channels: Sequence[ChannelText] | None = None,
) -> PageReadings:
    """Every reading of an edited page of a shipped PDF (see the module doc);
    ``channels``: the page's strings outside its content, when already read."""
    from ..textregions.pages import text_layer_words

    if channels is None:
        channels = channel_texts(document, [number])
    out = PageReadings(number, digest=page_digest(document[number - 1]))
    # Read as the transforms edit: rotation removed.
    with normalised_page(document, number) as page:
        size = out.size = (page.rect.width, page.rect.height)
        layer = text_layer_words(page)
        if layer:
            out.readings.append(Reading(number, TEXT_LAYER, tuple(layer)))
            out.has_text_layer = len(layer) >= 3
        out.readings += channel_readings(number, channels)
        data = png if png is not None else render_page_png(page, dpi, max_pixels)
        image = decode_image(data, f"page {number}")
        try:
            out.readings.append(read_pixels(number, image, size, labels=not out.has_text_layer))
            for name, restored in _restorations(image, kinds).items():
                out.readings.append(read_pixels(number, restored, size, f"{OCR} after {name}"))
            add_figure_readings(page, number, out)
        except ocr.OcrUnavailable as error:
            out.unread = f"not read by OCR: {error}"
    return out


def channel_readings(number: int, channels: Iterable[ChannelText]) -> list[Reading]:
    """Page ``number``'s strings in the structure tree, outlines, annotations, form fields
    and links (:mod:`..media.pdf_channels`), one reading per channel. Their words get
    boxes off the page, on one line: a channel string has no place on the page, so no
    region an ``attribute`` transform keeps can hold it."""
    texts: dict[str, list[str]] = {}
    for item in channels:
        if item.page == number:
            texts.setdefault(item.channel, []).extend(item.text.split())
    out = []
    for channel, words in sorted(texts.items()):
        placed = tuple(
            Word(
                word,
                (-10_000.0 + 60 * i, -100.0, -10_000.0 + 60 * i + 50, -90.0),
                source=TEXT_LAYER,
            )
            for i, word in enumerate(words)
        )
        out.append(Reading(number, channel, placed))
    return out


def read_shipped(
    pdf: bytes,
    pages: Sequence[int],
    original: Mapping[int, PageReadings],
    page_images: Mapping[int, bytes],
    kinds: Mapping[int, set[str]],
    dpi: int,
    max_pixels: int,
) -> tuple[dict[int, PageReadings], list[int]]:
    """Readings of ``pages`` of a shipped PDF, and which of them had to be read again.

    ``original``: the readings of the same pages before the edit (their digests say which
    pages are unchanged); ``page_images``: the PNGs the item ships for some pages (read
    as shipped); ``kinds``: region kinds the transform recorded per page (which
    restorations to try).
    """
    with open_pdf(pdf, "shipped document") as document:
        same, changed = _unchanged_pages(document, pages, original, page_images)
        read = _read_changed(document, changed, page_images, kinds, dpi, max_pixels)
    return _in_order(pages, same, read), changed


def _read_changed(
    document: pymupdf.Document,
    changed: Sequence[int],
    page_images: Mapping[int, bytes],
    kinds: Mapping[int, set[str]],
    dpi: int,
    max_pixels: int,
) -> dict[int, PageReadings]:
    """Every reading of the ``changed`` pages of a shipped PDF (:func:`read_changed_page`)."""
    # One pass over the structure tree for every changed page, not one per page.
    channels = channel_texts(document, changed) if changed else []
    return {
        number: read_changed_page(
            document,
            number,
            page_images.get(number),
            kinds.get(number, set()),
            dpi,
            max_pixels,
            channels,
        )
        for number in changed
    }


def _in_order(pages: Sequence[int], *parts: Mapping[int, PageReadings]) -> dict[int, PageReadings]:
    """The readings of ``parts``, in the order of ``pages``."""
    merged = {n: r for part in parts for n, r in part.items()}
    return {n: merged[n] for n in pages if n in merged}


def _unchanged_pages(
    document: pymupdf.Document,
    pages: Sequence[int],
    original: Mapping[int, PageReadings],
    page_images: Mapping[int, bytes],
) -> tuple[dict[int, PageReadings], list[int]]:
    """The original readings of the ``pages`` the shipped ``document`` leaves as they were
    (same content digest, no PNG shipped for them), and the pages that changed."""
    same: dict[int, PageReadings] = {}
    changed: list[int] = []
    for number in pages:
        if not 0 < number <= document.page_count:
            continue
        before = original.get(number)
        if (
            before is not None
            and number not in page_images
            and before.digest == page_digest(document[number - 1])
        ):
            same[number] = before
        else:
            changed.append(number)
    return same, changed


def find_leaks(
    emap: EvidenceMap,
    readings: Mapping[int, PageReadings],
    question: str,
    options: Sequence[str],
    policy: str,
    allowed: Mapping[int, Sequence[Box]] | None = None,
    unchanged: Iterable[int] = (),
) -> list[Mention]:
    """The statements ``readings`` still make that ``policy`` does not allow, and, for an
    answer printed nowhere, the operand rows it can still be computed from.

    Unchanged pages reuse the map's own classification; ``allowed`` are the regions where
    an ``attribute`` transform keeps the gold on purpose. Under ``remove``, a printing of
    the gold whose sentence restates the question in other words is a statement too
    (:mod:`.paraphrase`).
    """
    if policy == QUESTION:
        return []
    listed = set(emap.listed)
    same = set(unchanged)
    found: list[Mention] = []
    untold: list[Mention] = []  # printings of the gold not taken for statements
    for number, page in sorted(readings.items()):
        if number in same:
            printed = [m for m in emap.mentions if m.page == number]
            mentions = [m for m in printed if _tells(m, policy)]
            untold += [m for m in printed if not _tells(m, policy)]
            mentions += [m for m in emap.operands if m.page == number]
        else:
            mentions = []
            if emap.items:
                printed = page_mentions(
                    page.readings, emap.items, emap.anchors, question, options, number in listed
                )
                mentions = [m for m in printed if _tells(m, policy)]
                untold += [m for m in printed if not _tells(m, policy)]
            if emap.computed and emap.operands:
                here = number in listed
                mentions += page_operands(page, emap.anchors, here, labels=emap.asks_a_value())
                mentions += candidate_rows(page, emap.candidates(), here)
        if policy == ATTRIBUTE and allowed:
            keep = allowed.get(number, ())
            mentions = [m for m in mentions if not centre_inside(m.span, keep)]
            mentions = [m for m in mentions if not _outranked(m, emap)]
        found.extend(mentions)
    if policy == REMOVE and untold:
        found += paraphrased(untold, readings, question, emap.items, GATE_SIMILARITY, exact=True)
    return found


def _tells(mention: Mention, policy: str) -> bool:
    """Does ``mention`` give the answer away under ``policy``? A statement always does,
    and so does the gold printed beside one of the question's words (the map, off the
    listed pages, needs two before it calls a mention a statement; a reader who followed
    the question there needs one). Under ``remove``, "Hordville (population 150)" on
    another page answers a question whose table was taken away; under ``attribute`` it
    tells which of two "2000" rows is true. Not a name: "YouTube" beside "platform" is any
    sentence about platforms, not the one that answers which grew most."""
    if mention.status == STATEMENT:
        return True
    if policy not in (REMOVE, ATTRIBUTE) or mention.form in ("coarser", "text"):
        return False
    return mention.anchored(1)


def _outranked(mention: Mention, emap: EvidenceMap) -> bool:
    """A coarser rounding with none of the question's words beside it ("57%" in another
    table, for 56.82 in the row the question names): when the map reads the answer more
    precisely and with those words elsewhere, no reader takes this one for it. Only an
    ``attribute`` edit, which keeps that better statement on purpose, may ignore it."""
    if mention.form != "coarser" or mention.anchors:
        return False
    return any(m.form != "coarser" and m.anchors for m in emap.best_statements())


def region_kinds(record: Mapping[str, Any]) -> dict[int, set[str]]:
    """Region kinds per page recorded by a transform record."""
    kinds: dict[int, set[str]] = {}
    for region in (record.get("edits") or {}).get("regions") or []:
        if region.get("page") is not None and region.get("kind") in RESTORABLE:
            kinds.setdefault(int(region["page"]), set()).add(str(region["kind"]))
    return kinds


def allowed_regions(record: Mapping[str, Any]) -> dict[int, list[Box]]:
    """Where an ``attribute`` transform keeps the gold on purpose (its table regions)."""
    from .policy import ATTRIBUTION_REGIONS

    out: dict[int, list[Box]] = {}
    for region in (record.get("edits") or {}).get("regions") or []:
        if region.get("page") is not None and region.get("kind") in ATTRIBUTION_REGIONS:
            x0, y0, x1, y1 = (float(v) for v in region["bbox"])
            out.setdefault(int(region["page"]), []).append((x0, y0, x1, y1))
    return out


def left_whole_leaks(
    emap: EvidenceMap,
    record: Mapping[str, Any],
    policy: str,
    question: str,
    options: Sequence[str],
    context: str,
    listed: Sequence[int],
) -> GateResult | None:
    """What :func:`reread_gate` finds first, known before the edit is applied: the
    statements on the pages the plan leaves whole (neither in its edits nor listed, so
    shipped exactly as read; the record names every page an edit changes), from the map's
    own readings. A failed result, or None when those pages state nothing. A chain whose
    transforms all leave one restating page whole is then not applied, saved and rendered
    once per transform only to fail there."""
    if policy == QUESTION:
        return None
    edited = set(edited_pages(record.get("edits") or {})) | set(listed)
    pages = sorted(emap.readings) if context == "document" else list(emap.listed)
    whole = {n: emap.readings[n] for n in pages if n not in edited}
    found = find_leaks(emap, whole, question, options, policy, allowed_regions(record), list(whole))
    return _found_unedited(policy, whole, found) if found else None


def _found_unedited(
    policy: str, pages: Mapping[int, PageReadings], found: list[Mention]
) -> GateResult:
    """A failed result from statements found on unedited ``pages`` alone."""
    result = GateResult(policy, passed=False, found=found, pages_read=len(pages))
    result.channels = sorted({c for p in pages.values() for c in p.channels()})
    result.unread = [f"page {n}: {p.unread}" for n, p in pages.items() if p.unread]
    return result


def reread_gate(
    emap: EvidenceMap,
    pdf: bytes,
    page_images: Mapping[int, bytes],
    record: Mapping[str, Any],
    policy: str,
    question: str,
    options: Sequence[str],
    context: str,
    dpi: int,
    max_pixels: int,
    contents: Mapping[int, PageContent] | None = None,
) -> GateResult:
    """Read the shipped item (``pdf`` and the PNGs of its evidence pages) and decide;
    ``contents``: the content analysis of the original listed pages, for answers read off
    their pictures (:mod:`.seen`)."""
    result = GateResult(policy)
    if policy == QUESTION:
        result.channels = ["none: the question changed, the evidence is unchanged by design"]
        return result
    pages = sorted(emap.readings) if context == "document" else list(emap.listed)
    # The pages the edit left as they were need no reading, and in most attempts that fail
    # one of them still states the answer (a restatement on another page): that settles
    # the attempt before any edited page is rendered and OCR'd, which is most of the
    # gate's time. An attempt that passes reads every page, as before.
    with open_pdf(pdf, "shipped document") as document:
        same, changed = _unchanged_pages(document, pages, emap.readings, page_images)
        early = find_leaks(
            emap, same, question, options, policy, allowed_regions(record), list(same)
        )
        if early:
            return _found_unedited(policy, same, early)
        read = _read_changed(document, changed, page_images, region_kinds(record), dpi, max_pixels)
    readings = _in_order(pages, same, read)
    unchanged = [p for p in readings if p not in changed]
    result.pages_read = len(readings)
    result.pages_reread = changed
    result.channels = sorted({c for p in readings.values() for c in p.channels()})
    result.unread = [f"page {n}: {p.unread}" for n, p in readings.items() if p.unread]
    result.unread += [f"page {n}: {note}" for n, p in readings.items() for note in p.reduced]
    result.found = find_leaks(
        emap, readings, question, options, policy, allowed_regions(record), unchanged
    )
    if policy == REMOVE:
        result.derived = find_derivations(readings, emap.items, {*changed, *emap.listed})
    if contents is not None:
        result.untouched = untouched_pictures(emap, record, contents, question)
    result.passed = not result.found and not result.untouched and not result.derived
    return result
