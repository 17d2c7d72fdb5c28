"""The failure families blind readers found, each closed by a rule a test can break.

Counts survive: a blur keeps the shapes and colours of the charts a question counts or
colours, and wrong digits leave the number of tables as it was, so those transforms
decline such questions (while still taking questions about printed values).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from abstain_build.evidence.map import evidence_map
from abstain_build.media.inputs import SampleInputs
from abstain_build.media.pdf_channels import channel_texts, drop_page_channels
from abstain_build.model import Sample
from abstain_build.pipeline.apply import run_transform
from abstain_build.transforms import NotApplicable, get_registry
from abstain_build.transforms.functional.asks import counts_parts, counts_presented, graphical_ask

from .conftest import gradient_image, png_bytes
from .test_transforms_document import ACME, doc_sample

#: The shared Appota deck: image-only slides of charts and app icons.
APPOTA_DECK = "reportq32015-151009093138-lva1-app6891_95.pdf"


def prepared(pdf: Path, pages: tuple[int, ...], **fields: str) -> tuple[Sample, SampleInputs]:
    """A question on ``pdf`` with its evidence ``pages`` (``fields`` replace the sample's),
    and its inputs, validated."""
    sample = replace(doc_sample(pdf, pages), **fields)
    inputs = SampleInputs(sample)
    inputs.validate()
    return sample, inputs


# Questions of MMLongBench-Doc (its all_questions.json), and value questions beside them.
GRAPHICAL = [
    "How many pie charts are there in the paper?",
    "How many pages contain tables?",
    "How many line plots are in this report?",
    "What is the color of the bike in the picture on page 2?",
    "How many people can be found in the figures in Pages 18-19?",
    "How many times does the image of a tiger appear in the PPT?",
    "In figure 3, how many distinct icons are used?",
    "What range does red color represents in the chart?",
    "On which page is the organisation chart?",
    "How many lines are highlighted in yellow on the first page? Give me an integer.",
]
VALUES = [
    "What was ACME's total revenue in FY2021? Answer in millions.",
    "How many Hispanics believe the U.S. can learn a great deal from other countries?",
    "How many people were surveyed in 2019?",
    "How many more times did Recruiter A view profiles than Recruiter B?",
    "Where are the two plants of GODFREY PHILLIPS INDIA LIMITED located?",
    "How many employees does PWC Assurance have?",
    "Which platform in Table 1 had the largest increase in usage between 2016 and 2019?",
]
PARTS = [
    "How many tables are included in the document?",
    "How many Exhibits are mentioned in the document?",
    "How many times does mobile phone appear on pages 16 and 18?",
    "How many chapters are in this report?",
    "How many pages contain tables?",
]


@pytest.mark.parametrize("question", GRAPHICAL)
def test_questions_about_graphical_things_are_recognised(question: str) -> None:
    assert graphical_ask(question)


@pytest.mark.parametrize("question", VALUES)
def test_questions_about_printed_values_are_not_graphical(question: str) -> None:
    assert graphical_ask(question) is None
    assert counts_parts(question) is None


@pytest.mark.parametrize("question", PARTS)
def test_questions_that_count_parts_of_the_document_are_recognised(question: str) -> None:
    assert counts_parts(question)


def _plan(name: str, question: str, answer: str, pages: tuple[int, ...] = (4,)):
    sample = replace(doc_sample(ACME, pages), question=question, answer=answer)
    inputs = SampleInputs(sample)
    inputs.validate()
    return run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


@pytest.mark.parametrize("name", ["full_page_blur", "dense_mask", "blur_figure_region"])
def test_blurs_and_dense_masks_decline_questions_that_count_or_colour_charts(name: str) -> None:
    for question in ("How many bar charts does page 4 show?", "What colour is the Cloud bar?"):
        with pytest.raises(NotApplicable, match=r"graphical things|colour"):
            _plan(name, question, "2")
    # A printed value on the same page is still theirs to take away.
    output = _plan(name, "What was ACME's total revenue in FY2021?", "11642.4")
    assert output.pdf is not None


def test_number_corruption_declines_counts_and_still_corrupts_values() -> None:
    with pytest.raises(NotApplicable, match="count"):
        _plan("corrupt_numeric_tokens", "How many tables are included in the document?", "4")
    output = _plan("corrupt_numeric_tokens", "What was ACME's total revenue in FY2021?", "11642.4")
    assert output.record.edits.tokens


PRESENTED = [  # real MMLongBench-Doc questions: counts of what the pages show
    "How many instances of Lufthansa's official website are presented?",
    'How many QR codes are shown in the "Academics and Related Resources" part of this guidebook?',
    "How many different twitter accounts are shown in slide?",
    "How many GPT-4V examples are listed in the paper?",
]
PRINTED_COUNTS = [  # counts a page prints: corruption can take them
    "How many days of rapid hardening cement are needed for the first structural member"
    " shown in the slides?",
    "How many data centers does the China's largest cloud provider have?",
    "How many employees does PWC Assurance have?",
]


def test_number_corruption_declines_a_count_of_what_the_pages_present() -> None:
    """A reader counted four screenshots of a website through corrupted digits: the count
    of what pages present is the reader's, printed nowhere."""
    for question in PRESENTED:
        assert counts_presented(question), question
        with pytest.raises(NotApplicable, match="count"):
            _plan("corrupt_numeric_tokens", question, "4")
    for question in PRINTED_COUNTS:
        assert counts_presented(question) is None, question


# -- channels nobody re-read: structure tree, outlines, annotations -------------------------


def tagged_report(path: Path) -> Path:
    """Three pages; page 2 states revenue, and the structure tree, an outline entry and a
    note annotation of page 2 say it again."""
    pdf = pymupdf.open()
    for number in range(1, 4):
        page = pdf.new_page()
        page.insert_text((72, 90), f"Annual report, page {number}.", fontsize=12)
        if number == 2:
            page.insert_text((72, 140), "Total revenue was $8,831 million in 2020.", fontsize=12)
            page.add_text_annot((300, 300), "Reviewer: revenue 8,831 million")
    root, heading, other = pdf.get_new_xref(), pdf.get_new_xref(), pdf.get_new_xref()
    pdf.update_object(root, f"<< /Type /StructTreeRoot /K [{heading} 0 R {other} 0 R] >>")
    pdf.update_object(
        heading,
        f"<< /Type /StructElem /S /H1 /P {root} 0 R /Pg {pdf[1].xref} 0 R"
        " /ActualText (Revenue reached 8,831 million in 2020) >>",
    )
    pdf.update_object(
        other,
        f"<< /Type /StructElem /S /Figure /P {root} 0 R /Pg {pdf[2].xref} 0 R"
        " /Alt (A photo of the head office) >>",
    )
    pdf.xref_set_key(pdf.pdf_catalog(), "StructTreeRoot", f"{root} 0 R")
    pdf.set_toc([[1, "Overview", 1], [1, "Revenue of 8,831 million", 2], [2, "Notes", 3]])
    pdf.save(path)
    return path


def test_every_channel_of_a_page_is_read(tmp_path: Path) -> None:
    with pymupdf.open(tagged_report(tmp_path / "tagged.pdf")) as pdf:
        texts = channel_texts(pdf, [2])
    said = {(t.channel, t.text) for t in texts}
    assert ("structure", "Revenue reached 8,831 million in 2020") in said
    assert ("outline", "Revenue of 8,831 million") in said
    assert ("annotation", "Reviewer: revenue 8,831 million") in said
    assert all(t.page == 2 for t in texts)


def test_an_edited_page_drops_its_channels_and_the_others_keep_theirs(tmp_path: Path) -> None:
    with pymupdf.open(tagged_report(tmp_path / "tagged.pdf")) as pdf:
        notes = drop_page_channels(pdf, [2])
        assert channel_texts(pdf, [2]) == []
        kept = channel_texts(pdf, [1, 3])
        assert ("structure", "A photo of the head office") in {(t.channel, t.text) for t in kept}
        assert [entry[1:3] for entry in pdf.get_toc()] == [["Overview", 1], ["Notes", 3]]
    assert any("structure tree" in n for n in notes) and any("outline" in n for n in notes)


def test_a_hidden_page_leaves_nothing_in_the_structure_tree(tmp_path: Path) -> None:
    source = tagged_report(tmp_path / "tagged.pdf")
    sample = replace(
        doc_sample(source, (2,)), question="What was total revenue in 2020?", answer="8831"
    )
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, run_seed=0)
    with pymupdf.open(stream=output.pdf, filetype="pdf") as shipped:
        assert not [t for t in channel_texts(shipped, range(1, 4)) if "8,831" in t.text]


def guidebook(path: Path, inline_properties: bool = False) -> Path:
    """Two pages whose figures an application marked as property lists: page 2's list
    carries XMP metadata (with the figure's thumbnail), and the page a thumbnail of
    itself and the application's private copy of its artwork. Page 1 has the same."""
    pdf = pymupdf.open()
    for number in (1, 2):
        page = pdf.new_page()
        page.insert_text((72, 90), f"Gestures, page {number}.", fontsize=12)
        xmp = pdf.get_new_xref()
        pdf.update_object(xmp, "<< /Type /Metadata /Subtype /XML >>")
        pdf.update_stream(xmp, b"<x:xmpmeta><xmpGImg:image>/9j/4AAQ</xmpGImg:image></x:xmpmeta>")
        thumb = pdf.get_new_xref()
        pdf.update_object(
            thumb, "<< /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 >>"
        )
        pdf.update_stream(thumb, b"\x80")
        figure = f"<< /Metadata {xmp} 0 R >>"
        kind, value = pdf.xref_get_key(page.xref, "Resources")
        resources = int(value.split()[0]) if kind == "xref" else page.xref
        key = "Properties" if kind == "xref" else "Resources/Properties"
        if inline_properties:
            pdf.xref_set_key(resources, key, f"<< /MC0 {figure} >>")
        else:
            mc = pdf.get_new_xref()
            pdf.update_object(mc, figure)
            pdf.xref_set_key(resources, key, f"<< /MC0 {mc} 0 R >>")
        pdf.xref_set_key(page.xref, "Thumb", f"{thumb} 0 R")
        pdf.xref_set_key(page.xref, "PieceInfo", "<< /Illustrator << /Private 1 >> >>")
    pdf.save(path)
    return path


def _private(pdf: pymupdf.Document, number: int) -> list[str]:
    """The private keys left on page ``number`` and its property list MC0."""
    page = pdf[number - 1]
    left = [k for k in ("Thumb", "PieceInfo") if pdf.xref_get_key(page.xref, k)[0] != "null"]
    kind, value = pdf.xref_get_key(page.xref, "Resources/Properties/MC0")
    holder = (int(value.split()[0]), "Metadata") if kind == "xref" else None
    if holder is None:
        kind = pdf.xref_get_key(page.xref, "Resources/Properties/MC0/Metadata")[0]
    else:
        kind = pdf.xref_get_key(*holder)[0]
    return [*left, "MC0 Metadata"] if kind != "null" else left


@pytest.mark.parametrize("inline", [False, True])
def test_an_edited_page_drops_its_thumbnails_metadata_and_private_data(
    tmp_path: Path, inline: bool
) -> None:
    """A held-out reader of a hidden guidebook figure counted it from the XMP thumbnail
    in the property list of the marked content that had drawn it."""
    with pymupdf.open(guidebook(tmp_path / "guide.pdf", inline)) as pdf:
        assert _private(pdf, 2) == ["Thumb", "PieceInfo", "MC0 Metadata"]
        notes = drop_page_channels(pdf, [2])
        assert _private(pdf, 2) == []
        assert _private(pdf, 1) == ["Thumb", "PieceInfo", "MC0 Metadata"]
    assert any("thumbnail(s), metadata or private data" in note for note in notes)


def court_opinion(path: Path) -> Path:
    """An opinion dated on its first page, its creation date and its XMP the same day."""
    pdf = pymupdf.open()
    for number in (1, 2):
        page = pdf.new_page()
        page.insert_text((72, 90), f"Opinion of the Court, page {number}.", fontsize=12)
    pdf[0].insert_text((72, 140), "Decided January 5, 2022.", fontsize=12)
    pdf.set_metadata(
        {"title": "Cowen v. Secretary", "producer": "iText", "creationDate": "D:20220105090848"}
    )
    pdf.set_xml_metadata(
        "<x:xmpmeta><xmp:ModifyDate>2022-01-05T12:00:10-05:00</xmp:ModifyDate></x:xmpmeta>"
    )
    pdf.save(path)
    return path


def test_an_evidence_edit_clears_the_metadata_that_states_the_answer(tmp_path: Path) -> None:
    """ "What is the date of the document?" with the dated first page hidden: a held-out
    reader gave 2022-01-05 from the PDF's creation date. Fields that do not state the
    answer stay."""
    source = court_opinion(tmp_path / "opinion.pdf")
    sample, inputs = prepared(
        source, (1,), question="What is the date of the document?", answer="2022-01-05"
    )
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    with pymupdf.open(stream=output.pdf, filetype="pdf") as shipped:
        assert shipped.metadata["creationDate"] == ""
        assert shipped.metadata["title"] == "Cowen v. Secretary"
        assert "2022" not in (shipped.get_xml_metadata() or "")
    assert any("creationDate" in note for note in output.record.notes)


