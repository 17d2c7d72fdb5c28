"""Table edits on a real two-column paper from ../shared/data (skipped without it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from abstain_build.loaders import open_source
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import Sample
from abstain_build.pipeline.apply import reread, run_transform
from abstain_build.transforms import NotApplicable, get_registry

#: ProgramFC, page 8: Table 2 (error types, "57%") in the left column, Table 3 (closed-book
#: F1, "- Self-Ask ... 56.82", the gold 56.8) in the right one, both at the same height.
PAPER = "2023.acl-long.386-5e47db7d"


#: A county survey, page 17: Table 3 (population by city, 1890-2000), "Source:" right
#: under it, and one vector path drawing both the page's header rule and its footer rule.
SURVEY = "698bba535087fa9a7f9009e172a7f763-0fe15829"


def paper_sample(shared_data: Path, sample_id: str = PAPER) -> Sample:
    for item in open_source(str(shared_data / "mmlongbench-doc"), None):
        if isinstance(item, Sample) and item.id == sample_id:
            return item
    pytest.skip(f"{sample_id} is not in the shared copy")


def words_left_of(pdf: bytes, x: float) -> list[tuple[str, float, float]]:
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return [
            (w[4], round(w[0], 1), round(w[1], 1))
            for w in document[7].get_text("words")
            if w[2] < x
        ]


def test_a_false_row_goes_into_the_table_naming_the_answer_and_moves_only_its_column(
    shared_data: Path,
) -> None:
    sample = paper_sample(shared_data)
    inputs = SampleInputs(sample)
    transform = get_registry().get("counterfactual_distractor_rows")()
    output = run_transform(transform, sample, inputs, run_seed=7)
    (row,) = output.record.edits.tokens
    # "57%" in Table 2 rounds 56.8 too, but nothing of the question is beside it.
    assert row.new.split(" | ")[0] == "- Self-Ask"
    assert row.bbox[0] > 300  # the right column's table
    # Table 3's rule between the labels and the values runs on through the new row.
    with pymupdf.open(stream=output.pdf, filetype="pdf") as document:
        page = document[7]
        rule = next(
            d["rect"]
            for d in page.get_drawings()
            if d["rect"].width < 2 and d["rect"].x0 > 300 and d["rect"].y0 > 240
        )
        band = pymupdf.Rect(rule.x0 - 1, row.bbox[1] + 1, rule.x0 + 1, row.bbox[3] - 1)
        pixmap = page.get_pixmap(dpi=144, clip=band, colorspace=pymupdf.csGRAY)
        pixels = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
        assert pixels.min(axis=1).max() < 200  # inked on every pixel row of the band
    # The left column (Table 2 and the text under it) is untouched, word for word.
    before = words_left_of(inputs.document_bytes(), 300)
    assert words_left_of(output.pdf, 300) == before
    # The re-read gate does not take that "57%" for the answer either: the value that
    # stays on purpose is in the edited table, and nothing else states it.
    gate = reread(transform, sample, inputs, output, "document")
    assert gate is not None and gate.passed, gate.detail


def spans_of_row(page: pymupdf.Page, label_top: float) -> list[dict]:
    return [
        span
        for block in page.get_text("dict")["blocks"]
        for line in block.get("lines", [])
        for span in line["spans"]
        if span["text"].strip() and abs(span["bbox"][1] - label_top) < 2 and span["bbox"][0] > 300
    ]


def test_a_false_row_repeats_the_true_label_as_printed_and_its_values_look_like_the_column(
    shared_data: Path,
) -> None:
    sample = paper_sample(shared_data)
    transform = get_registry().get("counterfactual_distractor_rows")()
    output = run_transform(transform, sample, SampleInputs(sample), run_seed=7)
    (row,) = output.record.edits.tokens
    label, *values = row.new.split(" | ")
    with pymupdf.open(stream=output.pdf, filetype="pdf") as document:
        page = document[7]
        true_label, false_label = sorted(page.search_for(label), key=lambda r: r.y0)
        true_row = spans_of_row(page, true_label.y0)
        false_row = spans_of_row(page, false_label.y0)
    # The label is the paper's own typewriter face, not a stand-in (Courier was lighter).
    assert false_row[0]["font"] == true_row[0]["font"]
    assert false_row[0]["size"] == pytest.approx(true_row[0]["size"])
    # Each value lies among those its column prints (macro-F1 between 45.59 and 61.05),
    # not 31.05 or 67.30 beside a column of fifties.
    true_values = [float(v) for v in ("51.54", "51.47", "52.45", "56.82")]
    for new, old in zip(values, true_values, strict=True):
        assert 45.0 < float(new) < 62.0 and float(new) != old, values


def horizontal_rules(pdf: bytes, page: int, below: float) -> list[pymupdf.Rect]:
    """Horizontal lines drawn on ``page`` (1-based) under ``below``, one box per line."""
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        return [
            pymupdf.Rect(item[1], item[2])
            for drawing in document[page - 1].get_drawings()
            for item in drawing["items"]
            if item[0] == "l" and abs(item[1].y - item[2].y) < 1 and item[1].y > below
        ]


def test_a_false_row_moves_the_footer_rule_whole_when_one_path_draws_it_and_the_header(
    shared_data: Path,
) -> None:
    sample = paper_sample(shared_data, SURVEY)
    inputs = SampleInputs(sample)
    output = run_transform(
        get_registry().get("counterfactual_distractor_rows")(), sample, inputs, run_seed=7
    )
    (row,) = output.record.edits.tokens
    assert row.page == 17 and row.new.split(" | ")[0] == "2000"
    (before,) = horizontal_rules(inputs.document_bytes(), 17, 600)
    moved = max(horizontal_rules(output.pdf, 17, 600), key=lambda r: r.y0)
    # The rule moved down with "Source:", whole: inked from end to end, and nothing of it
    # is left where it was.
    assert moved.y0 > before.y0 + 5 and round(moved.width) == round(before.width)
    with pymupdf.open(stream=output.pdf, filetype="pdf") as document:
        for y, inked in ((moved.y0, True), (before.y0, False)):
            band = pymupdf.Rect(before.x0 + 1, y - 0.5, before.x1 - 1, y + 0.5)
            pixmap = document[16].get_pixmap(dpi=144, clip=band, colorspace=pymupdf.csGRAY)
            pixels = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, -1)
            columns = (pixels.min(axis=0) < 160).mean()
            assert (columns > 0.98) if inked else (columns < 0.5), (y, columns)


def test_a_merge_is_refused_where_the_column_rule_is_one_path_with_the_tables_other_rules(
    shared_data: Path,
) -> None:
    # Table 3's rules are one filled path: the rule between Hordville and Marquette cannot
    # go alone, and merged values printed across it would be cut in two.
    sample = paper_sample(shared_data, SURVEY)
    transform = get_registry().get("column_merge_ambiguity")()
    with pytest.raises(NotApplicable, match=r"page 17: the rule between the columns .* one path"):
        run_transform(transform, sample, SampleInputs(sample), run_seed=7)


def test_a_false_row_is_no_counterpart_while_another_page_mentions_the_true_value(
    shared_data: Path,
) -> None:
    # Page 18 says "Hordville (population 150)": a reader who followed the question to
    # Hordville knows which of the two "2000" rows is true. The map calls it a mention
    # (one of the question's words), not a statement; for a kept value it tells all.
    sample = paper_sample(shared_data, SURVEY)
    inputs = SampleInputs(sample)
    transform = get_registry().get("counterfactual_distractor_rows")()
    output = run_transform(transform, sample, inputs, run_seed=7)
    gate = reread(transform, sample, inputs, output, "document")
    assert gate is not None and not gate.passed
    assert {m.page for m in gate.found} == {18}


def test_corruption_leaves_a_value_that_merely_rounds_the_answer_in_another_table(
    shared_data: Path,
) -> None:
    """Page 8 prints the gold 56.82 beside "Self-Ask" and, in the error table on its left,
    "57%": made wrong, that cell was damage to another table, and its disagreeing with the
    rewritten 56.82 was taken for a contradiction. It stays; the item is answer-changed."""
    sample = paper_sample(shared_data)
    transform = get_registry().get("corrupt_numeric_tokens")()
    output = run_transform(transform, sample, SampleInputs(sample), run_seed=7)
    assert [(t.old, t.page) for t in output.record.edits.tokens] == [("56.82", 8)]
    with pymupdf.open(stream=output.pdf, filetype="pdf") as document:
        assert "57%" in document[7].get_text()
    assert output.plan.new_answer not in (None, "56.8")
