"""The evidence map on documents built here, the transforms acting on it, and the re-read
gate: an answer restated on another page, printed only inside a chart image, on a rotated
page, or written back into the pixels is found, edited, or caught."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw

from abstain_build.config import BuildConfig
from abstain_build.evidence.gate import GateResult
from abstain_build.evidence.map import evidence_map
from abstain_build.evidence.policy import QUESTION
from abstain_build.evidence.reading import forget_documents
from abstain_build.evidence.seen import is_seen
from abstain_build.media.fonts import font
from abstain_build.media.images import encode_png
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import DocumentRef, Plan, Region, Sample, SourceInfo
from abstain_build.pipeline.apply import TransformOutput, reread, run_transform
from abstain_build.pipeline.build import build
from abstain_build.qc.items import judge_item
from abstain_build.qc.judges.evidence import Evidence
from abstain_build.textregions.ocr import ocr_available
from abstain_build.textregions.words import Word
from abstain_build.transforms import (
    DocumentTransform,
    NotApplicable,
    get_registry,
    register_transform,
)
from abstain_build.transforms.functional.pdf_edit import redact_rects
from abstain_build.transforms.registry import transforms as registry

from .conftest import read_jsonl, write_jsonl

needs_ocr = pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
INFO = SourceInfo("test", "test", "test.jsonl", 0)
QUESTION_TEXT = "What was the net revenue of Northwind in FY2021? Answer in millions."
ANSWER = "5210.3"
FILLER = (
    "The company designs and sells industrial equipment through distributors in forty"
    " countries. Management reviews the segments every quarter."
)


# -- documents -----------------------------------------------------------------------------


def _save(document: pymupdf.Document, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(document.tobytes(garbage=3, deflate=True, no_new_id=True))
    document.close()
    return path


def restated_report(path: Path, rotate_listed: int = 0) -> Path:
    """Page 1 restates the figure in prose; page 2 (the listed one) prints it in a table."""
    document = pymupdf.open()
    first = document.new_page(width=612, height=792)
    first.insert_textbox(
        pymupdf.Rect(54, 80, 558, 300),
        "Overview. In FY2021 the net revenue of Northwind was $5,210.3 million. " + FILLER,
        fontsize=11,
    )
    first.insert_textbox(pymupdf.Rect(54, 420, 558, 700), FILLER * 3, fontsize=11)
    second = document.new_page(width=612, height=792)
    second.insert_textbox(pymupdf.Rect(54, 60, 558, 200), FILLER * 2, fontsize=11)
    rows = [("Net revenue", "5,210.3"), ("Cost of sales", "3,101.9"), ("Gross margin", "2,108.4")]
    for index, (label, value) in enumerate(rows):
        y = 420 + 22 * index
        second.insert_text((72, y), label, fontsize=11)
        second.insert_text((420, y), value, fontsize=11)
    second.insert_textbox(pymupdf.Rect(54, 560, 558, 740), FILLER * 2, fontsize=11)
    if rotate_listed:
        second.set_rotation(rotate_listed)
    third = document.new_page(width=612, height=792)
    third.insert_textbox(pymupdf.Rect(54, 80, 558, 700), FILLER * 4, fontsize=11)
    return _save(document, path)


def chart_png(label: str) -> bytes:
    """A bar chart picture whose only printed value is ``label``."""
    image = Image.new("RGB", (900, 600), "white")
    draw = ImageDraw.Draw(image)
    for index, height in enumerate((220, 340, 280)):
        draw.rectangle(
            (120 + 220 * index, 520 - height, 260 + 220 * index, 520), fill=(40, 90, 170)
        )
    draw.line((90, 520, 860, 520), fill="black", width=4)
    draw.text((300, 60), label, fill="black", font=font(56))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def chart_report(path: Path) -> Path:
    """A text page whose answer is printed only inside an embedded chart image."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(54, 60, 558, 260), FILLER * 2, fontsize=11)
    page.insert_image(pymupdf.Rect(106, 300, 506, 567), stream=chart_png("Units sold 4,817"))
    page.insert_textbox(pymupdf.Rect(54, 600, 558, 740), FILLER, fontsize=11)
    return _save(document, path)


def sample(pdf: Path, pages: tuple[int, ...], question: str, answer: str) -> Sample:
    return Sample(
        id=f"s-{pdf.stem}",
        source=INFO,
        question=question,
        answer=answer,
        answer_format="Float",
        document=DocumentRef(path=pdf, doc_id=pdf.name),
        evidence_pages=pages,
    )


def run(name: str, item: Sample, context: str = "document") -> tuple[TransformOutput, GateResult]:
    inputs = SampleInputs(item)
    inputs.validate()
    transform = get_registry().get(name)()
    output = run_transform(transform, item, inputs, run_seed=3, context=context)
    gate = reread(transform, item, inputs, output, context)
    assert gate is not None
    return output, gate


def page_text(pdf: bytes, number: int) -> str:
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return document[number - 1].get_text()


@pytest.fixture(autouse=True)
def _fresh_readings():
    forget_documents()  # documents built here reuse names across tests
    yield
    forget_documents()


# -- the map -------------------------------------------------------------------------------


