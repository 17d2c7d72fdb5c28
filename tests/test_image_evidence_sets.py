"""Evidence sets of image samples (``--evidence-sets`` on MMMU): the question with its own
images, with them among other samples' images, with those alone, and with none."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from abstain_build import BuildConfig, build
from abstain_build.evidence.form_search import find_in_string
from abstain_build.evidence.forms import gold_items
from abstain_build.evidence.image_distractors import (
    Entry,
    difference_hash,
    near_duplicate,
    prints_gold,
    rank_candidates,
    subject_of,
)
from abstain_build.loaders import open_source
from abstain_build.media.images import decode_image
from abstain_build.model import Sample
from abstain_build.textregions.ocr import ocr_image

from .conftest import ROOT, read_jsonl

SETS = ["gold", "gold+distractors", "distractors", "none"]
IMAGES = ROOT / "fixtures" / "mmmu"


@pytest.fixture(scope="module")
def image_sets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("image-sets") / "mmmu"
    build(BuildConfig(source=str(IMAGES), out=str(out), seed=7, evidence_sets=SETS))
    return out


def _groups(out: Path) -> dict[str, dict[str, dict]]:
    groups: dict[str, dict[str, dict]] = {}
    for record in read_jsonl(out / "data.jsonl"):
        name = record["evidence_set"]["name"] if record["evidence_set"] else record["kind"]
        groups.setdefault(record["group_id"], {})[name] = record
    return groups


def _bytes(out: Path, relative: str) -> bytes:
    return (out / relative).read_bytes()


def _gold_text(record: dict) -> str:
    answer = record["original_answer"]
    if record["options"] and re.fullmatch(r"[A-Z]", answer):
        return record["options"][ord(answer) - ord("A")]
    return answer


def test_every_image_question_gets_the_four_sets(image_sets: Path) -> None:
    """gold ships the original's images; gold+distractors those among other samples'
    images, the question's <image N> naming the sample's image N where it now stands;
    distractors ships only other samples' images; none ships nothing."""
    groups = _groups(image_sets)
    originals = {
        g: {r["group_id"]: r for r in [records["original"]]}[g] for g, records in groups.items()
    }
    others = {g: {_bytes(image_sets, p) for p in r["images"]} for g, r in originals.items()}
    assert len(groups) == 8
    for group, records in groups.items():
        original = records["original"]
        own = [_bytes(image_sets, p) for p in original["images"]]
        gold, mixed, alone, none = (records[name] for name in SETS)
        assert [_bytes(image_sets, p) for p in gold["images"]] == own
        assert gold["answerable"] and mixed["answerable"] and gold["context"] == "images"
        # Every own image shown once; every other image is another sample's first image.
        shown = [_bytes(image_sets, p) for p in mixed["images"]]
        assert len(shown) == len(own) + 4 and all(shown.count(o) == 1 for o in own)
        lent = mixed["evidence_set"]["images"]
        for position, (data, what) in enumerate(zip(shown, lent, strict=True), start=1):
            if "/" in what:  # a distractor: another sample's image, not one of ours
                donor = what.split("/")[0]
                assert donor != group and data not in own and data in others[donor]
            else:  # <image N> of the question names the sample's image N here
                number = int(what.split("_")[1])
                assert data == own[number - 1]
                if f"<image {number}>" in original["question"]:
                    assert f"<image {position}>" in mixed["question"]
        assert [d["sample"] for d in mixed["evidence_set"]["distractors"]] == [
            w.split("/")[0] for w in lent if "/" in w
        ]
        assert not set(own) & {_bytes(image_sets, p) for p in alone["images"]}
        assert alone["question"] == original["question"]
        assert (
            alone["answerable"]
            == none["answerable"]
            == (original["blind"]["verdict"] == "knowledge")
        )
        assert none["images"] == [] and none["context"] == "question"
        assert none["blind"] == original["blind"]


def test_no_distractor_image_prints_the_gold(image_sets: Path) -> None:
    """Read again with OCR here: no image the distractors set ships prints the gold."""
    read = 0
    for records in _groups(image_sets).values():
        alone = records["distractors"]
        gold = gold_items(_gold_text(alone))
        for relative in alone["images"]:
            pixels = decode_image(_bytes(image_sets, relative), relative)
            text = " ".join(w.text for w in ocr_image(pixels))
            assert not find_in_string(gold, text), (alone["id"], relative)
            read += 1
    assert read == 32


