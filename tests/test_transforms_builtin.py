"""The three built-in transforms do what the method demands."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from abstain_build.content.timeref import coverage, find_years, replace_years
from abstain_build.media.inputs import SampleInputs
from abstain_build.media.pdf import open_pdf
from abstain_build.model import DocumentRef, ImageRef, Sample, SourceInfo
from abstain_build.pipeline.apply import run_transform
from abstain_build.transforms import NotApplicable, get_registry

from .conftest import gradient_image, make_pdf, png_bytes

INFO = SourceInfo("test", "test", "test.jsonl", 0)


def image_sample(*arrays: np.ndarray) -> Sample:
    return Sample(
        id="img",
        source=INFO,
        question="What does <image 1> show?",
        answer="A",
        images=tuple(
            ImageRef(key=f"image_{i + 1}", data=png_bytes(a)) for i, a in enumerate(arrays)
        ),
    )


def doc_sample(
    pdf: Path, pages: tuple[int, ...], question: str = "What is it?", answer: str = "x"
) -> Sample:
    return Sample(
        id="doc",
        source=INFO,
        question=question,
        answer=answer,
        document=DocumentRef(path=pdf, doc_id=pdf.name),
        evidence_pages=pages,
    )


def transform(name: str, **params):
    return get_registry().get(name)(**params)


def decode(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


# -- adaptive_darkness ---------------------------------------------------------------------


@pytest.mark.parametrize("channels", [3, 4])
def test_adaptive_darkness_divides_every_pixel_by_15(channels: int) -> None:
    original = gradient_image(120, 80, channels)
    sample = image_sample(original)
    output = run_transform(transform("adaptive_darkness"), sample, SampleInputs(sample), run_seed=1)
    dark = decode(output.images[0])
    assert dark.shape == original.shape
    colour = slice(0, 3)
    expected = original[..., colour].astype(float) / 15
    assert np.abs(dark[..., colour].astype(float) - expected).max() <= 0.5
    assert abs(dark[..., colour].mean() - original[..., colour].mean() / 15) < 0.5
    if channels == 4:
        assert np.array_equal(dark[..., 3], original[..., 3]), "alpha must be kept"
    assert output.record.intensity == pytest.approx(100 * (1 - 1 / 15), abs=0.01)


def test_adaptive_darkness_on_a_real_mmmu_image(shared_data: Path) -> None:
    path = shared_data / "mmmu" / "images" / "validation_Energy_and_Power_2_1.png"
    original = np.asarray(Image.open(path).convert("RGB"))
    sample = image_sample(original)
    output = run_transform(transform("adaptive_darkness"), sample, SampleInputs(sample), run_seed=1)
    dark = decode(output.images[0]).astype(float)
    assert original.mean() > 100, "the test image should be bright to begin with"
    assert abs(dark.mean() - original.mean() / 15) < 0.5


def test_divisor_parameter_is_bounded() -> None:
    from abstain_build.transforms import ParamError

    with pytest.raises(ParamError, match="below the minimum"):
        transform("adaptive_darkness", divisor=1)
    with pytest.raises(ParamError, match="no parameter"):
        transform("adaptive_darkness", strength=3)


# -- hide_evidence_page --------------------------------------------------------------------


@pytest.fixture
def four_page_pdf(tmp_path: Path) -> Path:
    pages = [(f"alpha{n} topword{n}", f"omega{n} bottomword{n}") for n in range(1, 6)]
    return make_pdf(tmp_path / "doc.pdf", pages)


def _page_words(pdf: bytes, number: int) -> set[str]:
    document = open_pdf(pdf, "out")
    return {w[4] for w in document[number - 1].get_text("words")}


@pytest.mark.parametrize("pages", [(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5)])
def test_hide_evidence_page_hides_half_and_crops_the_rest(four_page_pdf: Path, pages) -> None:
    sample = doc_sample(four_page_pdf, pages)
    inputs = SampleInputs(sample)
    inputs.validate()
    output = run_transform(transform("hide_evidence_page"), sample, inputs, run_seed=3)
    edits = output.record.edits
    assert len(edits.pages_hidden) == -(-len(pages) // 2)  # ceil(n / 2), at least one
    assert set(edits.pages_hidden) | {c.page for c in edits.pages_cropped} == set(pages)
    original_sizes = [decode(png).shape[:2] for png in inputs.evidence_renders()]
    for number, png, (height, width) in zip(pages, output.images, original_sizes, strict=True):
        rendered = decode(png)
        words = _page_words(output.pdf, number)
        if number in edits.pages_hidden:
            assert rendered.shape[:2] == (height, width)
            assert rendered.min() == 255, "a hidden page renders blank"
            assert words == set(), "a hidden page keeps no text layer"
        else:
            kept = next(c.kept for c in edits.pages_cropped if c.page == number)
            assert abs(rendered.shape[0] - height / 2) <= 1 and rendered.shape[1] == width
            expected = (
                {f"alpha{number}", f"topword{number}"}
                if kept == "top"
                else {f"omega{number}", f"bottomword{number}"}
            )
            assert words == expected, "the removed half's text must be gone from the text layer"
    # pages that are not evidence are untouched
    other = set(range(1, 6)) - set(pages)
    for number in other:
        assert _page_words(output.pdf, number) == {
            f"alpha{number}",
            f"topword{number}",
            f"omega{number}",
            f"bottomword{number}",
        }


def test_hide_evidence_page_drops_the_half_with_the_answer(tmp_path: Path) -> None:
    pdf = make_pdf(
        tmp_path / "a.pdf",
        [("Introduction text", "Net revenue was 4,321 million"), ("Answer 77 here", "filler")],
    )
    sample = doc_sample(pdf, (1, 2), answer="4,321")
    for seed in range(6):
        output = run_transform(
            transform("hide_evidence_page"), sample, SampleInputs(sample), run_seed=seed
        )
        for crop in output.record.edits.pages_cropped:
            if crop.page == 1:
                assert crop.kept == "top" and "bottom half" in crop.reason
                assert "4,321" not in open_pdf(output.pdf, "x")[0].get_text()


@pytest.mark.parametrize(("acres", "hidden"), [("344,000", False), ("512,000", True)])
def test_hide_evidence_page_is_refused_where_what_is_left_still_works_the_answer_out(
    tmp_path: Path, acres: str, hidden: bool
) -> None:
    """The county's area hidden on page 1 is still 344,000 acres on page 2: 538 square
    miles at 640 acres to the mile. Another acreage gives nothing back."""
    pdf = make_pdf(
        tmp_path / "county.pdf",
        [
            ("The county covers 538 square miles of prairie.", "Its soil is loam."),
            (f"The county holds roughly {acres} acres of farmland.", "Rivers run east."),
        ],
    )
    question = "How many square miles does the county cover?"
    sample = doc_sample(pdf, (1,), question=question, answer="538")
    hide = transform("hide_evidence_page")
    if hidden:
        output = run_transform(hide, sample, SampleInputs(sample), run_seed=0)
        assert output.record.edits.pages_hidden or output.record.edits.pages_cropped
        return
    with pytest.raises(NotApplicable, match=r"worked out .* 344,000 acres = 538 square miles"):
        run_transform(hide, sample, SampleInputs(sample), run_seed=0)


def test_rendered_png_matches_the_perturbed_pdf(four_page_pdf: Path) -> None:
    sample = doc_sample(four_page_pdf, (2, 3))
    output = run_transform(
        transform("hide_evidence_page"), sample, SampleInputs(sample), run_seed=0
    )
    document = open_pdf(output.pdf, "x")
    for number, png in zip(output.pages, output.images, strict=True):
        again = document[number - 1].get_pixmap(dpi=144, alpha=False).tobytes("png")
        assert np.array_equal(decode(again), decode(png))


# -- temporal_drift ------------------------------------------------------------------------


@pytest.fixture
def report_pdf(tmp_path: Path) -> Path:
    return make_pdf(
        tmp_path / "report.pdf",
        [
            (
                "Annual report for fiscal 2021. Revenue grew from FY2019 to FY2021.",
                "Founded under the Act of 1934.",
            ),
            ("In 2020 sales were 12.5 million; in 2021 they were 14.0 million.", "Outlook"),
        ],
    )


@pytest.mark.parametrize(
    "question",
    [
        "What was total revenue in FY2021?",
        "How did sales change from 2020 to 2021?",
        "What were sales in Q3 2020?",
        "What was the FY21 margin?",
    ],
)
def test_temporal_drift_moves_every_year_outside_the_document(
    report_pdf: Path, question: str
) -> None:
    sample = doc_sample(report_pdf, (2,), question=question)
    inputs = SampleInputs(sample)
    covered = coverage(inputs.page_texts())
    assert (covered.first, covered.last) == (2019, 2021) and covered.outliers == (1934,)
    for seed in range(8):
        output = run_transform(transform("temporal_drift"), sample, inputs, run_seed=seed)
        old_years = find_years(question)
        new_years = find_years(output.question)
        assert len(new_years) == len(old_years)
        assert all(not 2019 <= m.year <= 2021 for m in new_years), output.question
        # Just outside the period, never decades away: 2016-2018 or from 2022-2024 on.
        moved = [m.year for m in new_years]
        assert min(moved) <= 2024 and max(moved) >= 2016, output.question
        shifts = {new.year - old.year for old, new in zip(old_years, new_years, strict=True)}
        assert len(shifts) == 1, "all years move together, keeping the spans between them"
        for old, new in zip(old_years, new_years, strict=True):
            assert new.text.startswith(old.text[: -4 if not old.two_digit else -2])
            assert len(new.text) == len(old.text)
        stripped = [output.question[: m.start] for m in new_years[:1]]
        assert stripped == [question[: m.start] for m in old_years[:1]]


def test_temporal_drift_does_not_move_back_into_a_trend_series(tmp_path: Path) -> None:
    """A survey report on 2006-2014 whose chart axis names 2000, 2002 and 2004: 2003 sits
    inside its series, whatever the period its prose reports on; 2015-2017 does not."""
    core = " ".join(f"In {year} and again in {year} we asked." for year in range(2006, 2015))
    pdf = make_pdf(
        tmp_path / "survey.pdf", [(core * 3, "Adults online: 2000 2002 2004 2006 2008 2010")]
    )
    question = "How many adults were surveyed from July 18 to September 30, 2013?"
    sample = doc_sample(pdf, (1,), question=question)
    inputs = SampleInputs(sample)
    for seed in range(8):
        output = run_transform(transform("temporal_drift"), sample, inputs, run_seed=seed)
        (moved,) = find_years(output.question)
        assert 2015 <= moved.year <= 2017, output.question
    with pytest.raises(NotApplicable, match="seldom mentions"):
        run_transform(transform("temporal_drift", direction="before"), sample, inputs, 0)


def test_temporal_drift_skips_years_the_document_prints_with_the_question_s_words(
    tmp_path: Path,
) -> None:
    """A report on 2019-2021 that prints its lease payments due in 2022 and 2023: moved
    there, "operating lease costs" is read off that table, so only years printed with
    none of the question's words are used, and none left is not applicable."""
    core = " ".join(f"In {year} and again in {year} we reported." for year in range(2019, 2022))
    period = [(core * 2, core * 2)] * 4  # 2019-2021, 32 mentions each: 2022 is seldom
    costs = ("In 2020 operating lease costs were 2.5 million; in 2021 3.0 million.", "Outlook")
    leases = "Future minimum payments under operating leases: 2022 4.1 million; 2023 3.8."
    pdf = make_pdf(tmp_path / "leases.pdf", [*period, (core, leases), costs])
    question = "What were operating lease costs in FY2021?"
    sample = doc_sample(pdf, (6,), question=question)
    inputs = SampleInputs(sample)
    for seed in range(8):
        drift = transform("temporal_drift", direction="after")
        output = run_transform(drift, sample, inputs, run_seed=seed)
        (moved,) = find_years(output.question)
        assert moved.year == 2024, output.question
    # The year just past the period is printed with the question's words: nothing is left.
    nearest = transform("temporal_drift", direction="after", max_gap=1)
    with pytest.raises(NotApplicable, match="printed with the question's words"):
        run_transform(nearest, sample, inputs, 0)
    # The same years with nothing of the question beside them are fair periods.
    offices = (core, "Offices opened: 2022 Lyon; 2023 Porto.")
    plain_pdf = make_pdf(tmp_path / "plain.pdf", [*period, offices, costs])
    plain = doc_sample(plain_pdf, (6,), question=question)
    drift = transform("temporal_drift", direction="after", max_gap=1)
    output = run_transform(drift, plain, SampleInputs(plain), 0)
    (moved,) = find_years(output.question)
    assert moved.year == 2022, output.question