def test_the_gate_reads_a_structure_tree_left_behind(tmp_path: Path) -> None:
    """An edit that erased the page's text but not its tagged copy is caught."""
    from abstain_build.evidence.gate import read_changed_page

    with pymupdf.open(tagged_report(tmp_path / "tagged.pdf")) as pdf:
        page = pdf[1]
        page.add_redact_annot(page.rect)
        page.apply_redactions()
        readings = read_changed_page(pdf, 2, None, set(), 72, 10**8)
    by_channel = {r.channel: r.text for r in readings.readings}
    assert "8,831" in by_channel["structure"] and "8,831" in by_channel["outline"]
    assert "8,831" not in by_channel.get("text_layer", "")


def test_a_statement_in_the_structure_tree_is_a_leak(tmp_path: Path) -> None:
    from abstain_build.evidence.anchors import question_anchors
    from abstain_build.evidence.forms import gold_items
    from abstain_build.evidence.gate import read_changed_page
    from abstain_build.evidence.statements import STATEMENT, page_mentions

    question = "What was total revenue in 2020?"
    with pymupdf.open(tagged_report(tmp_path / "tagged.pdf")) as pdf:
        page = pdf[1]
        page.add_redact_annot(page.rect)
        page.apply_redactions()
        readings = read_changed_page(pdf, 2, None, set(), 72, 10**8)
    mentions = page_mentions(
        readings.readings, gold_items("8831", "Int"), question_anchors(question), question, (), True
    )
    assert {m.channel for m in mentions if m.status == STATEMENT} >= {"structure"}


@pytest.mark.parametrize(
    "name", ["remove_visual_element", "full_page_blur", "dense_mask", "blur_figure_region"]
)
def test_masks_and_blurs_decline_a_count_the_reader_makes_and_keep_a_count_the_page_prints(
    name: str,
) -> None:
    """0 of 10 masked counting items were unanswerable: masks over some of the counted
    things leave the rest to count. Held-out readers counted 4 of 4 such counts under a
    whole-page blur too: a table's rows (deblurred and fitted, 42 operations), a list's
    entries, slides. A printed count is a value like any other, and the times a word is
    mentioned stay (a blur hides the words)."""
    with pytest.raises(NotApplicable, match="reader counts"):
        _plan(name, "How many segments had revenue above US$3,000 million in FY2021?", "2")
    survey = ACME.parent / "survey_report_2019.pdf"
    sample = replace(
        doc_sample(survey, (5,)),
        question="In total, how many adults were interviewed across the four survey years?",
        answer="7026",
    )
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)
    assert output.pdf is not None and output.record.edits.regions


# -- recomputation: a total from the rows left beside it ------------------------------------


def test_a_total_masked_beside_its_rows_is_derived_and_fails_the_gate() -> None:
    """Readers added the yearly counts of the methodology table with its total masked
    (1,520 + 2,002 + 2,002 + 1,502 = 7,026): an edit that takes the total and leaves its
    rows has not taken the answer away."""
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items
    from abstain_build.textregions.pages import text_layer_words

    survey = ACME.parent / "survey_report_2019.pdf"
    with pymupdf.open(survey) as pdf:
        words = [w for w in text_layer_words(pdf[4]) if w.text != "7,026"]
        other = text_layer_words(pdf[0])
    found = reading_derivations(5, "text_layer", words, gold_items("7026", "Int"), False)
    assert [d.rule for d in found] == ["column sum"]
    assert found[0].how == "1,520 + 2,002 + 2,002 + 1,502 = 7026"
    # Not chance: the same rules on a page without the table find nothing.
    assert reading_derivations(1, "text_layer", other, gold_items("7026", "Int"), False) == []


def _words(*rows: str) -> list:
    from abstain_build.textregions.words import Word

    out = []
    for y, row in enumerate(rows):
        x = 0.0
        for text in row.split():
            out.append(Word(text, (x, 20.0 * y, x + 40.0, 20.0 * y + 10.0), source="text_layer"))
            x += 60.0
    return out


def test_a_pie_slice_is_what_the_others_leave_of_100_percent() -> None:
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items

    figure = _words("Use SNS 27%", "Go online, no SNS 32%", "Do not go online")
    found = reading_derivations(6, "ocr_figure", figure, gold_items("41%", "Str"), True)
    assert [d.rule for d in found] == ["complement"]
    # Small numbers are the sum of something anywhere: no sum claims a two-digit gold.
    rows = _words("Units 10 14", "Quizzes 16 12")
    assert reading_derivations(1, "text_layer", rows, gold_items("26", "Int"), False) == []


def test_a_statement_line_is_what_the_other_lines_leave_of_the_one_above(
    shared_data: Path,
) -> None:
    """A reader gave Netflix's 2015 technology and development expense with that line
    blurred off the income statement: revenues less the cost lines and operating income
    left standing (6,779,511 - 4,591,476 - 824,092 - 407,329 - 305,826 = 650,788)."""
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items
    from abstain_build.textregions.pages import text_layer_words

    pdf = shared_data / "mmlongbench-doc" / "documents" / "NETFLIX_2015_10K.pdf"
    with pymupdf.open(pdf) as document:
        statement = text_layer_words(document[39])
        other = text_layer_words(document[41])
    gold = gold_items("650788.00", "Float")
    erased = [w for w in statement if w.text != "650,788"]
    found = reading_derivations(40, "text_layer", erased, gold, False)
    assert [d.rule for d in found] == ["column remainder"]
    assert found[0].how.startswith("6,779,511 - 4,591,476 - 824,092 - 407,329 - 305,826")
    # With the line printed the column no longer leaves the gold; elsewhere, no chance hit.
    assert not reading_derivations(40, "text_layer", statement, gold, False)
    assert not reading_derivations(42, "text_layer", other, gold, False)


def test_a_total_masked_above_its_deductions_is_derived_from_the_column() -> None:
    """A reader gave total revenue as the segments' FY2021 revenue less the intersegment
    eliminations left unmasked (5,614.8 + 3,652.1 + 2,868.9 + 741.2 - 1,234.6): a value in
    parentheses counts less in a column's sum."""
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items
    from abstain_build.textregions.pages import text_layer_words

    with pymupdf.open(ACME) as pdf:
        words = [w for w in text_layer_words(pdf[3]) if w.text != "11,642.4"]
    found = reading_derivations(4, "text_layer", words, gold_items("11642.4", "Float"), False)
    assert [d.rule for d in found] == ["column sum"]
    assert found[0].how.endswith("(1,234.6) = 11642.4")
    # A deduction is never an addend outside a column: no row sum or difference uses it.
    row = _words("Eliminations 5,614.8 (1,234.6) 6,849.4")
    assert not reading_derivations(1, "text_layer", row, gold_items("4380.2", "Float"), False)


def test_a_remainder_needs_a_gold_too_large_for_chance() -> None:
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items

    column = _words("Total 9,000", "Cost 4,000", "Other 1,000")
    assert not reading_derivations(1, "text_layer", column, gold_items("4000", "Int"), False)
    column = _words("Total 90,000", "Cost 40,000", "Other 10,000")
    found = reading_derivations(1, "text_layer", column, gold_items("40000", "Int"), False)
    assert "column remainder" in {d.rule for d in found}


def test_the_gate_fails_an_item_whose_total_the_rows_still_give() -> None:
    """End to end on the fixture's methodology table: the total cell redacted (text layer
    and pixels), its rows left."""
    from abstain_build.evidence.gate import reread_gate
    from abstain_build.evidence.map import evidence_map
    from abstain_build.evidence.policy import REMOVE
    from abstain_build.media.pdf import save_pdf

    survey = ACME.parent / "survey_report_2019.pdf"
    question = "In total, how many adults were interviewed across the four survey years?"
    sample = replace(doc_sample(survey, (5,)), question=question, answer="7026")
    inputs = SampleInputs(sample)
    inputs.validate()
    with pymupdf.open(survey) as pdf:
        page = pdf[4]
        (total,) = page.search_for("7,026")
        page.add_redact_annot(total, fill=(0, 0, 0))
        page.apply_redactions()
        shipped = save_pdf(pdf)
    record = {"edits": {"regions": [{"bbox": list(total), "kind": "mask", "page": 5}]}}
    emap = evidence_map(sample, inputs)
    gate = reread_gate(emap, shipped, {}, record, REMOVE, question, (), "document", 144, 10**8)
    assert not gate.found  # the total itself is gone...
    assert not gate.passed and [d.rule for d in gate.derived] == ["column sum"]
    assert "derived: page 5 (column sum): 1,520 + 2,002 + 2,002 + 1,502" in gate.reason()
    assert gate.to_json()["derived"][0]["how"].endswith("= 7026")


# -- captions: the document's own authority, never over a figure the question names --------


@pytest.mark.parametrize(
    "question",
    [
        "According to Figure 1, what percentage of adults ages 65 and older used social media?",
        "Which platform in Table 1 had the largest increase in usage between 2016 and 2019?",
    ],
)
def test_no_caption_for_a_question_that_asks_what_one_figure_shows(question: str) -> None:
    with pytest.raises(NotApplicable):
        _plan("contradictory_caption", question, "40%")


def test_a_caption_cites_a_revision_of_the_document_itself() -> None:
    output = _plan("contradictory_caption", "What was ACME's total revenue in FY2021?", "11642.4")
    note = output.question.split("?", 1)[1]
    assert re.search(r"later revision of this report|this report's (erratum|corrected)", note)


def test_a_masked_name_takes_its_sentence_with_it() -> None:
    """A name masked word by word leaves the sentence around it to fill the blank in."""
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    question = "Which segment designs grid-scale battery storage systems?"
    sample = replace(doc_sample(ACME, (3,)), question=question, answer="Energy Solutions")
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
    described = [m for m in evidence_map(sample, inputs).evidence(3) if m.anchored(2)]
    assert described
    for statement in described:
        width = statement.row[2] - statement.row[0]
        assert width > 2 * (statement.span[2] - statement.span[0])  # more than the name
        assert covered(statement.row, masks) and covered(statement.local(), masks)


def test_a_name_printed_among_others_is_masked_with_its_row() -> None:
    """A reader answered "which news appear in both lists" from the one name both slides
    still printed ("Bluebird awar", half under a mask): a masked page leaves no printing of
    a name answer, candidates among others included."""
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    question = "Which segment had the largest revenue in FY2021?"
    sample = replace(doc_sample(ACME, (4,)), question=question, answer="Industrial Products")
    inputs = SampleInputs(sample)
    inputs.validate()
    evidence = evidence_map(sample, inputs).evidence(4)
    printed = [m for m in evidence if m.status == "candidate"]
    assert printed and all(not m.anchored(2) for m in printed)
    # The rows comparing the candidates are operands: their values go too.
    values = [box for m in evidence if m.status == "operand" for box in m.boxes]
    assert values
    for seed in range(3):
        output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, seed)
        masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
        assert all(covered(m.row, masks) and covered(m.local(), masks) for m in printed)
        assert all(covered(box, masks) for box in values)


def test_a_selection_is_made_from_the_candidates_values_and_the_chart_that_draws_them() -> None:
    """Readers named the segments above $3,000 million from a table no edit touched and
    ranked the unlabelled bars of the chart on the next page: the values a selection
    compares are its operands, wherever a candidate is printed with them, and a chart on
    a page naming a candidate is taken whole."""
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    question = "Which segments had revenue above US$3,000 million in FY2021?"
    answer = "['Industrial Products', 'Consumer Devices']"
    sample = replace(doc_sample(ACME, (4,)), question=question, answer=answer, answer_format="List")
    inputs = SampleInputs(sample)
    inputs.validate()
    emap = evidence_map(sample, inputs)
    rows = " | ".join(m.printed for m in emap.operands if m.page == 4)
    for value in ("5,614.8", "3,652.1", "2,868.9", "741.2"):  # every segment, not the winners'
        assert value in rows
    (chart,) = [m for m in emap.operands if m.page == 5]
    assert chart.figure is not None
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masks = {
        page: [r.bbox for r in output.record.edits.regions if r.kind == "mask" and r.page == page]
        for page in (4, 5)
    }
    assert covered(chart.figure, masks[5])
    assert all(covered(box, masks[4]) for m in emap.operands if m.page == 4 for box in m.boxes)


