"""The MMMU fixture items, written in the MMMU repository's JSONL tool layout.

Every answer letter is derived from the same numbers the image is drawn from, so the
fixture's answers stay correct if the data here are edited.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import charts, drawings
from .files import jsonl_bytes, write_bytes

SEED = 20240611


@dataclass(frozen=True)
class Item:
    """One multiple-choice question with its rendered images (PNG bytes, in order)."""

    stem: str  # image file stem without the _N suffix; also the readable item id
    question: str
    options: tuple[str, ...]
    correct: str  # the option text that is right for the image
    images: tuple[bytes, ...]
    subfield: str
    img_type: str
    difficulty: str

    @property
    def answer(self) -> str:
        return string.ascii_uppercase[self.options.index(self.correct)]

    def image_names(self) -> list[str]:
        return [f"{self.stem}_{n}.png" for n in range(1, len(self.images) + 1)]


def _bar_item() -> Item:
    quarters = ["Q1", "Q2", "Q3", "Q4"]
    revenue = {"North": [42, 48, 55, 61], "South": [38, 41, 37, 44], "West": [29, 35, 46, 52]}
    growth = {region: values[-1] - values[0] for region, values in revenue.items()}
    image = charts.grouped_bar(
        "Quarterly Revenue by Region", quarters, revenue, "Quarter (FY2023)", "Revenue ($ millions)"
    )
    return Item(
        stem="fixture_chart_bar",
        question=(
            "<image 1> The chart shows quarterly revenue for three sales regions. "
            "Which region's revenue grew the most from Q1 to Q4?"
        ),
        options=("West", "North", "South", "All three regions grew equally", "None of them grew"),
        correct=max(growth, key=growth.__getitem__),
        images=(image,),
        subfield="Marketing",
        img_type="['Plots and Charts']",
        difficulty="Easy",
    )


def _line_item() -> Item:
    years = list(range(2015, 2023))
    sales = {
        "Product A": [120, 135, 150, 160, 165, 170, 172, 175],
        "Product B": [60, 80, 105, 130, 158, 181, 205, 230],
    }
    first = next(y for y, a, b in zip(years, *sales.values(), strict=True) if b > a)
    image = charts.line_chart(
        "Annual Unit Sales, 2015-2022", years, sales, "Year", "Units sold (thousands)"
    )
    return Item(
        stem="fixture_chart_line",
        question=(
            "Based on the sales trends in <image 1>, in which year did Product B's annual "
            "sales first exceed those of Product A?"
        ),
        options=("2017", "2018", "2019", "2020", "2021"),
        correct=str(first),
        images=(image,),
        subfield="Economics",
        img_type="['Plots and Charts']",
        difficulty="Easy",
    )


def _table_item() -> Item:
    header = ["City", "2019", "2020", "2021", "2022"]
    rainfall = {
        "Lisbon": [712, 655, 804, 590],
        "Madrid": [421, 389, 455, 302],
        "Porto": [1180, 1254, 1097, 1023],
        "Seville": [534, 498, 611, 447],
        "Valencia": [475, 512, 389, 430],
    }
    rows = [[city, *(f"{v:,}" for v in values)] for city, values in rainfall.items()]
    image = drawings.table_image(
        "Annual Rainfall (mm) by City", header, rows, "Source: synthetic weather records."
    )
    return Item(
        stem="fixture_table_rainfall",
        question=(
            "According to the table in <image 1>, how much rainfall (in mm) was recorded "
            "in Seville in 2021?"
        ),
        options=("498 mm", "611 mm", "804 mm", "447 mm", "455 mm"),
        correct=f"{rainfall['Seville'][header.index('2021') - 1]} mm",
        images=(image,),
        subfield="Geography",
        img_type="['Tables']",
        difficulty="Easy",
    )


def _diagram_item() -> Item:
    labels = {"A": "Sun", "B": "Cloud", "C": "Mountain", "D": "Ocean"}
    image = drawings.water_cycle_diagram(labels)
    return Item(
        stem="fixture_diagram_water_cycle",
        question="<image 1> In the diagram of the water cycle, what does label B point to?",
        options=("Sun", "Cloud", "Mountain", "Ocean"),
        correct=labels["B"],
        images=(image,),
        subfield="Geography",
        img_type="['Diagrams']",
        difficulty="Easy",
    )


def _scatter_item() -> Item:
    rng = np.random.default_rng(SEED)
    hours = np.round(rng.uniform(1, 12, 36), 1)
    scores = np.clip(np.round(42 + 4.6 * hours + rng.normal(0, 4.5, hours.size)), 0, 100)
    r = float(np.corrcoef(hours, scores)[0, 1])
    image = charts.scatter_plot(
        "Study Time vs. Exam Score", hours, scores, "Weekly study time (hours)", "Exam score (%)"
    )
    if r > 0.7:
        correct = "A strong positive correlation"
    elif r < -0.7:
        correct = "A strong negative correlation"
    else:
        correct = "No clear correlation"
    return Item(
        stem="fixture_chart_scatter",
        question=(
            "What kind of relationship between weekly study time and exam score does "
            "<image 1> show?"
        ),
        options=(
            "A strong negative correlation",
            "A strong positive correlation",
            "No clear correlation",
            "A U-shaped (quadratic) relationship",
        ),
        correct=correct,
        images=(image,),
        subfield="Psychology",
        img_type="['Plots and Charts']",
        difficulty="Medium",
    )


def _compare_item() -> Item:
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]
    store_x = [1240, 1310, 1185, 1420, 1390, 1505]
    store_y = [1180, 1365, 1290, 1350, 1460, 1480]
    ahead = sum(y > x for x, y in zip(store_x, store_y, strict=True))
    first = charts.labelled_bars(
        "Store X: Monthly Visitors", months, store_x, "Visitors", charts.PALETTE[0], 1800
    )
    second = charts.labelled_bars(
        "Store Y: Monthly Visitors", months, store_y, "Visitors", charts.PALETTE[1], 1800
    )
    return Item(
        stem="fixture_compare_stores",
        question=(
            "<image 1> shows the monthly visitors of Store X and <image 2> those of Store Y "
            "from January to June. In how many of these months did Store Y have more "
            "visitors than Store X?"
        ),
        options=("1", "2", "3", "4", "5"),
        correct=str(ahead),
        images=(first, second),
        subfield="Marketing",
        img_type="['Plots and Charts']",
        difficulty="Medium",
    )


def _incline_item() -> Item:
    mass, angle_deg, distance, g = 5.0, 30.0, 4.0, 9.8
    speed = math.sqrt(2 * g * distance * math.sin(math.radians(angle_deg)))
    distractors = [
        math.sqrt(g * distance * math.sin(math.radians(angle_deg))),  # forgot the factor 2
        math.sqrt(2 * g * distance * math.cos(math.radians(angle_deg))),  # cos for sin
        math.sqrt(2 * g * distance),  # ignored the slope
        g * math.sin(math.radians(angle_deg)),  # reported the acceleration
    ]
    options = tuple(f"{v:.2f} m/s" for v in sorted([speed, *distractors]))
    return Item(
        stem="fixture_physics_incline",
        question=(
            f"A block of mass m = {mass:.1f} kg is released from rest on a frictionless "
            f"incline that makes an angle θ = {angle_deg:.0f}° with the horizontal "
            f"(<image 1>). It slides a distance d = {distance:.1f} m down the incline. "
            f"Taking g = {g} m/s² and using energy conservation, m g d sin θ = ½ m v², "
            "i.e. v = √(2 g d sin θ), what is the block's speed after sliding the distance d?"
        ),
        options=options,
        correct=f"{speed:.2f} m/s",
        images=(drawings.incline_sketch(),),
        subfield="Physics",
        img_type="['Sketches and Drafts']",
        difficulty="Medium",
    )


def _pie_item() -> Item:
    shares = {"Heating": 42, "Appliances": 24, "Water heating": 18, "Lighting": 9, "Cooling": 7}
    if sum(shares.values()) != 100:
        raise ValueError("pie shares must add up to 100%")
    image = charts.pie_chart(
        "Household Energy Use by Category", list(shares), list(shares.values())
    )
    combined = shares["Appliances"] + shares["Lighting"]
    return Item(
        stem="fixture_chart_pie",
        question=(
            "According to <image 1>, what percentage of household energy use goes to "
            "appliances and lighting combined?"
        ),
        options=("18%", "24%", "27%", "31%", "33%"),
        correct=f"{combined}%",
        images=(image,),
        subfield="Energy_and_Power",
        img_type="['Plots and Charts']",
        difficulty="Easy",
    )


def items() -> list[Item]:
    """All items in their published order; each one's answer is checked against its options."""
    built = [
        _bar_item(),
        _line_item(),
        _table_item(),
        _diagram_item(),
        _scatter_item(),
        _compare_item(),
        _incline_item(),
        _pie_item(),
    ]
    for item in built:
        if item.correct not in item.options:
            raise ValueError(f"{item.stem}: the correct value {item.correct!r} is not an option")
    return built


def record(item: Item) -> dict[str, object]:
    """The JSONL record: no id key, image_N paths relative to the JSONL file."""
    row: dict[str, object] = {
        "question": item.question,
        "options": list(item.options),
        "answer": item.answer,
    }
    for n, name in enumerate(item.image_names(), start=1):
        row[f"image_{n}"] = f"images/{name}"
    return row


def write(folder: Path, built: Sequence[Item]) -> list[Path]:
    """Write ``samples.jsonl`` and ``images/`` under ``folder``."""
    written = [write_bytes(folder / "samples.jsonl", jsonl_bytes(record(i) for i in built))]
    for item in built:
        for name, data in zip(item.image_names(), item.images, strict=True):
            written.append(write_bytes(folder / "images" / name, data))
    return written