def test_the_map_finds_the_answer_on_a_page_the_record_does_not_list(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    emap = evidence_map(item, SampleInputs(item))
    assert {(m.page, m.printed) for m in emap.statements()} == {
        (1, "$5,210.3 million"),
        (2, "5,210.3"),
    }
    assert emap.target_pages("document") == [1, 2]
    assert emap.target_pages("pages") == [2]
    assert any("page(s) [1], which the record does not list" in n for n in emap.notes)
    assert emap.to_json()["statement_pages"] == [1, 2]


@needs_ocr
def test_a_value_printed_only_inside_a_chart_image_is_read_by_ocr(tmp_path: Path) -> None:
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), "How many units were sold?", "4817")
    emap = evidence_map(item, SampleInputs(item))
    found = emap.statements()
    assert found and {m.channel for m in found} == {"ocr_figure"}
    assert found[0].figure is not None  # the chart holding it is part of what to remove


# -- transforms act on the map -------------------------------------------------------------


@pytest.mark.parametrize("name", ["remove_visual_element", "remove_numeric_tokens", "dense_mask"])
def test_every_page_stating_the_answer_gets_the_edit(tmp_path: Path, name: str) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    output, gate = run(name, item)
    assert {r.page for r in output.record.edits.regions} >= {1, 2}
    for number in (1, 2):
        assert "5,210.3" not in page_text(output.pdf, number)
    assert FILLER.split()[0] in page_text(output.pdf, 3)  # a page without it is left alone
    assert gate.passed, gate.reason()
    assert output.pages == [2]  # the shipped images are still the listed pages'


def test_with_only_the_evidence_pages_shipped_the_other_pages_stay(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    output, gate = run("remove_visual_element", item, context="pages")
    assert {r.page for r in output.record.edits.regions} == {2}
    assert "5,210.3" in page_text(output.pdf, 1)
    assert gate.passed and gate.pages_read == 1


def test_hide_evidence_page_hides_or_crops_every_page_stating_the_answer(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    output, gate = run("hide_evidence_page", item)
    touched = set(output.record.edits.pages_hidden) | {
        c.page for c in output.record.edits.pages_cropped
    }
    assert touched == {1, 2}
    for crop in output.record.edits.pages_cropped:
        assert "stated in the" in crop.reason  # the half with the answer was the one dropped
    assert gate.passed, gate.reason()


@needs_ocr
def test_blur_figure_region_blurs_the_chart_that_holds_the_answer(tmp_path: Path) -> None:
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), "How many units were sold?", "4817")
    output, gate = run("blur_figure_region", item)
    assert gate.passed, gate.reason()
    assert any(r.kind == "blur" and r.page == 1 for r in output.record.edits.regions)


def test_a_rotated_page_is_edited_and_judged_in_its_own_coordinates(tmp_path: Path) -> None:
    item = sample(
        restated_report(tmp_path / "r.pdf", rotate_listed=90), (2,), QUESTION_TEXT, ANSWER
    )
    output, gate = run("remove_visual_element", item)
    assert "5,210.3" not in page_text(output.pdf, 2)
    assert gate.passed, gate.reason()
    # The judges map the record's masks onto the render where the black really is.
    masks = [r for r in output.record.to_json()["edits"]["regions"] if r["kind"] == "mask"]
    record = output.record.to_json()
    record["edits"] = dict(record["edits"], regions=[m for m in masks if m["page"] == 2])
    inputs = SampleInputs(item)
    judged = judge_item(
        item, inputs, item_id="x", question=item.question, images=output.images, pdf=output.pdf,
        transform=record,
    )  # fmt: skip
    evidence = Evidence(judged)
    where = evidence.region_mask(0)
    assert where is not None and where.any()
    perturbed = evidence.perturbed[0]
    assert perturbed.shape == where.shape  # rotated page rendered rotated, both ways
    assert float((perturbed[where] < 60).mean()) > 0.9


# -- the gate ------------------------------------------------------------------------------


class LeaveEverything(DocumentTransform):
    """A document transform that edits a blank corner only: the answer stays."""

    name = "test_leave_everything"
    family = "evidence_removal"
    axis = "evidence_sufficiency"
    description = "Edits a blank corner of each evidence page."

    def plan(self, ctx) -> Plan:
        plan = Plan(params={})
        for page in ctx.sample.evidence_pages:
            plan.edits.regions.append(Region((0, 0, 2, 2), "mask", page=page, unit="pt"))
        return plan

    def affinity(self, features) -> float:
        return 1.0  # routing picks it first: the gate must send the sample on

    def apply(self, document, plan) -> None:
        for region in plan.edits.regions:
            redact_rects(document[region.page - 1], [region.bbox])


class WriteItBack(DocumentTransform):
    """Erases the listed page's text layer and paints the figure back as a picture."""

    name = "test_write_it_back"
    family = "evidence_removal"
    axis = "evidence_sufficiency"
    description = "Text layer erased, the same numbers drawn back in pixels."

    def plan(self, ctx) -> Plan:
        return Plan(params={})

    def apply(self, document, plan) -> None:
        page = document[1]
        redact_rects(page, [page.rect], fill=(1, 1, 1))
        image = Image.new("RGB", (1200, 200), "white")
        ImageDraw.Draw(image).text((40, 50), "Net revenue 5,210.3", fill="black", font=font(64))
        page.insert_image(pymupdf.Rect(60, 400, 540, 480), stream=encode_png(np.asarray(image)))


@pytest.fixture
def leaky_transforms():
    """The two transforms above, registered for one test only (a build's default is every
    registered transform, and worker processes would not know these)."""
    register_transform(LeaveEverything)
    register_transform(WriteItBack)
    yield
    registry.unregister(LeaveEverything.name)
    registry.unregister(WriteItBack.name)


