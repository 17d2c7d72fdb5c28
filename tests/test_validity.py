"""Validity as a measured number: the Wilson bound, the ledger, versions, the policy,
reading kits and the grading of readers' answers (SPEC 8)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from abstain_build.errors import ConfigError
from abstain_build.validity import ValidityTable, fingerprint, wilson
from abstain_build.validity.ingest import grade_reading, ingest
from abstain_build.validity.kits import Build, deal, write_kits
from abstain_build.validity.ledger import (
    PACKAGE_LEDGER,
    Reading,
    append_readings,
    ledger_digest,
    read_ledger,
)
from abstain_build.validity.policy import ValidityPolicy

from .conftest import read_jsonl, run_cli, write_jsonl


def reading(transform: str = "blur_edge_mask", verdict: str = "unanswerable", **fields) -> Reading:
    values = {
        "item": f"{hash((transform, verdict, str(fields))) & 0xFFFFFFFFFFFF:016x}",
        "source": "s1",
        "dataset": "test",
        "transform": transform,
        "version": 1,
        "mode": "rule",
        "kind": "Essential",
        "answer_format": "multiple-choice",
        "reader": "r01",
        "answer": "",
        "confidence": "none",
        "verdict": verdict,
        "date": "2026-11-26",
    }
    values.update(fields)
    return Reading(**values)


def readings(transform: str, valid: int, invalid: int, **fields) -> list[Reading]:
    out = [
        reading(transform, "unanswerable", item=f"{transform[:4]}v{i:012d}", **fields)
        for i in range(valid)
    ]
    out += [
        reading(transform, "answerable", item=f"{transform[:4]}a{i:012d}", **fields)
        for i in range(invalid)
    ]
    return out


# -- the Wilson bound ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("valid", "n", "low", "high"),
    [
        (25, 25, 0.8668, 1.0),  # SPEC 8: 25 of 25 clears 0.85
        (38, 40, 0.8350, 0.9862),  # 38 of 40 falls just short
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (1, 7, 0.0257, 0.5131),
    ],
)
def test_wilson_interval_matches_known_values(valid, n, low, high):
    got_low, got_high = wilson(valid, n)
    assert got_low == pytest.approx(low, abs=1e-4)
    assert got_high == pytest.approx(high, abs=1e-4)


def test_wilson_of_no_readings_is_the_whole_range():
    assert wilson(0, 0) == (0.0, 1.0)


# -- the table: versions, modes, cells ------------------------------------------------------


def test_a_version_bump_retires_the_old_readings():
    old = readings("blur_edge_mask", 30, 0, version=1)
    new = readings("blur_edge_mask", 2, 3, version=2)
    table = ValidityTable.from_readings([*old, *new], {"blur_edge_mask": 2})
    estimate = table.lookup("blur_edge_mask", "rule", "Essential")
    assert (estimate.n, estimate.valid, estimate.version) == (5, 2, 2)
    assert table.retired == {"blur_edge_mask": 30}


def test_conflicting_readings_count_as_valid_and_doubtful_ones_do_not():
    table = ValidityTable.from_readings(
        [
            reading(verdict="unanswerable", item="a" * 16),
            reading(verdict="conflicting", item="b" * 16),
            reading(verdict="doubtful", item="c" * 16),
            reading(verdict="answerable", item="d" * 16),
        ],
        {"blur_edge_mask": 1},
    )
    estimate = table.lookup("blur_edge_mask", "rule", None)
    assert (estimate.n, estimate.valid, estimate.estimate) == (4, 2, 0.5)


def test_template_and_model_rewrites_are_measured_apart():
    table = ValidityTable.from_readings(
        readings("missing_context", 25, 0, mode="template"), {"missing_context": 1}
    )
    assert table.lookup("missing_context", "template", None).n == 25
    assert table.lookup("missing_context", "llm", None).n == 0


def test_a_cell_speaks_for_itself_from_25_readings():
    strong = readings("hide_evidence_page", 25, 0, kind="Extractive")
    weak = readings("hide_evidence_page", 10, 14, kind="Counting")
    table = ValidityTable.from_readings([*strong, *weak], {"hide_evidence_page": 1})
    assert table.lookup("hide_evidence_page", "rule", "Extractive").kind == "Extractive"
    # Counting has 24 readings: the transform's figure over every kind is used.
    fallback = table.lookup("hide_evidence_page", "rule", "Counting")
    assert (fallback.kind, fallback.n) == ("all", 49)


# -- the policy ----------------------------------------------------------------------------


def policy_over(items: list[Reading], **kwargs) -> ValidityPolicy:
    versions = {r.transform: r.version for r in items}
    return ValidityPolicy(ValidityTable.from_readings(items, versions), **kwargs)


def test_policy_clears_25_of_25_and_says_so():
    decision = policy_over(readings("full_page_blur", 25, 0)).decide(
        "full_page_blur", 1, "rule", "Extractive"
    )
    assert decision.clears
    assert decision.reason == "full_page_blur: 25/25 valid, lower bound 0.87 >= 0.85"


def test_policy_holds_back_a_low_figure_with_its_bound():
    decision = policy_over(readings("remove_visual_element", 20, 7)).decide(
        "remove_visual_element", 1, "rule", None
    )
    assert not decision.clears
    assert decision.reason == "remove_visual_element: 20/27 valid, lower bound 0.55 < 0.85"


def test_policy_holds_back_too_few_readings_however_good():
    decision = policy_over(readings("temporal_drift", 19, 0)).decide(
        "temporal_drift", 1, "rule", None
    )
    assert not decision.clears
    assert "19 reading(s) at v1 < 20" in decision.reason


def test_policy_holds_back_an_unmeasured_transform():
    decision = policy_over([]).decide("my_plugin_transform", 1, "rule", None)
    assert not decision.clears
    assert decision.reason.startswith("my_plugin_transform: 0/0 valid")


def test_policy_refuses_figures_of_another_version():
    decision = policy_over(readings("full_page_blur", 30, 0, version=2)).decide(
        "full_page_blur", 1, "rule", None
    )
    assert not decision.clears
    assert "readings are of version 2; this item was made by version 1" in decision.reason


def test_policy_off_still_records_the_figures():
    policy = policy_over(readings("full_page_blur", 3, 3), min_validity=0.0, applied=False)
    decision = policy.decide("full_page_blur", 1, "rule", None)
    data = decision.to_json()
    assert not decision.applied
    assert (data["n"], data["valid"], data["estimate"]) == (6, 3, 0.5)


# -- the ledger ----------------------------------------------------------------------------


def test_the_shipped_ledger_parses_and_names_current_transforms():
    from abstain_build.schema import EVIDENCE_SETS
    from abstain_build.transforms import get_registry
    from abstain_build.validity.kits import SET_PREFIX

    # Transforms, and the evidence sets read blind (filed as "evidence_set:NAME").
    names = {cls.name for cls in get_registry()} | {SET_PREFIX + n for n in EVIDENCE_SETS}
    for line in read_ledger(PACKAGE_LEDGER):
        assert line.transform in names
        assert line.verdict in ("unanswerable", "conflicting", "answerable", "doubtful")


def test_readings_can_be_graded_into_dev_null():
    """``audit --ingest KEY ... --ledger /dev/null`` grades without keeping: /dev/null
    takes the lines, and is not synced like a file."""
    append_readings(Path(os.devnull), [reading()])


def test_a_malformed_ledger_line_is_refused_with_its_number(tmp_path: Path):
    path = tmp_path / "ledger.jsonl"
    append_readings(path, [reading()])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"item": "x"}\n')
    with pytest.raises(ConfigError, match="line 2"):
        read_ledger(path)


def test_ledger_digest_ignores_order():
    a, b = reading(item="a" * 16), reading(item="b" * 16)
    assert ledger_digest([a, b]) == ledger_digest([b, a]) != ledger_digest([a])


def test_fingerprint_depends_on_source_transform_and_params():
    base = fingerprint("s1", "aggressive_crop", {"edge": "left"})
    assert base == fingerprint("s1", "aggressive_crop", '{"edge": "left"}')
    assert base != fingerprint("s1", "aggressive_crop", {"edge": "top"})
    assert base != fingerprint("s2", "aggressive_crop", {"edge": "left"})


# -- grading a reader's answers ------------------------------------------------------------


def key(gold: str = "34.7", answer_format: str | None = "Float", **fields) -> dict:
    return {"gold": gold, "grading_format": answer_format, "options": [], "mode": "rule", **fields}


def test_the_gold_in_another_form_at_medium_confidence_is_answerable():
    graded = grade_reading(key(), {"answer": "$34.7 million", "confidence": "medium"})
    assert graded.verdict == "answerable"


def test_a_wrong_answer_is_not_a_hit():
    graded = grade_reading(key(), {"answer": "41.2", "confidence": "high"})
    # A clean other value a reader settles on: not unanswerable, not the gold either.
    assert graded.verdict == "doubtful"


def test_a_guess_is_unanswerable_even_when_right():
    options = ["3", "5", "6", "4"]
    graded = grade_reading(
        key("D", "multiple-choice", options=options), {"answer": "D", "confidence": "guess"}
    )
    assert graded.verdict == "unanswerable"


def test_no_answer_or_an_abstention_is_unanswerable():
    assert grade_reading(key(), {"answer": "", "confidence": "none"}).verdict == "unanswerable"
    said = {"answer": "cannot be determined", "confidence": "low"}
    assert grade_reading(key(), said).verdict == "unanswerable"


def test_two_stated_values_are_conflicting_unless_the_gold_wins_confidently():
    conflict = {"answer": "", "confidence": "none", "conflict": "34.7 vs 41.2"}
    assert grade_reading(key(), conflict).verdict == "conflicting"
    overruled = {"answer": "34.7", "confidence": "high", "conflict": "34.7 vs 41.2"}
    assert grade_reading(key(), overruled).verdict == "answerable"


def test_a_rewrite_that_does_not_read_as_a_question_is_doubtful():
    graded = grade_reading(
        key(mode="template"), {"answer": "", "confidence": "none", "fluent": "no, garbled"}
    )
    assert graded.verdict == "doubtful"


def test_ingest_refuses_an_unfilled_line(tmp_path: Path):
    key_path = write_jsonl(
        tmp_path / "k.key.jsonl", [dict(key(), reader="r01", kit="01", **_key_fields())]
    )
    answers = write_jsonl(
        tmp_path / "a.jsonl", [{"reader": "r01", "kit": "01", "answer": "", "confidence": ""}]
    )
    with pytest.raises(ConfigError, match="no confidence given"):
        ingest(key_path, [answers])


def _key_fields() -> dict:
    return {
        "item": "0123456789abcdef",
        "source": "s1",
        "dataset": "test",
        "transform": "full_page_blur",
        "version": 1,
        "kind": "Extractive",
        "answer_format": "Float",
        "reader_id": "abc123-r01",
    }


def test_ingest_files_each_reading_once(tmp_path: Path):
    key_path = write_jsonl(
        tmp_path / "k.key.jsonl", [dict(key(), reader="r01", kit="01", **_key_fields())]
    )
    answers = write_jsonl(
        tmp_path / "a.jsonl",
        [{"reader": "r01", "kit": "01", "answer": "34.7", "confidence": "high"}],
    )
    first = ingest(key_path, [answers], today="2026-11-26")
    assert [r.verdict for r in first.readings] == ["answerable"]
    again = ingest(key_path, [answers], existing=first.readings)
    assert (again.readings, again.duplicates) == ([], 1)


def test_what_an_answer_rests_on_is_filed_and_the_table_splits_the_failures(tmp_path: Path):
    """A reader who remembers a public 10-K answers whatever the edit took away: the ledger
    keeps what each answer rests on, and the table says which failures an edit could
    still fix (shipped) and which none can (memory)."""
    key_path = write_jsonl(
        tmp_path / "k.key.jsonl",
        [
            dict(key(), reader="r01", kit=kit, **dict(_key_fields(), item=f"{n:016x}"))
            for n, kit in enumerate(("01", "02", "03"))
        ],
    )
    rows = [("34.7", "high", "memory"), ("34.7", "medium", "Document"), ("", "none", "")]
    answers = write_jsonl(
        tmp_path / "a.jsonl",
        [
            {"reader": "r01", "kit": f"0{n}", "answer": a, "confidence": c, "basis": b}
            for n, (a, c, b) in enumerate(rows, start=1)
        ],
    )
    filed = ingest(key_path, [answers], today="2026-11-27").readings
    assert [(r.verdict, r.basis) for r in filed] == [
        ("answerable", "memory"),
        ("answerable", "shipped"),
        ("unanswerable", ""),
    ]
    table = ValidityTable.from_readings(filed, {"full_page_blur": 1})
    assert table.bases == {"full_page_blur": {"memory": 1, "shipped": 1}}
    assert table.to_json()["failed_on"] == {"full_page_blur": {"memory": 1, "shipped": 1}}
    bad = write_jsonl(
        tmp_path / "b.jsonl",
        [{"reader": "r01", "kit": "01", "answer": "1", "confidence": "low", "basis": "vibes"}],
    )
    with pytest.raises(ConfigError, match="basis 'vibes'"):
        ingest(key_path, [bad])


# -- kits ----------------------------------------------------------------------------------


def test_questions_recalled_or_contested_by_two_readers_are_named_and_one_reader_not():
    """Readers gave Florida's governor from knowledge under every edit of its cover: the
    question, not the edit, fails. One recalled answer (or answers read off the shipped
    item) names nothing. Readers who settle, from the item, on another answer than the
    gold name a contested question."""
    governor = [
        reading(
            name, "answerable", source="gov", basis="knowledge", item=f"g{k:015d}", reader=f"r{k}"
        )
        for k, name in enumerate(["dense_mask", "full_page_blur", "hide_evidence_page"])
    ] + [reading("remove_visual_element", source="gov", item="g000000000000009")]
    once = [reading("dense_mask", "answerable", source="one", basis="memory", item="o" * 16)]
    shipped = [
        reading(
            name, "answerable", source="read", basis="shipped", item=f"r{k:015d}", reader=f"r{k}"
        )
        for k, name in enumerate(["dense_mask", "full_page_blur"])
    ]
    other = "settled on another answer (high)"
    gap = [
        reading(
            name,
            "doubtful",
            source="gap",
            basis="shipped",
            note=other,
            item=f"p{k:015d}",
            reader=f"r{k}",
        )
        for k, name in enumerate(["dense_mask", "full_page_blur"])
    ]
    table = ValidityTable.from_readings(governor + once + shipped + gap)
    (named,) = table.recalled
    assert (named.source, named.n, named.readers) == ("gov", 4, 3)
    assert named.transforms == ("dense_mask", "full_page_blur", "hide_evidence_page")
    assert table.to_json()["recalled_sources"][0]["source"] == "gov"
    assert [s.source for s in table.contested] == ["gap"]
    # The table counts them all; without the flagged questions, dense_mask keeps its
    # memory reading (one reader names nothing) and the one read off the item.
    assert table.n_of("dense_mask") == 4
    assert table.unflagged["dense_mask"] == (0, 2)
    assert table.to_json()["unflagged"]["full_page_blur"] == {"valid": 0, "n": 1}
    assert table.to_json()["contested_sources"][0]["readers"] == 2
    # The question fails whatever the version: readings of a retired one still name it, as
    # builds (the blind check from readings) still act on them.
    table = ValidityTable.from_readings(governor, versions={"dense_mask": 2, "full_page_blur": 2})
    assert [s.source for s in table.recalled] == ["gov"]
    assert ("dense_mask", "rule") not in table.overall


def test_deal_never_gives_a_reader_two_items_of_one_source_or_document():
    from abstain_build.validity.kits import Candidate

    build = Build(Path("."), "test")
    items = [
        Candidate(build, {}, {"source": f"s{i % 3}", "doc_id": f"d{i % 2}", "transform": "t"})
        for i in range(12)
    ]
    hands = deal(items, per_reader=4)
    assert sum(len(h) for h in hands) == 12
    for hand in hands:
        assert len(hand) <= 4
        assert len({c.source for c in hand}) == len(hand)
        assert len({c.document for c in hand}) == len(hand)


def test_a_kit_ships_no_gold_no_original_and_no_transform_name(
    fixture_builds: dict[str, Path], tmp_path: Path
):
    from abstain_build.transforms import get_registry

    builds = [Build(fixture_builds[name], name) for name in ("mmmu", "mmlongbench-doc")]
    batch = write_kits(builds, tmp_path / "kits", n=12, seed=1, per_reader=4)
    assert batch.items == 12
    names = [cls.name for cls in get_registry()]
    keys = read_jsonl(batch.key_path)
    records = {r["id"]: r for build in builds for r in read_jsonl(build.root / "data.jsonl")}
    for entry in keys:
        folder = tmp_path / "kits" / entry["reader"] / entry["kit"]
        record = records[entry["record"]]
        control = records[f"{record['group_id']}/original"]
        shipped = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        for file_name, data in shipped.items():
            assert not any(name in file_name for name in names)
            if file_name.endswith((".md", ".txt")):
                text = data.decode("utf-8")
                assert not any(name in text for name in names), file_name
        question = (folder / "question.md").read_text(encoding="utf-8")
        for shown in [record["question"], *record["options"]]:
            question = question.replace(shown, "")
        gold = record["original_answer"]
        if len(gold) >= 3:  # a letter or a digit is everywhere
            assert gold not in question
        # No file is the original: every image differs from the control's (rewrites ship
        # the unchanged images, and say so by their question).
        originals = {(fixture_root(builds, entry) / p).read_bytes() for p in control["images"]}
        if record["transform"]["target"] != "question":
            assert not originals & set(shipped.values())
        if control.get("document") and record["transform"]["target"] == "document":
            assert (
                shipped["document.pdf"]
                != (fixture_root(builds, entry) / control["document"]).read_bytes()
            )
    # Scratch work stays in the reader's folder: a file left in /tmp is seen by the next.
    guide = (tmp_path / "kits" / "README.md").read_text(encoding="utf-8")
    assert "rNN/scratch/" in guide and "never in a shared place" in guide
    # Readers never get two items of one source.
    by_reader: dict[str, list[str]] = {}
    for entry in keys:
        by_reader.setdefault(entry["reader"], []).append(entry["source"])
    assert all(len(set(v)) == len(v) for v in by_reader.values())


def fixture_root(builds: list[Build], entry: dict) -> Path:
    return next(b.root for b in builds if str(b.root) == entry["build"])


def test_kits_leave_out_items_already_read(fixture_builds: dict[str, Path], tmp_path: Path):
    build = Build(fixture_builds["mmmu"], "mmmu")
    first = write_kits([build], tmp_path / "a", n=100, seed=1)
    read = [
        reading(item=entry["item"], transform=entry["transform"], version=entry["version"])
        for entry in read_jsonl(first.key_path)
    ]
    second_out = tmp_path / "b"
    with pytest.raises(ConfigError):  # a non-empty folder is never written into
        write_kits([build], tmp_path / "a", n=1)
    second = write_kits([build], second_out, n=100, seed=1, read=read)
    assert second.items == 0


def test_the_key_goes_where_readers_are_not_shown(fixture_builds: dict[str, Path], tmp_path: Path):
    """A reader shown a folder listing saw the key beside the kits: ``key`` puts it
    elsewhere, never inside the kits, and never over another key."""
    build = Build(fixture_builds["mmmu"], "mmmu")
    with pytest.raises(ConfigError, match="inside the kits"):
        write_kits([build], tmp_path / "kits", n=2, key=tmp_path / "kits" / "key.jsonl")
    assert not (tmp_path / "kits").exists()
    batch = write_kits([build], tmp_path / "kits", n=2, key=tmp_path / "keys" / "k.jsonl")
    assert batch.key_path == tmp_path / "keys" / "k.jsonl"
    assert len(read_jsonl(batch.key_path)) == batch.items == 2
    assert not list(tmp_path.glob("*.key.jsonl"))
    with pytest.raises(ConfigError, match="never overwritten"):
        write_kits([build], tmp_path / "kits2", n=2, key=batch.key_path)


# -- the command line ----------------------------------------------------------------------


@pytest.mark.slow
def test_kits_then_ingest_then_validity_on_the_command_line(
    fixture_builds: dict[str, Path], tmp_path: Path
):
    kits = tmp_path / "kits"
    made = run_cli("audit", str(fixture_builds["mmlongbench-doc"]), "--kits", str(kits), "--n", "3")
    assert made.returncode == 0, made.stderr
    key_path = tmp_path / "kits.key.jsonl"
    entries = read_jsonl(key_path)
    answers = []
    for entry in entries:  # a reader who answers every item with its gold, sure of it
        answers.append(
            {
                "reader": entry["reader"],
                "kit": entry["kit"],
                "answer": entry["gold"],
                "confidence": "high",
                "where": "page 1",
            }
        )
    answer_file = write_jsonl(tmp_path / "answers.jsonl", answers)
    ledger = tmp_path / "ledger.jsonl"
    graded = run_cli("audit", "--ingest", str(key_path), str(answer_file), "--ledger", str(ledger))
    assert graded.returncode == 0, graded.stderr
    lines = read_ledger(ledger)
    assert len(lines) == 3 and {r.verdict for r in lines} == {"answerable"}
    # Each reading names the document it read, without the dataset's folders.
    assert [r.document for r in lines] == [Path(e["doc_id"]).name for e in entries]
    assert all(r.document.endswith(".pdf") for r in lines)
    shown = run_cli("validity", str(ledger), "--no-package", "--json")
    assert shown.returncode == 0, shown.stderr
    table = json.loads(shown.stdout)["table"]["transforms"]
    assert sum(row["n"] for row in table) == 3
    assert all(row["valid"] == 0 for row in table)


@pytest.mark.slow
def test_validity_prints_the_shipped_table():
    shown = run_cli("validity")
    assert shown.returncode == 0, shown.stderr
    assert "Measured validity" in shown.stdout
    for line in read_ledger(PACKAGE_LEDGER)[:5]:
        assert line.transform in shown.stdout


def test_same_seed_same_kits(fixture_builds: dict[str, Path], tmp_path: Path):
    copy = tmp_path / "copy"
    shutil.copytree(fixture_builds["mmmu"], copy)
    a = write_kits([Build(copy, "x")], tmp_path / "a", n=5, seed=9)
    b = write_kits([Build(copy, "x")], tmp_path / "b", n=5, seed=9)
    assert [c.key["item"] for h in a.readers.values() for c in h] == [
        c.key["item"] for h in b.readers.values() for c in h
    ]


# -- the policy in a build -----------------------------------------------------------------


@pytest.fixture
def only_this_ledger(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A build that reads the readings of one ledger (the package's left out), 30 valid
    readings of blur_edge_mask among them, so that one transform clears the bar."""
    from abstain_build.validity import ledger as ledger_module

    monkeypatch.setattr(ledger_module, "PACKAGE_LEDGER", tmp_path / "none.jsonl")
    path = tmp_path / "ledger.jsonl"
    from abstain_build.transforms import get_registry

    current = get_registry().get("blur_edge_mask").version
    append_readings(path, readings("blur_edge_mask", 30, 0, version=current))
    return path