def test_a_chart_that_draws_a_stated_value_is_taken_with_the_table_that_prints_it() -> None:
    """Three readers measured the FY2020 Cloud Services bar of Figure 1 against its
    gridlines (2,147, 2,150, 2,155 for 2,158.7) with Table 1 on the page before masked,
    blurred or erased: a chart naming the question's series is evidence, whole."""
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    question = (
        "What was the revenue of ACME's Cloud Services segment in FY2020? Answer in millions"
        " of US dollars."
    )
    sample = replace(doc_sample(ACME, (4,)), question=question, answer="2158.7")
    inputs = SampleInputs(sample)
    inputs.validate()
    emap = evidence_map(sample, inputs)
    (chart,) = [m for m in emap.operands if m.page == 5]
    assert chart.figure is not None and chart.form == "chart"
    for name in ("dense_mask", "remove_visual_element"):
        output = run_transform(get_registry().get(name)(), sample, inputs, 0)
        masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask" and r.page == 5]
        assert covered(chart.figure, masks), name


def test_a_blur_declines_a_selection_its_chart_still_ranks() -> None:
    """A reader read the segments above $3,000 million off the blurred bars against the
    gridlines beside them: a name picked by comparing charted values is no blur's item."""
    question = "Which segments had revenue above US$3,000 million in FY2021?"
    answer = "['Industrial Products', 'Consumer Devices']"
    sample = replace(doc_sample(ACME, (5,)), question=question, answer=answer, answer_format="List")
    inputs = SampleInputs(sample)
    inputs.validate()
    with pytest.raises(NotApplicable, match="compares values a chart on page 5 draws"):
        run_transform(get_registry().get("blur_figure_region")(), sample, inputs, 0)


def test_a_comparison_answered_with_a_name_is_told_from_one_answered_with_a_number() -> None:
    from abstain_build.transforms.leftovers import compares_names

    assert compares_names(
        "Which segment had the lowest revenue in FY2021?", "Energy Solutions", "Str"
    )
    assert not compares_names("Which segment had the lowest revenue in FY2021?", "741.2", "Float")
    assert not compares_names("Describe the products of the Energy segment.", "turbines", "Str")


# -- what the second round of readings found --------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "How many incorrect postures of measuring blood pressure are demostrated if this guide?",
        "How many birds are illustrated on the cover?",
    ],
)
def test_a_count_of_what_a_picture_shows_is_graphical(question: str) -> None:
    assert graphical_ask(question)


def test_blurs_decline_counts_of_document_parts_but_not_of_mentions() -> None:
    """A blurred appendix leaves the table of contents listing Appendices A to E."""
    from abstain_build.transforms.functional.asks import counts_structure

    assert counts_structure("How many appendices appear in the document?")
    assert counts_structure("How many steps are needed for editing an SMS?")
    assert counts_structure("How many times does mobile phone appear on pages 16 and 18?") is None
    with pytest.raises(NotApplicable, match="parts of the document"):
        _plan("full_page_blur", "How many appendices appear in the document?", "5")


def test_a_pie_of_many_slices_still_gives_the_masked_one() -> None:
    """A day's clock chart: the other eight slices leave 21% for family and friends."""
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items

    slices = "Work 10% Sleep 6% TV 17% Sport 4% Travel 4% Eating 6% Shopping 10% Other 22%"
    figure = _words(*[" ".join(pair) for pair in zip(*[iter(slices.split())] * 2, strict=True)])
    found = reading_derivations(14, "ocr_figure", figure, gold_items("21%", "Str"), True)
    assert [d.rule for d in found] == ["complement"]
    row = _words(slices)  # the same percents on one text line are no pie
    assert reading_derivations(14, "text_layer", row, gold_items("21%", "Str"), False) == []