@pytest.mark.usefixtures("leaky_transforms")
def test_a_statement_left_anywhere_fails_the_gate_with_its_place(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    _, gate = run("test_leave_everything", item)
    assert not gate.passed
    assert {m.page for m in gate.found} == {1}
    assert "page 1 (text_layer): '$5,210.3 million'" in gate.reason()
    # Page 1 is unchanged (its reading is reused) and still states the answer: the attempt
    # fails before the edited page 2 is rendered or OCR'd at all.
    assert gate.pages_reread == [] and gate.pages_read == 2
    # Shown only the evidence page, the gate reads the edited page and finds it there too.
    _, gate = run("test_leave_everything", item, context="pages")
    assert not gate.passed
    assert {m.page for m in gate.found} == {2} and gate.pages_reread == [2]


@pytest.mark.usefixtures("leaky_transforms")
def test_a_plan_leaving_a_stating_page_whole_fails_before_it_is_applied(tmp_path: Path) -> None:
    """The build's attempt fails as the gate would, with the same reason, before the edit is
    applied, saved and rendered: the plan leaves page 1, which states the answer, whole."""
    from abstain_build.pipeline.apply import LeftWhole, left_whole_gate

    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    inputs = SampleInputs(item)
    inputs.validate()
    transform = get_registry().get("test_leave_everything")()
    check = left_whole_gate(transform, item, inputs)
    with pytest.raises(LeftWhole) as left:
        run_transform(transform, item, inputs, run_seed=0, before_apply=check)
    _, gate = run("test_leave_everything", item)
    assert left.value.gate.reason() == gate.reason()
    assert {m.page for m in left.value.gate.found} == {1}
    # Shown only the evidence page, nothing is left whole: the edit is applied and read.
    check = left_whole_gate(transform, item, inputs, context="pages")
    output = run_transform(transform, item, inputs, run_seed=0, before_apply=check)
    assert output.pdf is not None


@needs_ocr
@pytest.mark.usefixtures("leaky_transforms")
def test_the_gate_reads_the_pixels_of_every_edited_page(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    _, gate = run("test_write_it_back", item, context="pages")
    assert not gate.passed
    channels = {m.channel for m in gate.found}
    assert "ocr" in channels and "text_layer" not in channels  # no text layer holds it


@needs_ocr
@pytest.mark.usefixtures("leaky_transforms")
def test_a_chart_label_left_readable_fails_the_gate(tmp_path: Path) -> None:
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), "How many units were sold?", "4817")
    _, gate = run("test_leave_everything", item)
    assert not gate.passed
    assert {m.channel for m in gate.found} & {"ocr", "ocr_figure"}


def test_question_rewrites_are_not_read_for_the_answer(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, ANSWER)
    inputs = SampleInputs(item)
    transform = get_registry().get("temporal_drift")()
    output = run_transform(transform, item, inputs, run_seed=3)
    gate = reread(transform, item, inputs, output)
    assert gate is not None and gate.passed and gate.policy == QUESTION


@pytest.mark.usefixtures("leaky_transforms")
def test_a_build_moves_on_when_the_gate_fails_and_records_where(tmp_path: Path) -> None:
    pdf = restated_report(tmp_path / "docs" / "r.pdf")
    source = write_jsonl(
        tmp_path / "data.jsonl",
        [{"id": "r1", "question": QUESTION_TEXT, "answer": ANSWER, "pdf": f"docs/{pdf.name}",
          "evidence_pages": [2], "answer_format": "Float"}],
    )  # fmt: skip
    out = tmp_path / "out"
    config = BuildConfig(
        source=str(source),
        out=str(out),
        transforms=["test_leave_everything", "remove_visual_element"],
    )
    result = build(config)
    rows = read_jsonl(out / "data.jsonl")
    (counterpart,) = [r for r in rows if not r["answerable"]]
    assert counterpart["transform"]["name"] != "test_leave_everything"
    attempts = counterpart["routing"]["attempts"]
    assert attempts[0]["transform"] == "test_leave_everything"
    assert "re-read gate" in attempts[0]["reason"] and "page 1" in attempts[0]["reason"]
    assert counterpart["context"] == "document"
    assert counterpart["evidence"]["reread"]["passed"] is True
    assert counterpart["evidence"]["map"]["statement_pages"] == [1, 2]
    control = next(r for r in rows if r["answerable"])
    assert control["evidence"]["map"]["statement_pages"] == [1, 2]
    assert control["evidence"]["reread"] is None
    reread_counts = result.manifest["counts"]["reread"]
    assert reread_counts["test_leave_everything"] == {"passed": 0, "failed": 1}
    assert reread_counts[counterpart["transform"]["name"]] == {"passed": 1, "failed": 0}
    assert set(reread_counts) == {"test_leave_everything", counterpart["transform"]["name"]}


# -- audit ---------------------------------------------------------------------------------


def test_audit_reports_a_counterpart_that_still_states_the_answer(tmp_path: Path) -> None:
    import json
    import shutil

    from .conftest import run_cli

    pdf = restated_report(tmp_path / "docs" / "r.pdf")
    source = write_jsonl(
        tmp_path / "data.jsonl",
        [{"id": "r1", "question": QUESTION_TEXT, "answer": ANSWER, "pdf": f"docs/{pdf.name}",
          "evidence_pages": [2], "answer_format": "Float"}],
    )  # fmt: skip
    out = tmp_path / "out"
    build(BuildConfig(source=str(source), out=str(out), transforms=["remove_visual_element"]))
    clean = run_cli("audit", str(out), "--json")
    assert clean.returncode == 0, clean.stderr
    summary = json.loads(clean.stdout)
    assert summary["counterparts"] == 1 and summary["leaked"] == 0
    assert summary["controls_stating_the_answer"] == 1
    assert json.loads((out / "audit.json").read_text())["items"][1]["pages_read"] == 3

    # Someone else's build: the counterpart ships the original document, marked accepted.
    rows = read_jsonl(out / "data.jsonl")
    control, counterpart = rows
    shutil.copyfile(out / control["document"], out / counterpart["document"])
    counterpart["qc"]["status"] = "accepted"
    counterpart.pop("evidence")  # a record from a tool that records no map
    write_jsonl(out / "data.jsonl", [control, counterpart])
    leaking = run_cli("audit", str(out), "--out", str(tmp_path / "a.json"))
    assert leaking.returncode == 1, leaking.stderr
    assert "page 1 (text_layer): '$5,210.3 million'" in leaking.stdout
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["accepted_leaked"] == 1
    assert report["by_transform"]["remove_visual_element"] == {
        "n": 1,
        "leaked": 1,
        "computable": 0,
        "unread": 0,
    }