@pytest.mark.slow
def test_a_default_build_accepts_only_what_clears_the_bar(only_this_ledger: Path, tmp_path: Path):
    from abstain_build import BuildConfig, build

    fixtures = Path(__file__).resolve().parent.parent / "fixtures"

    def built(name: str, **settings) -> list[dict]:
        config = BuildConfig(
            source=str(fixtures / "mmmu"),
            out=str(tmp_path / name),
            seed=3,
            ledgers=[str(only_this_ledger)],
            **settings,
        )
        build(config)
        return [r for r in read_jsonl(tmp_path / name / "data.jsonl") if r["transform"]]

    gated = built("gated")
    accepted = [r for r in gated if r["qc"]["status"] == "accepted"]
    held = [r for r in gated if (r["qc"]["validity"] or {}).get("held")]
    assert accepted and held
    for record in accepted:
        validity = record["qc"]["validity"]
        assert validity["n"] >= 20 and validity["low"] >= 0.85 and validity["clears"]
        assert record["transform"]["name"] == "blur_edge_mask"
    for record in held:
        assert record["qc"]["status"] == "flagged"
        assert record["qc"]["validity"]["reason"].startswith(record["transform"]["name"] + ":")
        # Held back only because no transform that clears the bar applied to it.
        assert "blur_edge_mask" not in record["routing"]["eligible"] or any(
            a["transform"] == "blur_edge_mask" for a in record["routing"]["attempts"]
        )
    card = (tmp_path / "gated" / "README.md").read_text(encoding="utf-8")
    assert "## Validity" in card
    assert f"{len(accepted)} of {len(gated)} counterparts accepted, {len(held)} held back" in card

    open_bar = built("open", min_validity=0.0)
    opened = [r for r in open_bar if r["qc"]["status"] == "accepted"]
    assert len(opened) > len(accepted)
    assert all(r["qc"]["validity"]["applied"] is False for r in open_bar)


