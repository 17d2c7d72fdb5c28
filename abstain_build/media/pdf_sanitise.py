"""Active content out of a PDF before anything is made from it or shipped.

A source PDF can carry JavaScript (the document's names tree, an ``/OpenAction``, the
actions of links, annotations, form fields and outline entries), actions that open files,
addresses or other documents (Launch, URI, GoToR, GoToE, ImportData, SubmitForm, ...),
embedded files and XFA forms. None of it is page content, and a benchmark must not hand
it to every reader who opens an item. :func:`sanitise_pdf` removes it once per source
document; controls and counterparts are both made from what it returns, so neither
carries any.

PyMuPDF finds the documents to clean (a quick look at every object, below); the cleaning
is a pikepdf walk. PyMuPDF's ``Document.scrub`` cannot do it: it blanks JavaScript
action objects instead of removing them and misses actions written inline (real documents
hold link annotations as direct dictionaries in an ``/Annots`` array), has no option for
Launch, URI, GoToR, ImportData or SubmitForm actions nor for XFA, only empties the file of
a file-attachment annotation, and its ``remove_links`` takes internal GoTo links too; and
PyMuPDF's xref interface cannot list the keys of direct objects, which a complete walk
needs.

What stays: the page content streams, fonts and images, untouched (the text layer and the
pixels of every page do not change, but for the icon of a removed file attachment), form
fields without their actions, GoTo actions and destinations. A PDF without active content
comes back as the very same bytes, so its digests, renders and readings stay exactly as
they were; one with some is rewritten whole (an incremental save would keep the removed
objects in the file), objects nothing refers to left out.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass

import pikepdf
import pymupdf

from ..errors import InputError
from .pdf import open_pdf

#: The only action kept: a jump inside the document.
_KEPT_ACTIONS = frozenset({"/GoTo"})
#: Record label of each removed action type (any other type counts as "other_actions").
_ACTION_LABELS = {
    "/JavaScript": "javascript",
    "/Launch": "launch_actions",
    "/URI": "uri_actions",
    "/GoToR": "remote_goto_actions",
    "/GoToE": "embedded_goto_actions",
    "/ImportData": "import_data_actions",
    "/SubmitForm": "submit_form_actions",
}
#: Action types, to tell an action dictionary from others that also have ``/S`` (a border
#: style's ``/S /S``).
_ACTION_TYPES = frozenset(
    {
        *_KEPT_ACTIONS,
        *_ACTION_LABELS,
        "/GoTo3DView",
        "/Hide",
        "/Movie",
        "/Named",
        "/Rendition",
        "/ResetForm",
        "/RichMediaExecute",
        "/SetOCGState",
        "/Sound",
        "/Thread",
        "/Trans",
    }
)
#: Annotations that exist to carry a file.
_FILE_ANNOTATIONS = frozenset({"/FileAttachment", "/RichMedia"})
#: Labels in the order the record lists them.
_ORDER = (
    "javascript",
    "launch_actions",
    "uri_actions",
    "remote_goto_actions",
    "embedded_goto_actions",
    "import_data_actions",
    "submit_form_actions",
    "other_actions",
    "embedded_files",
    "file_attachments",
    "xfa_forms",
    "unused_objects",
)
#: A first look at MuPDF's reading of every object (names come back decoded, so
#: ``/Java#53cript`` is found too): the objects that may hold what the walk removes. A
#: document with none is not walked.
_SUSPECT = re.compile(
    r"/S\s*/(?:" + "|".join(sorted(t[1:] for t in _ACTION_TYPES - _KEPT_ACTIONS)) + r")\b"
    r"|/(?:JavaScript|EmbeddedFiles|EF|AF|XFA|FileAttachment|RichMedia)\b"
)
#: Keys removed wherever they are: the JavaScript and embedded-file name trees, associated
#: files, a file specification's embedded file, an XFA form.
_REMOVED_KEYS = ("/JavaScript", "/EmbeddedFiles", "/AF", "/EF", "/XFA")


@dataclass(frozen=True)
class Sanitised:
    """A PDF fit to ship, and what was removed from it (e.g. ``"javascript: 2"``; empty
    when nothing was, and then ``data`` is the input itself)."""

    data: bytes
    removed: tuple[str, ...] = ()


def sanitise_pdf(data: bytes, what: str) -> Sanitised:
    """``data`` without active content; raises :class:`InputError` for a PDF that
    :func:`open_pdf` refuses. Deterministic: the same input gives the same bytes."""
    with open_pdf(data, what) as document:
        suspects = {x for x in range(1, document.xref_length()) if _suspect(document, x)}
    if not suspects:
        return Sanitised(data)
    try:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            walk = _Walk()
            counts = walk.run(pdf)
            # Objects nothing refers to (a viewer never reaches them): saving leaves them out.
            unused = suspects - {number for number, _ in walk.visited}
            if unused:
                counts["unused_objects"] = len(unused)
            if not counts:
                return Sanitised(data)
            out = io.BytesIO()
            pdf.save(out, deterministic_id=True, fix_metadata_version=False, encryption=False)
    except pikepdf.PdfError as exc:
        raise InputError(f"{what}: its active content cannot be removed ({exc})") from None
    return Sanitised(out.getvalue(), tuple(f"{k}: {counts[k]}" for k in _ORDER if counts[k]))


def _suspect(document: pymupdf.Document, xref: int) -> bool:
    try:
        return bool(_SUSPECT.search(document.xref_object(xref, compressed=True)))
    except (RuntimeError, ValueError):  # a free or broken object: nothing to ship
        return False


_CONTAINERS = (pikepdf.Array, pikepdf.Dictionary, pikepdf.Stream)


class _Walk:
    """One visit of every object the document refers to. Each visit counts what the
    object is, if it goes (an action, a file, an attachment, a form), and cuts the object's
    references to active content; what is cut is visited too, so it is counted once."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        #: The indirect objects visited: all the document referred to.
        self.visited: set[tuple[int, int]] = set()
        self._files: set[tuple[int, int]] = set()

    def run(self, pdf: pikepdf.Pdf) -> Counter[str]:
        stack: list[pikepdf.Object] = [pdf.trailer]
        while stack:
            obj = stack.pop()
            if obj.is_indirect:
                if obj.objgen in self.visited:
                    continue
                self.visited.add(obj.objgen)
            if isinstance(obj, pikepdf.Array):
                stack.extend(v for v in obj if isinstance(v, _CONTAINERS))
                self._cut_array(obj)
            elif isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
                self._count(obj)
                stack.extend(v for _, v in obj.items() if isinstance(v, _CONTAINERS))
                stack.extend(self._cut(obj))
        if self._files:
            self.counts["embedded_files"] = len(self._files)
        return self.counts

    def _count(self, obj: pikepdf.Object) -> None:
        if _removed_action(obj):
            self.counts[_ACTION_LABELS.get(str(obj["/S"]), "other_actions")] += 1
        files = obj.get("/EF")
        if isinstance(files, pikepdf.Dictionary):  # a file specification with its file
            self._files.update(f.objgen for _, f in files.items() if isinstance(f, pikepdf.Stream))
        if str(obj.get("/Subtype", "")) in _FILE_ANNOTATIONS:
            self.counts["file_attachments"] += 1
        if obj.get("/XFA") is not None:
            self.counts["xfa_forms"] += 1

    @staticmethod
    def _cut(obj: pikepdf.Object) -> list[pikepdf.Object]:
        """Remove one dictionary's references to active content: the keys above, any
        action other than GoTo (``/A``, ``/OpenAction``, the triggers of ``/AA``, ``/Next``
        ...), and the annotations that carry a file or a link's removed action. Returns
        the annotations taken off the page (still to be visited)."""
        for key, value in list(obj.items()):
            if (
                (key in _REMOVED_KEYS and value is not None)
                or _removed_action(value)
                or (key == "/AA" and _only_removed_actions(value))
            ):
                del obj[key]
        if "/NeedsRendering" in obj:  # asks a viewer for the XFA form instead of the pages
            del obj["/NeedsRendering"]
        annots = obj.get("/Annots")
        if not isinstance(annots, pikepdf.Array):
            return []
        dropped = [_dropped_annotation(annot) for annot in annots]
        parents = {
            a.objgen for a, gone in zip(annots, dropped, strict=True) if gone and a.is_indirect
        }
        removed = []
        for index in reversed(range(len(annots))):
            if dropped[index] or _popup_of(annots[index], parents):
                removed.append(annots[index])
                del annots[index]
        return removed

    @staticmethod
    def _cut_array(array: pikepdf.Array) -> None:
        """A list of actions (a ``/Next`` list) loses those that go."""
        if len(array) and all(isinstance(v, pikepdf.Dictionary) for v in array):
            for index in reversed(range(len(array))):
                if _removed_action(array[index]):
                    del array[index]