def test_audit_refuses_a_folder_without_a_dataset(tmp_path: Path) -> None:
    from .conftest import run_cli

    result = run_cli("audit", str(tmp_path))
    assert result.returncode == 2 and "no data.jsonl" in result.stderr


COMPUTED = "What share of the net revenue was the gross margin in FY2021?"  # 2,108.4 / 5,210.3


def test_a_computed_answers_evidence_is_the_rows_it_is_computed_from(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), COMPUTED, "0.405")
    emap = evidence_map(item, SampleInputs(item))
    assert emap.statements() == [] and emap.computed  # 0.405 is printed nowhere
    rows = {(m.page, m.printed) for m in emap.operands}
    assert (2, "Net revenue 5,210.3") in rows and (2, "Gross margin 2,108.4") in rows
    assert any(page == 1 and "$5,210.3 million" in text for page, text in rows)  # the overview
    # Names none of its words, but a gross margin is computed from it (the glossary).
    assert (2, "Cost of sales 3,101.9") in rows
    assert emap.related == [1] and emap.to_json()["related_pages"] == [1]
    assert emap.target_pages("document") == [1, 2] and emap.target_pages("pages") == [2]
    assert any("what the answer is computed from" in note for note in emap.notes)


@pytest.mark.usefixtures("leaky_transforms")
def test_a_removal_that_leaves_the_operands_readable_fails_the_gate(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), COMPUTED, "0.405")
    _, gate = run("test_leave_everything", item)
    assert not gate.passed
    assert {m.page for m in gate.found} == {1}  # unchanged page 1 settles it
    assert "can still be computed from operand rows: page 1" in gate.reason()
    _, gate = run("test_leave_everything", item, context="pages")
    assert not gate.passed and {m.page for m in gate.found} == {2}


@pytest.mark.parametrize("name", ["remove_visual_element", "remove_numeric_tokens", "dense_mask"])
def test_removal_takes_away_the_numbers_a_computed_answer_needs(tmp_path: Path, name: str) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), COMPUTED, "0.405")
    output, gate = run(name, item)
    for number in (1, 2):
        text = page_text(output.pdf, number)
        assert "5,210.3" not in text and "2,108.4" not in text
    assert FILLER.split()[0] in page_text(output.pdf, 3)
    # Page 1 only prints an operand row: its numbers go, the rest of the page stays.
    assert "Overview. In FY2021 the net revenue of Northwind" in " ".join(
        page_text(output.pdf, 1).split()
    )
    on_page_1 = [r for r in output.record.edits.regions if r.page == 1]
    assert on_page_1 and all(
        r.detector == "evidence_map" or r.role == "number" for r in on_page_1
    )  # sealed or erased numbers, no window, no random words
    assert gate.passed, gate.reason()


def test_hide_evidence_page_drops_the_operands_of_a_computed_answer(tmp_path: Path) -> None:
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), COMPUTED, "0.405")
    output, gate = run("hide_evidence_page", item)
    touched = set(output.record.edits.pages_hidden) | {
        c.page for c in output.record.edits.pages_cropped
    }
    assert touched == {2}  # the listed page is hidden (one of one)
    # Page 1 only restates an operand row: its number is masked, the page stays.
    masks = [r for r in output.record.edits.regions if r.kind == "mask"]
    assert masks and {r.page for r in masks} == {1}
    text = " ".join(page_text(output.pdf, 1).split())
    assert "5,210.3" not in text and "Overview. In FY2021 the net revenue" in text
    assert gate.passed, gate.reason()


def printed_lines(lines: list[str]) -> tuple[Word, ...]:
    """Words of ``lines`` laid out one line per row, as a text layer would give them."""
    words = []
    for row, line in enumerate(lines):
        x = 50.0
        for text in line.split():
            words.append(Word(text, (x, 20.0 * row, x + 6 * len(text), 20.0 * row + 10), line=row))
            x += 6 * len(text) + 4
    return tuple(words)


def test_a_table_of_contents_line_is_no_operand() -> None:
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import reading_operands
    from abstain_build.evidence.reading import Reading

    lines = [f"Net revenue by segment, part {i} .......... {10 + i}" for i in range(6)]
    lines.append("Net revenue and gross margin as of December 31, 2015")  # a date, no value
    lines.append("Net revenue and gross margin were 5,210.3 and 2,108.4")
    words = printed_lines(lines)
    anchors = question_anchors(COMPUTED, ["an unrelated page"])
    found = reading_operands(Reading(4, "text_layer", words), anchors, listed=True)
    assert [m.printed for m in found] == [lines[-1]]
    assert [w for m in found for w in m.boxes] == [words[-3].bbox, words[-1].bbox]


# -- answers read off the pictures ---------------------------------------------------------