def test_an_image_printing_the_gold_is_no_distractor() -> None:
    """The fixture's line chart asks the year Product B passed A (gold '2020'): an image
    that prints 2020 is refused, one that prints other years is not."""
    sample = next(
        s
        for s in open_source(str(IMAGES), None)
        if isinstance(s, Sample) and "Product B" in s.question
    )
    assert sample.options[ord(sample.answer) - ord("A")] == "2020"

    def poster(text: str) -> np.ndarray:
        image = Image.new("RGB", (520, 160), "white")
        font = ImageFont.load_default(size=40)
        ImageDraw.Draw(image).text((20, 50), text, fill="black", font=font)
        return np.asarray(image)

    assert prints_gold(poster("Opened in 2020"), sample)
    assert prints_gold(poster("Opened in 1987"), sample) is None


def test_the_same_picture_re_encoded_is_recognised() -> None:
    """A re-encoded, resized copy is within the hash distance; another figure is not."""
    bar = np.asarray(Image.open(IMAGES / "images" / "fixture_chart_bar_1.png").convert("RGB"))
    buffer = io.BytesIO()
    Image.fromarray(bar).resize((bar.shape[1] // 2, bar.shape[0] // 2)).save(
        buffer, "JPEG", quality=60
    )
    copy = np.asarray(Image.open(buffer))
    pie = np.asarray(Image.open(IMAGES / "images" / "fixture_chart_pie_1.png").convert("RGB"))
    assert near_duplicate(difference_hash(bar), difference_hash(copy))
    assert not near_duplicate(difference_hash(bar), difference_hash(pie))


def test_ranking_keeps_the_subject_first_and_never_lends_a_sample_its_own_image() -> None:
    """A sibling question of the same figure (same bytes) is no candidate; the same
    subject ranks before a closer question of another subject."""
    entries = [
        Entry("a", "Physics", "the force on a block on an incline", frozenset({"x"}), "x"),
        Entry(
            "sibling", "Physics", "the block's acceleration on the incline", frozenset({"x"}), "x"
        ),
        Entry("b", "Physics", "the colour of a flower petal", frozenset({"y"}), "y"),
        Entry("c", "Art", "the force on a block sliding down an incline", frozenset({"z"}), "z"),
    ]
    ranked = rank_candidates(entries, 3)
    assert [c.sample_id for c in ranked["a"]] == ["b", "c"]
    assert [c.same_subject for c in ranked["a"]] == [True, False]
    assert [c.rank for c in ranked["a"]] == [1, 2]


def test_subject_from_the_record_or_the_hugging_face_id() -> None:
    from abstain_build.model import SourceInfo

    info = SourceInfo("mmmu", "hf-parquet", "f", 0, "validation_Clinical_Medicine_23")
    assert subject_of(Sample("validation_Clinical_Medicine_23", info, "q", "A")) == (
        "Clinical_Medicine"
    )
    tagged = Sample("x", SourceInfo("mmmu", "jsonl", "f", 0), "q", "A", metadata={"subject": "Art"})
    assert subject_of(tagged) == "Art"
    assert subject_of(Sample("ai2d_1", SourceInfo("mmmu", "jsonl", "f", 0), "q", "A")) is None


def test_parquet_images_lend_themselves_and_two_workers_write_the_same_bytes(
    image_sets: Path, tmp_path: Path
) -> None:
    """Images held as parquet bytes are distractors too; with one distractor, a question
    that names two images gets no distractors-only item, and says why. The image build
    again with two workers gives the same files."""
    from .test_build import tree_digest

    out = tmp_path / "parquet"
    source = ROOT / "fixtures" / "mmmu-parquet"
    build(BuildConfig(source=str(source), out=str(out), seed=3, evidence_sets=SETS, distractors=1))
    records = [r for r in read_jsonl(out / "data.jsonl") if r["evidence_set"]]
    mixed = [r for r in records if r["evidence_set"]["name"] == "gold+distractors"]
    assert mixed and all(len(r["evidence_set"]["distractors"]) == 1 for r in mixed)
    assert all(r["evidence_set"]["distractors"][0]["same_subject"] for r in mixed)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["image_distractors"]["image_samples"] == 8

    again = tmp_path / "again"
    build(BuildConfig(source=str(IMAGES), out=str(again), seed=7, evidence_sets=SETS, workers=2))
    assert tree_digest(again) == tree_digest(image_sets)

    narrow = tmp_path / "narrow"
    build(
        BuildConfig(source=str(IMAGES), out=str(narrow), seed=7, evidence_sets=SETS, distractors=1)
    )
    manifest = json.loads((narrow / "manifest.json").read_text(encoding="utf-8"))
    reasons = json.dumps(manifest["counts"])
    assert "names <image 2>" in reasons
    sets = {
        (r["group_id"], r["evidence_set"]["name"])
        for r in read_jsonl(narrow / "data.jsonl")
        if r["evidence_set"]
    }
    assert ("fixture_compare_stores", "gold+distractors") in sets
    assert ("fixture_compare_stores", "distractors") not in sets


def test_blind_kits_of_image_distractors_ship_the_images(image_sets: Path, tmp_path: Path) -> None:
    from abstain_build.validity.kits import fingerprint

    from .conftest import run_cli

    kits, key = tmp_path / "kits", tmp_path / "key.jsonl"
    done = run_cli(
        "audit",
        f"img={image_sets}",
        "--kits",
        str(kits),
        "--key",
        str(key),
        "--n",
        "3",
        "--per-reader",
        "3",
        "-t",
        "evidence_set:distractors",
    )
    assert done.returncode == 0, done.stderr
    records = {r["id"]: r for r in read_jsonl(image_sets / "data.jsonl")}
    for line in read_jsonl(key):
        record = records[line["record"]]
        kit = kits / line["reader"] / line["kit"]
        shipped = sorted(kit.glob("image-*"))
        assert [p.read_bytes() for p in shipped] == [
            _bytes(image_sets, i) for i in record["images"]
        ]
        # The reading is filed under the images shown: other distractors, another item.
        params = {"pages": [], "images": record["evidence_set"]["images"]}
        assert line["item"] == fingerprint(
            record["group_id"], line["transform"], json.dumps(params)
        )


def test_an_export_holds_the_image_sets(image_sets: Path, tmp_path: Path) -> None:
    """Every row, field and lent image comes back from the parquet shards."""
    from abstain_build.export import export_dataset

    from .test_export import assert_same_as_built

    result = export_dataset(image_sets, tmp_path / "export")
    assert result.splits["evidence_set"].records == 32
    assert_same_as_built(image_sets, tmp_path / "export")


def test_no_reader_sees_a_question_s_own_image_as_another_item_s_distractor(
    image_sets: Path,
) -> None:
    """Who was shown sample X's image beside another question has seen X's evidence: the
    deal never puts X's item in that hand."""
    from abstain_build.validity.kits import Build, candidates, deal

    items = candidates([Build(image_sets, "img")], ["verified"], ["distractors", "none"])
    assert any(item.lenders for item in items)
    hands = deal(items, per_reader=8)
    for hand in hands:
        shown = set().union(*(item.lenders for item in hand))
        assert not shown & {item.source for item in hand}
    assert len(hands) > 1  # the fixture's eight questions lend to one another


def test_a_killed_build_resumes_to_the_same_images(image_sets: Path, tmp_path: Path) -> None:
    """SIGKILL once two samples are committed; the same command ranks the distractors
    again and writes exactly the uninterrupted build's files."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from .test_build import _journal_lines, tree_digest

    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "abstain_build", "transform", str(IMAGES), "--out", str(out),
        "--seed", "7", "--evidence-sets", ",".join(SETS), "-q",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _journal_lines(out) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert _journal_lines(out) < 8, "the run finished before it could be killed"
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert tree_digest(out) == tree_digest(image_sets)


def test_the_ranking_pass_reports_its_progress(tmp_path: Path) -> None:
    """Embedding every image question takes minutes on a large set: it is a phase of its
    own in the log, before routing."""
    from .conftest import run_cli

    done = run_cli(
        "transform", str(IMAGES), "-o", str(tmp_path / "o"), "--limit", "3",
        "--evidence-sets", "distractors", "--progress-every", "0",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    ranking = [i for i, line in enumerate(lines) if line.startswith("ranking distractors: 3/3")]
    routing = [i for i, line in enumerate(lines) if line.startswith("routing:")]
    assert ranking and routing and ranking[-1] < routing[0], lines