def test_readings_carry_to_a_new_version_only_where_the_item_is_unchanged(
    fixture_builds: dict[str, Path], tmp_path: Path
):
    """A version bump retires the readings; a rebuild at the new version that ships an
    item byte for byte as it was read files the reading again at that version. An item
    whose image changed keeps its reading as history."""
    from abstain_build.validity.carry import carried_readings

    root = fixture_builds["mmmu"]
    write_kits(
        [Build(root, "mmmu:fixtures")],
        tmp_path / "kits",
        n=3,
        seed=0,
        per_reader=8,
        statuses=["accepted"],
        transforms=[],
        read=[],
    )
    key_path = tmp_path / "kits.key.jsonl"
    answers = [
        {"reader": e["reader"], "kit": e["kit"], "answer": "", "confidence": "none"}
        for e in read_jsonl(key_path)
    ]
    read = ingest(key_path, [write_jsonl(tmp_path / "a.jsonl", answers)]).readings
    assert len(read) == 3 and all(len(r.shipped) == 32 for r in read)

    # The same build at bumped versions, one item's image changed.
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(root, rebuilt)
    records = read_jsonl(rebuilt / "data.jsonl")
    for record in records:
        if record.get("transform"):
            record["transform"]["version"] += 1
    write_jsonl(rebuilt / "data.jsonl", records)
    changed = next(
        r
        for r in records
        if r["group_id"] == read[0].source
        and r.get("transform")
        and r["transform"]["name"] == read[0].transform
    )
    image = rebuilt / changed["images"][0]
    image.write_bytes(image.read_bytes() + b"\0")

    carried = carried_readings([Build(rebuilt, "mmmu:fixtures")], read, today="2026-01-01")
    assert {(r.source, r.transform) for r in carried} == {(r.source, r.transform) for r in read[1:]}
    for reading in carried:
        before = next(r for r in read if r.shipped == reading.shipped)
        assert reading.version == before.version + 1 and reading.carried_from == before.version
        assert (reading.reader, reading.verdict) == (before.reader, before.verdict)
    # Filed once: carrying again finds nothing new.
    assert carried_readings([Build(rebuilt, "mmmu:fixtures")], [*read, *carried]) == []
    versions = {r.transform: r.version + 1 for r in read}
    table = ValidityTable.from_readings([*read, *carried], versions)
    assert sum(row.n for row in table.rows(cells=False)) == len(carried)
    assert sum(table.carried.values()) == len(carried)

    # On the command line, into a ledger file.
    ledger = tmp_path / "ledger.jsonl"
    append_readings(ledger, read)
    done = run_cli("audit", f"mmmu:fixtures={rebuilt}", "--carry", "--ledger", str(ledger))
    assert done.returncode == 0, done.stderr
    assert "carried" in done.stderr
    filed = read_ledger(ledger)
    assert {(r.source, r.carried_from) for r in filed if r.carried_from} >= {
        (r.source, r.carried_from) for r in carried
    }