COUNTED = "How many bars does the chart on this page show?"


@pytest.mark.usefixtures("leaky_transforms")
def test_an_edit_that_leaves_the_pictures_fails_for_a_seen_answer(tmp_path: Path) -> None:
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), COUNTED, "3")
    emap = evidence_map(item, SampleInputs(item))
    assert not emap.evidence_anywhere()  # "3" is printed nowhere and computed from nothing
    assert is_seen(emap, COUNTED)
    assert not is_seen(emap, "What is the debt to equity ratio in FY2021?")  # not looked at
    _, gate = run("test_leave_everything", item)
    assert not gate.passed and gate.found == []
    assert gate.untouched and "read off its pictures" in gate.untouched[0]
    assert "covers 0% of them" in gate.reason()
    assert gate.to_json()["untouched"] == gate.untouched


def test_an_edit_that_covers_the_pictures_passes_for_a_seen_answer(tmp_path: Path) -> None:
    """Hiding the page takes the bars away; a blur, which keeps their shapes to count,
    declines the question."""
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), COUNTED, "3")
    _, gate = run("hide_evidence_page", item)
    assert gate.passed and gate.untouched == [], gate.reason()
    with pytest.raises(NotApplicable, match="counts graphical things"):
        run("blur_figure_region", item)


@pytest.mark.usefixtures("leaky_transforms")
def test_the_pictures_do_not_matter_when_the_answer_is_printed(tmp_path: Path) -> None:
    item = sample(chart_report(tmp_path / "c.pdf"), (1,), "How many units were sold?", "4817")
    _, gate = run("test_leave_everything", item)
    assert gate.untouched == []  # printed in the chart: the reading decides, not coverage


def test_a_listed_pages_table_row_may_name_words_printed_everywhere() -> None:
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import reading_operands
    from abstain_build.evidence.reading import Reading

    question = "What is the gap between College graduate seniors who own a tablet and a phone?"
    anchors = question_anchors(question, ["college graduate survey"] * 5 + ["tablet phone"])
    assert {"colleg", "gradua"} <= anchors.topic_stems  # printed on most pages
    lines = [
        "College graduate (n=537) 87",  # a table row: label and value
        "Survey of every College graduate aged 65 or older, July 18 to September 30",
    ]
    words = printed_lines(lines)
    reading = Reading(18, "text_layer", words)
    assert [m.printed for m in reading_operands(reading, anchors, listed=True)] == [lines[0]]
    assert reading_operands(reading, anchors, listed=False) == []  # elsewhere: no anchor


def test_an_answer_printed_only_rounded_coarser_is_computed_too(tmp_path: Path) -> None:
    # 5,210.34 is printed nowhere; "5,210.3" is it rounded, so the gold was computed.
    item = sample(restated_report(tmp_path / "r.pdf"), (2,), QUESTION_TEXT, "5210.34")
    emap = evidence_map(item, SampleInputs(item))
    assert {m.form for m in emap.statements()} == {"coarser"}
    assert emap.computed and emap.operands  # its operand rows are evidence as well
    exact = sample(restated_report(tmp_path / "e.pdf"), (2,), QUESTION_TEXT, ANSWER)
    assert not evidence_map(exact, SampleInputs(exact)).computed


def test_off_the_listed_pages_an_operand_row_prints_a_phrase_of_the_question() -> None:
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import reading_operands
    from abstain_build.evidence.reading import Reading

    anchors = question_anchors(COMPUTED, ["an unrelated page"])
    lines = [
        "Gross margin 2,108.4",  # "gross margin" is a phrase of the question
        "Revenue from licensing grew, and the gross amount fell 12% in the period",
    ]
    reading = Reading(7, "text_layer", printed_lines(lines))
    assert [m.printed for m in reading_operands(reading, anchors, listed=False)] == [lines[0]]
    # On a listed page two of its words on one row are enough.
    assert len(reading_operands(reading, anchors, listed=True)) == 2


def test_a_ratio_question_has_the_line_items_it_is_computed_from() -> None:
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import reading_operands
    from abstain_build.evidence.reading import Reading

    # AMAZON_2017_10K p18 prints both operands of a return on assets, and neither names
    # a word of the question but "assets".
    question = "what is Amazon's FY2017 return on asset ? round your answer to three decimal"
    anchors = question_anchors(question, ["an unrelated page"])
    lines = [
        "Net income (loss) $ 274 $ (241) $ 596 $ 2,371 $ 3,033",
        "Total assets $ 39,528 $ 53,618 $ 64,747 $ 83,402 $ 131,310",
        "Net sales $ 88,988 $ 107,006 $ 135,987 $ 177,866",
        "Net income 5 Hl",  # OCR of a sealed row: the edge of a black box read as a digit
    ]
    reading = Reading(18, "text_layer", printed_lines(lines))
    found = reading_operands(reading, anchors, listed=False)
    assert [m.printed for m in found] == lines[:2]
    plain = question_anchors("How many employees did Amazon have in FY2017?", ["a page"])
    assert plain.line_items == ()  # no ratio named: no line items


BALANCE_SHEET = [
    "ACME CORP.",
    "CONSOLIDATED BALANCE SHEETS",
    "(in millions)",
    "Cash and cash equivalents 20,522",
    "Inventories 16,047",
    "Total assets $ 131,310",
    "Retained earnings 8,636",
    "Total stockholders' equity 27,709",
    "Total liabilities and stockholders' equity $ 131,310",
    "40",
]
RETURN_ON_EQUITY = "What is ACME's FY2017 return on equity? Round to three decimals."


