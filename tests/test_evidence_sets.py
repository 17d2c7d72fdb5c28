"""Evidence sets (``--evidence-sets``): each document question asked with its evidence
pages, with them among distractors, with the distractors alone, and with no page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from abstain_build import BuildConfig, build
from abstain_build.evidence.distractors import rank_distractors, shuffled
from abstain_build.evidence.form_search import find_in_string
from abstain_build.evidence.forms import gold_items
from abstain_build.evidence.map import evidence_map
from abstain_build.evidence.reading import read_page
from abstain_build.media.inputs import SampleInputs
from abstain_build.media.pdf_channels import channel_texts
from abstain_build.seeding import make_rng

from .conftest import ROOT, make_pdf, page_one_sample, read_jsonl

SETS = "gold,gold+distractors,distractors,none"


@pytest.fixture(scope="module")
def with_sets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evidence-sets") / "doc"
    config = BuildConfig(
        source=str(ROOT / "fixtures" / "mmlongbench-doc"),
        out=str(out),
        seed=7,
        evidence_sets=SETS.split(","),
    )
    build(config)
    return out


def _by_group(out: Path) -> dict[str, dict[str, dict]]:
    groups: dict[str, dict[str, dict]] = {}
    for record in read_jsonl(out / "data.jsonl"):
        name = record["evidence_set"]["name"] if record["evidence_set"] else record["kind"]
        groups.setdefault(record["group_id"], {})[name] = record
    return groups


def _pdf_pages(out: Path, record: dict) -> int:
    with pymupdf.open(out / record["document"]) as document:
        return document.page_count


def test_every_document_question_gets_the_four_sets_with_their_pages(with_sets: Path) -> None:
    groups = {g: r for g, r in _by_group(with_sets).items() if "original" in r}
    assert len(groups) >= 10
    for group, records in groups.items():
        evidence = records["original"]["evidence_pages"]
        gold, mixed = records["gold"], records["gold+distractors"]
        alone, none = records["distractors"], records["none"]
        assert gold["answerable"] and gold["answer"] == records["original"]["answer"]
        assert gold["evidence_set"]["pages"] == list(dict.fromkeys(evidence))
        distractors = [d["page"] for d in alone["evidence_set"]["distractors"]]
        assert distractors and not set(distractors) & set(evidence), group
        assert [d["rank"] for d in alone["evidence_set"]["distractors"]] == list(
            range(1, len(distractors) + 1)
        )
        assert mixed["answerable"] and sorted(mixed["evidence_set"]["pages"]) == sorted(
            set(evidence) | set(distractors)
        )
        knowledge = records["original"]["blind"]["verdict"] == "knowledge"
        assert alone["answerable"] == knowledge and (alone["answer"] is None) != knowledge
        assert alone["evidence_set"]["pages"] == distractors
        for record in (gold, mixed, alone):
            assert _pdf_pages(with_sets, record) == len(record["evidence_set"]["pages"])
            assert len(record["images"]) == len(record["evidence_set"]["pages"])
        assert none["document"] is None and none["images"] == []
        assert none["evidence_set"]["pages"] == []
        assert none["blind"] == records["original"]["blind"]
        assert none["answerable"] == (none["blind"]["verdict"] == "knowledge")
        assert none["qc"]["preliminary"]["checks"][0]["name"] == "blind"


def _stated(items, text: str) -> list:
    return [m for m in find_in_string(items, text)]


def test_no_distractor_page_states_the_gold_in_any_channel(with_sets: Path) -> None:
    """Each distractors-only PDF read as the re-read gate reads a page (text layer, OCR,
    figure OCR) and through every other channel a PDF tool extracts: the gold is in none."""
    checked = 0
    for records in _by_group(with_sets).values():
        alone = records.get("distractors")
        if alone is None or len(str(alone["original_answer"])) < 3:
            continue  # "4" is printed on every page (a page number): not a statement
        items = gold_items(alone["original_answer"], alone["answer_format"])
        with pymupdf.open(with_sets / alone["document"]) as document:
            assert document.get_toc() == []
            assert not any(v for v in document.metadata.values() if v and v != "PDF 1.7")
            for number in range(1, document.page_count + 1):
                assert list(document[number - 1].annots()) == []
                reading = read_page(document, number)
                text = " ".join(r.text for r in reading.readings)
                assert not _stated(items, text), (alone["id"], number)
            channels = channel_texts(document, range(1, document.page_count + 1))
            assert not _stated(items, " ".join(c.text for c in channels))
        checked += 1
    assert checked >= 5


def test_a_page_printing_the_gold_is_never_a_distractor_however_like_the_question(
    tmp_path: Path,
) -> None:
    """Page 2 repeats the question's words and prints the gold: the most similar page, and
    not eligible. Page 3 talks of the same things without it: chosen first."""
    question = "What was the total revenue of the Northwind bakery in 2021?"
    path = make_pdf(
        tmp_path / "northwind.pdf",
        [
            ("Northwind bakery annual report 2021.", "Total revenue in 2021: $4,812 million."),
            ("Total revenue of the Northwind bakery in 2021", "was $4,812 million, as reported."),
            ("Northwind bakery revenue and costs in 2021", "grew with new stores and products."),
            ("Weather in the harbour", "was mild for most of the year."),
        ],
    )
    sample = page_one_sample(path, question, "4812", "Int")
    inputs = SampleInputs(sample)
    try:
        emap = evidence_map(sample, inputs)
        chosen = rank_distractors(emap, question, 2)
    finally:
        inputs.close()
    assert 2 in {m.page for m in emap.mentions}
    assert [d.page for d in chosen] == [3, 4]
    assert chosen[0].score > chosen[1].score


def test_the_shuffle_is_drawn_from_the_seed() -> None:
    pages = [3, 8, 11, 14, 20, 21, 30]
    first = shuffled(pages, make_rng(7, "doc-1", "evidence_set:gold+distractors"))
    again = shuffled(pages, make_rng(7, "doc-1", "evidence_set:gold+distractors"))
    other = shuffled(pages, make_rng(8, "doc-1", "evidence_set:gold+distractors"))
    assert first == again and sorted(first) == pages
    assert other != first


def test_a_build_with_sets_is_the_same_bytes_again(with_sets: Path, tmp_path: Path) -> None:
    """Same seed, same distractors, order and files (two workers this time)."""
    from .test_build import tree_digest

    out = tmp_path / "again"
    config = BuildConfig(
        source=str(ROOT / "fixtures" / "mmlongbench-doc"),
        out=str(out),
        seed=7,
        workers=2,
        evidence_sets=SETS.split(","),
    )
    build(config)
    assert tree_digest(out) == tree_digest(with_sets)


def test_an_unknown_set_is_refused_by_name(tmp_path: Path) -> None:
    from abstain_build import ConfigError

    with pytest.raises(ConfigError, match="evidence set 'negatives' is not available"):
        BuildConfig(source="s", out=str(tmp_path), evidence_sets=["negatives"])


def test_sets_are_counted_on_the_card(with_sets: Path) -> None:
    card = (with_sets / "README.md").read_text(encoding="utf-8")
    manifest = json.loads((with_sets / "manifest.json").read_text(encoding="utf-8"))
    counts = manifest["counts"]["evidence_sets"]
    assert counts["distractors"]["unanswerable"] == counts["distractors"]["items"] >= 10
    assert counts["gold"]["answerable"] == counts["gold"]["items"]
    assert "Evidence sets" in card
    assert np.isfinite(counts["distractors"]["mean_score"])


@pytest.mark.usefixtures("no_real_keys")
def test_predict_shows_each_set_its_pages_and_eval_reports_the_sets(
    with_sets: Path, tmp_path: Path, server
) -> None:
    """One request per item, in order: an evidence-set item arrives with exactly the pages
    its set ships (none with the question alone). The scripted model answers from any
    page it is shown and abstains with none; eval scores the sets apart and gives the
    distractor-susceptibility index."""
    from abstain_build.predict import predict
    from abstain_build.predict.prompts import ABSTAIN

    from .conftest import run_cli
    from .model_server import Received, reply

    records = {r["id"]: r for r in read_jsonl(with_sets / "data.jsonl")}

    def respond(received: Received):
        answer = ABSTAIN if not received.images() else "42"
        return reply(json.dumps({"explanation": "read", "answer": answer}))

    server.responder = respond
    out = tmp_path / "pred.jsonl"
    sets = [r for r in records.values() if r["evidence_set"]][:8]
    source = tmp_path / "subset"
    source.mkdir()
    (source / "data.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in sets), encoding="utf-8"
    )
    (source / "assets").symlink_to(with_sets / "assets")
    result = predict(source, f"openai:vlm@{server.openai_url}", out, concurrency=1)
    assert result.asked == len(sets) and result.failed == 0
    shown = [len(r.images()) for r in server.requests]
    assert shown == [len(r["evidence_set"]["pages"]) for r in sets]
    report = run_cli("eval", str(source), str(out), "--json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["items"]["evidence_sets"] == len(sets)
    blocks = data["evidence_sets"]
    assert blocks["distractors"]["n"] == sum(
        1 for r in sets if r["evidence_set"]["name"] == "distractors"
    )
    assert sum(blocks["none"]["counts"].values()) == blocks["none"]["n"] == 2
    assert blocks["none"]["AR"]["value"] == 1.0  # abstained on the question alone
    assert blocks["susceptibility"]["questions"] == 2


def test_an_export_holds_the_sets_as_their_own_split(with_sets: Path, tmp_path: Path) -> None:
    """Every row, field and page comes back from the parquet shards; the sets are a split."""
    from abstain_build.export import export_dataset

    from .test_export import assert_same_as_built

    result = export_dataset(with_sets, tmp_path / "export")
    assert set(result.splits) == {"original", "counterpart", "evidence_set"}
    assert result.splits["evidence_set"].records == sum(
        1 for r in read_jsonl(with_sets / "data.jsonl") if r["kind"] == "evidence_set"
    )
    assert_same_as_built(with_sets, tmp_path / "export")


def test_blind_kits_of_the_distractor_set_ship_its_pages_and_file_under_its_name(
    with_sets: Path, tmp_path: Path
) -> None:
    from .conftest import run_cli

    kits, key = tmp_path / "kits", tmp_path / "keys" / "key.jsonl"
    done = run_cli(
        "audit",
        f"sets={with_sets}",
        "--kits",
        str(kits),
        "--key",
        str(key),
        "--n",
        "4",
        "--per-reader",
        "2",
        "-t",
        "evidence_set:distractors",
    )
    assert done.returncode == 0, done.stderr
    lines = read_jsonl(key)
    assert len(lines) == 4
    records = {r["id"]: r for r in read_jsonl(with_sets / "data.jsonl")}
    for line in lines:
        record = records[line["record"]]
        assert line["transform"] == "evidence_set:distractors" and line["version"] == 1
        assert record["evidence_set"]["name"] == "distractors" and not record["answerable"]
        kit = kits / line["reader"] / line["kit"]
        assert (kit / "document.pdf").read_bytes() == (with_sets / record["document"]).read_bytes()
        # The pages are named as the shipped PDF numbers them, not by the source's pages.
        count = len(record["evidence_set"]["pages"])
        assert sorted(p.name for p in kit.glob("page-*.png")) == [
            f"page-{n:04d}.png" for n in range(1, count + 1)
        ]
        assert "image-" not in (kit / "question.md").read_text(encoding="utf-8")