def test_two_pies_side_by_side_each_give_their_masked_slice() -> None:
    """The same page prints the 2005 clock beside the 2010 one: eighteen percents that add
    up to 200, each clock's labels to 100 on their own."""
    from abstain_build.evidence.derivations import reading_derivations
    from abstain_build.evidence.forms import gold_items
    from abstain_build.textregions.words import Word

    def clock(printed: str, left: float) -> list[Word]:
        percents = printed.split(" ")
        return [
            Word(
                p,
                (
                    left + 30.0 * (i % 3),
                    25.0 * (i // 3),
                    left + 30.0 * (i % 3) + 20,
                    25.0 * (i // 3) + 10,
                ),
                source="ocr",
            )
            for i, p in enumerate(percents)
        ]

    twenty_ten = "10% 6% 17% 4% 4% 6% 10% 22%"
    figure = clock("10% 5% 10% 2% 3% 5% 10% 20% 35%", 0.0) + clock(twenty_ten, 300.0)
    found = reading_derivations(14, "ocr_figure", figure, gold_items("21%", "Str"), True)
    assert [d.rule for d in found] == ["complement"]
    assert found[0].how.startswith("100% - 10% - 6% - 17%")
    # The 2005 clock's 35% is printed: nothing is left for a gold it does not complete.
    assert reading_derivations(14, "ocr_figure", figure, gold_items("30%", "Str"), True) == []


# -- restatements in other words ----------------------------------------------------------------


def test_a_restatement_in_other_words_is_a_statement_edited_and_read_again(
    tmp_path: Path,
) -> None:
    """The masked pie's slice is restated on page 1 without the question's words (a blind
    reader found "41% do not use the internet at all" for "do not go online")."""
    from abstain_build.evidence.gate import reread_gate
    from abstain_build.evidence.map import evidence_map
    from abstain_build.evidence.policy import REMOVE
    from abstain_build.media.pdf import save_pdf

    path = tmp_path / "seniors.pdf"
    with pymupdf.open() as pdf:
        first = pdf.new_page()
        first.insert_text((72, 100), "Older adults and technology use.", fontsize=11)
        # Page 2 of the shared Pew report on seniors, word for word.
        for y, line in (
            (130, "And many seniors remain largely unattached from online and mobile life: 41%"),
            (145, "do not use the internet at all, 53% do not have broadband access at home,"),
            (160, "and 23% do not own cell phones."),
        ):
            first.insert_text((72, y), line, fontsize=11)
        second = pdf.new_page()
        second.insert_text((72, 100), "Internet adoption among those 65+", fontsize=11)
        for y, line in ((140, "Do not go online 41%"), (160, "Go online, no SNS 32%")):
            second.insert_text((72, y), line, fontsize=11)
        for topic in (
            "Going online at home",
            "Social life online",
            "Online shopping",
            "Online news",
        ):
            # A report about going online prints the word on every page: a topic word
            # anchors nothing, as in the Pew report.
            extra = pdf.new_page()
            extra.insert_text((72, 100), f"{topic}: habits of older adults.", fontsize=11)
        pdf.save(path)
    question = "What is the percentage of people who do not go online?"
    sample = replace(doc_sample(path, (2,)), question=question, answer="41", answer_format="Int")
    inputs = SampleInputs(sample)
    inputs.validate()
    emap = evidence_map(sample, inputs)
    # The question's words do not reach it ("online" is on every page); its meaning does.
    (restated,) = [m for m in emap.statements() if m.page == 1]
    assert not restated.anchors
    assert any("other words" in note for note in emap.notes)
    # A removal now edits page 1 as well as the listed page.
    output = run_transform(get_registry().get("remove_numeric_tokens")(), sample, inputs, 0)
    assert {t.page for t in output.record.edits.tokens if t.old == "41%"} == {1, 2}
    with pymupdf.open(path) as pdf:
        page = pdf[1]
        for hit in page.search_for("41%"):
            page.add_redact_annot(hit, fill=(0, 0, 0))
        page.apply_redactions()
        shipped = save_pdf(pdf)
    record = {"edits": {"regions": [{"bbox": [60, 125, 200, 150], "kind": "mask", "page": 2}]}}
    gate = reread_gate(emap, shipped, {}, record, REMOVE, question, (), "document", 144, 10**8)
    assert not gate.passed
    assert [(m.page, m.status) for m in gate.found] == [(1, "statement")]


@pytest.mark.exhaustive
@pytest.mark.shared_data
def test_the_gate_reads_the_pew_reports_restatement_of_a_masked_slice(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers answered 41 from page 2 ("41% do not use the internet at all") after the
    pie on page 6 was taken away. The map's threshold misses that sentence as extracted
    (0.605); the gate's does not, so no such item is accepted. (The erasure now declines
    the pie's label anyway, a value a chart draws; the subject here is the gate.)"""
    from abstain_build.pipeline.apply import reread
    from abstain_build.transforms.builtin import remove_numeric_tokens

    monkeypatch.setattr(remove_numeric_tokens, "_drawn_answer", lambda *args: None)

    pdf = shared_data / "mmlongbench-doc" / "documents" / "PIP_Seniors-and-Tech-Use_040314.pdf"
    sample = replace(
        doc_sample(pdf, (5,)),
        question="What is the percentage of people who do not go online?",
        answer="41",
        answer_format="Int",
    )
    inputs = SampleInputs(sample)
    inputs.validate()
    transform = get_registry().get("remove_numeric_tokens")()
    output = run_transform(transform, sample, inputs, 0)
    gate = reread(transform, sample, inputs, output)
    assert not gate.passed and 2 in {m.page for m in gate.found}


@pytest.mark.shared_data
def test_a_month_asked_as_yyyy_mm_is_masked_where_the_page_prints_it_in_words(
    shared_data: Path,
) -> None:
    """A reader gave "2009-07" from the title page's "July 2009", which the mask had left:
    the map took the gold for text and found it nowhere, so the mask aimed elsewhere."""
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    pdf = shared_data / "mmlongbench-doc" / "documents" / "698bba535087fa9a7f9009e172a7f763.pdf"
    question = "What date is mentioned on the second page? Format the date as YYYY-MM"
    sample = replace(doc_sample(pdf, (3,)), question=question, answer="2009-07")
    inputs = SampleInputs(sample)
    inputs.validate()
    (stated,) = evidence_map(sample, inputs).statements()
    assert (stated.page, stated.form) == (3, "date")
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
    assert covered(stated.local(), masks)


# -- a chart's shapes rank what its erased labels said ----------------------------------------


def test_number_erasure_declines_an_answer_with_no_number() -> None:
    """Readers filled in a name erased word by word from the sentence left around it and
    what they knew (where Gestalt psychology was conceived, Florida's governor in May 2016,
    a textbook case study's title): a name is removed with its sentence or its page, by
    the transforms that do that, not erased like a number."""
    question = "Which segment had the highest revenue in FY2021?"
    for pages in ((4,), (5,)):
        with pytest.raises(NotApplicable, match="no number"):
            _plan("remove_numeric_tokens", question, "Industrial Products", pages)
    # Nor a value a chart draws, whichever page is listed: page 5's bars name the segment
    # and the revenue, and readers measured such a bar against its gridlines.
    value = "What was the revenue of Industrial Products in FY2021?"
    for pages in ((4,), (5,)):
        with pytest.raises(NotApplicable, match=r"chart on page\(s\) \[5\] draws"):
            _plan("remove_numeric_tokens", value, "5614.8", pages)


def _bar_chart_pdf(path: Path, labelled: bool) -> Path:
    """A page with a paragraph and four values: drawn as labelled bars, or as a table."""
    values = {"Alpha": "12.5", "Beta": "30.1", "Gamma": "44.6", "Delta": "8.2"}
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "Market share by product line, 2021 (percent)", fontsize=14)
    page.insert_text((72, 120), "The four product lines shared the market as follows.", fontsize=11)
    for k, (name, value) in enumerate(values.items()):
        if labelled:
            x = 120 + 90 * k
            height = 6 * float(value)
            bar = pymupdf.Rect(x, 500 - height, x + 50, 500)
            page.draw_rect(bar, color=None, fill=(0.2, 0.4, 0.8))
            page.insert_text((x + 10, 495 - height), value, fontsize=10)
            page.insert_text((x + 5, 515), name, fontsize=10)
        else:
            page.insert_text((100, 200 + 20 * k), name, fontsize=11)
            page.insert_text((300, 200 + 20 * k), value, fontsize=11)
    if labelled:
        page.draw_line((110, 500), (480, 500), color=(0, 0, 0))
    doc.save(path)
    return path


@pytest.mark.parametrize("labelled", [True, False])
def test_number_erasure_declines_a_value_a_chart_draws(tmp_path: Path, labelled: bool) -> None:
    """Erasing a bar's label leaves the bar: readers measured three erased points of a line
    chart against its gridlines and gave back an erased bar as 100 less the others. The
    same value printed in a table has no shape left once its digits go."""
    pdf = _bar_chart_pdf(tmp_path / "shares.pdf", labelled)
    question = "What was Beta's market share in 2021?"
    sample = replace(doc_sample(pdf, (1,)), question=question, answer="30.1")
    inputs = SampleInputs(sample)
    inputs.validate()
    transform = get_registry().get("remove_numeric_tokens")()
    if labelled:
        with pytest.raises(NotApplicable, match=r"'30\.1' labels a chart on page 1"):
            run_transform(transform, sample, inputs, run_seed=0)
    else:
        output = run_transform(transform, sample, inputs, run_seed=0)
        assert any(t.old == "30.1" for t in output.record.edits.tokens)


def test_masks_take_the_whole_chart_whose_label_states_the_answer(tmp_path: Path) -> None:
    """A reader read a clock chart's masked slice from its angle (75 degrees: 21%): the
    random masks had covered the label, not the slice. The chart goes whole."""
    from abstain_build.transforms.functional.evidence_edits import covered

    pdf = _bar_chart_pdf(tmp_path / "shares.pdf", labelled=True)
    sample = replace(
        doc_sample(pdf, (1,)), question="What was Beta's market share in 2021?", answer="30.1"
    )
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask"]
    # Every bar of the chart, not only Beta's label, is under one mask.
    bars = [d["rect"] for d in pymupdf.open(pdf)[0].get_drawings() if d.get("fill")]
    assert len(bars) == 4
    assert all(any(covered(tuple(bar), [mask]) for mask in masks) for bar in bars)
    assert any("chart(s) drawing the answer masked whole" in note for note in output.record.notes)


@pytest.mark.parametrize(
    ("pdf", "question", "answer", "pages", "page"),
    [
        # Figure 4's three line charts label every point; readers gave back 64.4, 62.5
        # and 62.2 from the gridlines once the labels were erased.
        (
            "2023.acl-long.386.pdf",
            "Please list the F1 scores for ProgramFC on different datasets with gold evidence"
            " in relation to Flan-T5-small, in descending order, with one decimal place.",
            "['64.3', '62.4', '62.2']",
            (7,),
            7,
        ),
        # 71% and 11% label the 65+ bars of page 4's chart; a reader measured them
        # against the other age groups' bars.
        (
            "PIP_Seniors-and-Tech-Use_040314.pdf",
            "How many 65+ age group people go online 3-5 times per week or Every day in the"
            " Pew Research Center's Internet Project July 18-September 30, 2013 tracking"
            " survey?",
            "1251",
            (4, 16),
            4,
        ),
    ],
)
def test_number_erasure_declines_real_values_a_chart_draws(
    shared_data: Path, pdf: str, question: str, answer: str, pages: tuple[int, ...], page: int
) -> None:
    path = shared_data / "mmlongbench-doc" / "documents" / pdf
    sample = replace(doc_sample(path, pages), question=question, answer=answer)
    inputs = SampleInputs(sample)
    inputs.validate()
    with pytest.raises(NotApplicable, match=f"chart|page {page} charts"):
        run_transform(get_registry().get("remove_numeric_tokens")(), sample, inputs, 0)


def test_number_erasure_still_takes_table_values_of_a_report_with_charts(
    shared_data: Path,
) -> None:
    """The same report's tables print their values in digits only: the 73 its appendix
    tables print is taken away, and a reader found it gone."""
    path = shared_data / "mmlongbench-doc" / "documents" / "PIP_Seniors-and-Tech-Use_040314.pdf"
    question = (
        "What is the gap between male 65+ age group who use internet and  broadband at home"
        " in the Pew Research Center's Internet Project July 18-September 30, 2013 tracking"
        " survey? Please write the answer into float format."
    )
    sample = replace(doc_sample(path, (16, 17)), question=question, answer="73.0")
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get("remove_numeric_tokens")(), sample, inputs, 0)
    assert any(t.old.startswith("73") for t in output.record.edits.tokens)


# -- a name wrapped under an icon, the row's other labels between -----------------------------


def _label_grid(*rows: list[str]) -> list:
    """OCR of a grid of app icons: each row of labels read as one line, left to right."""
    from abstain_build.textregions.words import Word

    out = []
    for y, row in enumerate(rows):
        for column, label in enumerate(row):
            x = 150.0 * column
            for text in label.split():
                out.append(Word(text, (x, 18.0 * y, x + 50.0, 18.0 * y + 10.0), line=y))
                x += 55.0
    return out


def test_a_name_wrapped_under_an_icon_is_found_on_its_two_lines() -> None:
    """A reader gave "UC Browser Tiếng Việt" from a slide whose labels wrap: OCR reads
    "... MobiTivi UC Browser" then "Naruto huyén thoai Tiéng Viet", so in reading order
    the name's halves have another label between them and the map found it nowhere."""
    from abstain_build.evidence.form_search import find_forms
    from abstain_build.evidence.forms import gold_items

    words = _label_grid(
        ["I am", "Lién minh", "MobiTivi", "UC Browser"],
        ["Naruto", "huyén thoai", "", "Tiéng Viet"],
    )
    (match,) = find_forms(gold_items("UC Browser Tiếng Việt", "Str"), words)
    assert [words[i].text for i in match.words()] == ["UC", "Browser", "Tiéng", "Viet"]
    # Another column's second line is no continuation.
    assert find_forms(gold_items("MobiTivi Tiếng Việt", "Str"), words) == []


def test_a_map_label_s_second_line_read_apart_is_its_continuation() -> None:
    """A held-out reader named NARL from a map whose label reads "National Atmospheric
    Research" over "Laboratory": OCR found the first line with the page's text and the
    second with the labels read apart, after every other line of the map, so the two
    were never next to each other in reading order and the map missed the page."""
    from abstain_build.evidence.form_search import find_forms
    from abstain_build.evidence.forms import gold_items
    from abstain_build.textregions.words import Word

    words = [
        Word("Antrix", (48.0, 610.0, 69.0, 617.0), block=15, line=49),
        Word("National", (345.0, 613.0, 360.0, 621.0), block=15, line=49),
        Word("Atmospheric", (363.0, 614.0, 403.0, 621.0), block=15, line=49),
        Word("Research", (409.0, 613.0, 440.0, 621.0), block=15, line=49),
        Word("ISRO", (43.0, 621.0, 66.0, 628.0), block=15, line=50),
        Word("Satelite", (69.0, 621.0, 95.0, 628.0), block=15, line=50),
        Word("Laboratory", (49.0, 632.0, 86.0, 641.0), block=15, line=51),
        Word("TIRUPATI", (322.0, 603.0, 359.0, 610.0), block=10_000, line=10_000),
        Word("Laboratory", (332.0, 624.0, 369.0, 633.0), block=10_001, line=10_001),
    ]
    (match,) = find_forms(gold_items("National Atmospheric Research Laboratory", "Str"), words)
    assert [words[i].text for i in match.words()] == [
        "National",
        "Atmospheric",
        "Research",
        "Laboratory",
    ]
    assert words[max(match.words())].bbox[0] == 332.0  # the one beneath, not the far left
    # A line beneath that shares none of the first line's width continues nothing.
    assert find_forms(gold_items("Antrix Atmospheric", "Str"), words) == []


@pytest.mark.shared_data
@pytest.mark.exhaustive  # the label grid above reproduces the slide's OCR line for line
def test_the_slide_s_wrapped_app_name_is_masked_whole(shared_data: Path) -> None:
    from abstain_build.evidence.map import evidence_map
    from abstain_build.transforms.functional.evidence_edits import covered

    pdf = shared_data / "mmlongbench-doc" / "documents" / APPOTA_DECK
    question = (
        "Which APP on APPOTA platform is top 10 Vietnam Android App, but not top 10 Vietnam"
        " iOS App?"
    )
    sample = replace(doc_sample(pdf, (29, 30)), question=question, answer="UC Browser Tiếng Việt")
    inputs = SampleInputs(sample)
    inputs.validate()
    stated = [m for m in evidence_map(sample, inputs).statements() if m.page == 30]
    assert stated and len(stated[0].boxes) == 4
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masked = [r.bbox for r in output.record.edits.regions if r.page == 30 and r.kind == "mask"]
    assert all(covered(box, masked) for box in stated[0].boxes)


def test_a_name_is_erased_as_one_blank_not_a_blank_per_word() -> None:
    """Readers rebuilt "Florida Department of Health" from four blanks of the right widths:
    the words of a text item that follow one another on a line are erased as one box (an
    answer that is only a name is declined; a list naming one with its number is not)."""
    question = "Which segment had the highest revenue in FY2021, and how much was it?"
    sample = replace(
        doc_sample(ACME, (4,)),
        question=question,
        answer="['Industrial Products', '5614.8']",
        answer_format="List",
    )
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(get_registry().get("remove_numeric_tokens")(), sample, inputs, 0)
    erased = [r.bbox for r in output.record.edits.regions if r.role == "answer"]
    page = pymupdf.open(ACME)[3]
    lines: dict[tuple[int, int], list[tuple]] = {}
    for word in page.get_text("words"):
        if word[4] in ("Industrial", "Products"):
            lines.setdefault((word[5], word[6]), []).append(word)
    # One box per line the name is printed on (the table's row, a sentence, and a sentence
    # where it wraps), holding every word of the name on that line.
    assert len(erased) == len(lines) == 4
    for printed in lines.values():
        holding = [
            box
            for box in erased
            if all(
                box[0] - 1 <= w[0] and w[2] <= box[2] + 1 and box[1] - 1 <= w[1] for w in printed
            )
        ]
        assert len(holding) == 1
    assert sum(len(printed) == 2 for printed in lines.values()) == 2


def test_hiding_pages_declines_a_count_of_the_document_s_parts() -> None:
    """A reader counted five appendices from the table of contents after the pages where
    three of them start were hidden: the document lists its parts elsewhere."""
    for question in (
        "How many appendices appear in the document?",
        "How many times does the word revenue appear in the report?",
    ):
        with pytest.raises(NotApplicable, match="counts parts of the document"):
            _plan("hide_evidence_page", question, "5")
    output = _plan("hide_evidence_page", "What was ACME's total revenue in FY2021?", "11642.4")
    assert output.pdf is not None
    # The bars of one page's chart go with the page.
    assert _plan("hide_evidence_page", "How many bars does the chart show?", "4").pdf is not None


def lines_pdf(path: Path, lines: dict[int, list[str]]) -> Path:
    """A PDF of ``lines`` (page number -> its lines), one line under another."""
    pdf = pymupdf.open()
    for number in sorted(lines):
        page = pdf.new_page()
        for row, text in enumerate(lines[number]):
            page.insert_text((72, 90 + 24 * row), text, fontsize=12)
    pdf.save(path)
    return path


def course_outline(path: Path, summary_names_quizzes: bool) -> Path:
    """Units 4 and 5 on pages 2 and 3, each with its quiz; page 4 a summary of the units,
    listing the quizzes again or not."""
    lines = {
        1: ["Course outline", "Semester 2 covers units 4 to 6."],
        2: ["Unit 4: Markets", "Reading: chapter 4.", "Quiz: supply and demand."],
        3: ["Unit 5: Money", "Reading: chapter 5.", "Quiz: interest rates."],
        4: [
            "Summary of the semester",
            "Unit 4 - reading, quiz" if summary_names_quizzes else "Unit 4 - reading",
            "Unit 5 - reading, quiz" if summary_names_quizzes else "Unit 5 - reading",
            "Unit 6 - reading, project",
        ],
    }
    return lines_pdf(path, lines)


def test_hiding_pages_declines_a_count_the_reader_makes_of_things_listed_elsewhere(
    tmp_path: Path,
) -> None:
    """A reader counted the quizzes of the hidden units from the summary table on a page
    the edit left whole."""
    question = "How many quizzes are there in units 4 and 5 combined?"
    listed = replace(
        doc_sample(course_outline(tmp_path / "listed.pdf", True), (2, 3)),
        question=question,
        answer="2",
    )
    inputs = SampleInputs(listed)
    inputs.validate()
    with pytest.raises(NotApplicable, match=r"counts 'quizzes'.*\[4\]"):
        run_transform(get_registry().get("hide_evidence_page")(), listed, inputs, run_seed=0)
    # With the summary silent about quizzes, the count goes with the hidden pages.
    silent = replace(listed, document=replace(listed.document, path=tmp_path / "silent.pdf"))
    course_outline(tmp_path / "silent.pdf", False)
    inputs = SampleInputs(silent)
    inputs.validate()
    output = run_transform(get_registry().get("hide_evidence_page")(), silent, inputs, run_seed=0)
    assert output.record.edits.pages_hidden


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("How many quizzes are there in units 4, 5, and 6 combined?", "quizzes"),
        ("How many critical thinking case studies are included in all the assignments?", "studies"),
        ("how many LEARNING OUTCOMES should be ANSWERed in UNIT 8?", "outcomes"),
        ("How many lines are highlighted in yellow on the first page?", None),
        ("How many bars does the chart show?", None),
        ("What was ACME's total revenue in FY2021?", None),
    ],
)
def test_the_counted_noun_of_a_question(question: str, counted: str | None) -> None:
    from abstain_build.transforms.functional.asks import counted_noun

    assert counted_noun(question) == counted


def county_history(path: Path) -> Path:
    """Page 2 gives the county's area in square miles; page 3 gives it in acres."""
    lines = {
        1: ["A history of the county", "Prepared for the county board."],
        2: ["Geography", "In 1882 the county covered about 538 square miles of prairie."],
        3: ["Farming", "The county only covers roughly 344,000 acres of farmland and towns."],
    }
    return lines_pdf(path, lines)