def test_on_a_financial_statement_every_amount_is_an_operand() -> None:
    """A statement's lines add up to its totals: sealing "Total stockholders' equity"
    alone leaves the lines that sum to it."""
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import reading_operands
    from abstain_build.evidence.reading import Reading

    anchors = question_anchors(RETURN_ON_EQUITY, ["an unrelated page"])
    statement = Reading(40, "text_layer", printed_lines(BALANCE_SHEET))
    found = [m.printed for m in reading_operands(statement, anchors, listed=False)]
    assert found == BALANCE_SHEET[3:9]  # every amount; not the title, not the folio "40"
    # The same rows on a page that is no statement: only the lines the ratio names.
    note = ["Note 4 - Other balance data", *BALANCE_SHEET[3:9]]
    reading = Reading(60, "text_layer", printed_lines(note))
    assert [m.printed for m in reading_operands(reading, anchors, listed=False)] == [
        "Total stockholders' equity 27,709",
        "Total liabilities and stockholders' equity $ 131,310",
    ]
    # A statement that prints no operand of the question is left alone.
    other = question_anchors("What is ACME's FY2017 days sales outstanding?", ["x"])
    assert reading_operands(statement, other, listed=False) == []


def test_a_line_item_is_an_operand_with_the_items_it_is_rebuilt_from() -> None:
    from abstain_build.evidence.glossary import operand_phrases

    phrases = operand_phrases("What is the FY2017 return on assets?")
    assert {"net income", "total assets"} <= set(phrases)
    # Net income is pre-tax income less the provision; total assets equal liabilities
    # plus equity.
    assert {"before income taxes", "provision for income taxes"} <= set(phrases)
    assert "total liabilities and stockholders equity" in phrases
    assert operand_phrases("How many stores opened in 2017?") == ()


# -- the figure a question names -----------------------------------------------------------

LISTING = [
    '"""Write a program that verifies the claim step by step."""',
    "# The claim is that Ottawa is the capital of Canada.",
    "def program():",
    '    answer_1 = Question("What is the capital of Canada?")',
    '    fact_1 = Verify("{answer_1} is Ottawa.")',
    "    label = Predict(fact_1)",
]


