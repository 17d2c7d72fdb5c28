"""Number corruption on evidence pages: erased or falsified values, on text-layer and
image-only pages, checked through the PDF text layer and OCR of the rendered result."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from abstain_build.media.images import encode_png
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import DocumentRef, Sample, SourceInfo
from abstain_build.numbers import find_numbers
from abstain_build.pipeline.apply import TransformOutput, run_transform
from abstain_build.qc.leak import leak_check, read_evidence
from abstain_build.rewrites.number_rewrite import wrong_quantity, wrong_year
from abstain_build.textregions.ocr import ocr_available, ocr_image
from abstain_build.transforms import NotApplicable, get_registry
from abstain_build.transforms.functional.text_edits import pdf_style

from .conftest import FIXTURES, fixture_sample, make_pdf, page_one_sample

needs_ocr = pytest.mark.skipif(not ocr_available(), reason="Tesseract is not installed")
INFO = SourceInfo("test", "test", "test.jsonl", 0)
ACME = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"
NUMERIC = ("remove_numeric_tokens", "corrupt_numeric_tokens")


def run(name: str, sample: Sample, seed: int = 7, **params) -> TransformOutput:
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get(name)(**params), sample, inputs, run_seed=seed)
    assert output.qc["passed"], output.qc
    return output


def page_text(pdf: bytes, number: int) -> str:
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return document[number - 1].get_text()


def ocr_words(png: bytes) -> str:
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    return " ".join(word.text for word in ocr_image(pixels))


def leak(sample: Sample, output: TransformOutput):
    inputs = SampleInputs(sample)
    pages = list(sample.evidence_pages)
    original = read_evidence(pages, inputs.evidence_renders(), inputs.document_bytes())
    perturbed = read_evidence(pages, output.images, output.pdf)
    return leak_check(sample.answer, sample.answer_format, original, perturbed)


# -- wrong values ------------------------------------------------------------------------

SHAPE = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")


def shape(text: str) -> tuple[str, int]:
    """The token with its digits blanked, and its number of decimals."""
    digits = SHAPE.search(text).group()
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return text.replace(digits, "#"), decimals


@pytest.mark.parametrize(
    "text",
    [
        "$(1,234.50)",
        "4,842.5",
        "(14.2%)",
        "$4.5bn",
        "12.3x",
        "0.75",
        "1.2 million",
        "-3.2%",
        "7026",
    ],
)
def test_wrong_values_move_20_to_50_percent_in_the_same_format(text: str) -> None:
    token = find_numbers(text)[0]
    for seed in range(60):
        rewrite = wrong_quantity(token, np.random.default_rng(seed))
        assert rewrite is not None
        assert rewrite.text != text
        assert shape(rewrite.text) == shape(text)
        new = find_numbers(rewrite.text)[0]
        assert new.kind == token.kind and new.negative == token.negative
        assert abs(new.value) != abs(token.value)
        change = abs(abs(new.value) - abs(token.value)) / abs(token.value)
        assert rewrite.in_range and 0.2 - 1e-3 <= change <= 0.5 + 1e-3, (rewrite, change)


def test_grouping_appears_when_a_value_grows_past_999() -> None:
    token = find_numbers("912.6")[0]
    grown = [wrong_quantity(token, np.random.default_rng(seed)) for seed in range(40)]
    big = [r.text for r in grown if abs(r.value) >= 1000]
    assert big and all("," in text for text in big)


def test_a_coarse_value_still_changes_and_says_it_left_the_range() -> None:
    token = find_numbers("1")[0]
    for seed in range(20):
        rewrite = wrong_quantity(token, np.random.default_rng(seed))
        assert rewrite.text != "1" and not rewrite.in_range


def test_forbidden_values_are_never_printed() -> None:
    token = find_numbers("100")[0]
    allowed = set()
    for seed in range(200):
        rewrite = wrong_quantity(
            token, np.random.default_rng(seed), forbidden=lambda m: m in (Decimal(130), 70)
        )
        allowed.add(rewrite.text)
    assert "130" not in allowed and "70" not in allowed and len(allowed) > 10


@pytest.mark.parametrize("text", ["2015", "FY2015", "FY 15", "2015-2017"])
def test_years_move_by_whole_years(text: str) -> None:
    token = find_numbers(text)[0]
    shifts = set()
    for seed in range(20):
        rewrite = wrong_year(token, np.random.default_rng(seed))
        new = find_numbers(rewrite.text)[0]
        assert new.kind == token.kind
        shift = new.years[0] - token.years[0]
        assert shift in {-5, -4, -3, -2, -1, 1, 2, 3, 4, 5}
        if len(token.years) == 2:
            assert new.years[1] - token.years[1] == shift
        shifts.add(shift)
    # Both directions and several distances are drawn, not one fixed move.
    assert min(shifts) < 0 < max(shifts) and len(shifts) >= 4


# -- remove_numeric_tokens ---------------------------------------------------------------


def test_removal_erases_95_percent_of_numbers_from_the_text_layer() -> None:
    sample = fixture_sample("ACME_2021_10K-fb753eb3")  # 11642.4, Table 1 on page 4
    before = page_text(SampleInputs(sample).document_bytes(), 4)
    output = run("remove_numeric_tokens", sample)
    after = page_text(output.pdf, 4)
    values = [t for t in find_numbers(before) if t.kind not in ("code",)]
    left = [t for t in find_numbers(after) if t.kind not in ("code",)]
    assert len(values) >= 30
    # Only "Table 1" / "Item 7" style references and the 5% kept may survive.
    assert len(left) <= 0.05 * len(values) + 2, [t.text for t in left]
    assert "11,642.4" not in after
    # Lines without numbers are untouched.
    assert "with the consolidated financial statements." in after
    erased = [r for r in output.record.edits.regions if r.kind == "erase"]
    assert {r.role for r in erased} == {"number", "word"}
    # The listed page is read through its text layer; the total is also printed on page 2
    # (text layer) and on the scanned page 6 (OCR), which get the same edit.
    assert {r.detector for r in erased if r.page == 4} == {"text_layer"}
    assert {r.page for r in erased} == {2, 4, 6}
    assert {r.detector for r in erased if r.page == 6} == {"ocr"}
    assert "11,642.4" not in page_text(output.pdf, 2)


def test_erased_areas_take_the_colour_around_them() -> None:
    sample = fixture_sample("ACME_2021_10K-fb753eb3")
    output = run("remove_numeric_tokens", sample)
    pixels = np.asarray(Image.open(io.BytesIO(output.images[0])).convert("RGB"))
    scale = pixels.shape[1] / 612
    header_fills = []
    for region in output.record.edits.regions:
        if region.page != 4:  # the image is page 4's render
            continue
        x0, y0, x1, y1 = (round(v * scale) for v in region.bbox)
        patch = pixels[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2]
        if patch.size:
            header_fills.append(patch.reshape(-1, 3).mean(axis=0))
    fills = np.array(header_fills)
    # No black boxes: every erased area is paper-coloured (white or the header's light blue).
    assert fills.min() > 180, fills.min()


@needs_ocr
def test_removal_on_an_image_only_page_edits_pixels_only() -> None:
    sample = fixture_sample("ACME_2021_10K-aea0bc6a")  # 3105.2 on image-only page 6
    original_ocr = ocr_words(SampleInputs(sample).evidence_renders()[0])
    assert "3,105.2" in original_ocr
    output = run("remove_numeric_tokens", sample)
    assert page_text(output.pdf, 6).strip() == ""  # still a scan: no text layer added
    assert "3,105.2" not in ocr_words(output.images[0])
    assert all(r.detector == "ocr" for r in output.record.edits.regions)
    report = leak(sample, output)
    assert report.applicable and not report.leaked, report.reason


# -- corrupt_numeric_tokens --------------------------------------------------------------


def test_corruption_rewrites_values_in_the_text_layer() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")  # 2158.7: Cloud Services FY2020
    output = run("corrupt_numeric_tokens", sample, numeric_ratio=1.0)
    after = page_text(output.pdf, 4)
    rewrites = [t for t in output.record.edits.tokens if t.new]
    assert len(rewrites) >= 25
    for edit in rewrites:
        assert edit.new != edit.old and shape(edit.new) == shape(edit.old)
    found = sum(edit.new in after for edit in rewrites)
    assert found >= 0.9 * len(rewrites)
    assert "2,158.7" not in after
    # The question is not about a year: years and fiscal years stay.
    assert all(y in after for y in ("FY2019", "FY2020", "FY2021"))
    assert "Table 1" in after  # references are not values
    report = leak(sample, output)
    assert report.applicable and not report.leaked, report.reason


def test_corruption_by_default_changes_the_answer_and_nothing_else() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")  # 2,158.7: Cloud Services FY2020
    before = page_text(SampleInputs(sample).document_bytes(), 4)
    output = run("corrupt_numeric_tokens", sample)
    assert [t.old for t in output.record.edits.tokens] == ["2,158.7"]
    new = output.record.edits.tokens[0].new
    after = [w.strip(".,;:") for w in page_text(output.pdf, 4).split()]
    kept = [w.strip(".,;:") for w in before.split() if w.strip(".,;:") != "2,158.7"]
    # Every other word and value is still printed as often as it was.
    for word in set(kept):
        assert after.count(word) == kept.count(word) + (word == new), word


def test_corruption_keeps_every_table_rows_label() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")
    source = pymupdf.open(ACME)[3]
    output = run("corrupt_numeric_tokens", sample, word_ratio=0.3)
    result = pymupdf.open(stream=output.pdf, filetype="pdf")[3]
    rows = [t for t in output.record.edits.tokens if t.new]
    erased = [t for t in output.record.edits.tokens if not t.new]
    assert erased  # some words off the table rows are erased
    # Words of the lines printing two values or more (table rows) are never erased.
    for word in erased:
        on_line = [
            t for t in rows if min(t.bbox[3], word.bbox[3]) - max(t.bbox[1], word.bbox[1]) > 0
        ]
        assert len(on_line) < 2, (word, on_line)
    labels = [
        w[4] for w in source.get_text("words") if w[0] < 150 and 200 < w[1] < 330 and w[4].isalpha()
    ]
    assert labels and all(label in result.get_text() for label in labels)


def test_replacements_keep_size_colour_and_alignment() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")
    output = run("corrupt_numeric_tokens", sample, numeric_ratio=1.0)
    source = pymupdf.open(ACME)
    result = pymupdf.open(stream=output.pdf, filetype="pdf")
    checked = 0
    for edit in output.record.edits.tokens:
        if not edit.new or edit.page != 4:
            continue
        old = pdf_style(source[3], edit.bbox)
        hits = result[3].search_for(
            edit.new, clip=pymupdf.Rect(edit.bbox) + pymupdf.Rect(-40, -1, 40, 1)
        )
        assert hits, edit
        new = pdf_style(result[3], hits[0])
        # A longer replacement squeezed horizontally reports a slightly smaller size.
        assert new.size == pytest.approx(old.size, rel=0.06)
        assert new.colour == pytest.approx(old.colour, abs=0.01)
        assert new.baseline == pytest.approx(old.baseline, abs=0.5)
        x0, x1 = edit.bbox[0], edit.bbox[2]
        if x0 > 200 and 200 < edit.bbox[3] < 330:  # Table 1's number columns: right-aligned
            assert hits[-1].x1 == pytest.approx(x1, abs=1.0), (edit, hits)
        else:
            assert hits[0].x0 == pytest.approx(x0, abs=1.0), (edit, hits)
        checked += 1
    assert checked >= 25


def test_years_are_corrupted_when_the_question_asks_for_one(tmp_path: Path) -> None:
    document = pymupdf.open()
    page = document.new_page()
    lines = [
        "Northwind was founded in 2009 in Austin by two former engineers.",
        "Revenue reached $41.2 million last year across 310 stores.",
    ]
    for index, line in enumerate(lines):
        page.insert_text((72, 100 + 24 * index), line, fontsize=11)
    document.save(tmp_path / "history.pdf")
    sample = page_one_sample(
        tmp_path / "history.pdf", "In which year was Northwind founded?", "2009"
    )
    output = run("corrupt_numeric_tokens", sample)
    years = [t for t in output.record.edits.tokens if t.new and find_numbers(t.old)[0].years]
    assert years
    report = leak(sample, output)
    assert report.applicable and not report.leaked, report.reason
    # Years left alone, the answer (a year) has no printing to corrupt: none is rewritten.
    for ratio in (0.0, 1.0):
        with pytest.raises(NotApplicable, match="printed"):
            run("corrupt_numeric_tokens", sample, years="never", numeric_ratio=ratio)


def test_a_year_among_the_years_around_it_is_not_corrupted() -> None:
    """ "In which year ...?" (2018) of a survey printing 2016, 2017, 2018 and 2019 in one
    column: rewritten, the run of years still gives 2018 back, so the item declines."""
    sample = fixture_sample("survey_report_2019-83243d04")
    with pytest.raises(NotApplicable, match="2018 between 2016, 2017, 2019 in line with it"):
        run("corrupt_numeric_tokens", sample)


def _statement_pdf(path: Path, lines: list[str]) -> Sample:
    document = pymupdf.open()
    page = document.new_page()
    for index, line in enumerate(lines):
        page.insert_text((72, 100 + 24 * index), line, fontsize=11)
    document.save(path)
    return page_one_sample(
        path, "What was Northwind's revenue in 2019? Answer in millions of dollars.", "41.2"
    )


def test_a_gold_printed_once_becomes_an_answer_changed_item(tmp_path: Path) -> None:
    sample = _statement_pdf(
        tmp_path / "once.pdf",
        [
            "Northwind revenue in 2019 was $41.2 million, driven by the new stores.",
            "Operating costs were $17.9 million and headcount reached 310 people.",
        ],
    )
    for seed in range(6):
        # Smaller, never larger: a part grown past its whole ("advertising" above the
        # marketing it is part of) would contradict the new answer.
        new = run("corrupt_numeric_tokens", sample, seed=seed).plan.new_answer
        assert new is not None and 0.5 * 41.2 <= float(new) <= 0.8 * 41.2 + 1e-9, (seed, new)
    output = run("corrupt_numeric_tokens", sample)
    new = output.plan.new_answer
    after = page_text(output.pdf, 1)
    assert f"${new} million" in after and "41.2" not in after
    assert "Northwind revenue in 2019" in after  # the printing's label stays


def _pages_pdf(path: Path, pages: list[list[str]], question: str, answer: str) -> Sample:
    """A sample whose evidence page is the first of ``pages`` (lines of text each)."""
    document = pymupdf.open()
    for lines in pages:
        page = document.new_page()
        for index, line in enumerate(lines):
            page.insert_text((72, 100 + 24 * index), line, fontsize=11)
    document.save(path)
    return page_one_sample(path, question, answer)


def changed_or_refused(sample: Sample, gold: str, changed: bool, reason: str) -> None:
    """The corrupted ``sample`` is an answer-changed item with a new answer (``changed``),
    else not applicable for ``reason`` (a regular expression)."""
    if changed:
        assert run("corrupt_numeric_tokens", sample).plan.new_answer not in (None, gold)
        return
    with pytest.raises(NotApplicable, match=reason):
        run("corrupt_numeric_tokens", sample)


WORKING_CAPITAL = "What is the working capital in FY2015? Answer in thousands."


@pytest.mark.parametrize(("liabilities", "changed"), [("3,529,624", False), ("3,529,000", True)])
def test_an_answer_changed_item_is_refused_where_another_page_computes_the_original(
    tmp_path: Path, liabilities: str, changed: bool
) -> None:
    # A 10-K prints working capital in its selected data, and its balance sheet prints the
    # two totals it is the difference of: a new working capital is contradicted there.
    path = tmp_path / "capital.pdf"
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 100), "Selected consolidated financial data (in thousands)")
    page.insert_text((72, 124), "Working capital  1,902,216")
    sheet = document.new_page()
    sheet.insert_text((72, 100), "Consolidated balance sheets (in thousands)")
    rows = [("Total current assets", "5,431,840"), ("Total current liabilities", liabilities)]
    for index, (label, value) in enumerate(rows):
        y = 124 + 24 * index
        sheet.insert_text((72, y), label)
        # the balance sheet's column of values, right-aligned
        sheet.insert_text((400 - pymupdf.get_text_length(value, fontsize=11), y), value)
    document.save(path)
    sample = page_one_sample(path, WORKING_CAPITAL, "1902216")
    changed_or_refused(sample, "1902216", changed, "page 2: 5,431,840 - 3,529,624 = 1902216")


@pytest.mark.parametrize(("aside", "changed"), [("population 150", False), ("founded 1884", True)])
def test_an_answer_changed_item_is_refused_where_another_page_mentions_the_original(
    tmp_path: Path, aside: str, changed: bool
) -> None:
    # One of the question's words beside the old value on a page the edit left alone
    # is enough for a reader who followed the question there.
    sample = _pages_pdf(
        tmp_path / "town.pdf",
        [
            ["Census of the village", "Population in 2000:  150", "Population in 2010:  217"],
            [f"The village of Hordville ({aside}) lies north of the river."],
        ],
        "For the city where the first farmers' elevator was located, what's the population"
        " there in 2000?",
        "150",
    )
    changed_or_refused(sample, "150", changed, "page 2: '150' beside 'population'")


def test_a_gold_printed_twice_is_made_to_disagree_with_itself(tmp_path: Path) -> None:
    sample = _statement_pdf(
        tmp_path / "twice.pdf",
        [
            "Northwind revenue in 2019 was $41.2 million, driven by the new stores.",
            "Revenue (2019, $ million)            41.2",
        ],
    )
    for seed in range(6):
        output = run("corrupt_numeric_tokens", sample, seed=seed)
        assert output.plan.new_answer is None
        printed = [t.new for t in output.record.edits.tokens if t.new]
        values = {find_numbers(text)[0].value for text in printed}
        assert len(printed) == 2 and len(values) == 2, printed
        assert any("disagree" in note for note in output.record.notes)


def test_printings_made_to_disagree_are_no_counterpart_while_the_answer_can_be_worked_out(
    tmp_path: Path,
) -> None:
    # A 10-K segment table prints the year's contribution profit beside last year's and
    # the change: two misprints that disagree are settled by 936,220 + 439,280.
    sample = _pages_pdf(
        tmp_path / "profit.pdf",
        [
            [
                "Contribution profit (in thousands)",
                "Contribution profit  1,375,500  936,220  439,280",
            ],
            ["Segment results (in thousands)", "Contribution profit  1,375,500"],
        ],
        "What was the contribution profit in FY2015? Answer in thousands.",
        "1375500",
    )
    with pytest.raises(NotApplicable, match=r"settles on it .* 936,220 \+ 439,280 = 1375500"):
        run("corrupt_numeric_tokens", sample)


@needs_ocr
@pytest.mark.parametrize(("answer", "changed"), [("41", False), ("310", True)])
def test_an_answer_changed_share_read_from_a_picture_is_refused(
    tmp_path: Path, answer: str, changed: bool
) -> None:
    """A slide's pie read by OCR: the other slices' labels (white on colour) may be unread,
    and would still add up to the original, so a share is not given a new value there. A
    count on the same picture is."""
    source = pymupdf.open()
    text_page = source.new_page(width=400, height=160)
    text_page.insert_text((40, 60), "Do not go online: 41%", fontsize=20)
    text_page.insert_text((40, 110), "Adults surveyed: 310", fontsize=20)
    picture = text_page.get_pixmap(dpi=200).tobytes("png")
    document = pymupdf.open()
    document.new_page(width=400, height=160).insert_image(
        pymupdf.Rect(0, 0, 400, 160), stream=picture
    )
    path = tmp_path / "slide.pdf"
    document.save(path)
    question = (
        "What is the percentage of people who do not go online?"
        if answer == "41"
        else "How many adults were surveyed?"
    )
    sample = page_one_sample(path, question, answer)
    changed_or_refused(sample, answer, changed, "share read from a picture")


def test_an_answer_computed_from_corrupted_values_is_not_applicable(tmp_path: Path) -> None:
    sample = _statement_pdf(
        tmp_path / "derived.pdf",
        ["Revenue was $30.0 million in the first half and $11.2 million in the second."],
    )
    with pytest.raises(NotApplicable, match="new value"):
        run("corrupt_numeric_tokens", sample)


@pytest.mark.parametrize(("share", "changed"), [("27%", False), ("20%", True)])
def test_an_answer_changed_share_is_refused_while_the_other_shares_make_100(
    tmp_path: Path, share: str, changed: bool
) -> None:
    # A pie of three slices: rewrite one and the slices no longer add up, and 100 minus
    # the other two still gives the original.
    sample = _pages_pdf(
        tmp_path / "pie.pdf",
        [["Go online, no SNS  32%", f"Use SNS  {share}", "Do not go online  41%"]],
        "What is the percentage of people who do not go online?",
        "41",
    )
    changed_or_refused(sample, "41", changed, r"41 \(printed 41%\) and 27%, 32% make 100%")


@pytest.mark.parametrize(("acres", "changed"), [("344,000", False), ("352,000", True)])
def test_an_answer_changed_item_is_refused_where_another_page_gives_it_in_acres(
    tmp_path: Path, acres: str, changed: bool
) -> None:
    sample = _pages_pdf(
        tmp_path / "county.pdf",
        [
            ["Hamilton County covers approximately 538 square miles."],
            [f"Few farms drilled more than one well: the county covers {acres} acres."],
        ],
        "How many square miles does Hamilton County cover?",
        "538",
    )
    changed_or_refused(sample, "538", changed, "page 2: 344,000 acres = 538 square miles")


@pytest.mark.parametrize(("answer", "numeric"), [("Verify", False), ("4", True)])
def test_a_text_answer_is_not_corrupted(tmp_path: Path, answer: str, numeric: bool) -> None:
    # Erasing a name leaves its neighbours promoted into its place and its other namings
    # readable ("Verify" still in the figure): text answers go to the removal transforms.
    sample = _pages_pdf(
        tmp_path / "steps.pdf",
        [["The pipeline has 4 stages: Retrieve, Verify, Predict and Report.", "Step 2: Verify"]],
        "Which stage comes second?" if not numeric else "How many stages does it have?",
        answer,
    )
    if numeric:
        assert run("corrupt_numeric_tokens", sample).plan.new_answer not in (None, "4")
        return
    with pytest.raises(NotApplicable, match="'Verify' is no value"):
        run("corrupt_numeric_tokens", sample)


@needs_ocr
def test_corruption_on_an_image_only_page_is_drawn_into_the_pixels() -> None:
    sample = fixture_sample("ACME_2021_10K-aea0bc6a")
    output = run("corrupt_numeric_tokens", sample, numeric_ratio=1.0)
    assert page_text(output.pdf, 6).strip() == ""
    text = ocr_words(output.images[0])
    rewrites = [t for t in output.record.edits.tokens if t.new]
    assert len(rewrites) >= 10
    readable = sum(edit.new in text for edit in rewrites)
    assert readable >= 0.8 * len(rewrites), (readable, len(rewrites), text)
    assert "3,105.2" not in text


@pytest.mark.parametrize("name", NUMERIC)
def test_pages_without_numbers_are_not_applicable(name: str, tmp_path: Path) -> None:
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 100), "Only words on this page, and nothing to count at all.")
    page.insert_text((72, 120), "The second line says the same thing in other words.")
    path = tmp_path / "words.pdf"
    document.save(path)
    sample = Sample(
        id="words",
        source=INFO,
        question="What does the page say?",
        answer="words",
        document=DocumentRef(path=path, doc_id=path.name),
        evidence_pages=(1,),
    )
    inputs = SampleInputs(sample)
    with pytest.raises(NotApplicable, match="no"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


@pytest.mark.parametrize("name", NUMERIC)
def test_number_transforms_are_deterministic(name: str) -> None:
    sample = fixture_sample("ACME_2021_10K-fb753eb3")
    first, second = run(name, sample, seed=3), run(name, sample, seed=3)
    assert first.pdf == second.pdf and first.record.edits == second.record.edits
    other = run(name, sample, seed=4)
    assert other.record.edits != first.record.edits


# -- column_merge_ambiguity --------------------------------------------------------------


def test_merged_columns_keep_every_value_but_not_its_column() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")  # Table 1 on page 4
    output = run("column_merge_ambiguity", sample)
    after = " ".join(page_text(output.pdf, 4).split())
    rows = output.record.edits.tokens
    assert len(rows) == 7  # header + 6 body rows of Table 1
    header, body = rows[0], rows[1:]
    assert " / " in header.new and all(part in header.new for part in header.old.split(" | "))
    for row in body:
        values = row.old.split(" | ")
        assert sorted(row.new.split(" / ")) == sorted(values)
        assert row.new in after
    # The merged cell alone does not tell which value came from which column.
    orders = {tuple(r.new.split(" / ")) == tuple(r.old.split(" | ")) for r in body}
    assert orders == {True, False}
    merged = [r for r in output.record.edits.regions if r.kind == "merged_columns"]
    assert len(merged) == 1 and merged[0].detector == "text_layer+word_grid"
    # The gold's column (FY2020: 2,158.7 for Cloud Services) is one of the merged two.
    assert "FY2020" in header.new
    assert any("2,158.7" in row.new for row in body)


def _ruled_table(path: Path, picture: bool = False) -> Sample:
    """A table with a vertical rule between every two columns (vector lines, or drawn in
    a picture under the text)."""
    document = pymupdf.open()
    page = document.new_page()
    xs, top, bottom = (72, 200, 300, 400), 86, 178
    if picture:
        image = Image.new("RGB", (340 * 2, (bottom - top) * 2), "white")
        ink = np.asarray(image).copy()
        for x in xs[1:-1]:
            ink[:, (x - 72 - 12) * 2 : (x - 72 - 12) * 2 + 2] = 0
        page.insert_image(pymupdf.Rect(72, top, 412, bottom), stream=encode_png(ink))
    else:
        for x in xs[1:-1]:
            page.draw_line((x - 12, top), (x - 12, bottom), width=0.6)
    rows = [("Segment", "2019", "2020"), ("Retail", "41.2", "17.9"), ("Online", "12.5", "30.4")]
    rows += [("Stores", "63.7", "58.1"), ("Wholesale", "22.9", "27.4"), ("Other", "5.6", "8.3")]
    for y, cells in enumerate(rows):
        for x, text in zip(xs, cells, strict=False):
            page.insert_text((x, 100 + 15 * y), text, fontsize=10)
    page.draw_line((72, top), (412, top), width=0.6)
    page.draw_line((72, bottom), (412, bottom), width=0.6)
    document.save(path)
    return page_one_sample(
        path, "What was the Retail segment's revenue in 2019? Answer in millions.", "41.2"
    )


def test_the_rule_between_merged_columns_goes_and_the_others_stay(tmp_path: Path) -> None:
    sample = _ruled_table(tmp_path / "ruled.pdf")
    output = run("column_merge_ambiguity", sample)
    rows = output.record.edits.tokens
    assert any("41.2" in row.new and "17.9" in row.new for row in rows)
    with pymupdf.open(stream=output.pdf, filetype="pdf") as document:
        page = document[0]
        verticals = [d["rect"] for d in page.get_drawings() if d["rect"].width < 1]
        horizontals = [d["rect"] for d in page.get_drawings() if d["rect"].height < 1]
    assert [round(r.x0) for r in verticals] == [188]  # the labels' rule stays; 288 is gone
    assert len(horizontals) == 2  # the frame's top and bottom rules cross the gap, and stay


def test_a_rule_drawn_in_a_picture_refuses_the_merge(tmp_path: Path) -> None:
    sample = _ruled_table(tmp_path / "scanned_rules.pdf", picture=True)
    with pytest.raises(NotApplicable, match="rule printed in a picture"):
        run_transform(
            get_registry().get("column_merge_ambiguity")(), sample, SampleInputs(sample), 0
        )


def test_a_merge_needs_the_answer_in_a_table_column(tmp_path: Path) -> None:
    document = pymupdf.open()
    page = document.new_page()
    for y, cells in enumerate(
        [("Segment", "2019", "2020"), ("Retail", "41.2", "17.9"), ("Online", "12.5", "30.4")]
    ):
        for x, text in zip((72, 250, 350), cells, strict=True):
            page.insert_text((x, 100 + 18 * y), text, fontsize=10)
    page.insert_text((72, 200), "Northwind revenue was $88.8 million, up from the year before.")
    path = tmp_path / "table.pdf"
    document.save(path)
    sample = page_one_sample(path, "What was Northwind's revenue? Answer in millions.", "88.8")
    with pytest.raises(NotApplicable, match="not printed in a table column"):
        run_transform(
            get_registry().get("column_merge_ambiguity")(), sample, SampleInputs(sample), 0
        )


@needs_ocr
def test_merged_columns_on_an_image_only_page() -> None:
    sample = fixture_sample("ACME_2021_10K-aea0bc6a")  # scanned quarterly table, page 6
    output = run("column_merge_ambiguity", sample)
    assert page_text(output.pdf, 6).strip() == ""
    text = ocr_words(output.images[0])
    body = output.record.edits.tokens[1:]
    assert len(body) >= 4
    readable = sum(row.new.replace(" ", "") in text.replace(" ", "") for row in body)
    assert readable >= len(body) - 1, (text, [r.new for r in body])


def test_a_page_without_a_table_is_not_applicable() -> None:
    sample = fixture_sample("ACME_2021_10K-0943bae5")  # page 5: a chart, no table
    with pytest.raises(NotApplicable, match="no table"):
        run_transform(
            get_registry().get("column_merge_ambiguity")(), sample, SampleInputs(sample), 0
        )


# -- counterfactual_distractor_rows --------------------------------------------------------


def test_a_false_row_is_inserted_under_the_true_one_and_nothing_is_lost() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")  # Cloud Services FY2020 = 2,158.7
    before_pdf = SampleInputs(sample).document_bytes()
    output = run("counterfactual_distractor_rows", sample)
    before, after = page_text(before_pdf, 4), page_text(output.pdf, 4)
    (row,) = output.record.edits.tokens
    cells = row.new.split(" | ")
    assert cells[0] == "Cloud Services"  # the row printing the gold answer, label copied
    true_values = ["1,684.2", "2,158.7", "2,868.9", "32.9%"]
    # The amounts fall among the other segments' (positive) amounts of their year, at
    # most 50% away; the growth column's other rates (8.1-11.6%) are too far from 32.9%
    # for that, so it changes by 20-50%.
    columns = [(912.6, 4842.5), (863.5, 5196.3), (741.2, 5614.8), None]
    for old, new, column in zip(true_values, cells[1:], columns, strict=True):
        assert shape(new) == shape(old) and new != old
        value, was = find_numbers(new)[0].value, find_numbers(old)[0].value
        change = abs(value / was - 1)
        if column is None:
            assert 0.2 - 1e-3 <= change <= 0.5 + 1e-3
        else:
            assert column[0] <= value <= column[1] and 0.01 <= change <= 0.5 + 1e-3
        assert new in after
    # Every word of the page is still there exactly as often (moved text is not doubled),
    # plus the false row's.
    added = " ".join(cells).split()
    for word in set(before.split()):
        assert after.split().count(word) == before.split().count(word) + added.count(word), word
    with pymupdf.open(stream=before_pdf, filetype="pdf") as old_doc:
        old_total = old_doc[3].search_for("Total revenue")[0]
    with pymupdf.open(stream=output.pdf, filetype="pdf") as new_doc:
        page = new_doc[3]
        new_total = page.search_for("Total revenue")[0]
        assert all(page.rect.contains(pymupdf.Rect(w[:4])) for w in page.get_text("words"))
        # The false row is printed, not only in the text layer: nothing drawn after it
        # (the gap's fill, the moved rows) covers it.
        for value in cells[1:]:
            hits = page.search_for(value)
            assert hits, value
            darkest = [
                min(page.get_pixmap(dpi=144, clip=hit, colorspace=pymupdf.csGRAY).samples)
                for hit in hits
            ]
            assert min(darkest) < 100, value
    assert new_total.y0 - old_total.y0 == pytest.approx(17.0, abs=1.5)  # one row pitch


def test_relative_values_change_by_the_range_asked() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")
    output = run("counterfactual_distractor_rows", sample, values="relative")
    cells = output.record.edits.tokens[0].new.split(" | ")
    for old, new in zip(["1,684.2", "2,158.7", "2,868.9", "32.9%"], cells[1:], strict=True):
        change = abs(find_numbers(new)[0].value / find_numbers(old)[0].value - 1)
        assert 0.2 - 1e-3 <= change <= 0.5 + 1e-3


def test_the_variant_label_marks_the_false_row() -> None:
    sample = fixture_sample("ACME_2021_10K-6a8203af")
    output = run("counterfactual_distractor_rows", sample, label="variant")
    label = output.record.edits.tokens[0].new.split(" | ")[0]
    assert label.startswith("Cloud Services (") and label.endswith(")")


@needs_ocr
def test_a_false_row_on_an_image_only_page() -> None:
    sample = fixture_sample("ACME_2021_10K-aea0bc6a")
    output = run("counterfactual_distractor_rows", sample)
    assert page_text(output.pdf, 6).strip() == ""
    text = ocr_words(output.images[0])
    values = output.record.edits.tokens[0].new.split(" | ")[1:]
    assert sum(value in text for value in values) >= len(values) - 1, (values, text)
    for kept in ("3,105.2", "2,970.9", "11,642.4"):  # true rows above and below survive
        assert kept in text


def test_no_table_no_false_row() -> None:
    sample = fixture_sample("ACME_2021_10K-0943bae5")
    with pytest.raises(NotApplicable, match="no table"):
        run_transform(
            get_registry().get("counterfactual_distractor_rows")(),
            sample,
            SampleInputs(sample),
            0,
        )


@pytest.mark.parametrize(
    "name",
    [*NUMERIC, "column_merge_ambiguity", "counterfactual_distractor_rows"],
)
def test_an_image_only_page_without_ocr_is_not_applicable_and_says_why(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from abstain_build.textregions import ocr

    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract command here
    monkeypatch.setenv(ocr.BACKEND_ENV, "cli")
    ocr.reset_ocr_backend()
    try:
        sample = fixture_sample("ACME_2021_10K-aea0bc6a")  # page 6 is a scan
        with pytest.raises(NotApplicable, match=r"no words could be read.*tesseract-ocr"):
            run_transform(get_registry().get(name)(), sample, SampleInputs(sample), 0)
    finally:
        monkeypatch.undo()
        ocr.reset_ocr_backend()


def test_erasing_numbers_is_no_answer_to_a_count_of_listed_entries(tmp_path: Path) -> None:
    # Found on a shared syllabus: "How many quizzes are there in units 4, 5, and 6
    # combined?" (2) lost "Franchise 500" and kept "Quiz #2" and "Quiz #3". The row with
    # "500" beside the question's words ("units") reads as an operand row; it is none.
    path = make_pdf(
        tmp_path / "syllabus.pdf",
        [
            (
                "UNIT 4: Forms of Business Ownership\\nQuiz #2: Twenty Core Concepts\\n"
                "Research the units of the Franchise 500 list.",
                "UNIT 5: Entrepreneurship\\nUNIT 6: Management\\nQuiz #3: Core Concepts",
            )
        ],
    )
    question = "How many quizzes are there in units 4, 5, and 6 combined?"
    assert_numbers_kept(path, question, "2", "Int", "count no page prints")


def assert_numbers_kept(
    path: Path, question: str, answer: str, answer_format: str, why: str
) -> None:
    """remove_numeric_tokens refuses the page-one sample, saying ``why``."""
    sample = Sample(
        id=path.stem,
        source=INFO,
        question=question,
        answer=answer,
        answer_format=answer_format,
        document=DocumentRef(path=path, doc_id=path.name),
        evidence_pages=(1,),
    )
    with pytest.raises(NotApplicable, match=why):
        run_transform(
            get_registry().get("remove_numeric_tokens")(), sample, SampleInputs(sample), 0
        )


def test_a_listed_count_stays_countable_even_where_the_page_prints_the_number(
    tmp_path: Path,
) -> None:
    # Seen on a shared report: "How many strengths and weaknesses are mentioned in
    # Appendix C?" (['23', '21'] there; 3 and 2 here): the numbers went, every entry stayed.
    path = make_pdf(
        tmp_path / "swot.pdf",
        [
            (
                "Appendix C: 3 strengths and 2 weaknesses\nStrengths\nCustomer service\n"
                "Teamwork\nLeadership",
                "Weaknesses\nTechnology\nNon-competitive salaries",
            )
        ],
    )
    question = "How many strengths and weaknesses are mentioned in Appendix C?"
    assert_numbers_kept(path, question, "['3', '2']", "List", "counts entries")