@pytest.mark.parametrize("name", ["dense_mask", "full_page_blur", "hide_evidence_page"])
def test_evidence_edits_decline_what_is_left_to_count_or_convert(name: str, tmp_path: Path) -> None:
    """Readers counted the quizzes of blurred units from a summary page, and converted a
    masked area from the acres another page prints (640 to the square mile)."""
    course = replace(
        doc_sample(course_outline(tmp_path / "course.pdf", True), (2, 3)),
        question="How many quizzes are there in units 4 and 5 combined?",
        answer="2",
    )
    county = replace(
        doc_sample(county_history(tmp_path / "county.pdf"), (2,)),
        question="How many square miles did the county cover in 1882?",
        answer="538",
    )
    counted = r"counts 'quizzes'|keeps the layout of what is counted"
    for sample, why in ((course, counted), (county, r"344,000 acres = 538")):
        inputs = SampleInputs(sample)
        inputs.validate()
        with pytest.raises(NotApplicable, match=why):
            run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


@pytest.mark.parametrize("name", ["blur_figure_region", "full_page_blur"])
def test_blurs_decline_a_comparison_a_chart_still_ranks(name: str) -> None:
    """A reader ranked a blurred bar chart's segments by the bars' lengths."""
    question = "According to Figure 1, which segment had the lowest revenue in FY2021?"
    with pytest.raises(NotApplicable, match="compares values a chart on page 5 draws"):
        _plan(name, question, "Energy Solutions", (5,))
    # A value the chart's page prints is still theirs to take away.
    assert _plan(name, "What was ACME's total revenue in FY2021?", "11642.4", (5,)).pdf


# -- shapes survive: a blurred or partly covered plot still shows its trend ------------------


@pytest.mark.parametrize(
    "name", ["blur_edge_mask", "partial_occlusion", "overlay_label_mask", "adaptive_darkness"]
)
def test_image_edits_decline_the_shape_of_a_plot(name: str) -> None:
    """Readers read "a strong positive correlation" off a blurred, veiled or barred
    scatter plot: the cloud of points still rises."""
    from .test_transforms_image import image_sample, white

    plot = white(240, 160)
    for x in range(20, 220, 12):
        y = 140 - (x - 20) * 120 // 200
        plot[y - 3 : y + 3, x - 3 : x + 3] = 0
    sample = replace(
        image_sample(plot),
        question="What kind of relationship between study time and score does <image 1> show?",
    )
    with pytest.raises(NotApplicable, match="shape of what a plot draws"):
        run_transform(get_registry().get(name)(), sample, SampleInputs(sample), run_seed=0)


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("Which of the following best explains the overall trend shown in the <image 1>?", True),
        ("Refer to the figure <image 1>. This scatterplot reveals a _______ correlation.", True),
        ("Does the line rise or fall after 2010?", True),
        ("What is the linear momentum of the cart in <image 1>?", False),
        ("What was revenue in 2020?", False),
    ],
)
def test_questions_about_the_shape_of_a_plot(question: str, shape: bool) -> None:
    from abstain_build.transforms.functional.asks import shape_ask

    assert bool(shape_ask(question)) is shape


# -- a picture left in the file: a deck's slides share one resource dictionary --------------


def shared_resources_deck(path: Path) -> Path:
    """Two slides with one resource dictionary listing both pictures; slide 1 draws the
    first (a photo), slide 2 the second (a chart)."""
    import numpy as np

    from abstain_build.media.images import encode_png

    photo = np.full((40, 60, 3), 90, np.uint8)
    chart = np.full((40, 60, 3), 200, np.uint8)
    chart[10:30, 10:20] = 0
    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_image(pymupdf.Rect(72, 72, 272, 212), stream=encode_png(photo))
    page.insert_image(pymupdf.Rect(72, 300, 272, 440), stream=encode_png(chart))
    names = [image[7] for image in sorted(page.get_images(full=True))]  # photo, chart
    kind, value = pdf.xref_get_key(page.xref, "Resources")
    if kind == "xref":
        shared = int(value.split()[0])
    else:
        shared = pdf.get_new_xref()
        pdf.update_object(shared, value)
    pdf.new_page()
    for number, name in enumerate(names):
        slide = pdf[number]
        pdf.xref_set_key(slide.xref, "Resources", f"{shared} 0 R")
        stream = pdf.get_new_xref()
        pdf.update_object(stream, "<<>>")
        drawn = f"q 200 0 0 140 72 {792 - 212} cm /{name} Do Q".encode()
        pdf.update_stream(stream, drawn)
        pdf.xref_set_key(slide.xref, "Contents", f"{stream} 0 R")
    pdf.save(path)
    return path


def test_a_picture_an_edit_took_off_its_slide_leaves_the_file(tmp_path: Path) -> None:
    """A reader extracted the clear chart of a blurred slide from the PDF: the deck's
    shared resource dictionary still listed it. It goes; the other slide's picture and
    the other slide's digest stay."""
    from abstain_build.evidence.reading import page_digest
    from abstain_build.media.pdf import save_pdf
    from abstain_build.media.pdf_channels import drop_undrawn_images, listed_images
    from abstain_build.transforms.functional.pdf_edit import blank_page

    deck = shared_resources_deck(tmp_path / "deck.pdf")
    with pymupdf.open(stream=save_pdf(pymupdf.open(deck)), filetype="pdf") as pdf:
        photo, chart = (pdf[n].get_image_info(xrefs=True)[0]["xref"] for n in (0, 1))
        assert {i[0] for i in pdf[0].get_images(full=True)} == {photo, chart}
        photo_raw, chart_raw = pdf.xref_stream_raw(photo), pdf.xref_stream_raw(chart)
        first_digest = page_digest(pdf[0])
        pictures = listed_images(pdf, [2])
        blank_page(pdf[1])
        assert {i[0] for i in pdf[0].get_images(full=True)} == {photo, chart}  # still listed
        notes = drop_undrawn_images(pdf, pictures)
        saved = save_pdf(pdf)
    assert notes == ["1 picture(s) no page draws any more removed from the file"]
    with pymupdf.open(stream=saved, filetype="pdf") as shipped:
        kept = [shipped.xref_stream_raw(x) for x in range(1, shipped.xref_length())]
        assert page_digest(shipped[0]) == first_digest  # slide 1 reads as unchanged
    assert chart_raw not in kept and photo_raw in kept


def test_a_picture_a_page_draws_unseen_stays_in_the_file(tmp_path: Path) -> None:
    """A held-out paper's scanned pages each draw one watermark, listed in an indirect
    /XObject dictionary per page; MuPDF reports no draw of it, so hiding one page took it
    off every page, through a key path PyMuPDF wrote as a placeholder string: every page of
    every counterpart failed to draw, and the document gave no item. A picture a content
    stream still calls by name is drawn."""
    from abstain_build.media.pdf import save_pdf
    from abstain_build.media.pdf_channels import drop_undrawn_images, listed_images
    from abstain_build.qc.structural import drawing_errors
    from abstain_build.transforms.functional.pdf_edit import blank_page

    pdf = pymupdf.open()
    mark = pdf.get_new_xref()
    pdf.update_object(
        mark,
        "<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray"
        " /BitsPerComponent 8 >>",
    )
    pdf.update_stream(mark, bytes(range(64)), compress=False)
    chart = pdf.get_new_xref()  # listed by both pages, drawn by the hidden one only
    pdf.update_object(chart, pdf.xref_object(mark))
    pdf.update_stream(chart, bytes(range(64, 128)), compress=False)
    unseen = b"q /G0 gs 100 0 0 100 72 600 cm /Wm Do Q"  # alpha 0: MuPDF reports nothing
    shown = b"q 100 0 0 100 72 600 cm /Wm Do Q q 100 0 0 100 72 400 cm /Ch Do Q"
    for draw in (unseen, shown):
        page = pdf.new_page()
        names = pdf.get_new_xref()
        pdf.update_object(names, f"<< /Wm {mark} 0 R /Ch {chart} 0 R >>")
        pdf.xref_set_key(
            page.xref,
            "Resources",
            f"<< /XObject {names} 0 R /ExtGState << /G0 << /ca 0 /CA 0 >> >> >>",
        )
        contents = pdf.get_new_xref()
        pdf.update_object(contents, "<<>>")
        pdf.update_stream(contents, draw)
        pdf.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    assert pdf[0].get_image_info() == []
    pictures = listed_images(pdf, [2])
    blank_page(pdf[1])
    assert drop_undrawn_images(pdf, pictures) == [
        "1 picture(s) no page draws any more removed from the file"
    ]
    with pymupdf.open(stream=save_pdf(pdf), filetype="pdf") as shipped:
        assert drawing_errors(shipped) == set()
        assert [image[7] for image in shipped[0].get_images(full=True)] == ["Wm"]
        assert b"replace me" not in shipped.tobytes()


def test_a_picture_listed_twice_with_the_same_bytes_stays_drawn(shared_data: Path) -> None:
    """The ACL paper's first figure draws one icon under two names (Im3, Im4); MuPDF names
    both draws by one of them, and the other must not be taken for a picture nobody draws:
    removing it left the figure with a hole and MuPDF with "cannot find XObject resource"."""
    from abstain_build.media.pdf import save_pdf
    from abstain_build.media.pdf_channels import drop_undrawn_images, listed_images

    paper = shared_data / "mmlongbench-doc" / "documents" / "2023.acl-long.386.pdf"
    with pymupdf.open(paper) as pdf:
        before = pdf[1].get_pixmap(dpi=36).samples
        assert drop_undrawn_images(pdf, listed_images(pdf, [2])) == []
        saved = save_pdf(pdf)
    pymupdf.TOOLS.reset_mupdf_warnings()
    with pymupdf.open(stream=saved, filetype="pdf") as shipped:
        assert shipped[1].get_pixmap(dpi=36).samples == before
    assert "cannot find" not in pymupdf.TOOLS.mupdf_warnings()


# -- the page the question names, left whole ------------------------------------------------


@pytest.mark.parametrize("name", ["hide_evidence_page", "dense_mask", "remove_numeric_tokens"])
def test_evidence_edits_decline_when_the_named_page_stays(name: str) -> None:
    """ "How many cats are there in the images on page 1?" was listed with evidence page
    4; the edit hid page 4 and a reader counted the cover's photos."""
    question = "What was ACME's total revenue in FY2021 on page 3?"
    with pytest.raises(NotApplicable, match=r"names page\(s\) \[3\], which the edit leaves"):
        _plan(name, question, "11642.4", (4,))
    # Named and edited: the page is the edit's.
    assert _plan(name, "What was ACME's total revenue in FY2021 on page 4?", "11642.4", (4,)).pdf


@pytest.mark.parametrize(
    ("question", "pages"),
    [
        ("How many cats are there in the images on page 1?", {1}),
        ("How many people can be found in the figures in Pages 18-19?", {18, 19}),
        ("What is the name of the governor mentioned on the first page?", {1}),
        ("What does the cover show?", {1}),
        ("What is the Email address in this document on the second cover page?", set()),
        ("Which products does the segment cover?", set()),
        ("How many pages contain tables?", set()),
    ],
)
def test_the_pages_a_question_names(question: str, pages: set[int]) -> None:
    from abstain_build.transforms.functional.asks import named_pages

    assert named_pages(question) == pages


def filing(path: Path, cover: list[str]) -> Path:
    """A two-page annual report: ``cover`` on page 1, the advertising note on page 2."""
    note = ["Note 1. Advertising", "Advertising expenses were $714.3 million in 2015."]
    return lines_pdf(path, {1: cover, 2: note})


EVIDENCE_EDITS = (
    "blur_figure_region",
    "dense_mask",
    "full_page_blur",
    "hide_evidence_page",
    "remove_numeric_tokens",
    "remove_visual_element",
)


@pytest.mark.parametrize("name", EVIDENCE_EDITS)
def test_evidence_edits_decline_a_public_sec_filing(name: str, tmp_path: Path) -> None:
    """Readers answered 28 of 31 evidence edits of the shared Netflix and Amazon 10-Ks, from
    memory of the filing or from another of its statements: a filing with the Commission is
    on public record, so no edit of its pages takes its figures away."""
    question, answer = "What were advertising expenses in 2015? Answer in millions.", "714.3"
    sec = ["UNITED STATES", "SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549"]
    public = filing(tmp_path / "public.pdf", [*sec, "FORM 10-K", "Netflix, Inc."])
    sample = replace(doc_sample(public, (2,)), question=question, answer=answer)
    with pytest.raises(NotApplicable, match=r"public SEC filing \(Form 10-K\)"):
        run_transform(get_registry().get(name)(), sample, SampleInputs(sample), run_seed=0)
    # A company's own annual report styled as a 10-K is no filing on record: edited.
    private = filing(tmp_path / "own.pdf", ["ACME Corporation", "Annual Report, Form 10-K"])
    sample = replace(doc_sample(private, (2,)), question=question, answer=answer)
    output = run_transform(get_registry().get(name)(), sample, SampleInputs(sample), run_seed=0)
    assert output.pdf is not None


