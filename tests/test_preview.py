"""The preview: index.html + contact_sheet.png for one sample, readable straight from disk."""

from __future__ import annotations

import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest
from PIL import Image

from abstain_build.errors import ConfigError
from abstain_build.loaders import open_source
from abstain_build.model import Sample
from abstain_build.preview import PreviewResult, preview
from abstain_build.preview.sheet import COLUMNS, IMAGE_H, PAD, TEXT_H, TILE_W
from abstain_build.transforms import get_registry

from .conftest import FIXTURES, run_cli

DOC_SOURCE = FIXTURES / "mmlongbench-doc"
DOC_SAMPLE = "ACME_2021_10K-fb753eb3"
TWO_PAGE_SAMPLE = "ACME_2021_10K-faa72d51"  # evidence pages 3 and 4
IMAGE_SOURCE = FIXTURES / "mmmu"
IMAGE_SAMPLE = "fixture_chart_bar"
SKIPPED_SAMPLE = "survey_report_2019-dea575c9"  # answer "Not answerable" in the fixture


class PageParser(HTMLParser):
    """Every link target; per card: title, text, parameter names (``th``), and the words
    deleted / inserted in its question line (``<p class="q">``)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.cards: list[dict[str, Any]] = []
        self._in: dict[str, int] = {"h2": 0, "ins": 0, "del": 0, "th": 0, "p": 0}
        self._question = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.links.append(value)
        if tag == "div" and "card" in (dict(attrs).get("class") or "").split():
            self.cards.append({"title": "", "text": "", "ins": [], "del": [], "th": []})
        if tag == "p":
            self._question = "q" in (dict(attrs).get("class") or "").split()
        if tag in self._in:
            self._in[tag] += 1
            if self.cards and (tag == "th" or (tag in ("ins", "del") and self._question)):
                self.cards[-1][tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if self._in.get(tag):
            self._in[tag] -= 1
        if tag == "p":
            self._question = False

    def handle_data(self, data: str) -> None:
        if not self.cards:
            return
        card = self.cards[-1]
        card["text"] += data
        if self._in["h2"] and not card["title"]:
            card["title"] = data.strip()
        if self._in["th"]:
            card["th"][-1] += data
        for tag in ("ins", "del"):
            if self._in[tag] and self._question:
                card[tag][-1] += data

    def card(self, title: str) -> dict[str, Any]:
        matches = [c for c in self.cards if c["title"] == title]
        assert len(matches) == 1, f"expected one card titled {title!r}: {self.cards}"
        return matches[0]


def parse_page(result: PreviewResult) -> PageParser:
    parser = PageParser()
    parser.feed(result.index.read_text(encoding="utf-8"))
    parser.close()
    return parser


def item(result: PreviewResult, name: str) -> Any:
    [found] = [i for i in result.items if i.transform.name == name]
    return found


@pytest.fixture(scope="module")
def doc_preview(tmp_path_factory: pytest.TempPathFactory) -> PreviewResult:
    return preview(DOC_SOURCE, DOC_SAMPLE, tmp_path_factory.mktemp("preview") / "doc")


@pytest.fixture(scope="module")
def image_preview(tmp_path_factory: pytest.TempPathFactory) -> PreviewResult:
    return preview(IMAGE_SOURCE, IMAGE_SAMPLE, tmp_path_factory.mktemp("preview") / "img")


@pytest.fixture(params=["doc", "image"])
def any_preview(
    request: pytest.FixtureRequest, doc_preview: PreviewResult, image_preview: PreviewResult
) -> PreviewResult:
    return doc_preview if request.param == "doc" else image_preview


def test_preview_writes_index_and_contact_sheet(any_preview: PreviewResult) -> None:
    assert any_preview.index == any_preview.out_dir / "index.html"
    assert any_preview.contact_sheet == any_preview.out_dir / "contact_sheet.png"
    assert any_preview.index.stat().st_size > 0
    assert any_preview.contact_sheet.stat().st_size > 0


def test_every_link_is_a_relative_path_to_an_existing_file(any_preview: PreviewResult) -> None:
    links = parse_page(any_preview).links
    assert links, "the page links no image at all"
    anchors = [link for link in links if link.startswith("#")]
    html = any_preview.index.read_text(encoding="utf-8")
    for link in anchors:  # the table of contents: each entry jumps to its section
        assert f"id='{link[1:]}'" in html or f'id="{link[1:]}"' in html, link
    for link in (link for link in links if not link.startswith("#")):
        assert "://" not in link and not link.startswith(("/", "\\", "data:")), link
        assert not Path(link).is_absolute(), link
        target = (any_preview.out_dir / link).resolve()
        assert target.is_relative_to(any_preview.out_dir.resolve()), link
        assert target.is_file(), f"{link} does not exist under {any_preview.out_dir}"


def test_page_has_no_absolute_paths_or_web_links(any_preview: PreviewResult) -> None:
    html = any_preview.index.read_text(encoding="utf-8")
    assert "http:" not in html and "https:" not in html
    assert str(any_preview.out_dir.resolve()) not in html
    assert str(FIXTURES) not in html


def test_temporal_drift_card_shows_the_new_year_inserted(doc_preview: PreviewResult) -> None:
    drift = item(doc_preview, "temporal_drift")
    assert drift.status == "ok", drift.reason
    new_tokens = [t.new for t in drift.output.record.edits.tokens]
    assert new_tokens, "temporal_drift recorded no token edit"
    card = parse_page(doc_preview).card("temporal_drift")
    inserted = " ".join(card["ins"])
    for token in new_tokens:
        assert token in inserted, f"{token!r} not inside <ins>: {card['ins']}"


def test_temporal_drift_card_shows_the_old_year_struck_through(doc_preview: PreviewResult) -> None:
    drift = item(doc_preview, "temporal_drift")
    old_tokens = [t.old for t in drift.output.record.edits.tokens]
    assert old_tokens
    deleted = " ".join(parse_page(doc_preview).card("temporal_drift")["del"])
    for token in old_tokens:
        assert token in deleted, f"{token!r} not inside <del>"


def test_cards_list_the_parameters_used(doc_preview: PreviewResult) -> None:
    page = parse_page(doc_preview)
    for name in ("hide_evidence_page", "temporal_drift"):
        produced = item(doc_preview, name)
        declared = set(produced.transform.params)
        shown = set(page.card(name)["th"])
        assert declared <= shown, f"{name}: parameters {declared - shown} not shown"


@pytest.mark.parametrize("which", ["doc", "image"])
def test_by_default_only_the_samples_axis_is_previewed(
    which: str, doc_preview: PreviewResult, image_preview: PreviewResult
) -> None:
    result = doc_preview if which == "doc" else image_preview
    axis = "evidence_sufficiency" if which == "doc" else "modality_dependency"
    shown = {i.transform.name for i in result.items}
    expected = {cls.name for cls in get_registry() if cls.axis == axis}
    assert shown == expected
    if which == "doc":
        assert {"full_page_blur", "dense_mask"} <= shown, "the terminal fallbacks are previewed"


def test_a_named_transform_of_the_other_axis_is_listed_with_its_reason(
    tmp_path: Path,
) -> None:
    result = preview(
        DOC_SOURCE, DOC_SAMPLE, tmp_path / "p", transforms=["adaptive_darkness", "dense_mask"]
    )
    page = parse_page(result)
    not_applicable = item(result, "adaptive_darkness")
    assert not_applicable.status == "not_applicable"
    assert not_applicable.reason
    text = " ".join(page.card("adaptive_darkness")["text"].split())
    assert "not applicable" in text
    assert not_applicable.reason in text
    assert item(result, "dense_mask").status == "ok"


def test_contact_sheet_has_one_tile_per_produced_item_plus_the_original(
    any_preview: PreviewResult,
) -> None:
    tiles = 1 + sum(1 for i in any_preview.items if i.output is not None)
    columns = min(COLUMNS, tiles)
    rows = math.ceil(tiles / COLUMNS)
    with Image.open(any_preview.contact_sheet) as sheet:
        sheet.load()
        assert sheet.format == "PNG"
        assert sheet.size == (
            columns * TILE_W + (columns + 1) * PAD,
            rows * (IMAGE_H + TEXT_H) + (rows + 1) * PAD,
        )


def test_hide_evidence_page_overlay_exists_and_differs_from_the_original(
    doc_preview: PreviewResult,
) -> None:
    hidden = item(doc_preview, "hide_evidence_page")
    assert hidden.status == "ok", hidden.reason
    assert hidden.overlay, "no edited-regions overlay written"
    original = doc_preview.out_dir / "assets" / "original" / "page-0004.png"
    overlay = doc_preview.out_dir / hidden.overlay[0]
    assert overlay.is_file()
    before = np.asarray(Image.open(original).convert("RGB"))
    after = np.asarray(Image.open(overlay).convert("RGB"))
    assert before.shape == after.shape
    assert not np.array_equal(before, after)


def test_each_page_row_shows_its_original_result_and_edited_regions(tmp_path: Path) -> None:
    """With two evidence pages, page 3's original, result and overlay share one row."""
    result = preview(
        DOC_SOURCE, TWO_PAGE_SAMPLE, tmp_path / "two", transforms=["hide_evidence_page"]
    )
    assert result.sample.evidence_pages == (3, 4)
    hidden = item(result, "hide_evidence_page")
    assert len(hidden.overlay) == 2
    html = result.index.read_text(encoding="utf-8")
    card = html[html.index("<h2>hide_evidence_page") :]
    first_row = card[card.index("<div class='images'>") :]
    first_row = first_row[: first_row.index("</div>")]
    assert "assets/original/page-0003.png" in first_row
    assert "assets/hide_evidence_page/page-0003.png" in first_row
    assert "assets/hide_evidence_page/regions-1.png" in first_row
    assert "page-0004.png" not in first_row


