"""The line items a financial ratio is computed from.

A 10-K question asks for a ratio by its name ("return on assets", "debt to EBITDA", "days
payable outstanding") and the report prints its operands under theirs ("Net income",
"Total assets", "Accounts payable"). The question's own words do not find those rows, so
this table names them: the standard textbook definitions, by the words a question uses.
A row printing one of these phrases with a number is an operand row of the question
(:mod:`.operands`).
"""

from __future__ import annotations

import re

#: (what the question says, the line items the ratio is computed from).
_RATIOS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"return on (?:total )?assets?|\broa\b", ("net income", "total assets")),
    (
        r"return on (?:\w+'?s'? )?equity|\broe\b",
        ("net income", "stockholders equity", "shareholders equity"),
    ),
    (
        r"debt[- ]to[- ](?:total )?equity|debt[- ]equity",
        ("long-term debt", "total debt", "stockholders equity"),
    ),
    (r"ebitda", ("operating income", "depreciation", "amortization", "long-term debt")),
    (r"working capital|current ratio", ("total current assets", "total current liabilities")),
    (
        r"quick ratio",
        ("cash and cash equivalents", "marketable securities", "total current liabilities"),
    ),
    (
        r"gross (?:profit )?margin",
        ("gross profit", "cost of sales", "cost of revenues", "net sales", "total net sales"),
    ),
    (r"operating (?:profit )?margin", ("operating income", "net sales", "revenues")),
    (r"net (?:profit )?margin|profit margin", ("net income", "net sales", "revenues")),
    (
        r"effective tax rate|tax rate",
        ("provision for income taxes", "tax provision", "income before income taxes"),
    ),
    (r"days payable|\bdpo\b", ("accounts payable", "cost of sales")),
    (r"days sales outstanding|\bdso\b", ("accounts receivable", "net sales")),
    (r"inventory turnover|days (?:of )?inventory", ("inventories", "cost of sales")),
    (r"asset turnover", ("total assets", "net sales", "revenues")),
    (r"interest coverage", ("operating income", "interest expense")),
    (r"free cash flow", ("net cash provided by", "purchases of property and equipment")),
    (r"capital expenditure|\bcapex\b", ("purchases of property and equipment",)),
    (r"\bsales\b", ("net sales", "revenues")),
    (r"\bliabilit", ("total liabilities",)),
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), items) for p, items in _RATIOS)

#: Line items a reader rebuilds from others printed elsewhere in a 10-K: net income is
#: pre-tax income less the tax provision (both restated in the income-tax note), or
#: earnings per share times the shares it is computed over, total
#: assets equal total liabilities and equity, equity is total liabilities and equity less
#: total liabilities. A sealed line item is only sealed when these are too.
_DERIVED: dict[str, tuple[str, ...]] = {
    "net income": (
        "before income taxes",
        "provision for income taxes",
        "tax provision",
        "earnings per share",
        "weighted average shares",
    ),
    "total assets": (
        "total liabilities and stockholders equity",
        "total liabilities and shareholders equity",
    ),
    "stockholders equity": ("total liabilities and stockholders equity", "total liabilities"),
    "shareholders equity": ("total liabilities and shareholders equity", "total liabilities"),
    "total liabilities": (
        "total liabilities and stockholders equity",
        "total liabilities and shareholders equity",
    ),
    "gross profit": ("cost of sales", "net sales"),
    "operating income": ("total operating expenses",),
}


def operand_phrases(question: str) -> tuple[str, ...]:
    """The line items the ratios a question names are computed from, and the items those
    are rebuilt from (none for most questions)."""
    out: list[str] = []
    for pattern, items in _COMPILED:
        if pattern.search(question):
            out += [item for item in items if item not in out]
    for item in list(out):
        out += [source for source in _DERIVED.get(item, ()) if source not in out]
    return tuple(out)