@pytest.mark.parametrize("name", EVIDENCE_EDITS)
def test_evidence_edits_decline_a_listed_company_s_results_release(
    name: str, tmp_path: Path
) -> None:
    """Of 12 evidence edits of four held-out results releases (FinanceBench's J&J, Ulta,
    Amcor, MGM), readers answered or came back with the asked facts 8 times: from memory
    of the quarter's results or from the headline, table or reconciliation that restated
    what the edit took. A release is filed with the SEC like a 10-K."""
    question = "What was Acme's full year 2022 adjusted EBITDA? Answer in millions."
    headline = [
        "Acme Corp Reports Fourth Quarter and Full Year 2022 Results",
        "SPRINGFIELD, Feb. 8, 2023 -- Acme Corp (NYSE: ACME) today reported",
        "diluted earnings per share of $1.23 for the fourth quarter.",
    ]
    table = ["Reconciliation of adjusted EBITDA", "Adjusted EBITDA for 2022 was $2,018 million."]
    release = lines_pdf(tmp_path / "release.pdf", {1: headline, 2: table})
    sample = replace(doc_sample(release, (2,)), question=question, answer="2018")
    with pytest.raises(NotApplicable, match=r"results release"):
        run_transform(get_registry().get(name)(), sample, SampleInputs(sample), run_seed=0)
    # A report that names results but prints no earnings per share is no release: edited.
    report = lines_pdf(
        tmp_path / "report.pdf",
        {1: ["Acme Foundation reports its 2022 results to its members"], 2: table},
    )
    sample = replace(doc_sample(report, (2,)), question=question, answer="2018")
    output = run_transform(get_registry().get(name)(), sample, SampleInputs(sample), run_seed=0)
    assert output.pdf is not None


def test_a_corruption_of_a_public_filing_is_still_made(tmp_path: Path) -> None:
    """An answer-changed item of a filing is its point: a reader who recalls the old figure
    reads the new one against it (SPEC 7), so number corruption keeps filings."""
    sec = ["SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K"]
    public = filing(tmp_path / "public.pdf", sec)
    sample = replace(
        doc_sample(public, (2,)), question="What were advertising expenses in 2015?", answer="714.3"
    )
    transform = get_registry().get("corrupt_numeric_tokens")()
    output = run_transform(transform, sample, SampleInputs(sample), run_seed=0)
    assert output.record.edits.tokens


def test_a_corruption_of_a_public_filing_that_only_contradicts_is_declined(
    tmp_path: Path,
) -> None:
    """Two printings of a 10-K's total corrupted to two values: a held-out reader summed the
    52 state counts of its store table to the original. A contradiction settles nothing in
    a filing whose other tables rebuild the figure; an answer-changed item (above) stays."""
    sec = ["SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K"]
    note = ["Note 1. Advertising", "Advertising expenses were $714.3 million in 2015."]
    again = ["Selected data", "Advertising expenses in 2015: $714.3 million."]
    public = lines_pdf(tmp_path / "public.pdf", {1: sec, 2: note, 3: again})
    sample = replace(
        doc_sample(public, (2, 3)),
        question="What were advertising expenses in 2015?",
        answer="714.3",
    )
    transform = get_registry().get("corrupt_numeric_tokens")()
    outcomes = set()
    for seed in range(6):
        try:
            output = run_transform(transform, sample, SampleInputs(sample), run_seed=seed)
        except NotApplicable as declined:
            assert "printings that disagree or are erased settle nothing" in str(declined)
            outcomes.add("declined")
        else:
            assert output.record.edits.tokens
            outcomes.add("changed")
    assert "declined" in outcomes


def test_an_edit_that_leaves_a_page_drawing_a_missing_picture_fails_its_checks(
    tmp_path: Path,
) -> None:
    """A picture taken out of a resource dictionary while a page still draws it leaves a
    hole in a figure the edit never meant to touch; the structural checks catch it."""
    from abstain_build.qc.structural import structural_checks

    pdf = pymupdf.open()
    page = pdf.new_page()
    page.insert_text((72, 90), "Figure 1: the icon", fontsize=12)
    page.insert_image(pymupdf.Rect(72, 100, 172, 200), stream=png_bytes(gradient_image()))
    pdf.save(tmp_path / "figure.pdf")
    sample = doc_sample(tmp_path / "figure.pdf", (1,))
    inputs = SampleInputs(sample)
    transform = get_registry().get("blur_figure_region")()

    def checks(data: bytes) -> dict[str, dict]:
        found = structural_checks(transform, sample, inputs, "q?", None, [1], data)
        return {c["name"]: c for c in found["checks"]}

    assert checks(pdf.tobytes())["pages_draw_cleanly"]["passed"]
    name = pdf[0].get_images(full=True)[0][7]
    pdf.xref_set_key(pdf[0].xref, f"Resources/XObject/{name}", "null")
    broken = checks(pdf.tobytes())["pages_draw_cleanly"]
    assert not broken["passed"] and "XObject" in broken["detail"]


def test_a_bare_small_number_is_no_printed_count(tmp_path: Path) -> None:
    """A reader counted three case studies from a summary the masks left: a "3." that
    numbers a list on an evidence page had been taken for the count printed, so the masks
    were made. A count is printed when a question word stands beside it ("3 quizzes")."""
    from abstain_build.evidence.map import evidence_map

    question = "How many quizzes are in the semester?"
    pages = {
        1: ["Course outline", "The semester has 3 quizzes."],
        2: ["Unit 4: Markets", "Quiz: supply and demand."],
        3: ["Unit 5: Money", "Quiz: interest rates."],
    }
    printed = lines_pdf(tmp_path / "printed.pdf", pages)
    sample = replace(doc_sample(printed, (1,)), question=question, answer="3")
    emap = evidence_map(sample, SampleInputs(sample))
    assert emap.prints_the_count()
    transform = get_registry().get("remove_visual_element")()
    assert run_transform(transform, sample, SampleInputs(sample), run_seed=0).pdf is not None
    # The same printing with no question word beside it counts nothing.
    emap.mentions = [replace(m, anchors=(), tight=()) for m in emap.mentions]
    assert emap.statements() and not emap.prints_the_count()


def test_masks_over_a_tables_values_are_as_wide_as_their_column() -> None:
    """Masked one by one, "741.2" was narrower than "5,614.8" above it, and a reader ranked
    the segments by the widths of the masks. Down a table's column the masks now share one
    width; a value in the prose under the table keeps its own."""
    from abstain_build.transforms.functional.evidence_edits import even_columns

    question = "According to Figure 1, which segment had the lowest revenue in FY2021?"
    item = replace(doc_sample(ACME, (5,)), question=question, answer="Energy Solutions")
    output = run_transform(
        get_registry().get("remove_visual_element")(), item, SampleInputs(item), 7
    )
    table = [
        r.bbox
        for r in output.record.edits.regions
        if r.kind == "mask" and r.page == 4 and 200 <= r.bbox[1] <= 320  # Table 1's rows
    ]
    with pymupdf.open(stream=SampleInputs(item).document_bytes(), filetype="pdf") as doc:
        values = [
            w
            for w in doc[3].get_text("words")
            if 200 <= w[1] <= 320 and w[4].lstrip("(")[:1].isdigit()
        ]
    assert len(values) >= 20
    for value in values:  # every value is under a mask of its column's width
        (mask,) = [
            m
            for m in table
            if m[0] <= value[0] + 2
            and value[2] - 2 <= m[2]
            and m[1] <= (value[1] + value[3]) / 2 <= m[3]
        ]
        column = [m for m in table if m[0] < value[2] and value[0] < m[2]]
        assert len(column) >= 5 and {round(m[2] - m[0], 1) for m in column} == {
            round(mask[2] - mask[0], 1)
        }
    # A run of rows is a column; the same x under a paragraph below it is not.
    cell, under, prose = (
        (250.0, 100.0, 291.0, 113.0),
        (264.0, 117.0, 291.0, 130.0),
        (236.0, 300.0, 267.0, 313.0),
    )
    assert even_columns([cell, under, prose], range(3)) == [
        cell,
        (250.0, 117.0, 291.0, 130.0),
        prose,
    ]
    assert even_columns([cell, under], []) == [cell, under]  # rows and sentences stay


def test_a_count_printed_before_what_it_counts_is_a_statement_on_any_page() -> None:
    """ "How many reportable segments are listed in Table 1?": readers answered from page 3's
    "We manage our business through four reportable segments", which the map had taken
    for a passing mention because the small report prints "segments" on most pages."""
    from abstain_build.evidence.anchors import counted_things, stem
    from abstain_build.evidence.map import evidence_map

    question = "How many reportable segments are listed in Table 1?"
    assert counted_things(question) == (stem("reportable"), stem("segments"))
    assert counted_things("How many of the people surveyed were over 65?") == (
        stem("people"),
        stem("surveyed"),
    )
    assert counted_things("What was the revenue in FY2021?") == ()
    sample = replace(doc_sample(ACME, (4,)), question=question, answer="4", answer_format="Int")
    inputs = SampleInputs(sample)
    inputs.validate()
    emap = evidence_map(sample, inputs)
    (stated,) = [m for m in emap.statements() if m.page == 3]
    assert stated.printed == "four"
    # The statement's page is edited with the evidence page (the blurs decline the
    # question: the rows of Table 1 are left to count under a blur).
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    assert {3, 4} <= set(output.record.edits.pages_hidden)


@pytest.mark.parametrize(
    "stat_box",
    [
        ["Assurance in numbers", "1914    20    12", "Employees    Offices    Countries"],
        ["Assurance in numbers", "Employees: 1914", "Offices: 20"],
    ],
)
def test_a_count_under_or_after_its_label_is_a_statement_on_any_page(
    tmp_path: Path, stat_box: list[str]
) -> None:
    """ "How many employees dose PWC Assurance have?" (1914): number erasure took the stat
    box of the listed page, and a held-out reader read the same box on the next two pages.
    The misspelt verb had made "employees dose pwc" the counted thing, so the box's
    "Employees" named too little of it; and a count may follow its label."""
    from abstain_build.evidence.anchors import counted_things, stem
    from abstain_build.evidence.map import evidence_map

    question = "How many employees dose PWC Assurance have?"
    assert counted_things(question) == (stem("employees"),)
    assert counted_things("How many glass bottles were sold?") == (stem("glass"), stem("bottles"))
    pdf = lines_pdf(
        tmp_path / "brochure.pdf",
        {
            1: ["Assurance", "Our people audit and advise.", "1914 people in 20 offices"],
            2: ["Why join us", "A career of learning.", *stat_box],
            3: ["Figure 3 shows the 1914 offices of the founders."],
        },
    )
    sample, inputs = prepared(pdf, (1,), question=question, answer="1914")
    emap = evidence_map(sample, inputs)
    assert emap.statement_pages() == [1, 2]
    output = run_transform(get_registry().get("remove_numeric_tokens")(), sample, inputs, 0)
    assert {region.page for region in output.record.edits.regions} >= {1, 2}


def test_a_chart_whose_legend_prints_the_periods_of_an_asked_change_draws_it() -> None:
    """Readers measured the two Cloud Services bars of "Revenue by Segment, FY2019-FY2021"
    for "By what percentage did the revenue of the subscription-based segment grow from
    FY2020 to FY2021?" (2,147 and 2,858: 33.1%, gold 32.9%) with Table 1 masked. The chart
    names two of the question's words; the two years it asks between count as a third."""
    from abstain_build.evidence.map import evidence_map

    def item(question: str) -> tuple[Sample, SampleInputs]:
        return prepared(ACME, (3, 4), question=question, answer="32.9%")

    def charts(question: str) -> list[int]:
        emap = evidence_map(*item(question))
        return [m.page for m in emap.operands if m.figure is not None]

    asked = "By what percentage did the revenue of the segment that ACME describes as its"
    growth = f"{asked} subscription-based business grow from FY2020 to FY2021?"
    assert charts(growth) == [5]
    # Years the chart does not print leave it two words: no evidence of that change.
    assert charts(f"{asked} subscription-based business grow from FY2016 to FY2017?") == []
    # Erased numbers leave the bars: number erasure declines.
    with pytest.raises(NotApplicable, match=r"chart on page\(s\) \[5\] draws"):
        run_transform(get_registry().get("remove_numeric_tokens")(), *item(growth), 0)