def test_unknown_sample_id_suggests_close_ids(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        preview(DOC_SOURCE, DOC_SAMPLE[:-1], tmp_path / "out")
    message = str(raised.value)
    assert DOC_SAMPLE in message
    assert "abstain-build samples" in message
    assert not (tmp_path / "out").exists()


def test_skipped_record_cannot_be_previewed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        preview(DOC_SOURCE, SKIPPED_SAMPLE, tmp_path / "out")
    message = str(raised.value)
    assert SKIPPED_SAMPLE in message
    assert "cannot be previewed" in message
    assert "Not answerable" in message
    assert not (tmp_path / "out").exists()


@pytest.mark.exhaustive
def test_same_seed_gives_identical_result_images(tmp_path: Path) -> None:
    # two evidence pages: which one is hidden and which half is kept are random choices
    first = preview(DOC_SOURCE, TWO_PAGE_SAMPLE, tmp_path / "a", seed=2)
    second = preview(DOC_SOURCE, TWO_PAGE_SAMPLE, tmp_path / "b", seed=2)
    pairs = [
        (one, two)
        for a, b in zip(first.items, second.items, strict=True)
        if a.output is not None
        for one, two in zip(a.images, b.images, strict=True)
    ]
    assert pairs
    for one, two in pairs:
        assert one == two
        assert (first.out_dir / one).read_bytes() == (second.out_dir / two).read_bytes(), one
    assert first.contact_sheet.read_bytes() == second.contact_sheet.read_bytes()


def test_cli_preview_exits_zero_and_prints_the_index_path(tmp_path: Path) -> None:
    out = tmp_path / "preview"
    done = run_cli("preview", "fixtures/mmmu", "--sample", IMAGE_SAMPLE, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert str(out / "index.html") in done.stdout + done.stderr
    assert (out / "index.html").is_file()


#: A real question with two evidence pages, one of which gets hidden (a 10-K's are
#: declined: its figures are public record).
REAL_HIDDEN = "PIP_Seniors-and-Tech-Use_040314-c0f83425"


def _real_sample(source: Path) -> Sample:
    for candidate in open_source(source):
        if isinstance(candidate, Sample) and candidate.id == REAL_HIDDEN:
            return candidate
    pytest.skip(f"no sample {REAL_HIDDEN} in ../shared/data/mmlongbench-doc")


@pytest.mark.shared_data
@pytest.mark.exhaustive  # test_shared_data checks hidden pages of 24 real samples in builds
def test_real_document_hidden_pages_lose_their_text_layer(
    shared_data: Path, tmp_path: Path
) -> None:
    source = shared_data / "mmlongbench-doc"
    sample = _real_sample(source)
    # One transform: previewing all of them re-reads a dozen pages each.
    result = preview(source, sample.id, tmp_path / "real", transforms=["hide_evidence_page"])
    assert result.index.is_file() and result.contact_sheet.is_file()
    hidden = item(result, "hide_evidence_page")
    assert hidden.status == "ok", hidden.reason
    pages = hidden.output.record.edits.pages_hidden
    assert pages
    original = pymupdf.open(sample.document.path)
    perturbed = pymupdf.open(stream=hidden.output.pdf)
    try:
        assert perturbed.page_count == original.page_count
        for page in pages:
            assert original[page - 1].get_text().strip(), f"page {page} had no text to hide"
            assert perturbed[page - 1].get_text().strip() == "", f"page {page} keeps text"
    finally:
        original.close()
        perturbed.close()


def test_preview_refuses_to_write_into_a_build_output(tmp_path: Path, fixtures_dir: Path) -> None:
    from abstain_build import BuildConfig, build

    out = tmp_path / "built"
    build(BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), limit=1))
    before = sorted(p.name for p in (out / "assets").iterdir())
    with pytest.raises(ConfigError, match="holds an abstain-build dataset"):
        preview(fixtures_dir / "mmmu", "fixture_chart_bar", out)
    assert sorted(p.name for p in (out / "assets").iterdir()) == before


