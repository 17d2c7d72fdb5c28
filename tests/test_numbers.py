"""The number tokenizer reads numbers the way reports print them, and keeps their format."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstain_build.numbers import find_numbers, quantities


def one(text: str):
    tokens = find_numbers(text)
    assert len(tokens) == 1, [t.text for t in tokens]
    return tokens[0]


@pytest.mark.parametrize(
    ("text", "kind", "value", "scaled"),
    [
        ("1,234.5", "amount", 1234.5, 1234.5),
        ("(1,234)", "amount", -1234.0, -1234.0),
        ("-3.2%", "percent", -3.2, -3.2),
        ("−3.2%", "percent", -3.2, -3.2),
        ("$4.5bn", "amount", 4.5, 4.5e9),
        ("12.3x", "multiple", 12.3, 12.3),
        ("1.2 million", "amount", 1.2, 1.2e6),
        ("$36.8 million", "amount", 36.8, 36.8e6),
        ("€ 250k", "amount", 250.0, 250e3),
        ("10.5 percent", "percent", 10.5, 10.5),
        (".75", "amount", 0.75, 0.75),
        ("3,000,000", "amount", 3e6, 3e6),
    ],
)
def test_quantities_and_their_values(text: str, kind: str, value: float, scaled: float) -> None:
    token = one(f"reported {text} in total")
    assert token.text == text
    assert token.kind == kind
    assert token.value == pytest.approx(value)
    assert token.scaled_value == pytest.approx(scaled)
    assert token.is_quantity


def test_format_details_are_kept() -> None:
    token = one("net loss of $(1,234.50)")
    assert token.text == "$(1,234.50)"
    assert (token.currency, token.value, token.decimals) == ("$", -1234.5, 2)
    assert one("(see 12 above)").text == "12"
    assert one("rose 12)").text == "12"
    grouped = one("revenue 1,234.50 dollars")
    assert grouped.grouped and grouped.decimals == 2 and not grouped.negative
    money = one("a $4.5bn deal")
    assert (money.currency, money.scale, money.decimals) == ("$", "bn", 1)
    negative = one("(6,450)")
    assert negative.parenthesised and negative.negative and negative.value == -6450


@pytest.mark.parametrize(
    ("text", "kind", "years"),
    [
        ("FY2015", "fiscal_year", (2015,)),
        ("FY 15", "fiscal_year", (2015,)),
        ("FY'15", "fiscal_year", (2015,)),
        ("FY 2014-2015", "fiscal_year", (2014, 2015)),
        ("Q3", "quarter", ()),
        ("Q1 2017", "quarter", (2017,)),
        ("2015-2017", "year_range", (2015, 2017)),
        ("1971–1981", "year_range", (1971, 1981)),
        ("2013-14", "year_range", (2013, 2014)),
        ("2019", "year", (2019,)),
    ],
)
def test_dates_are_recognised_and_are_not_quantities(text: str, kind: str, years) -> None:
    token = one(f"in {text}, sales")
    assert (token.text, token.kind, token.years) == (text, kind, years)
    assert not token.is_quantity


@pytest.mark.parametrize(
    "text",
    [
        "ASU 2015-05, Customer",
        "Form 10-K",
        "COVID-19 cases",
        "model A380",
        "version v2.0",
        "a 12-month period",
    ],
)
def test_codes_and_identifiers_are_not_quantities(text: str) -> None:
    assert quantities(text) == []


def test_offsets_point_at_the_printed_number() -> None:
    text = "Investing activities (6,450) (9,876) (27,819) Financing activities (3,882)"
    tokens = find_numbers(text)
    assert [t.value for t in tokens] == [-6450, -9876, -27819, -3882]
    for token in tokens:
        assert text[token.start : token.end] == token.text


@given(
    value=st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False),
    decimals=st.integers(0, 3),
    grouped=st.booleans(),
    style=st.sampled_from(["plain", "paren", "minus", "percent", "dollar", "multiple"]),
)
def test_printed_numbers_read_back(value: float, decimals: int, grouped: bool, style: str) -> None:
    body = f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"
    printed = {
        "plain": body,
        "paren": f"({body})",
        "minus": f"-{body}",
        "percent": f"{body}%",
        "dollar": f"${body}",
        "multiple": f"{body}x",
    }[style]
    tokens = find_numbers(f"The figure was {printed} last period.")
    assert len(tokens) == 1
    token = tokens[0]
    expected = float(body.replace(",", ""))
    if style in ("paren", "minus"):
        expected = -expected
    if token.kind == "year":  # a plain 4-digit 1900-2099 is read as a year, by design
        assert style == "plain" and decimals == 0 and 1900 <= expected <= 2099
        return
    assert token.value == pytest.approx(expected)
    assert token.decimals == decimals
    assert token.text.strip() == printed


def test_real_report_pages(shared_data: Path) -> None:
    """Numbers on real MMLongBench-Doc pages: every token's text is where its offsets say."""
    documents = shared_data / "mmlongbench-doc" / "documents"
    with pymupdf.open(documents / "AMAZON_2017_10K.pdf") as document:
        text = document[21].get_text()
    tokens = find_numbers(text)
    assert all(text[t.start : t.end] == t.text for t in tokens)
    values = {t.value for t in tokens if t.is_quantity}
    assert {-6450.0, -9876.0, -27819.0, -3882.0} <= values
    with pymupdf.open(documents / "2023.acl-long.386.pdf") as document:
        text = document[5].get_text()
    percents = {t.value for t in quantities(text) if t.kind == "percent"}
    assert {10.38, 11.37, 14.77} <= percents