def test_a_base_and_a_change_in_points_are_operands_of_the_percent_they_give() -> None:
    """With every 40% masked, readers took "34% of adults 65 and older" in 2016 (page 1)
    and "among those 65 and older it rose by six points" (page 2): 34 + 6. Both numbers
    are operands, and are taken away; the 50-64 group's "five percentage points" in the
    same sentence is not."""
    from abstain_build.evidence.changes import clause_of
    from abstain_build.evidence.map import evidence_map

    from .conftest import fixture_sample

    sample = fixture_sample("survey_report_2019-da1783a2")
    assert "65 and older" in sample.question and sample.answer == "40%"
    inputs = SampleInputs(sample)
    emap = evidence_map(sample, inputs)
    text = [m for m in emap.operands if m.figure is None]
    printed = {(m.page, m.printed) for m in text}
    assert (2, "and among those 65 and older it rose by six points.") in printed
    assert (1, "when just 34% of adults 65 and older used social media.") in printed
    assert not any("five" in m.printed for m in emap.operands)
    output = run_transform(get_registry().get("remove_visual_element")(), sample, inputs, 0)
    masks = [r.bbox for r in output.record.edits.regions if r.kind == "mask" and r.page == 2]
    (six,) = [m for m in text if m.page == 2]
    assert any(m[0] <= six.span[0] and six.span[2] <= m[2] for m in masks)
    words = [
        type("W", (), {"text": t})()
        for t in ["Among", "them,", "it", "rose", "by", "six", "points.", "Next"]
    ]
    assert clause_of(words, 5) == [2, 3, 4, 5, 6]


@pytest.mark.shared_data
def test_number_erasure_declines_a_decimal_comma_label_that_marks_a_bar(
    shared_data: Path,
) -> None:
    """The deck's slide 10 labels its bars "1,3", "1,6", "0,8": no number a page's numbers
    parse, so the gold's label was erased as a word and the others stayed, and a reader
    measured the Google Play bar against them (1.3 million). The map reads "1,3" as the
    gold; its bar is drawn, so erasing numbers is declined."""
    pdf = shared_data / "mmlongbench-doc" / "documents" / APPOTA_DECK
    question = (
        "In 2014, which one has more mobile apps globally, Apple App store or Google Play"
        " store? How many Apps does it have in million?"
    )
    item = prepared(
        pdf, (10,), question=question, answer="['Google Play store', '1.3']", answer_format="List"
    )
    with pytest.raises(NotApplicable, match="'1,3' labels a chart on page 10"):
        run_transform(get_registry().get("remove_numeric_tokens")(), *item, 0)


@pytest.mark.parametrize("name", ["hide_evidence_page", "dense_mask", "remove_visual_element"])
def test_who_made_the_document_is_declined_while_a_page_left_whole_names_the_maker(
    name: str,
) -> None:
    """Readers named the Florida plan's producer from the department its body names, under
    every edit of its credits page: a question about who made the document is declined
    when a page the edit leaves whole names the maker, and not when none does."""
    transform = get_registry().get(name)()
    ask = "Who prepared the report that was filed for fiscal 2021?"
    sample, inputs = prepared(ACME, (1,), question=ask, answer="ACME Corporation")
    with pytest.raises(NotApplicable, match="who made the document"):
        run_transform(transform, sample, inputs, 7)
    # A maker no other page names is left to the edit.
    sample, inputs = prepared(ACME, (1,), question=ask, answer="Innovation Holdings")
    try:
        run_transform(transform, sample, inputs, 7)
    except NotApplicable as declined:
        assert "who made the document" not in str(declined)
    # A question about something else is not about the maker.
    other = "Which company is named on the cover of the report?"
    sample, inputs = prepared(ACME, (1,), question=other, answer="ACME Corporation")
    try:
        run_transform(transform, sample, inputs, 7)
    except NotApplicable as declined:
        assert "who made the document" not in str(declined)


# -- a name printed in passing on a page left whole ------------------------------------------


def court_filing(path: Path) -> Path:
    """A filing whose cover names its court and whose back page names it again, in passing
    (no word of the question beside it), with a second, unrelated page between."""
    lines = {
        1: ["Notice of class action", "Filed before the Superior Court", "District of Montreal"],
        2: ["The plaintiff asks the court to authorise the action.", "Exhibits follow."],
        3: ["Province of Quebec, District of Montreal", "Superior Court (Class Action Division)"],
    }
    return lines_pdf(path, lines)


