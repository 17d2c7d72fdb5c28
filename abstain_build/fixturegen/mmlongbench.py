"""MMLongBench-Doc fixture: ``samples.json`` plus ``documents/*.pdf``, as the release ships them.

Answers are computed from the same constants the PDFs print, and page numbers come from
the builders, so a record cannot drift away from its document.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from . import reports
from .files import json_bytes, write_bytes
from .reports import BuiltDocument

KEYS = (
    "doc_id",
    "doc_type",
    "question",
    "answer",
    "evidence_pages",
    "evidence_sources",
    "answer_format",
)
TEXT = "Pure-text (Plain-text)"


def _record(
    doc: BuiltDocument,
    doc_type: str,
    question: str,
    answer: str,
    pages: Sequence[int],
    sources: Sequence[str],
    answer_format: str,
) -> dict[str, str]:
    """A record in the release's shape: list fields are Python list reprs in strings."""
    values = (
        doc.name,
        doc_type,
        question,
        answer,
        str(list(pages)),
        str(list(sources)),
        answer_format,
    )
    return dict(zip(KEYS, values, strict=True))


def _acme_records(doc: BuiltDocument) -> list[dict[str, str]]:
    p = doc.pages
    kind = "Financial report"
    segments = reports.SEGMENTS
    fy21 = reports.FISCAL_YEARS.index("FY2021")
    fy20 = reports.FISCAL_YEARS.index("FY2020")
    cloud = segments[reports.SUBSCRIPTION_SEGMENT]
    cloud_growth = (cloud[fy21] - cloud[fy20]) / cloud[fy20] * 100
    lowest = min(segments, key=lambda name: segments[name][fy21])
    big = [name for name, values in segments.items() if values[fy21] > 3000]
    return [
        _record(
            doc,
            kind,
            "What was the revenue of ACME's Cloud Services segment in FY2020? Answer in "
            "millions of US dollars.",
            f"{cloud[fy20]:.1f}",
            [p["table"]],
            ["Table"],
            "Float",
        ),
        _record(
            doc,
            kind,
            "What was ACME's total revenue in FY2021? Answer in millions.",
            f"{reports.totals()[fy21]:.1f}",
            [p["table"]],
            ["Table"],
            "Float",
        ),
        _record(
            doc,
            kind,
            "According to Figure 1, which segment had the lowest revenue in FY2021?",
            lowest,
            [p["chart"]],
            ["Chart"],
            "Str",
        ),
        _record(
            doc,
            kind,
            "What was ACME's revenue in Q3 2021 according to the quarterly results of "
            "operations? Answer in millions.",
            f"{reports.QUARTERS_2021['Q3 2021'][0]:.1f}",
            [p["scan"]],
            ["Table"],
            "Float",
        ),
        _record(
            doc,
            kind,
            "By what percentage did the revenue of the segment that ACME describes as its "
            "subscription-based business grow from FY2020 to FY2021?",
            f"{cloud_growth:.1f}%",
            [p["business"], p["table"]],
            [TEXT, "Table"],
            "Float",
        ),
        _record(
            doc,
            kind,
            "How many reportable segments are listed in Table 1?",
            str(len(segments)),
            [p["table"]],
            ["Table"],
            "Int",
        ),
        _record(
            doc,
            kind,
            "Describe the products that ACME's Energy Solutions segment designs and installs.",
            reports.ENERGY_PRODUCTS,
            [p["business"]],
            [TEXT],
            "Str",
        ),
        _record(
            doc,
            kind,
            "Which segments had revenue above US$3,000 million in FY2021?",
            str(big),
            [p["table"]],
            ["Table"],
            "List",
        ),
    ]


def _survey_records(doc: BuiltDocument) -> list[dict[str, str]]:
    p = doc.pages
    kind = "Research report / Introduction"
    use = reports.SOCIAL_MEDIA_USE
    first_70 = min(year for year, share in use.items() if share >= 70)
    gains = {name: values[-1] - values[0] for name, values in reports.PLATFORMS.items()}
    return [
        _record(
            doc,
            kind,
            "According to Figure 1, what percentage of adults ages 65 and older used "
            "social media in 2019?",
            f"{reports.AGE_GROUPS['Ages 65+'][1]}%",
            [p["chart"]],
            ["Chart"],
            "Float",
        ),
        _record(
            doc,
            kind,
            "In total, how many adults were interviewed across the four survey years "
            "from 2016 to 2019?",
            str(sum(reports.SAMPLE_SIZES.values())),
            [p["methods"]],
            ["Table"],
            "Int",
        ),
        _record(
            doc,
            kind,
            "Which platform in Table 1 had the largest increase in usage between 2016 and 2019?",
            max(gains, key=gains.__getitem__),
            [p["table"]],
            ["Table"],
            "Str",
        ),
        _record(
            doc,
            kind,
            "In which year did the share of U.S. adults who use at least one social media "
            "site first reach 70%?",
            str(first_70),
            [p["summary"]],
            [TEXT],
            "Int",
        ),
        _record(
            doc,
            kind,
            "What percentage of adults ages 65 and older used TikTok in 2019?",
            "Not answerable",
            [],
            [],
            "None",
        ),
    ]


def documents() -> list[BuiltDocument]:
    return [reports.acme_annual_report(), reports.survey_report()]


def records(docs: Sequence[BuiltDocument]) -> list[dict[str, str]]:
    acme, survey = docs
    return _acme_records(acme) + _survey_records(survey)


def write(folder: Path) -> list[Path]:
    """Write ``samples.json`` and ``documents/`` under ``folder``."""
    docs = documents()
    written = [write_bytes(folder / "samples.json", json_bytes(records(docs)))]
    written += [write_bytes(folder / "documents" / doc.name, doc.data) for doc in docs]
    return written