def _removed_action(obj: object) -> bool:
    """An action dictionary of a type other than GoTo (a structure element, a border style
    and page labels also have ``/S``, with other values)."""
    if not isinstance(obj, pikepdf.Dictionary):
        return False
    kind = str(obj.get("/S", ""))
    return (
        kind in _ACTION_TYPES
        and kind not in _KEPT_ACTIONS
        and str(obj.get("/Type", "/Action")) == "/Action"
    )


def _only_removed_actions(triggers: object) -> bool:
    """Additional actions (``/AA``) of which nothing stays."""
    return isinstance(triggers, pikepdf.Dictionary) and all(
        v is None or _removed_action(v) for _, v in triggers.items()
    )


def _dropped_annotation(annot: pikepdf.Object) -> bool:
    """An annotation that carries a file, or a link whose action goes (nothing left to
    click)."""
    if not isinstance(annot, pikepdf.Dictionary):
        return False
    subtype = str(annot.get("/Subtype", ""))
    if subtype in _FILE_ANNOTATIONS:
        return True
    return subtype == "/Link" and "/Dest" not in annot and _removed_action(annot.get("/A"))


def _popup_of(annot: pikepdf.Object, parents: set[tuple[int, int]]) -> bool:
    parent = annot.get("/Parent") if isinstance(annot, pikepdf.Dictionary) else None
    return (
        isinstance(annot, pikepdf.Dictionary)
        and str(annot.get("/Subtype", "")) == "/Popup"
        and parent is not None
        and parent.is_indirect
        and parent.objgen in parents
    )