@pytest.mark.parametrize(
    "name", ["hide_evidence_page", "dense_mask", "full_page_blur", "remove_visual_element"]
)
def test_evidence_edits_decline_a_name_printed_on_a_page_left_whole(
    name: str, tmp_path: Path
) -> None:
    """Held-out readers named the court of a filing from its back page ("Superior Court
    (Class Action Division)") with the cover hidden, and a report's lead coordinator from
    its citation: asked for a name, a reader weighs every name the document prints."""
    pdf = court_filing(tmp_path / "filing.pdf")
    question = "What type of court is noted on the cover page?"
    sample, inputs = prepared(pdf, (1,), question=question, answer="Superior Court")
    with pytest.raises(NotApplicable, match=r"a name that page\(s\) \[3\] print"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


def test_a_name_picked_by_a_value_is_not_given_away_by_its_mentions() -> None:
    """ "Which segment had the lowest revenue?" prints every segment's name on many pages:
    the values pick the answer, and the names alone do not."""
    output = _plan(
        "hide_evidence_page",
        "According to Figure 1, which segment had the lowest revenue in FY2021?",
        "Energy Solutions",
        (5,),
    )
    assert output.pdf is not None


# -- a list printed side by side on a page left whole --------------------------------------


@pytest.mark.parametrize(
    "name", ["hide_evidence_page", "dense_mask", "full_page_blur", "blur_figure_region"]
)
def test_evidence_edits_decline_a_list_a_page_left_whole_prints_side_by_side(
    name: str, tmp_path: Path
) -> None:
    """ "The author mainly conducted experiments on which two tasks?": with the listed pages
    hidden, a held-out reader read "we deploy LLMs for event relation extraction and
    deductive reasoning tasks" in a later section. Each item is printed on many pages
    among other tasks; printed together, they are the list."""
    pdf = lines_pdf(
        tmp_path / "paper.pdf",
        {
            1: ["1 Introduction", "We study event relation extraction.", "Causal links matter."],
            2: ["2 Background", "Deductive reasoning starts from premises.", "Also: induction."],
            3: [
                "4.1 Setup",
                "We deploy LLMs for event relation extraction and deductive reason-",
                "ing tasks.",
            ],
        },
    )
    question = "The author mainly conducted experiments on which two tasks?"
    answer = "['event relation extraction', 'deductive reasoning']"
    sample, inputs = prepared(pdf, (1, 2), question=question, answer=answer, answer_format="List")
    with pytest.raises(NotApplicable, match=r"page 3, which the edit leaves whole, prints"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


def test_a_list_picked_by_a_value_is_not_given_away_by_a_longer_list() -> None:
    """ "Which segments had revenue above US$3,000 million?": page 3 lists all four
    segments ("Industrial Products, Consumer Devices, Cloud Services and Energy
    Solutions"); the values pick two of them, and the names alone do not."""
    output = _plan(
        "hide_evidence_page",
        "Which segments had revenue above US$3,000 million in FY2021?",
        "['Industrial Products', 'Consumer Devices']",
    )
    assert output.pdf is not None


# -- the winner of a comparison, named in prose on a page left whole ------------------------


def survey_report(path: Path, overview: str) -> Path:
    """A chart's values on page 1, and ``overview`` as page 2's prose."""
    lines = {
        1: [
            "U.S. will have less influence in world affairs",
            "Conserv Rep        29%",
            "Mod/Lib Rep        25%",
            "Cons/Mod Dem       36%",
            "Liberal Dem        56%",
        ],
        2: [overview[i : i + 80] for i in range(0, len(overview), 80)],
    }
    return lines_pdf(path, lines)


QUESTION_OF_A_WINNER = (
    "In the United States, which group has the highest proportion of people who believe"
    " that the U.S. will have less influence in world affairs after the outbreak?"
)


@pytest.mark.parametrize("name", ["hide_evidence_page", "remove_visual_element", "dense_mask"])
def test_evidence_edits_decline_a_comparison_whose_winner_prose_names(
    name: str, tmp_path: Path
) -> None:
    """With the chart masked, a held-out reader answered "Liberal" from the overview's
    "Liberal Democrats stand apart ...: 56% believe the U.S. will have less influence in
    world affairs, 20 percentage points higher than ..." three pages before it."""
    pdf = survey_report(
        tmp_path / "report.pdf",
        "Liberal Democrats stand apart for their bleak assessment: 56% believe the U.S. will"
        " have less influence in world affairs, 20 percentage points higher than the share of"
        " moderate and conservative Democrats who say this.",
    )
    sample, inputs = prepared(pdf, (1,), question=QUESTION_OF_A_WINNER, answer="Liberal")
    with pytest.raises(NotApplicable, match=r"page 2, which the edit leaves whole, names"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


def test_a_comparison_read_first_as_another_kind_still_compares_names() -> None:
    """ "The name of the second largest telecom operator in terms of the number of
    subscribers" is read as Counting first ("number of"), and compares all the same."""
    from abstain_build.questions.evidence_type import classify_evidence
    from abstain_build.transforms.leftovers import compares_names

    question = (
        "What is the name of the second largest telecom operator in terms of the number of"
        " subscribers in the period 2013-2014?"
    )
    assert classify_evidence(question).label == "Counting"
    assert compares_names(question, "Indosat", "Str")
    assert not compares_names(question, "58.3", "Float")
    assert not compares_names("How many telecom operators are there?", "Indosat", "Str")


def test_a_name_prose_prints_without_the_comparison_leaves_the_edit(tmp_path: Path) -> None:
    """The same name in prose that compares nothing about the question gives no winner."""
    pdf = survey_report(
        tmp_path / "report.pdf",
        "Liberal Democrats and conservative Republicans were interviewed by telephone in"
        " April; the methodology section describes the sample and its weighting.",
    )
    sample, inputs = prepared(pdf, (1,), question=QUESTION_OF_A_WINNER, answer="Liberal")
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    assert output.pdf is not None


# -- the two values of an asked difference, stated together in prose -----------------------


def results_paper(path: Path) -> Path:
    """A results table on page 1; page 2's prose states both of its accuracies."""
    lines = {
        1: ["Table 2: accuracy on TimeQA", "PaLM-2L        41.5%", "PaLM-2L + RAG  57.4%"],
        2: [
            "5.2 Results. As shown in Table 2, the baseline PaLM-2L achieved 41.5%,",
            "highlighting the difficulty of the task. Augmenting the baseline with",
            "retrieval (RAG) improves the accuracy to 57.4%.",
        ],
    }
    return lines_pdf(path, lines)


@pytest.mark.parametrize("name", ["hide_evidence_page", "blur_figure_region", "dense_mask"])
def test_evidence_edits_decline_a_difference_whose_values_prose_states(
    name: str, tmp_path: Path
) -> None:
    """ "How much higher is the accuracy of PaLM-2L + RAG compared to PaLM-2L on TimeQA?"
    (15.9%): with the table blurred, a held-out reader subtracted the two accuracies the
    results paragraph states (as another did 45% - 29% for a Pew survey's gap)."""
    pdf = results_paper(tmp_path / "paper.pdf")
    question = "How much higher is the accuracy of PaLM-2L + RAG compared to PaLM-2L on TimeQA?"
    sample, inputs = prepared(pdf, (1,), question=question, answer="15.9%")
    with pytest.raises(NotApplicable, match=r"page 2: 57\.4% - 41\.5% = 15\.9%, stated together"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


def test_a_value_the_question_does_not_subtract_is_not_a_stated_difference(
    tmp_path: Path,
) -> None:
    """Two values of the prose that differ by the gold by chance say nothing when the
    question asks no difference."""
    from abstain_build.evidence.recovery import asks_a_difference

    assert asks_a_difference("What is the percentage difference between the two groups?")
    assert not asks_a_difference("What accuracy does PaLM-2L reach on TimeQA?")
    pdf = results_paper(tmp_path / "paper.pdf")
    question = "What accuracy does PaLM-2L + RAG gain on TimeQA, in percent?"
    sample, inputs = prepared(pdf, (1,), question=question, answer="15.9%")
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    assert output.pdf is not None


def identity_report(path: Path, prose: str) -> Path:
    """A chart of who does and who does not self-identify on page 1; ``prose`` on page 2."""
    lines = {
        1: [
            "% of U.S. adults with Hispanic ancestry who self-identify as ___",
            "                 Hispanic   Non-Hispanic",
            "Foreign born        97%          3%",
            "Second generation   92%          8%",
            "Third generation    77%         23%",
        ],
        2: [prose[i : i + 80] for i in range(0, len(prose), 80)],
    }
    return lines_pdf(path, lines)


SHARE_QUESTION = (
    "What's the value of the smallest bar in the graph about the percentage of U.S. adults"
    " with Hispanic ancestry who self-identify as Hispanic or Non-Hispanic?"
)


@pytest.mark.parametrize("name", ["hide_evidence_page", "blur_figure_region", "dense_mask"])
def test_evidence_edits_decline_a_share_whose_rest_prose_states(name: str, tmp_path: Path) -> None:
    """With the chart blurred, a held-out reader took the smallest bar (3) as 100 - 97:
    the text beside it says that nearly all immigrant adults (97%) say they are Hispanic."""
    prose = (
        "Nearly all immigrant adults from Latin America with Hispanic ancestry (97%) say"
        " they are Hispanic. By the third generation the share falls to 77%."
    )
    pdf = identity_report(tmp_path / "report.pdf", prose)
    sample, inputs = prepared(pdf, (1,), question=SHARE_QUESTION, answer="3")
    with pytest.raises(NotApplicable, match=r"page 2: 100% - 97% = 3, stated with"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


@pytest.mark.parametrize(
    "prose",
    [
        # the rest is not printed
        "Most immigrant adults with Hispanic ancestry say they are Hispanic; by the third"
        " generation the share falls to 77%.",
        # 97% is printed, but about something the question does not ask
        "Response rates were high: 97% of the sampled phone numbers were reached at least once"
        " during fieldwork in the fall of the survey year, and interviews took 20 minutes.",
    ],
)
def test_a_rest_to_100_away_from_the_question_leaves_the_edit(prose: str, tmp_path: Path) -> None:
    pdf = identity_report(tmp_path / "report.pdf", prose)
    sample, inputs = prepared(pdf, (1,), question=SHARE_QUESTION, answer="3")
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    assert output.pdf is not None


SUPPOSED_QUESTION = (
    "Assume that after July 2020, the percentage of Liberal Democrats who believe the U.S."
    " will have less influence in world affairs increased by 10 percentage points, while the"
    " Conservative Republicans remained the same. What would the difference between them be?"
)


@pytest.mark.parametrize("name", ["blur_figure_region", "remove_visual_element", "dense_mask"])
def test_partial_edits_decline_a_question_that_supposes_a_change(name: str, tmp_path: Path) -> None:
    """ "Assume ... increased by 10 percentage points": held-out readers answered all 14
    such items masks and region blurs made, from the chart's shares, the text under it or
    a later chart of the same survey; the gold (66 + 10 - 29 = 37 here) is printed nowhere
    for the evidence map to aim at."""
    pdf = survey_report(tmp_path / "report.pdf", "The survey was fielded in June and July.")
    sample, inputs = prepared(pdf, (1,), question=SUPPOSED_QUESTION, answer="37%")
    with pytest.raises(NotApplicable, match=r"supposes a change .*'Assume \.\.\. increased'"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)


def test_hiding_the_page_still_serves_a_question_that_supposes_a_change(tmp_path: Path) -> None:
    pdf = survey_report(tmp_path / "report.pdf", "The survey was fielded in June and July.")
    sample, inputs = prepared(pdf, (1,), question=SUPPOSED_QUESTION, answer="37%")
    output = run_transform(get_registry().get("hide_evidence_page")(), sample, inputs, 0)
    assert output.pdf is not None


@pytest.mark.parametrize(
    ("question", "supposed"),
    [
        ("Suppose revenue fell by 5% in 2021; what would it have been?", True),
        ("If the share of renters were to double, how many would rent?", True),
        ('Assume the share who say "the U.S." is doing well rose by 4 points: what is it?', True),
        ("How much did revenue increase in 2020?", False),
        ("Assuming a 5% discount rate, what is the present value of the lease?", False),
        ("Answer by assuming the perspective of an investment analyst: what is capex?", False),
    ],
)
def test_a_supposed_change_is_told_from_a_question_about_one(question: str, supposed: bool) -> None:
    from abstain_build.transforms.functional.asks import supposes_a_change

    assert (supposes_a_change(question) is not None) is supposed


def manual_with_a_range(path: Path) -> Path:
    """A coffee machine manual whose spout section prints its clearance as a range."""
    lines = {
        1: ["WMF 1500 S: contents", "Combi spout: page 2", "Cleaning: page 2"],
        2: [
            "Combi spout",
            "The combi spout is height-adjustable to fit cups and jugs.",
            "Clearance height: 70-175 mm",
            "Slide the spout up or down with both hands.",
        ],
    }
    return lines_pdf(path, lines)


RANGE_QUESTION = (
    "The combi spout of the WMF 1500 S coffee machine is height-adjustable. What is the"
    " difference, in mm, between its maximum and minimum clearance height?"
)


def test_a_printed_range_states_the_difference_of_its_ends(tmp_path: Path) -> None:
    """ "What is the difference, in mm, between its maximum and minimum clearance height?"
    (105): masks aimed at the question's words left "Clearance height: 70-175 mm", and a
    reader subtracted its ends. Untouched, the page gives the answer that way; with the
    range under a mask, it does not."""
    from abstain_build.transforms.leftovers import worked_out

    pdf = manual_with_a_range(tmp_path / "manual.pdf")
    sample, inputs = prepared(pdf, (2,), question=RANGE_QUESTION, answer="105")
    emap = evidence_map(sample, inputs)
    found = worked_out(RANGE_QUESTION, emap, {})
    assert found is not None and "175 - 70 = 105, stated together" in found
    (word,) = [w for w in emap.readings[2].readings[0].words if w.text == "70-175"]
    assert worked_out(RANGE_QUESTION, emap, {2: [word.bbox]}) is None


@pytest.mark.parametrize("name", ["remove_visual_element", "dense_mask"])
def test_masks_never_leave_a_range_whose_ends_give_the_answer(name: str, tmp_path: Path) -> None:
    """Whatever the seed, a mask either takes the range or declines the question."""
    pdf = manual_with_a_range(tmp_path / "manual.pdf")
    sample, inputs = prepared(pdf, (2,), question=RANGE_QUESTION, answer="105")
    for seed in range(4):
        try:
            output = run_transform(get_registry().get(name)(), sample, inputs, run_seed=seed)
        except NotApplicable:
            continue
        assert output.pdf is not None
        with pymupdf.open(stream=output.pdf, filetype="pdf") as edited:
            assert "70-175" not in edited[1].get_text()


# -- a masked member of a run of consecutive numbers ---------------------------------------


def timeline_brochure(path: Path) -> Path:
    """A cloud brochure whose page 1 is a timeline: one year per row, newest first."""
    rows = [
        ("2017", "Global data centers reach 17 regions"),
        ("2016", "Data centers open in Dubai and Frankfurt"),
        ("2015", "Data center opens in Silicon Valley"),
        ("2014", "Data centers open in Beijing, Shenzhen and Hong Kong"),
        ("2013", "Launches its first overseas office"),
        ("2012", "Cloud computing business established"),
    ]
    with pymupdf.open() as document:
        page = document.new_page()
        page.insert_text((72, 70), "Milestones of the cloud business", fontsize=14)
        for row, (year, text) in enumerate(rows):
            page.insert_text((72, 110 + 30 * row), year, fontsize=12)
            page.insert_text((140, 110 + 30 * row), text, fontsize=12)
        document.new_page().insert_text((72, 90), "Products and pricing", fontsize=12)
        document.save(path)
    return path


def test_a_year_masked_in_a_timeline_is_read_back_from_its_neighbours(tmp_path: Path) -> None:
    """ "In which year did data centers open in Beijing, Shenzhen and Hong Kong?" (2014):
    its year masked, a reader read it off the rows above and below, 2015 and 2013. With
    the whole year column gone, the run gives nothing back."""
    from abstain_build.transforms.leftovers import worked_out

    pdf = timeline_brochure(tmp_path / "brochure.pdf")
    question = "In which year did data centers open in Beijing, Shenzhen and Hong Kong?"
    sample, inputs = prepared(pdf, (1,), question=question, answer="2014")
    emap = evidence_map(sample, inputs)
    words = emap.readings[1].readings[0].words
    box = {w.text: w.bbox for w in words}
    found = worked_out(question, emap, {1: [box["2014"]]})
    assert found is not None and "2014 between 2012, 2013, 2015, 2016" in found
    years = [w.bbox for w in words if w.text.isdigit()]
    assert worked_out(question, emap, {1: years}) is None
    # Its two neighbours alone are no run: two numbers bracket anything by chance.
    rows = [box["2015"], box["2014"], box["2013"]]
    kept = [b for b in years if b not in rows]
    assert worked_out(question, emap, {1: [*kept, box["2014"]]}) is None


# -- a count printed only as the last entry's number ----------------------------------------


def _numbered_requirements_pdf(path: Path, prose: bool) -> Path:
    """A handbook whose course requirements are a numbered table over two pages (rows 1-2,
    then 3-4), and with ``prose`` a sentence that states the count as well."""
    rows = [
        ["Coursework: modules worth 30 credits in the first year", "Lab rotations: two"],
        ["Diagnostic English Test before the first term", "CITI RCR-Basic course: all"],
    ]
    with pymupdf.open() as document:
        number = 1
        for page_rows in rows:
            page = document.new_page(width=595, height=842)
            page.insert_text((72, 80), "Coursework Requirements", fontsize=14)
            y = 120
            for row in page_rows:
                page.insert_text((72, y), str(number), fontsize=11)
                page.insert_text((110, y), row, fontsize=11)
                number += 1
                y += 40
            if prose and len(document) == 2:
                page.insert_text((72, 400), "The course requirements cover 4 areas.", fontsize=11)
        for filler in range(2):
            page = document.new_page(width=595, height=842)
            page.insert_text((72, 80), f"Campus life, chapter {filler + 1}", fontsize=14)
            page.insert_text((72, 120), "Students live in halls near the library.", fontsize=11)
        document.save(path)
    return path


@pytest.mark.parametrize("name", ["remove_visual_element", "dense_mask", "full_page_blur"])
def test_a_count_printed_only_as_the_last_entry_s_number_is_counted_by_the_reader(
    tmp_path: Path, name: str
) -> None:
    """A held-out reader asked how many areas a handbook's course requirements have
    counted the rows of the table whose last row number, 4, was masked: numbered entries
    (1, 2, 3, 4 down one left edge, over two pages) are counted, not read. A count the
    text states ("cover 4 areas") is still a printed count, taken away like any value."""
    question = "How many areas do the course requirements have?"
    listed = _numbered_requirements_pdf(tmp_path / "listed.pdf", prose=False)
    sample = replace(doc_sample(listed, (1, 2)), question=question, answer="4")
    inputs = SampleInputs(sample)
    inputs.validate()
    emap = evidence_map(sample, inputs)
    assert emap.statements() and all(emap.numbers_an_entry(m) for m in emap.statements())
    assert not emap.prints_the_count()
    with pytest.raises(NotApplicable, match=r"reader counts|counts things no page prints"):
        run_transform(get_registry().get(name)(), sample, inputs, run_seed=0)

    stated = _numbered_requirements_pdf(tmp_path / "stated.pdf", prose=True)
    sample = replace(doc_sample(stated, (1, 2)), question=question, answer="4")
    inputs = SampleInputs(sample)
    inputs.validate()
    assert evidence_map(sample, inputs).prints_the_count()


# -- an answer the evidence map finds nowhere: a detail of a picture ------------------------


def _brochure_photo_pdf(path: Path, plate_printed: bool) -> Path:
    """A brochure page: a photo of a car (pixels only) over its caption, and with
    ``plate_printed`` a specification line that prints the number plate as text."""
    with pymupdf.open() as document:
        for number in range(3):
            page = document.new_page(width=595, height=842)
            page.insert_text((72, 80), f"Camry brochure, section {number + 1}", fontsize=14)
            page.insert_text((72, 110), "Every model comes with a full safety suite.", fontsize=11)
        page = document[1]
        photo = png_bytes(gradient_image(320, 200))
        page.insert_image(pymupdf.Rect(72, 140, 472, 390), stream=photo)
        page.insert_text((72, 410), "Performance: the XSE V6 on the open road.", fontsize=11)
        if plate_printed:
            page.insert_text((72, 440), "Press car XSE V6, plate JGE 422.", fontsize=11)
        document.save(path)
    return path


def test_masks_decline_an_answer_the_evidence_map_finds_nowhere(tmp_path: Path) -> None:
    """A held-out reader read a car's number plate, "JGE 422", in a brochure photo at 400
    dpi: OCR had read it nowhere, so the masks were aimed at the question's words and left
    the photo whole. With neither the answer nor rows it is computed from found, masks are
    guesses; printed on the page, the answer is masked as usual."""
    question = "In the performance section, what license plate is shown on the XSE V6?"
    transform = get_registry().get("remove_visual_element")()
    photo = _brochure_photo_pdf(tmp_path / "photo.pdf", plate_printed=False)
    sample = replace(doc_sample(photo, (2,)), question=question, answer="JGE 422")
    with pytest.raises(NotApplicable, match="finds the answer nowhere"):
        run_transform(transform, sample, SampleInputs(sample), run_seed=0)
    printed = _brochure_photo_pdf(tmp_path / "printed.pdf", plate_printed=True)
    sample = replace(doc_sample(printed, (2,)), question=question, answer="JGE 422")
    output = run_transform(transform, sample, SampleInputs(sample), run_seed=0)
    assert output.pdf is not None and output.record.edits.regions