def test_kits_say_when_the_build_left_flagged_questions_out(tmp_path: Path):
    """Readings of a build whose blind check from readings kept recalled and contested
    questions from evidence edits measure the transforms on the other questions only: the
    kit step says so, unless the build only recorded the verdicts."""
    from abstain_build.validity.kits import left_out_by_readings

    def built(policy: str, readings: dict[str, int] | None) -> Build:
        root = tmp_path / f"{policy}-{bool(readings)}"
        root.mkdir()
        by_method = {"heuristic": {"knowledge": 1, "evidence": 9, "contested": 0}}
        if readings is not None:
            by_method["readings"] = readings
        manifest = {
            "config": {"blind_policy": policy},
            "counts": {"blind": {"by_method": by_method}},
        }
        (root / "manifest.json").write_text(json.dumps(manifest))
        return Build(root, "x")

    flagged = {"knowledge": 19, "evidence": 0, "contested": 6}
    assert left_out_by_readings(built("rewrite", flagged)) == 25
    assert left_out_by_readings(built("skip", flagged)) == 25
    assert left_out_by_readings(built("record", flagged)) == 0
    assert left_out_by_readings(built("rewrite", None)) == 0


def test_the_figure_expected_on_a_new_dataset_weights_flagged_questions_by_their_share():
    """Rounds read what is new, so flagged questions may fill a round or none: the figure
    for a dataset no reading has flagged splits the readings by kind and weights each
    kind's share by how many of the questions read the readings flag (here 1 of 4)."""
    plain = [
        reading("dense_mask", "unanswerable", source=f"q{k}", item=f"p{k:015d}", reader=f"a-r{k}")
        for k in range(3)
    ]
    recall = [
        reading(
            "dense_mask",
            "answerable",
            source="gov",
            basis="knowledge",
            item=f"g{k:015d}",
            reader=f"b-r{k}",
        )
        for k in range(6)  # read six times: no more weight than once
    ]
    table = ValidityTable.from_readings(plain + recall)
    assert table.overall[("dense_mask", "rule")].n == 9
    value, flagged, questions = table.expected["dense_mask"]
    assert (flagged, questions) == (1, 4)
    assert value == pytest.approx(0.75)  # 3/4 x 100% + 1/4 x 0%
    assert table.to_json()["expected_on_new_questions"]["dense_mask"]["questions"] == 4
    # Without readings of both kinds there is nothing to weight.
    assert ValidityTable.from_readings(plain).expected == {}