def test_the_routing_section_scores_every_transform_and_names_the_chain(
    doc_preview: PreviewResult,
) -> None:
    page = doc_preview.index.read_text()
    assert "<h2>Routing</h2>" in page and "Fallback chain:" in page
    scored = [item for item in doc_preview.items if item.route_score is not None]
    candidates = [i for i in doc_preview.items if not i.transform.terminal_fallback]
    assert len(scored) == len(candidates)  # terminal fallbacks are chain ends, not scored
    assert all(f"routing score {item.route_score:.3f}" in page for item in scored)
    # The features routing read from the evidence page are on the page too.
    assert "numbers_on_evidence" in page and "evidence_type" in page


def test_the_cli_prints_every_status_a_preview_can_give() -> None:
    from abstain_build.commands.preview import PREVIEW_STYLES
    from abstain_build.preview.run import STATUSES

    # A status without a style crashed `abstain-build preview` after the work was done.
    assert set(PREVIEW_STYLES) == set(STATUSES)


def test_the_contents_list_every_transform_and_each_result_shows_what_qc_would_decide(
    doc_preview: PreviewResult,
) -> None:
    html = doc_preview.index.read_text(encoding="utf-8")
    for result in doc_preview.items:
        assert f'href="#t-{result.transform.name}"' in html
        assert f"id='t-{result.transform.name}'" in html
        if result.status == "ok":
            assert result.qc is not None and result.qc["status"] in (
                "accepted",
                "rejected",
                "flagged",
                "qc_error",
            )
            judges = {v["judge"] for v in result.qc["judges"]}
            assert judges == {"offline:leak", "offline:retention"}
    assert html.count("<h3>Offline QC") == sum(r.status == "ok" for r in doc_preview.items)
    gated = [r for r in doc_preview.items if r.gate]
    assert gated and html.count("<h3>Re-read gate</h3>") >= len(
        [r for r in gated if r.status == "ok"]
    )
    assert "click to zoom" in html and "scroll-margin-top" in html
