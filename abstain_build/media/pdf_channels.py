"""The channels of a PDF beyond what its pages draw: structure tree, outlines, annotations,
thumbnails and metadata.

A tagged PDF keeps a second copy of its text in the structure tree (``/ActualText`` of
its spans, ``/Alt`` of its figures, ``/E`` expansions); outlines name sections with the
page they point at; annotations and form fields carry their own text, links their URIs.
Any PDF tool extracts them, and a blind reader recovered a hidden page's headings from
its ``/ActualText``. So an edited page drops its entries in every such channel
(:func:`drop_page_channels`), and the re-read gate reads what is left
(:func:`channel_texts`). The document's own metadata loses the fields that state the
answer (:func:`drop_metadata_stating`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pymupdf

#: Structure-element keys whose strings a reader can extract.
STRUCTURE_KEYS = ("ActualText", "Alt", "E")
STRUCTURE = "structure"
OUTLINE = "outline"
ANNOTATION = "annotation"


@dataclass(frozen=True)
class ChannelText:
    """One string of a channel beyond the page content, and the 1-based page it is on."""

    page: int
    channel: str
    text: str


def _page_numbers(document: pymupdf.Document) -> dict[int, int]:
    return {document[i].xref: i + 1 for i in range(document.page_count)}


def _outline(document: pymupdf.Document) -> list[list]:
    """The outline entries ([level, title, page, ...]); none when the outline is broken."""
    try:
        return document.get_toc(simple=False)
    except (RuntimeError, ValueError):
        return []


def _has_structure(document: pymupdf.Document) -> bool:
    kind, _ = document.xref_get_key(document.pdf_catalog(), "StructTreeRoot")
    return kind != "null"


def _structure_elements(document: pymupdf.Document) -> Iterable[tuple[int, int]]:
    """(xref, page) of every object that names its page with ``/Pg``: the structure
    elements (the only objects that carry ``/Pg``)."""
    pages = _page_numbers(document)
    for xref in range(1, document.xref_length()):
        try:
            kind, value = document.xref_get_key(xref, "Pg")
        except (RuntimeError, ValueError):  # a free or broken object
            continue
        if kind == "xref":
            page = pages.get(int(value.split()[0]))
            if page is not None:
                yield xref, page


def channel_texts(document: pymupdf.Document, pages: Iterable[int]) -> list[ChannelText]:
    """The strings of the structure tree, outlines, annotations, form fields and links
    that belong to ``pages``."""
    wanted = set(pages)
    out: list[ChannelText] = []
    if _has_structure(document):
        for xref, page in _structure_elements(document):
            if page not in wanted:
                continue
            for key in STRUCTURE_KEYS:
                kind, value = document.xref_get_key(xref, key)
                if kind == "string" and value.strip():
                    out.append(ChannelText(page, STRUCTURE, value))
    for entry in _outline(document):
        if entry[2] in wanted and str(entry[1]).strip():
            out.append(ChannelText(entry[2], OUTLINE, str(entry[1])))
    for number in sorted(wanted):
        if not 0 < number <= document.page_count:
            continue
        page = document[number - 1]
        for annot in page.annots() or ():
            info = annot.info
            for text in (info.get("content"), info.get("title"), info.get("subject")):
                if text and str(text).strip():
                    out.append(ChannelText(number, ANNOTATION, str(text)))
        for widget in page.widgets() or ():
            for text in (widget.field_value, widget.field_label):
                if isinstance(text, str) and text.strip():
                    out.append(ChannelText(number, ANNOTATION, str(text)))
        for link in page.get_links():
            if link.get("uri"):
                out.append(ChannelText(number, ANNOTATION, str(link["uri"])))
    return out


def drop_page_channels(document: pymupdf.Document, pages: Iterable[int]) -> list[str]:
    """Remove what ``pages`` say outside their content: the structure elements' strings,
    the outline entries pointing at them, their annotations and form fields, their
    thumbnails, metadata and private data (:func:`drop_private_data`). Links stay
    (their targets are other pages and addresses, read by the gate). Returns notes."""
    wanted = {p for p in pages if 0 < p <= document.page_count}
    notes: list[str] = []
    if not wanted:
        return notes
    if _has_structure(document):
        dropped = 0
        for xref, page in _structure_elements(document):
            if page in wanted:
                for key in STRUCTURE_KEYS:
                    if document.xref_get_key(xref, key)[0] != "null":
                        document.xref_set_key(xref, key, "null")
                        dropped += 1
        if dropped:
            notes.append(f"structure tree: {dropped} text string(s) of the edited pages dropped")
    toc = _outline(document)
    kept = [entry for entry in toc if entry[2] not in wanted]
    if len(kept) != len(toc):
        level = 0
        for entry in kept:  # a child whose parent went up one level
            entry[0] = min(entry[0], level + 1)
            level = entry[0]
        document.set_toc(kept)
        notes.append(f"outline: {len(toc) - len(kept)} entry(ies) pointing at edited pages dropped")
    for number in sorted(wanted):
        page = document[number - 1]
        removed = 0
        for widget in list(page.widgets() or ()):
            page.delete_widget(widget)
            removed += 1
        for annot in list(page.annots() or ()):
            page.delete_annot(annot)
            removed += 1
        if removed:
            notes.append(f"page {number}: {removed} annotation(s) and form field(s) removed")
        private = drop_private_data(document, page)
        if private:
            notes.append(f"page {number}: {private} thumbnail(s), metadata or private data removed")
    return notes


#: The document information fields a reader sees in any viewer's properties.
METADATA_KEYS = ("title", "author", "subject", "keywords", "creator", "producer")
METADATA_DATES = ("creationDate", "modDate")
#: A PDF date: D:YYYYMMDD, then the time.
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})(\d{2})")
_XMP_TIME = re.compile(r"\b(\d{4}-\d{2}-\d{2})T[\d:.+\-Z]*")


def _readable_date(value: str) -> str:
    """A PDF date as a date a matcher reads ("D:20220105..." -> "2022-01-05")."""
    match = _PDF_DATE.match(value)
    return "-".join(match.groups()) if match else value


def drop_metadata_stating(document: pymupdf.Document, states: Callable[[str], bool]) -> list[str]:
    """Clear the document information fields and the XMP metadata that ``states`` (the
    answer, in any of its forms): a held-out reader gave "the date of the document" of a
    court opinion whose dated first page was hidden from its creation date. Returns notes."""
    notes: list[str] = []
    meta = {key: value for key, value in (document.metadata or {}).items() if value}
    cleared = [key for key in METADATA_KEYS if states(meta.get(key, ""))]
    cleared += [key for key in METADATA_DATES if states(_readable_date(meta.get(key, "")))]
    if cleared:
        document.set_metadata(
            {
                key: "" if key in cleared else value
                for key, value in meta.items()
                if key in METADATA_KEYS + METADATA_DATES
            }
        )
        notes.append(f"metadata stating the answer cleared: {', '.join(cleared)}")
    xml = document.get_xml_metadata()
    # Tags out, and an XMP date-time ("2022-01-05T09:08:48-05:00") down to its date.
    said = _XMP_TIME.sub(r"\1", re.sub(r"<[^>]*>", " ", xml or ""))
    if xml and states(said):
        document.del_xml_metadata()
        notes.append("XMP metadata stating the answer removed")
    return notes


def listed_images(document: pymupdf.Document, pages: Iterable[int]) -> set[int]:
    """The images the resources of ``pages`` list (drawn or not), taken before an edit:
    what :func:`drop_undrawn_images` checks afterwards."""
    numbers = sorted({p for p in pages if 0 < p <= document.page_count})
    return {
        image[0] for n in numbers for image in document[n - 1].get_images(full=True) if image[0] > 0
    }


def _raw_digest(document: pymupdf.Document, xref: int) -> str:
    return hashlib.sha256(document.xref_stream_raw(xref) or b"").hexdigest()


def drop_undrawn_images(document: pymupdf.Document, listed: set[int]) -> list[str]:
    """Remove from every resource dictionary the images of ``listed`` (what the edited
    pages listed before the edit: :func:`listed_images`) that no page draws any more, so
    that saving drops them. A deck exported with one resource dictionary shared by all its
    slides lists every slide's pictures on every page: once an edit blurred or hid a
    slide, the clear picture it drew stayed in the file, and a reader extracted it.
    Returns notes."""
    candidates = set(listed)
    if not candidates:
        return []
    listings = [(page, page.get_images(full=True)) for page in document]
    # Only pages listing a candidate can draw it. MuPDF names a drawn picture by its
    # content: of two identical pictures (one icon listed twice, as Im3 and Im4) it names
    # one for both draws, so a candidate whose bytes a drawn picture has is drawn too.
    drawn: set[int] = set()
    for page, images in listings:
        if candidates & {image[0] for image in images}:
            drawn |= {info["xref"] for info in page.get_image_info(xrefs=True)}
    candidates -= drawn
    # MuPDF reports no picture it draws invisibly (a watermark under a zero-alpha state);
    # its page still calls it by name, and would lose it.
    candidates -= _called_by_name(document, listings, candidates)
    if candidates:
        seen = {_raw_digest(document, xref) for xref in drawn if xref > 0}
        candidates = {xref for xref in candidates if _raw_digest(document, xref) not in seen}
    removed = set()
    for page, images in listings:
        for xref, *_rest, name, _filter, referencer in images:
            holder = referencer if referencer > 0 else page.xref
            if xref in candidates and _drop_xobject(document, holder, name):
                removed.add(xref)
    if not removed:
        return []
    return [f"{len(removed)} picture(s) no page draws any more removed from the file"]


def _called_by_name(
    document: pymupdf.Document, listings: list[tuple[pymupdf.Page, list]], candidates: set[int]
) -> set[int]:
    """The ``candidates`` a content stream still shows by name (``/Name Do``): a page's
    own streams, or the form that lists the picture."""
    called: set[int] = set()
    for page, images in listings:
        wanted = [(xref, name, referencer) for xref, *_r, name, _f, referencer in images]
        wanted = [w for w in wanted if w[0] in candidates and w[0] not in called]
        if not wanted:
            continue
        own = b"\n".join(document.xref_stream(x) or b"" for x in page.get_contents())
        for xref, name, referencer in wanted:
            stream = (document.xref_stream(referencer) or b"") if referencer > 0 else own
            if re.search(rb"/" + re.escape(name.encode()) + rb"\s+Do\b", stream):
                called.add(xref)
    return called


def _key_path(
    document: pymupdf.Document, holder: int, steps: tuple[str, ...]
) -> tuple[int, str] | None:
    """Where the value at ``steps`` (keys from ``holder``'s dictionary down) can be read
    and written: (object, key path inside it), following indirect dictionaries. A key path
    through an indirect object is not written where it should be (PyMuPDF leaves a
    placeholder string in its place). None when a step is missing."""
    target, key = holder, steps[0]
    for step in steps[1:]:
        kind, value = document.xref_get_key(target, key)
        if kind == "xref":
            target, key = int(value.split()[0]), step
        elif kind == "dict":
            key = f"{key}/{step}"
        else:
            return None
    return target, key


def _set_null(document: pymupdf.Document, holder: int, steps: tuple[str, ...]) -> bool:
    """Set the value at ``steps`` from ``holder`` to null. True when it was there."""
    found = _key_path(document, holder, steps)
    if found is None or document.xref_get_key(*found)[0] in ("null", "undefined"):
        return False
    document.xref_set_key(*found, "null")
    return True


def _drop_xobject(document: pymupdf.Document, holder: int, name: str) -> bool:
    """Set ``name`` of ``holder``'s /Resources /XObject dictionary to null. True when it
    was there."""
    return _set_null(document, holder, ("Resources", "XObject", name))


#: What a page, or a property list its content marks, keeps beside what it draws: the
#: page's thumbnail (a picture of the page), an application's private copy of the artwork
#: (``/PieceInfo``) and XMP metadata, whose ``xmpGImg`` thumbnails show the figure a
#: marked-content section drew.
PRIVATE_KEYS = ("Thumb", "PieceInfo", "Metadata")
#: A dictionary's top-level key and what starts its value (a dictionary or a reference).
_ENTRY = re.compile(rb"/([^\s/<>\[\]()]+)\s*(<<|\d+\s+\d+\s+R)")


def _top_level_keys(text: str) -> list[str]:
    """Keys of the dictionary ``text`` ("<</MC0 12 0 R/MC1 <<...>>>>") whose values are
    dictionaries or references, not the keys of the dictionaries inside it."""
    data = text.encode("latin-1", "replace")
    keys, depth, i = [], 0, 0
    while i < len(data):
        if data.startswith(b"<<", i):
            depth += 1
            i += 2
        elif data.startswith(b">>", i):
            depth -= 1
            i += 2
        elif depth == 1 and data[i : i + 1] == b"/" and (match := _ENTRY.match(data, i)):
            keys.append(match.group(1).decode("latin-1"))
            i = match.end(1)
        else:
            i += 1
    return keys


def drop_private_data(document: pymupdf.Document, page: pymupdf.Page) -> int:
    """Null the :data:`PRIVATE_KEYS` of ``page`` and of the property lists its resources
    name. A reader of a hidden figure's guidebook page found, in the property list of the
    marked content that had drawn it, an XMP thumbnail of the figure. Returns how many."""
    removed = sum(_set_null(document, page.xref, (key,)) for key in PRIVATE_KEYS)
    found = _key_path(document, page.xref, ("Resources", "Properties"))
    if found is None:
        return removed
    kind, value = document.xref_get_key(*found)
    if kind == "xref":
        found, value = (int(value.split()[0]), ""), document.xref_object(int(value.split()[0]))
    elif kind != "dict":
        return removed
    target, key = found
    for name in _top_level_keys(value):
        steps = (key, name) if key else (name,)
        for private in PRIVATE_KEYS:
            removed += _set_null(document, target, (*steps, private))
    return removed