def test_the_card_gives_the_figure_expected_on_questions_never_read():
    from collections import Counter

    from abstain_build.pipeline.validity_card import validity_lines

    plain = [reading("dense_mask", source=f"q{k}", item=f"p{k:015d}") for k in range(3)]
    recall = [
        reading(
            "dense_mask", "answerable", source="gov", basis="memory", item=f"g{k:015d}", reader=r
        )
        for k, r in enumerate(("a-r01", "b-r02"))
    ]
    table = ValidityTable.from_readings(plain + recall).to_json()
    manifest = {
        "validity": {
            "table": table,
            "min_validity": 0.85,
            "min_readings": 20,
            "applied": True,
            "ledger": "0123456789abcdef",
        }
    }
    statuses = {
        "dense_mask": {"statuses": Counter(accepted=1, held=2), "mode": "rule", "version": 1}
    }
    card = "\n".join(validity_lines(manifest, statuses))
    assert "Expected where none was read" in card
    assert "dense_mask 75% (1 of 4 flagged)" in card
    del table["expected_on_new_questions"]  # a manifest written before the figure existed
    assert "Expected where none was read" not in "\n".join(validity_lines(manifest, statuses))


def test_readings_on_held_out_datasets_give_the_figure_a_new_dataset_gets():
    """The expected figure extrapolates from the flags and misses failures no reading has
    named yet: on 55 held-out MMLongBench-Doc documents it said two thirds or more where
    readers found 18 of 44 evidence edits valid. Readings of a dataset named
    ``...:heldout`` are reported on their own, on the report and on the card."""
    from collections import Counter

    from abstain_build.pipeline.validity_card import validity_lines

    tuned = [reading("dense_mask", source=f"q{k}", item=f"p{k:015d}") for k in range(4)]
    recall = [
        reading(
            "dense_mask", "answerable", source="gov", basis="memory", item=f"g{k:015d}", reader=r
        )
        for k, r in enumerate(("a-r01", "b-r02"))
    ]
    fresh = [
        reading(
            "dense_mask",
            verdict,
            source=f"h{k}",
            item=f"h{k:015d}",
            dataset="mmlongbench-doc:heldout",
        )
        for k, verdict in enumerate(("unanswerable", "answerable", "doubtful"))
    ]
    table = ValidityTable.from_readings(tuned + recall + fresh)
    assert table.overall[("dense_mask", "rule")].n == 9  # the table counts every reading
    assert table.held_out == {"dense_mask": (1, 3)}
    assert "dense_mask" in table.expected
    assert ValidityTable.from_readings(tuned).held_out == {}
    manifest = {
        "validity": {
            "table": table.to_json(),
            "min_validity": 0.85,
            "min_readings": 20,
            "applied": True,
            "ledger": "0123456789abcdef",
        }
    }
    statuses = {"dense_mask": {"statuses": Counter(held=2), "mode": "rule", "version": 1}}
    card = "\n".join(validity_lines(manifest, statuses))
    assert "Measured on held-out datasets" in card and "dense_mask 1 of 3 valid" in card
    # The measurement replaces the extrapolation, which it showed too high.
    assert "Expected where none was read" not in card


