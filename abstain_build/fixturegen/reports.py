"""The two fixture documents: a 10-K style annual report and a survey research report.

The numbers are module constants shared with the question records, so each answer is the
value printed in the document. Builders return the PDF bytes and a map from page role to
1-based page number, so records never hard-code page numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from . import charts, drawings
from .pdfdoc import footer, full_page_image, new_page, pdf_bytes

FISCAL_YEARS = ("FY2019", "FY2020", "FY2021")
# Revenue in millions of US$, per fiscal year (ACME's fiscal year is the calendar year).
SEGMENTS: dict[str, tuple[float, float, float]] = {
    "Industrial Products": (4842.5, 5196.3, 5614.8),
    "Consumer Devices": (3207.9, 3315.4, 3652.1),
    "Cloud Services": (1684.2, 2158.7, 2868.9),
    "Energy Solutions": (912.6, 863.5, 741.2),
}
ELIMINATIONS = (-1018.4, -1102.7, -1234.6)
QUARTERS_2021 = {  # Q: (revenue, operating income, net income), millions of US$
    "Q1 2021": (2701.5, 318.2, 212.4),
    "Q2 2021": (2864.8, 352.7, 238.9),
    "Q3 2021": (3105.2, 431.5, 301.6),
    "Q4 2021": (2970.9, 367.0, 247.3),
}
SUBSCRIPTION_SEGMENT = "Cloud Services"
ENERGY_PRODUCTS = "grid-scale battery storage systems and industrial gas turbines"
EMPLOYEES = {"FY2019": 33900, "FY2020": 35200, "FY2021": 38500}

SOCIAL_MEDIA_USE = {2016: 68, 2017: 69, 2018: 70, 2019: 72}  # % of U.S. adults
AGE_GROUPS = {  # % using social media in 2016 and 2019
    "Ages 18-29": (86, 90),
    "Ages 30-49": (80, 82),
    "Ages 50-64": (64, 69),
    "Ages 65+": (34, 40),
}
PLATFORMS = {  # % of U.S. adults using each platform, 2016-2019
    "Facebook": (68, 68, 68, 69),
    "YouTube": (62, 65, 73, 73),
    "Instagram": (28, 32, 35, 37),
    "Pinterest": (26, 27, 29, 28),
    "LinkedIn": (25, 25, 25, 27),
    "Twitter": (21, 22, 24, 22),
}
SAMPLE_SIZES = {2016: 1520, 2017: 2002, 2018: 2002, 2019: 1502}
NUMBER_WORDS = {3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class BuiltDocument:
    """PDF bytes plus where each kind of content landed (1-based page numbers)."""

    name: str
    data: bytes
    pages: dict[str, int]


def money(value: float) -> str:
    """Financial-statement style: thousands separators, one decimal, negatives in parentheses."""
    text = f"{abs(value):,.1f}"
    return f"({text})" if value < 0 else text


def percent_change(new: float, old: float) -> str:
    change = (new - old) / abs(old) * 100
    text = f"{abs(change):.1f}%"
    return f"({text})" if change < 0 else text


def totals() -> tuple[float, float, float]:
    """Total revenue per fiscal year: segments plus intersegment eliminations."""
    sums = [sum(v[i] for v in SEGMENTS.values()) + ELIMINATIONS[i] for i in range(3)]
    return (round(sums[0], 1), round(sums[1], 1), round(sums[2], 1))


def _acme_cover(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.page.draw_rect(pymupdf.Rect(0, 0, 612, 250), color=None, fill=(0.05, 0.25, 0.5))
    writer.page.insert_text(
        (72, 150), "ACME CORPORATION", fontname="hebo", fontsize=34, color=(1, 1, 1)
    )
    writer.page.insert_text(
        (72, 185), "Innovation that works", fontname="heit", fontsize=14, color=(0.85, 0.9, 1)
    )
    writer.space(260)
    writer.line("Annual Report", size=30, font="hebo", gap=8)
    writer.line("Fiscal Year 2021", size=22, font="helv", gap=24)
    writer.line("Form 10-K", size=14, font="hebo")
    writer.line("For the fiscal year ended December 31, 2021", size=12)
    writer.space(200)
    writer.line(
        "ACME Corporation  |  1200 Market Street  |  Columbus, Ohio 43215",
        size=9,
        color=(0.4, 0.4, 0.4),
    )
    writer.line(
        "This is a synthetic document generated for software tests. ACME Corporation is fictional.",
        size=8,
        color=(0.4, 0.4, 0.4),
    )


def _acme_letter(doc: pymupdf.Document) -> None:
    total19, total20, total21 = totals()
    growth = (total21 - total20) / total20 * 100
    writer = new_page(doc)
    writer.heading("Letter to Shareholders", size=18)
    writer.paragraph("Dear fellow shareholders,")
    writer.paragraph(
        f"Fiscal 2021 was the strongest year in ACME's history. Total revenue grew {growth:.1f}% "
        f"to ${money(total21)} million, up from ${money(total20)} million in FY2020 and "
        f"${money(total19)} million in fiscal 2019. Every quarter of the year exceeded the "
        "same quarter of the prior year, and Q3 2021 was the largest quarter we have ever "
        "reported, helped by strong demand for automation equipment and the continued "
        "shift of our customers to cloud-based services."
    )
    writer.paragraph(
        "Our strategy rests on three commitments: to lead in industrial automation, to turn "
        "every device we sell into a connected service, and to help our customers reduce the "
        "energy they use. In FY2021 we invested $612.0 million in research and development, "
        "opened a new design center in Austin, Texas, and completed the integration of the "
        "two software companies we acquired in FY2020."
    )
    writer.paragraph(
        "The year was not without challenges. Supply constraints on semiconductors lengthened "
        "lead times in Consumer Devices during the first half of fiscal 2021, and we continued "
        "to wind down legacy turbine service contracts in Energy Solutions, which reduced that "
        "segment's revenue for the second year in a row. We believe both headwinds are "
        "temporary and that the actions we took this year position ACME well for FY2022."
    )
    writer.paragraph(
        "I want to thank our employees, whose work made these results possible, and you, our "
        "shareholders, for your continued confidence in ACME."
    )
    writer.space(6)
    writer.paragraph("Margaret L. Chen\nChair and Chief Executive Officer\nFebruary 24, 2022")


def _acme_business(doc: pymupdf.Document) -> None:
    names = list(SEGMENTS)
    writer = new_page(doc)
    writer.heading("Item 1. Business", size=16)
    writer.heading("Overview", size=12)
    writer.paragraph(
        "ACME Corporation designs, manufactures and services industrial equipment, consumer "
        "electronics and the software that connects them. The company was incorporated in "
        "Delaware in 1978 and is headquartered in Columbus, Ohio. Our fiscal year ends on "
        "December 31; references to fiscal 2021 or FY2021 are to the year ended December 31, "
        "2021."
    )
    writer.paragraph(
        f"We manage our business through {NUMBER_WORDS[len(names)]} reportable segments: "
        f"{', '.join(names[:-1])} and {names[-1]}. Segment results are presented in Item 7."
    )
    writer.heading("Reportable segments", size=12)
    writer.paragraph(
        f"{names[0]}. This segment sells factory automation systems, programmable controllers "
        "and precision motion components to manufacturers in more than 60 countries. It is our "
        "largest segment by revenue."
    )
    writer.paragraph(
        f"{names[1]}. This segment sells smart thermostats, home security cameras and "
        "connected appliances through retailers and our online store."
    )
    writer.paragraph(
        f"{SUBSCRIPTION_SEGMENT}. This is our subscription-based business: customers pay "
        "monthly or annual fees for device management, analytics and remote monitoring "
        "software, delivered from data centers in North America and Europe."
    )
    writer.paragraph(
        f"{names[3]}. This segment designs and installs {ENERGY_PRODUCTS} for utilities and "
        "large industrial sites, and provides long-term maintenance services for them."
    )
    writer.heading("Human capital", size=12)
    writer.paragraph(
        f"As of December 31, 2021, ACME had approximately {EMPLOYEES['FY2021']:,} full-time "
        f"employees, compared with {EMPLOYEES['FY2020']:,} at the end of FY2020 and "
        f"{EMPLOYEES['FY2019']:,} at the end of fiscal 2019. About 41% of our employees work "
        "outside the United States."
    )


def _acme_mdna(doc: pymupdf.Document) -> None:
    total = totals()
    writer = new_page(doc)
    writer.heading("Item 7. Management's Discussion and Analysis", size=16)
    writer.paragraph(
        "The following discussion compares our results for fiscal 2021 with fiscal 2020 and "
        "should be read together with the consolidated financial statements. All amounts are "
        "in millions of US dollars unless otherwise noted."
    )
    writer.heading("Revenue by segment", size=12)
    writer.caption("Table 1: Revenue by segment (in millions of US$)")
    rows = [
        [name, *(money(v) for v in values), percent_change(values[2], values[1])]
        for name, values in SEGMENTS.items()
    ]
    rows.append(["Intersegment eliminations", *(money(v) for v in ELIMINATIONS), "n/m"])
    rows.append(["Total revenue", *(money(v) for v in total), percent_change(total[2], total[1])])
    writer.table(
        ["Segment", *FISCAL_YEARS, "Change FY21/FY20"],
        rows,
        widths=[150, 72, 72, 72, 102],
        bold_rows=[len(rows) - 1],
    )
    writer.paragraph(
        "n/m = not meaningful. Percentages in parentheses are decreases.", size=8, font="heit"
    )
    cloud = SEGMENTS["Cloud Services"]
    energy = SEGMENTS["Energy Solutions"]
    writer.paragraph(
        f"Total revenue increased {percent_change(total[2], total[1])} in FY2021. Cloud "
        f"Services was again our fastest-growing segment, with revenue up "
        f"{percent_change(cloud[2], cloud[1])} as the number of connected devices under "
        "subscription passed 11 million. Industrial Products benefited from price increases "
        "and higher volumes of motion components, while Consumer Devices recovered in the "
        "second half of the year as component supply improved."
    )
    writer.paragraph(
        f"Energy Solutions revenue declined to ${money(energy[2])} million from "
        f"${money(energy[1])} million in FY2020, reflecting the planned exit from legacy "
        "turbine service contracts. Intersegment eliminations grew with the volume of "
        "controllers that Industrial Products supplies to the other segments."
    )


def _acme_chart(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("Segment Performance", size=16)
    writer.paragraph(
        "Figure 1 compares the revenue of our four reportable segments over the last three "
        "fiscal years."
    )
    series = {fy: [values[i] for values in SEGMENTS.values()] for i, fy in enumerate(FISCAL_YEARS)}
    png = charts.grouped_bar(
        "Revenue by Segment, FY2019-FY2021",
        [name.replace(" ", "\n") for name in SEGMENTS],
        series,
        "Segment",
        "Revenue (US$ millions)",
        size=(900, 540),
    )
    writer.image(png, 468, 468 * 540 / 900)
    writer.caption("Figure 1: Revenue by segment, FY2019-FY2021 (in millions of US$)")
    writer.paragraph(
        "Industrial Products remained our largest segment in every year shown. Energy "
        "Solutions is the only segment whose revenue fell in both FY2020 and FY2021; we "
        "expect it to stabilize in fiscal 2022 as the remaining legacy contracts expire."
    )


def _acme_quarterly_scan(doc: pymupdf.Document) -> None:
    """The 'scanned' quarterly table: the only page with no text layer."""
    rows = [[quarter, *(money(v) for v in values)] for quarter, values in QUARTERS_2021.items()]
    sums = [round(sum(v[i] for v in QUARTERS_2021.values()), 1) for i in range(3)]
    rows.append(["Fiscal 2021", *(money(v) for v in sums)])
    png = drawings.scanned_page(
        lines=[
            ("ACME Corporation", 22, True),
            ("Quarterly Results of Operations (Unaudited)", 18, False),
            ("In millions of US$, fiscal year 2021", 15, False),
        ],
        header=["Quarter", "Revenue", "Operating income", "Net income"],
        rows=rows,
        widths=[150, 160, 210, 170],
        footer="ACME Corporation  |  Fiscal 2021 Form 10-K  |  6",
        seed=2021,
    )
    full_page_image(doc, png)


def _acme_outlook(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("Outlook for Fiscal 2022", size=16)
    writer.paragraph(
        "For FY2022 we expect total revenue growth in the range of 7% to 9%, led by Cloud "
        "Services and Industrial Products. We plan capital expenditures of approximately "
        "$540 million, mainly for a new controller plant and for data center capacity."
    )
    writer.heading("Item 1A. Risk Factors", size=16)
    writer.paragraph(
        "Our business is subject to risks that could materially affect our results. The most "
        "significant include: shortages of semiconductors and other components; the loss of "
        "large industrial customers; cyber attacks on the systems that deliver our cloud "
        "services; changes in energy policy that reduce demand for storage systems; and "
        "fluctuations in foreign exchange rates, since about 38% of FY2021 revenue was earned "
        "outside the United States."
    )
    writer.paragraph(
        "The risks described above are not the only ones we face. Additional risks that we do "
        "not currently know about or that we currently consider immaterial may also affect "
        "our business in fiscal 2022 and later years."
    )


def acme_annual_report() -> BuiltDocument:
    """``ACME_2021_10K.pdf``: cover, letter, business, MD&A table, chart, scan, outlook."""
    doc = pymupdf.open()
    _acme_cover(doc)
    _acme_letter(doc)
    _acme_business(doc)
    _acme_mdna(doc)
    _acme_chart(doc)
    _acme_quarterly_scan(doc)
    _acme_outlook(doc)
    pages = {
        "cover": 1,
        "letter": 2,
        "business": 3,
        "table": 4,
        "chart": 5,
        "scan": 6,
        "outlook": 7,
    }
    if doc.page_count != len(pages):
        raise ValueError(f"page map {pages} does not match {doc.page_count} pages")
    for number in range(pages["letter"], doc.page_count + 1):
        if number != pages["scan"]:  # the scan carries its footer inside the raster
            footer(doc[number - 1], f"ACME Corporation  |  Fiscal 2021 Form 10-K  |  {number}")
    data = pdf_bytes(
        doc,
        {
            "title": "ACME Corporation Annual Report, Fiscal Year 2021 (Form 10-K)",
            "author": "ACME Corporation",
            "subject": "Synthetic annual report for tests",
            "creator": "abstain_build.fixturegen",
        },
    )
    return BuiltDocument("ACME_2021_10K.pdf", data, pages)


def _survey_summary(doc: pymupdf.Document) -> None:
    use = SOCIAL_MEDIA_USE
    writer = new_page(doc)
    writer.line("NORTHFIELD RESEARCH CENTER", size=10, font="hebo", color=(0.6, 0.1, 0.1))
    writer.line("FOR RELEASE APRIL 10, 2019", size=9, color=(0.4, 0.4, 0.4), gap=18)
    writer.line("Social Media Use in 2019", size=26, font="hebo", gap=6)
    writer.line(
        "A majority of U.S. adults use at least one social media site, and growth is "
        "led by older adults",
        size=11,
        font="heit",
        gap=18,
    )
    writer.heading("Summary of findings", size=13)
    writer.paragraph(
        f"Some {use[2019]}% of U.S. adults say they use at least one social media site in "
        f"2019, according to a new Northfield Research Center survey. The share has risen "
        f"steadily over the past four years, from {use[2016]}% in 2016 to {use[2017]}% in "
        f"2017 and {use[2018]}% in 2018.",
        font="helv",
        size=10.5,
    )
    writer.paragraph(
        "YouTube and Facebook remain the most widely used online platforms, and their user "
        "bases are the most representative of the population as a whole. Smaller shares of "
        "Americans use sites such as Instagram, Pinterest, LinkedIn and Twitter.",
        font="helv",
        size=10.5,
    )
    young, old = AGE_GROUPS["Ages 18-29"], AGE_GROUPS["Ages 65+"]
    writer.paragraph(
        f"Younger adults remain the most active users: {young[1]}% of those ages 18 to 29 use "
        f"social media, compared with {old[1]}% of those 65 and older. But the gap has "
        f"narrowed since 2016, when just {old[0]}% of adults 65 and older used social media.",
        font="helv",
        size=10.5,
    )


def _survey_age(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("1. Social media use by age", size=15)
    paragraphs = [
        "Social media adoption differs sharply by age. Adults under 30 were among the "
        "earliest users of these platforms, and nearly all of them now use at least one site. "
        "Use among adults ages 30 to 49 has grown more slowly because it was already high in "
        "2016.",
        "The fastest growth between 2016 and 2019 came from adults ages 50 and older. Among "
        "those ages 50 to 64, the share who use social media rose by five percentage points, "
        "and among those 65 and older it rose by six points. Many older users say they joined "
        "to keep in touch with children and grandchildren, and a growing share use social "
        "media to follow news and local events.",
        "Differences by education and income are smaller than those by age. College "
        "graduates are somewhat more likely than those with a high school diploma or less to "
        "use social media, and adults in households earning $75,000 or more are more likely "
        "to use LinkedIn in particular.",
        "Figure 1 on the next page shows the share of adults in each age group who used "
        "social media in 2016 and in 2019.",
    ]
    for text in paragraphs:
        writer.paragraph(text, font="helv", size=10.5)


def _survey_chart(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("Older adults drive recent growth", size=15)
    old = AGE_GROUPS["Ages 65+"]
    writer.paragraph(
        f"In 2019, {old[1]}% of adults ages 65 and older use social media, up from {old[0]}% "
        "in 2016. Use among the youngest adults has changed little over the same period.",
        font="helv",
        size=10.5,
    )
    png = charts.paired_hbars(
        "% of U.S. adults who use social media, by age",
        list(AGE_GROUPS),
        {"2016": [v[0] for v in AGE_GROUPS.values()], "2019": [v[1] for v in AGE_GROUPS.values()]},
        "% of adults in each age group",
    )
    writer.image(png, 440, 440 * 560 / 900)
    writer.caption("Figure 1: Social media use by age group, 2016 and 2019")
    writer.paragraph(
        "Source: Northfield Research Center surveys, 2016 and 2019.", size=8, font="heit"
    )


def _survey_platforms(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("2. Use of individual platforms", size=15)
    writer.paragraph(
        "Table 1 shows the share of U.S. adults who say they ever use each of six online "
        "platforms. YouTube saw the largest gain since 2016, while use of Facebook has been "
        "essentially flat at around two-thirds of adults.",
        font="helv",
        size=10.5,
    )
    writer.caption("Table 1: % of U.S. adults who say they ever use each platform, 2016-2019")
    rows = [[name, *(f"{v}%" for v in values)] for name, values in PLATFORMS.items()]
    writer.table(
        ["Platform", *(str(year) for year in SOCIAL_MEDIA_USE)], rows, widths=[140, 75, 75, 75, 75]
    )
    writer.paragraph(
        "Twitter use fell back in 2019 after rising in 2018. Pinterest remains far more "
        "popular among women than men, and LinkedIn is used mainly by college graduates.",
        font="helv",
        size=10.5,
    )


def _survey_methods(doc: pymupdf.Document) -> None:
    writer = new_page(doc)
    writer.heading("Methodology", size=15)
    writer.paragraph(
        "Data in this report come from telephone surveys conducted each January and "
        "February from 2016 to 2019 among nationally representative samples of adults ages "
        "18 and older living in the United States. Interviews were conducted on landline and "
        "cellular telephones in English and Spanish.",
        font="helv",
        size=10.5,
    )
    writer.paragraph(
        "The 2019 survey was conducted January 8 to February 7, 2019. The margin of sampling "
        "error for the full 2019 sample is plus or minus 2.9 percentage points. Data are "
        "weighted to match the adult population by age, sex, education, race, region and "
        "telephone use.",
        font="helv",
        size=10.5,
    )
    writer.caption("Table 2: Unweighted sample sizes by survey year")
    rows = [[str(year), f"{n:,}"] for year, n in SAMPLE_SIZES.items()]
    rows.append(["Total", f"{sum(SAMPLE_SIZES.values()):,}"])
    writer.table(
        ["Survey year", "Adults interviewed"], rows, widths=[140, 140], bold_rows=[len(rows) - 1]
    )
    writer.paragraph(
        "Northfield Research Center is a fictional, nonpartisan organization; this report "
        "was generated as test data.",
        font="heit",
        size=8,
    )


def survey_report() -> BuiltDocument:
    """``survey_report_2019.pdf``: summary, age text, chart, platform table, methodology."""
    doc = pymupdf.open()
    _survey_summary(doc)
    _survey_age(doc)
    _survey_chart(doc)
    _survey_platforms(doc)
    _survey_methods(doc)
    pages = {"summary": 1, "age": 2, "chart": 3, "table": 4, "methods": 5}
    if doc.page_count != len(pages):
        raise ValueError(f"page map {pages} does not match {doc.page_count} pages")
    for number in range(1, doc.page_count + 1):
        footer(
            doc[number - 1], f"Northfield Research Center  |  Social Media Use in 2019  |  {number}"
        )
    data = pdf_bytes(
        doc,
        {
            "title": "Social Media Use in 2019",
            "author": "Northfield Research Center",
            "subject": "Synthetic survey report for tests",
            "creator": "abstain_build.fixturegen",
        },
    )
    return BuiltDocument("survey_report_2019.pdf", data, pages)