def listing_paper(path: Path) -> Path:
    """A paper page whose Figure 2 is a code listing printed as text (no drawing, no
    image), above a figure of bars and two columns of body text."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    for index, line in enumerate(LISTING):
        page.insert_text((90, 80 + 14 * index), line, fontsize=8, fontname="cour")
    page.insert_textbox(
        pymupdf.Rect(70, 175, 525, 205),
        "Figure 2: The prompt template used to generate programs, with one example.",
        fontsize=10,
    )
    for index, height in enumerate((60, 90, 40)):
        page.draw_rect(
            pymupdf.Rect(90 + 50 * index, 330 - height, 120 + 50 * index, 330), fill=(0.2, 0.4, 0.8)
        )
    page.insert_textbox(
        pymupdf.Rect(70, 340, 290, 370), "Figure 3: Scores by dataset.", fontsize=10
    )
    page.insert_textbox(pymupdf.Rect(70, 380, 290, 800), FILLER * 5, fontsize=10)
    page.insert_textbox(pymupdf.Rect(305, 220, 525, 800), FILLER * 8, fontsize=10)
    return _save(document, path)


def test_a_figure_is_found_by_the_caption_the_question_names(tmp_path: Path) -> None:
    from abstain_build.content.captions import (
        FigureReference,
        body_style,
        figure_reference,
        named_figure,
    )

    assert figure_reference("How many examples does Figure 2 show?") == FigureReference(2)
    assert figure_reference("the figure at the top of page 6985") == FigureReference(None, "top")
    assert not figure_reference("What is the net revenue in FY2021?")
    with pymupdf.open(listing_paper(tmp_path / "p.pdf")) as document:
        body = body_style(document)
        listing = named_figure(document[0], FigureReference(2), body)
        top = named_figure(document[0], FigureReference(None, "top"), body)
        bars = named_figure(document[0], FigureReference(3), body)
        assert named_figure(document[0], FigureReference(9), body) is None
        words = [(pymupdf.Rect(w[:4]), w[4]) for w in document[0].get_text("words")]
    assert listing == top
    inside = {text for rect, text in words if rect in listing}
    assert {"program():", "Predict(fact_1)", "Figure", "template"} <= inside
    assert not inside & {"Scores", "distributors"}  # not Figure 3, not the body text
    assert 180 <= bars.y0 <= 215 and bars.x1 < 300  # the left column, under Figure 2
    assert {text for rect, text in words if rect in bars} == {
        "Figure",
        "3:",
        "Scores",
        "by",
        "dataset.",
    }


COUNTED_IN_LISTING = "How many complete examples are shown in the figure at the top of the page?"


@pytest.mark.usefixtures("leaky_transforms")
def test_a_seen_answer_needs_the_named_figure_covered(tmp_path: Path) -> None:
    item = sample(listing_paper(tmp_path / "p.pdf"), (1,), COUNTED_IN_LISTING, "1")
    emap = evidence_map(item, SampleInputs(item))
    assert list(emap.figures) == [1] and is_seen(emap, COUNTED_IN_LISTING)
    _, gate = run("test_leave_everything", item)
    assert not gate.passed and "the figure the question names" in gate.untouched[0]
    # A blur keeps the layout of what is counted: it declines the count.
    with pytest.raises(NotApplicable, match="reader counts"):
        run("blur_figure_region", item)
    # Figure detection sees the bars only; the listing is blurred because it is named.
    named = "Which city does the claim in the figure at the top of the page name?"
    item = sample(listing_paper(tmp_path / "q.pdf"), (1,), named, "Ottawa")
    output, gate = run("blur_figure_region", item)
    assert gate.passed, gate.reason()
    assert "Predict(fact_1)" not in page_text(output.pdf, 1)
    assert any(
        r.detector == "evidence_map" and r.role == "figure" for r in output.record.edits.regions
    )


def test_an_operand_amount_printed_under_another_label_is_an_operand_too() -> None:
    """ "Consolidated $ 131,310" in a table of segment assets is total assets again."""
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import RESTATED, reading_operands
    from abstain_build.evidence.reading import PageReadings, Reading
    from abstain_build.evidence.rebuilt import operand_amounts, page_restatements

    anchors = question_anchors("What is ACME's FY2017 return on assets?", ["x"])
    note = ["Note 4 - Other balance data", "Total assets $ 83,402 $ 131,310", "Net income 596"]
    operands = reading_operands(Reading(18, "text_layer", printed_lines(note)), anchors, False)
    amounts = operand_amounts(operands)
    assert amounts == {"83,402", "131,310"}  # 596 is too short to be told from others
    segments = [
        "Total segment assets reconciled to consolidated amounts (in millions):",
        "North America $ 22,225 $ 35,844",
        "Consolidated $ 83,402 $ 131,310",
        "Units shipped 131310 in 2017",  # not printed as the amount is
    ]
    words = printed_lines(segments)
    page = PageReadings(70, [Reading(70, "text_layer", words)], has_text_layer=True)
    found = page_restatements(page, amounts, set(), listed=False)
    assert [(m.printed, m.anchors) for m in found] == [(segments[2], RESTATED)]
    assert found[0].boxes == (words[17].bbox, words[19].bbox)
    known = {(70, box) for box in found[0].boxes}
    assert page_restatements(page, amounts, known, listed=False) == []


def test_the_parts_of_a_total_are_its_operands() -> None:
    """Domestic and international streaming memberships add up to the global ones."""
    from abstain_build.evidence.anchors import question_anchors, total_parts
    from abstain_build.evidence.operands import PART, reading_operands
    from abstain_build.evidence.reading import Reading

    question = "What percentage did global streaming memberships increase from 2014 to 2015?"
    assert total_parts(question) == ("stream", "member")
    assert total_parts("What is the total number of stores?") == ("store",)
    assert total_parts("What is the net revenue in 2015?") == ()
    anchors = question_anchors(question, ["x"])
    segment = [
        "Domestic Streaming segment",
        "Memberships at end of period 44,738 39,114 33,420 5,624 14 % 5,694 17 %",
        "We added members through the year, as the segment grew in each quarter 2015 34",
    ]
    reading = Reading(21, "text_layer", printed_lines(segment))
    found = reading_operands(reading, anchors, listed=False)
    assert [(m.printed, m.anchors[:1]) for m in found] == [(segment[1], PART)]
    # Without the rest of the total's name on the page, the row is no part of it.
    dvd = ["Domestic DVD segment", segment[1]]
    assert reading_operands(Reading(23, "text_layer", printed_lines(dvd)), anchors, False) == []


def test_a_table_holding_an_operand_row_is_sealed_whole() -> None:
    """With the provision's total sealed, its current and deferred lines still add up to
    it; a table whose heading names the line item counts too."""
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.operands import HEADED, TABLE, reading_operands
    from abstain_build.evidence.reading import PageReadings, Reading
    from abstain_build.evidence.rebuilt import table_mates

    anchors = question_anchors("What is ACME's FY2017 effective tax rate?", ["x"])
    note = [
        "The components of the provision for income taxes, net are as follows (in millions):",
        "Current taxes 869 1,671 798",
        "Deferred taxes 81 (246) (29)",
        "Provision for income taxes, net $ 950 $ 1,425 $ 769",
        "We expect to pay the deferred amounts over the next several years as the temporary",
        "differences between the book and tax bases of our assets and liabilities reverse.",
        "Cash paid for rent 1,234 1,456",
    ]
    words = printed_lines(note)
    reading = Reading(65, "text_layer", words)
    named = reading_operands(reading, anchors, listed=False)
    assert {m.printed: m.anchors for m in named} == {
        note[1]: HEADED,  # the heading names the provision
        note[2]: HEADED,
        note[3]: ("provis", "for", "income", "tax"),
    }
    page = PageReadings(65, [reading], has_text_layer=True)
    only_total = [m for m in named if m.anchors != HEADED]
    mates = table_mates(page, only_total, {(65, b) for m in only_total for b in m.boxes}, False)
    assert [(m.printed, m.anchors) for m in mates] == [(note[1], TABLE), (note[2], TABLE)]
    # The prose below ends the table: the rent row is no operand.
    assert [m.printed for m in named + mates if "Cash paid" in m.printed] == []


def test_erased_words_do_not_take_a_seen_answers_pictures_away(tmp_path: Path) -> None:
    """An erased word's box is painted the colour around it: the chart under it stays."""
    from abstain_build.evidence.seen import untouched_pictures
    from abstain_build.pipeline.apply import listed_contents

    item = sample(chart_report(tmp_path / "c.pdf"), (1,), COUNTED, "3")
    inputs = SampleInputs(item)
    emap = evidence_map(item, inputs)
    contents = listed_contents(item, inputs)
    chart = [106.0, 300.0, 506.0, 567.0]

    def record(kind: str) -> dict:
        return {"edits": {"regions": [{"page": 1, "kind": kind, "bbox": chart}]}}

    assert untouched_pictures(emap, record("erase"), contents)
    assert untouched_pictures(emap, record("mask"), contents) == []