# -- readings no default build makes -------------------------------------------------------


def test_ingest_files_the_offline_blind_cues_of_the_question(tmp_path: Path):
    """A clinical vignette names its disease without the picture: the cue that stops it
    is filed with the reading, and a question pointing into its image gets none."""
    vignette = (
        "A 32-year-old woman presents with fatigue, joint pain and a malar rash that worsens"
        " in sunlight; her urine shows protein. <image 1> Which disease is most likely?"
    )
    rows = [
        dict(_key_fields(), item="0" * 16, question=vignette, options=["Lupus", "Gout"]),
        dict(_key_fields(), item="1" * 16, question="What is labelled X in <image 1>?"),
    ]
    key_path = write_jsonl(
        tmp_path / "k.key.jsonl",
        [dict(key(), reader="r01", kit=f"0{n}", **row) for n, row in enumerate(rows, start=1)],
    )
    answers = write_jsonl(
        tmp_path / "a.jsonl",
        [{"reader": "r01", "kit": f"0{n}", "answer": "", "confidence": "none"} for n in (1, 2)],
    )
    filed = ingest(key_path, [answers]).readings
    assert [r.cues for r in filed] == [("vignette",), ()]
    assert '"cues":["vignette"]' in filed[0].model_dump_json()


def test_evidence_edits_of_questions_the_blind_check_stops_are_set_apart():
    """Built with the verdict only recorded, nearly every edit of a question the cues stop
    is answered from the question (round k41: 35 of 36). A default build gives such a
    question rewrites only, so the gate's figure leaves the edits' readings out and the
    table counts them apart; a rewrite's reading of it still counts, and with
    ``--blind-policy record`` everything does."""
    stopped = readings("blur_edge_mask", 1, 9, cues=("vignette",), source="v")
    clear = readings("blur_edge_mask", 30, 0, source="c")
    rewrite = readings("missing_context", 2, 1, cues=("vignette",), source="v")
    every = stopped + clear + rewrite
    versions = {"blur_edge_mask": 1, "missing_context": 1}
    table = ValidityTable.from_readings(every, versions, {"blur_edge_mask"})
    assert table.overall[("blur_edge_mask", "rule")].valid == 30
    assert table.overall[("blur_edge_mask", "rule")].n == 30
    assert table.set_apart == {"blur_edge_mask": (1, 10)}
    assert table.overall[("missing_context", "rule")].n == 3
    assert table.to_json()["set_apart"] == {"blur_edge_mask": {"valid": 1, "n": 10}}
    recorded = ValidityTable.from_readings(every, versions)
    assert recorded.overall[("blur_edge_mask", "rule")].n == 40 and not recorded.set_apart
    cleared = ValidityPolicy(table).decide("blur_edge_mask", 1, "rule", None)
    held = ValidityPolicy(recorded).decide("blur_edge_mask", 1, "rule", None)
    assert (cleared.clears, held.clears) == (True, False)
    # The card says what its figure leaves out; a record-policy build's card has no line.
    from collections import Counter

    from abstain_build.pipeline.validity_card import validity_lines

    statuses = {"blur_edge_mask": {"statuses": Counter(held=1), "mode": "rule", "version": 1}}
    cards = [
        "\n".join(
            validity_lines(
                {
                    "validity": {
                        "table": t.to_json(),
                        "min_validity": 0.85,
                        "min_readings": 20,
                        "applied": True,
                        "ledger": "0123456789abcdef",
                    }
                },
                statuses,
            )
        )
        for t in (table, recorded)
    ]
    assert "Not counted" in cards[0] and "blur_edge_mask 1 of 10 valid" in cards[0]
    assert "Not counted" not in cards[1]


def test_the_policy_sets_apart_only_for_a_build_that_applies_the_blind_check():
    from abstain_build.validity.policy import load_policy

    applied = load_policy().table
    recorded = load_policy(blind_policy="record").table
    assert set(applied.set_apart) and not recorded.set_apart
    name = next(iter(applied.set_apart))
    assert recorded.overall[(name, "rule")].n == (
        applied.overall[(name, "rule")].n + applied.set_apart[name][1]
    )