def test_temporal_drift_moves_no_year_of_a_public_filing(shared_data: Path) -> None:
    """A 10-K's other years are public record: readers gave Amazon's FY2020 ratio from
    knowledge when asked about the FY2017 report's."""
    pdf = shared_data / "mmlongbench-doc" / "documents" / "AMAZON_2017_10K.pdf"
    sample = doc_sample(pdf, (38,), question="What was Amazon's FY2017 interest expense?")
    with pytest.raises(NotApplicable, match="public SEC filing"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


def test_the_period_a_document_covers_is_the_years_it_mentions_often() -> None:
    """A 2015 annual report: its five-year table and its outlook, not a 2025 maturity, the
    1997 IPO or the 1934 Act."""
    counts = {2011: 12, 2012: 14, 2013: 90, 2014: 160, 2015: 240, 2016: 30, 2017: 4}
    counts |= {2025: 3, 1997: 2, 1934: 2}
    texts = [f"In {year} we" for year, n in counts.items() for _ in range(n)]
    covered = coverage(texts)
    assert (covered.first, covered.last) == (2011, 2016)
    assert covered.outliers == (1934, 1997, 2017, 2025)
    assert covered.covers(2014) and not covered.covers(2017) and not covered.covers(2010)
    assert (covered.including([2009]).first, covered.including([2009]).last) == (2009, 2016)


@pytest.mark.parametrize(
    "question",
    [
        "How many methods were proposed in 2005?",
        "Which was the first store opened in 2016?",
        "What was the latest product of 2020?",
        "In 2005, which was the earliest model?",
    ],
)
def test_temporal_drift_refuses_a_question_whose_shifted_form_has_an_answer(
    report_pdf: Path, question: str
) -> None:
    sample = doc_sample(report_pdf, (2,), question=question)
    with pytest.raises(NotApplicable, match="still has an answer"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


@pytest.mark.parametrize(
    "question",
    [
        "For the city where the first farmers' elevator was located, what's the population"
        " there in 2000?",
        "What was revenue in the first quarter of 2015?",
    ],
)
def test_temporal_drift_moves_a_question_whose_superlative_only_picks_a_thing(
    question: str,
) -> None:
    from abstain_build.transforms.builtin.temporal_drift import determinable

    assert determinable(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "Who produced the document that was revised on May 2010?",
        "For the paper by Long Ouyang published in 2022, how many times has it been cited?",
        "What does the plan issued on 3 June 2014 recommend?",
        "What is the percentage gap between male 65+ who use internet and broadband at home"
        " in the Pew Research Center's Internet Project July 18-September 30, 2013 tracking"
        " survey?",
        "According to the 2015 National Survey of Latinos, which group has the largest sample?",
        # A year that is part of a name: a held-out reader counted the breaches of "the
        # HSCA 2016" in a report citing the Health and Social Care Act 2008.
        "How many regulations of the HSCA 2008 are breached in all according to this report?",
        "How many companies filed under the Companies Act 2013?",
        # The election a report is about: moved to 2023, a reader of a report on the 2020
        # election answered from it.
        "Among Democrats who voted absentee in the 2020 election, what percentage say any"
        " voter should be able to vote early without a reason?",
        "How many seats changed hands in the 2018 midterm elections?",
    ],
)
def test_temporal_drift_refuses_a_year_that_only_dates_what_the_question_names(
    report_pdf: Path, question: str
) -> None:
    """A reader asked who produced "the document revised on May 2011" answered from the one
    document in hand, revised May 2010, and one asked about "the ... 2017 tracking survey"
    from the 2013 one: moving a date that only says which document, paper or survey is
    meant leaves the answer where it was."""
    sample = doc_sample(report_pdf, (2,), question=question)
    with pytest.raises(NotApplicable, match="only dates what the question names"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


@pytest.mark.parametrize(
    "question",
    [
        "How many dollars lower was the median income of upzoned tracts than of all NYC"
        " tracts (2007 $)?",
        "What was the median rent in 2010, in constant 2015 dollars?",
        "What was the average price in 2012 US$?",
    ],
)
def test_temporal_drift_refuses_a_year_that_is_a_price_base(
    report_pdf: Path, question: str
) -> None:
    """ "(2007 $)" moved to "(2010 $)" asks for the same figures in other prices: a reader
    of a table labelled "2007 $" took it for a slip and answered from the table."""
    sample = doc_sample(report_pdf, (2,), question=question)
    with pytest.raises(NotApplicable, match="base of constant prices"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


def test_a_year_before_an_amount_is_no_price_base() -> None:
    from abstain_build.transforms.builtin.temporal_drift import price_base

    assert price_base("How much of the 2015 $3 billion budget went to research?") is None
    assert price_base("What was revenue in 2015?") is None
    assert price_base("What was the median income (2007 $)?") == "2007 $"


@pytest.mark.parametrize(
    "question",
    [
        "What was revenue in 2015?",
        "Which report, published in 20 countries, covers 2015?",
        "How much was spent on products released in the spring?",
        "Who visited the U.S. Naval Medical Research centre on November 29, 2012 in the document?",
        "What was the revenue in FY 2015?",
        "What did the company earn in Q3 2019?",
        "WHAT WAS THE REVENUE IN 2015?",
    ],
)
def test_temporal_drift_keeps_a_year_the_asked_value_depends_on(question: str) -> None:
    from abstain_build.transforms.builtin.temporal_drift import dates_a_named_thing

    assert dates_a_named_thing(question) is None


@pytest.mark.parametrize(
    ("question", "answer", "moved"),
    [
        ("What are the components of cost of sales for FY2021?", "['products', 'shipping']", 0),
        ("What method was used to pay the dividend in FY2021?", "a stock split", 0),
        ("Which segment had the lowest revenue in FY2021?", "Energy Solutions", 1),
        ("Which segments had revenue above $3,000 million in FY2021?", "['Cloud']", 1),
        ("What was revenue in FY2021?", "11642.4", 1),
    ],
)
def test_temporal_drift_moves_quantities_and_what_they_pick_not_descriptions(
    report_pdf: Path, question: str, answer: str, moved: int
) -> None:
    """Readers gave the 2017 10-K's components of cost of sales for "FY2021" and its
    2015 stock split for "FY2019": a description seldom changes with the period. A figure
    does, and so does the segment a figure picks (those held, 3 of 3)."""
    sample = doc_sample(report_pdf, (1,), question=question, answer=answer)
    drift = transform("temporal_drift")
    if moved:
        output = run_transform(drift, sample, SampleInputs(sample), run_seed=0)
        assert "2021" not in output.question
    else:
        with pytest.raises(NotApplicable, match="a name or a description"):
            run_transform(drift, sample, SampleInputs(sample), run_seed=0)


def test_temporal_drift_not_applicable_without_a_year(report_pdf: Path) -> None:
    for question, reason in [
        ("What is the company's name?", "no year"),
        ("What were sales in Q3?", "quarter but no year"),
    ]:
        sample = doc_sample(report_pdf, (1,), question=question)
        with pytest.raises(NotApplicable, match=reason):
            run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


def test_temporal_drift_leaves_the_years_of_an_answer_format_example(report_pdf: Path) -> None:
    """Held-out MMLongBench-Doc asks "What are the years specified in the pie chart of the
    document? Format all of the years in a list like ['2006', '2007', '2011']": moving the
    example's years changed nothing that is asked, and the item stayed answerable."""
    only_example = (
        "What are the years specified in the chart of the document? Format all of the"
        " years in a list like ['2019', '2020', '2021']"
    )
    # b25: "... DISCUSSED ABOUT WHICH YEAR? List all of them like ['2014', '2018', '2020']."
    # moved the example to 2023, 2027 and 2029, and the reader answered the chart's years.
    listed_like = (
        "Which years does the chart compare? List all of them like ['2019', '2020', '2021']."
    )
    for question in (only_example, listed_like):
        sample = doc_sample(report_pdf, (1,), question=question)
        with pytest.raises(NotApplicable, match="answer-format instruction"):
            run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)
    both = "What was total revenue in FY2021? Answer in the form 'FY2020: 1,234'."
    sample = doc_sample(report_pdf, (2,), question=both)
    for seed in range(4):
        output = run_transform(transform("temporal_drift"), sample, SampleInputs(sample), seed)
        assert "FY2021" not in output.question
        assert output.question.endswith("Answer in the form 'FY2020: 1,234'."), output.question


@pytest.mark.parametrize(
    ("printed", "question"),
    [
        (
            "The survey was conducted April 25-May 1, 2018 among 1,503 adults.",
            "Among the adults surveyed April 25 - May 1 2018, how many rated it poor?",
        ),
        (
            "Categories of Shareholders as on 31st March, 2018: foreign companies 32.17%.",
            "What share did foreign companies hold as of March 31, 2018?",
        ),
    ],
)
def test_temporal_drift_leaves_a_date_whose_day_the_document_prints(
    tmp_path: Path, printed: str, question: str
) -> None:
    """Held-out readers took "April 25 - May 1, 2019" over a report on the April 25 - May 1,
    2018 survey (and "March 31, 2009" over a report as on 31st March, 2007) for a slip, and
    answered from the document: all 4 held-out drifts read were answered."""
    body = " ".join(f"In {year} we asked again." for year in range(2014, 2019))
    pdf = make_pdf(tmp_path / "survey.pdf", [(f"{printed} {body}", body)])
    sample = doc_sample(pdf, (1,), question=question, answer="541")
    with pytest.raises(NotApplicable, match="a date whose day the document prints"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)
    undated = question.replace("April 25 - May 1 ", "").replace("March 31, ", "")
    sample = doc_sample(pdf, (1,), question=undated, answer="541")
    output = run_transform(transform("temporal_drift"), sample, SampleInputs(sample), 0)
    assert "2018" not in output.question


def test_temporal_drift_not_applicable_on_image_only_document(tmp_path: Path) -> None:
    document = pymupdf.open()
    page = document.new_page()
    page.insert_image(page.rect, stream=png_bytes(gradient_image()))
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(document.tobytes())
    sample = doc_sample(pdf, (1,), question="Revenue in 2015?")
    with pytest.raises(NotApplicable, match="no text layer"):
        run_transform(transform("temporal_drift"), sample, SampleInputs(sample), run_seed=0)


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["revenue", "in", "FY", "Q3", "and", "$5", "12.5%", "to", "the"]),
        max_size=8,
    ),
    years=st.lists(st.integers(1950, 2040), min_size=1, max_size=4),
    shift=st.integers(-40, 50),
)
def test_replace_years_changes_only_the_years(
    words: list[str], years: list[int], shift: int
) -> None:
    parts = []
    for i, year in enumerate(years):
        parts.extend(words[i :: len(years)])
        parts.append(str(year))
    text = " ".join(parts)
    mentions = find_years(text)
    assert [m.year for m in mentions] == years
    new_text, _ = replace_years(text, mentions, shift)
    assert [m.year for m in find_years(new_text)] == [y + shift for y in years]
    strip = lambda s: "".join(c for c in s if not c.isdigit())  # noqa: E731
    assert strip(new_text) == strip(text)


@pytest.mark.parametrize(
    "text,years",
    [
        ("FY2015 and FY14", [2015, 2014]),
        ("$2015.5 million and 12015 units", []),
        ("2,015 items at 2015%", []),
        ("from 2005 to 2010", [2005, 2010]),
        ("fiscal year 2019, FY 2020, FY'21", [2019, 2020, 2021]),
    ],
)
def test_find_years_reads_report_notation(text: str, years: list[int]) -> None:
    assert [m.year for m in find_years(text)] == years