def highlighted_page(path: Path) -> Path:
    """A text page with two of its lines highlighted in yellow."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    for index in (3, 7):
        y = 80 + 14 * index
        page.draw_rect(pymupdf.Rect(54, y - 10, 400, y + 3), fill=(1, 1, 0), color=None)
    for index in range(40):
        page.insert_text((56, 80 + 14 * index), FILLER[:90], fontsize=10)
    return _save(document, path)


def test_marks_in_colour_count_as_pictures_on_a_text_page(tmp_path: Path) -> None:
    from abstain_build.evidence.seen import untouched_pictures
    from abstain_build.pipeline.apply import listed_contents

    question = "How many lines are highlighted in yellow on the first page?"
    item = sample(highlighted_page(tmp_path / "h.pdf"), (1,), question, "2")
    inputs = SampleInputs(item)
    emap = evidence_map(item, inputs)
    assert is_seen(emap, question)
    contents = listed_contents(item, inputs)
    words = {"edits": {"regions": [{"page": 1, "kind": "erase", "bbox": [54, 60, 300, 200]}]}}
    assert untouched_pictures(emap, words, contents, question)
    # A counting question about something else on this text page: the check stays out.
    assert untouched_pictures(emap, words, contents, "How many lines does the page have?") == []
    whole = {"edits": {"regions": [{"page": 1, "kind": "blur", "bbox": [0, 0, 612, 792]}]}}
    assert untouched_pictures(emap, whole, contents, question) == []


def top_heavy_pages(path: Path) -> Path:
    """Two pages whose content is all in their top halves (a figure of tiles and a text)."""
    document = pymupdf.open()
    for _ in range(2):
        page = document.new_page(width=612, height=792)
        for index in range(4):
            x = 80 + 120 * index
            page.draw_rect(pymupdf.Rect(x, 120, x + 90, 210), fill=(0.3, 0.5, 0.8))
        page.insert_textbox(pymupdf.Rect(54, 240, 558, 380), FILLER * 2, fontsize=10)
    return _save(document, path)


def test_hide_evidence_page_drops_the_fuller_half_when_the_answer_is_stated_nowhere(
    tmp_path: Path,
) -> None:
    item = sample(top_heavy_pages(tmp_path / "t.pdf"), (1, 2), "How many tiles are shown?", "4")
    output, _ = run("hide_evidence_page", item)
    (crop,) = output.record.edits.pages_cropped
    assert crop.kept == "bottom", crop.reason  # the top half holds everything
    assert "holds 100% of the page's content" in crop.reason


@pytest.mark.parametrize(("aside", "leaks"), [("population 150", True), ("founded 1884", False)])
def test_a_removal_fails_where_another_page_prints_the_gold_beside_a_question_word(
    tmp_path: Path, aside: str, leaks: bool
) -> None:
    # Off the listed pages the map needs two of the question's words beside the gold to
    # call it a statement; a reader who followed the question to Hordville needs one.
    document = pymupdf.open()
    census = document.new_page(width=612, height=792)
    census.insert_text((72, 500), "Census of Hordville: population in 2000  150", fontsize=11)
    history = document.new_page(width=612, height=792)
    history.insert_text((72, 100), f"The village of Hordville ({aside}) lies north.", fontsize=11)
    document.save(tmp_path / "town.pdf")
    question = "For the town with the first farmers' elevator, what was its population in 2000?"
    item = sample(tmp_path / "town.pdf", (1,), question, "150")
    _, gate = run("hide_evidence_page", item)
    assert gate.passed is not leaks
    if leaks:
        assert "page 2 (text_layer): '150'" in gate.reason()


# -- the record names every page an edit changes (the gate's check before applying) -------


def _document_transforms() -> list[str]:
    names = get_registry()
    return [n for n in names.names() if issubclass(names.get(n), DocumentTransform)]


@pytest.mark.parametrize("name", _document_transforms())
def test_every_page_an_edit_changes_is_named_in_its_record(name: str) -> None:
    """The gate reads a page the plan leaves whole as the map read it, before the edit is
    applied (:func:`left_whole_leaks`): that holds only if the record names every page
    whose content the edit changes."""
    from abstain_build.media.pdf import open_pdf, page_digest

    from .test_transforms_document import ACME, doc_sample

    questions = [  # the fixture's own (fixtures/mmlongbench-doc/samples.json)
        (
            "What was the revenue of ACME's Cloud Services segment in FY2020? Answer in millions.",
            "2158.7",
            (4,),
        ),
        ("What was ACME's total revenue in FY2021? Answer in millions.", "11642.4", (4,)),
        ("What was the revenue of Industrial Products in FY2021?", "5614.8", (5,)),
    ]
    tried = 0
    for question, answer, pages in questions:
        item = replace(doc_sample(ACME, pages), question=question, answer=answer)
        inputs = SampleInputs(item)
        inputs.validate()
        try:
            output = run_transform(get_registry().get(name)(), item, inputs, run_seed=0)
        except NotApplicable:
            continue
        tried += 1
        with (
            open_pdf(inputs.document_bytes(), "source") as before,
            open_pdf(output.pdf, "edited") as after,
        ):
            assert after.page_count == before.page_count
            changed = {
                n
                for n in range(1, before.page_count + 1)
                if page_digest(before[n - 1]) != page_digest(after[n - 1])
            }
        assert changed <= set(output.record.edits.pages()), (name, question)
    if not tried:
        pytest.skip(f"{name} applies to neither question on the fixture")
