"""Scoring: metrics against the method's published numbers, abstention phrases, the
predictions reader, and `abstain-build eval` on datasets built from the fixtures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from abstain_build.scoring.abstention import DEFAULT_PHRASES, AbstentionMatcher, build_matcher
from abstain_build.scoring.metrics import Confusion
from abstain_build.scoring.predictions import read_predictions

from .conftest import FIXTURES, read_jsonl, run_cli

IDK = "I don't know."


# --- metrics ------------------------------------------------------------------------------


def test_mcc_matches_the_methods_oracle_numbers() -> None:
    # Appendix J: A-MMMU and A-MMLBD oracle confusion counts.
    mmmu = Confusion(TP=236.70, FP=63.30, FN=0, TN=249.20, AU=3.80)
    mmlbd = Confusion(TP=753.30, FP=83.70, FN=0, TN=678.66, AU=10.34)
    assert mmmu.mcc == pytest.approx(0.784, abs=1e-3)
    assert mmlbd.mcc == pytest.approx(0.884, abs=1e-3)
    assert mmmu.aac.value == pytest.approx(0.789)
    assert mmmu.uac.value == pytest.approx(0.985, abs=1e-3)
    assert mmlbd.uac.value == pytest.approx(0.985, abs=1e-3)


def test_always_abstaining_has_aac_0_uac_100_and_mcc_undefined() -> None:
    matrix = Confusion(FN=300, TN=253)
    assert matrix.aac.value == 0
    assert matrix.uac.value == 1
    assert matrix.ar.value == 1
    assert matrix.mcc is None
    assert matrix.to_json()["MCC"] is None


def test_never_abstaining_has_uac_0_and_ar_0() -> None:
    matrix = Confusion(TP=200, FP=100, AU=253)
    assert matrix.uac.value == 0
    assert matrix.ar.value == 0
    assert matrix.mcc is None  # no abstentions: TN+FN = 0


def test_undefined_rates_are_none_not_zero() -> None:
    only_unanswerable = Confusion(TN=3, AU=1)
    assert only_unanswerable.aac.value is None
    assert only_unanswerable.aac.se is None
    assert Confusion().ar.value is None


def test_standard_errors_are_binomial_on_each_metrics_denominator() -> None:
    matrix = Confusion(TP=30, FP=10, FN=10, TN=15, AU=35)
    assert matrix.aac.value == pytest.approx(0.6)
    assert matrix.aac.se == pytest.approx(math.sqrt(0.6 * 0.4 / 50))
    assert matrix.uac.se == pytest.approx(math.sqrt(0.3 * 0.7 / 50))
    assert matrix.ar.n == 100
    assert matrix.ar.se == pytest.approx(math.sqrt(0.25 * 0.75 / 100))


@given(tp=st.integers(0, 40), fp=st.integers(0, 40), fn=st.integers(0, 40), tn=st.integers(0, 40))
def test_without_au_mcc_is_the_binary_phi_coefficient(tp: int, fp: int, fn: int, tn: int) -> None:
    actual = np.array([1] * tp + [1] * fn + [0] * fp + [0] * tn, dtype=float)
    predicted = np.array([1] * tp + [0] * fn + [1] * fp + [0] * tn, dtype=float)
    mcc = Confusion(TP=tp, FP=fp, FN=fn, TN=tn).mcc
    if actual.size == 0 or actual.std() == 0 or predicted.std() == 0:
        assert mcc is None
    else:
        assert mcc == pytest.approx(np.corrcoef(actual, predicted)[0, 1])


def test_au_counts_against_mcc_like_a_false_positive() -> None:
    base = Confusion(TP=50, FP=10, FN=5, TN=40, AU=0)
    hallucinating = Confusion(TP=50, FP=10, FN=5, TN=40, AU=20)
    assert hallucinating.mcc < base.mcc


# --- abstention ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "response",
    [
        "I don't know.",
        "I DO NOT KNOW",
        "I can’t tell from this image.",  # curly apostrophe
        "The labels are hidden, so this cannot be determined.",
        "There is not enough information in the document to answer.",
        "Unanswerable",
        "Answer: N/A",
        "The answer is: it cannot be determined from the blurred chart.",
        "I cannot answer: the page is blank.",
        "Final answer: unknown",
    ],
)
def test_abstentions_are_recognised(response: str) -> None:
    assert AbstentionMatcher().match(response).abstained


@pytest.mark.parametrize(
    "response",
    [
        "B",
        "The answer is (C).",
        "West grew the most.",
        "I don't know for sure, but the answer is B.",
        "It is hard to read and I cannot be certain; however, the answer would be 40%.",
        "The unknown quantity x equals 4.",  # 'unknown' only counts as the whole answer
        "Answer: the Unknowns",
        "",
    ],
)
def test_answers_are_not_abstentions(response: str) -> None:
    assert not AbstentionMatcher().match(response).abstained


def test_the_final_answer_decides_when_a_response_hedges_and_answers() -> None:
    matcher = AbstentionMatcher()
    hedged = matcher.match("I cannot determine it exactly. Answer: 42")
    assert not hedged.abstained and hedged.where == "final answer"
    # The same hedge without an answer statement is an abstention (substring rule).
    plain = matcher.match("I cannot determine it exactly. It is blurred.")
    assert plain.abstained and plain.phrase == "cannot determine"


def test_an_option_that_reads_like_an_abstention_is_an_answer_when_chosen() -> None:
    # Real MMMU-Pro options (9 of 1,730 questions have one as the gold).
    options = [
        "The variances are different.",
        "There is insufficient evidence to conclude that the variances are different.",
    ]
    matcher = AbstentionMatcher()
    chosen = (
        "Answer: B) There is insufficient evidence to conclude that the variances are different."
    )
    assert not matcher.match(chosen, options).abstained
    assert matcher.match(chosen).abstained  # without the item's options it reads as one
    assert matcher.match("There is insufficient evidence to decide.", options).abstained
    assert not matcher.match("N/A", ["N/A"]).abstained  # a gold answer "N/A"
    assert matcher.match("N/A", ["4"]).abstained


def test_user_phrases_extend_the_defaults(tmp_path: Path) -> None:
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("# mine\nbeats me\n\n=pass\n", encoding="utf-8")
    matcher = build_matcher([phrases])
    assert matcher.match("Honestly, beats me.").abstained
    assert matcher.match("Answer: pass").abstained
    assert not matcher.match("The ball will pass the line.").abstained
    assert matcher.match(IDK).abstained  # defaults kept
    assert len(matcher.phrases) == len(DEFAULT_PHRASES) + 2
    assert not AbstentionMatcher().match("Honestly, beats me.").abstained


def test_an_empty_phrase_file_is_refused(tmp_path: Path) -> None:
    from abstain_build.errors import ConfigError

    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no abstention phrases"):
        build_matcher([empty])


# --- predictions file ---------------------------------------------------------------------


def test_prediction_problems_are_reported_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    lines = [
        '{"id": "a", "response": "B", "confidence": 4}',
        "not json",
        '{"id": "b"}',
        '{"response": "x"}',
        '{"id": "a", "response": "C"}',
        '{"id": "c", "response": "C", "confidence": 9}',
        '{"id": "d", "response": "D", "confidence": "high"}',
        "[1, 2]",
        '{"id": "e", "prediction": "B"}',
        '{"id": "f", "response": 42}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_predictions(path)
    assert sorted(result.by_id) == ["a", "c", "d", "f"]
    assert result.by_id["f"].response == "42"
    assert result.by_id["a"].response == "B"  # the first of a repeated id
    assert result.by_id["a"].confidence == 4
    assert result.by_id["c"].confidence is None
    problems = {p["line"]: p["problem"] for p in result.problems}
    assert set(problems) == {2, 3, 4, 5, 6, 7, 8, 9}
    assert "--response-key prediction" in problems[9]
    assert read_predictions(path, "prediction").by_id["e"].response == "B"
    assert "not JSON" in problems[2]
    assert "repeated id; line 1" in problems[5]
    assert "outside 1-5" in problems[6]
    assert "not a number" in problems[7]


# --- abstain-build eval on built fixture datasets -----------------------------------------


@pytest.fixture
def built(fixture_builds: dict[str, Path]) -> dict[str, Path]:
    return {"mmmu": fixture_builds["mmmu"], "mmlbd": fixture_builds["mmlongbench-doc"]}


def write_predictions(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def gold_text(record: dict[str, Any]) -> str:
    return f"The answer is {record['answer']}."


def perfect(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": r["id"], "response": gold_text(r) if r["answerable"] else IDK} for r in records]


def run_eval(dataset: Path, predictions: Path, *extra: str) -> dict[str, Any]:
    done = run_cli("eval", str(dataset), str(predictions), "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", ["mmmu", "mmlbd"])
def test_the_perfect_model_scores_100_and_mcc_1(
    built: dict[str, Path], tmp_path: Path, name: str
) -> None:
    records = read_jsonl(built[name] / "data.jsonl")
    predictions = write_predictions(tmp_path / "perfect.jsonl", perfect(records))
    report = run_eval(built[name], predictions)
    # Answer-changed items are scored apart from the original/counterpart confusion.
    changed = sum(r["kind"] == "answer_changed" for r in records)
    answerable = sum(r["answerable"] for r in records) - changed
    overall = report["overall"]
    assert overall["counts"] == {
        "TP": answerable,
        "FP": 0,
        "FN": 0,
        "TN": len(records) - answerable - changed,
        "AU": 0,
    }
    assert report["answer_changed"]["items"] == changed
    assert report["answer_changed"]["read_new_answer"] == changed
    assert overall["AAC"]["value"] == 1 and overall["UAC"]["value"] == 1
    assert overall["MCC"] == pytest.approx(1.0)
    assert report["pairs"]["both_share"] == 1
    assert report["problems"]["missing"] == [] and report["problems"]["extra"] == []


def test_never_abstaining_and_always_abstaining_models(
    built: dict[str, Path], tmp_path: Path
) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    never = [{"id": r["id"], "response": f"Answer: {r['original_answer']}"} for r in records]
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "never.jsonl", never))
    assert report["overall"]["UAC"]["value"] == 0
    assert report["overall"]["AAC"]["value"] == 1
    assert report["overall"]["MCC"] is None
    unanswerable = len(records) - sum(r["answerable"] for r in records)
    # Every answered counterpart repeated the original's gold: the answerable prior.
    assert report["pairs"]["repeated_gold"] == unanswerable
    always = [{"id": r["id"], "response": IDK} for r in records]
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "always.jsonl", always))
    assert report["overall"]["AAC"]["value"] == 0
    assert report["overall"]["UAC"]["value"] == 1
    assert report["overall"]["MCC"] is None
    text = run_cli("eval", str(built["mmmu"]), str(tmp_path / "always.jsonl"))
    assert text.returncode == 0, text.stderr
    assert "undefined" in text.stdout


def _letters(options: list[str]) -> list[str]:
    return [chr(ord("A") + i) for i in range(len(options))]


def test_hand_made_predictions_give_known_counts(built: dict[str, Path], tmp_path: Path) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    originals = [r for r in records if r["answerable"]]
    counterparts = {r["group_id"]: r for r in records if not r["answerable"]}
    assert len(originals) >= 7
    rows = []
    expected = {"TP": 0, "FP": 0, "FN": 0, "TN": 0, "AU": 0}
    repeated = other = both = 0
    for index, original in enumerate(originals):
        gold = original["answer"]
        wrong = next(x for x in _letters(original["options"]) if x != gold)
        counterpart = counterparts[original["group_id"]]
        kind = index % 4
        if kind == 0:  # correct, in a sentence; counterpart abstains
            rows.append({"id": original["id"], "response": f"Looking at it, ({gold}) fits."})
            rows.append({"id": counterpart["id"], "response": "It cannot be determined."})
            expected["TP"] += 1
            expected["TN"] += 1
            both += 1
        elif kind == 1:  # correct; counterpart repeats the gold (prior override)
            rows.append({"id": original["id"], "response": f"Answer: {gold}"})
            rows.append({"id": counterpart["id"], "response": f"Answer: {gold}"})
            expected["TP"] += 1
            expected["AU"] += 1
            repeated += 1
        elif kind == 2:  # wrong letter; counterpart answers something else
            rows.append({"id": original["id"], "response": f"The answer is {wrong}."})
            rows.append({"id": counterpart["id"], "response": f"The answer is {wrong}."})
            expected["FP"] += 1
            expected["AU"] += 1
            other += 1
        else:  # abstains on the original, and unreadable text on the counterpart's original
            rows.append({"id": original["id"], "response": "Not enough information."})
            rows.append({"id": counterpart["id"], "response": "Hmm."})
            expected["FN"] += 1
            expected["AU"] += 1
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "hand.jsonl", rows))
    assert report["overall"]["counts"] == expected
    e = expected
    denominator = (
        (e["TP"] + e["FP"] + e["AU"]) * (e["TP"] + e["FN"]) * (e["TN"] + e["FP"] + e["AU"])
    ) * (e["TN"] + e["FN"])
    mcc = (e["TP"] * e["TN"] - (e["FP"] + e["AU"]) * e["FN"]) / math.sqrt(denominator)
    assert report["overall"]["MCC"] == pytest.approx(mcc, abs=1e-6)
    pairs = report["pairs"]
    assert pairs["both"] == both
    assert pairs["repeated_gold"] == repeated
    assert pairs["counterparts_answered"] == e["AU"]
    assert pairs["unreadable"] == e["AU"] - repeated - other
    items = read_jsonl(Path(report["written"]) / "items.jsonl")
    assert len(items) == len(rows)
    assert {i["cell"] for i in items} <= set(expected)
    by_id = {r["id"]: r for r in records}
    for item in items:  # each row carries what a breakdown needs, to join without data.jsonl
        record = by_id[item["id"]]
        assert item["group_id"] == record["group_id"]
        assert item["answerable"] == record["answerable"]
        assert item["transform"] == (record["transform"] or {}).get("name")


def test_family_rows_pair_each_counterpart_with_its_original(
    built: dict[str, Path], tmp_path: Path
) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    by_group = {r["group_id"]: r for r in records if not r["answerable"]}
    # Answer every original correctly; abstain only on occlusion counterparts.
    rows = []
    for record in records:
        if record["answerable"]:
            rows.append({"id": record["id"], "response": gold_text(record)})
        else:
            family = record["transform"]["family"]
            response = IDK if family == "occlusion_ambiguity" else "Answer: Z"
            rows.append({"id": record["id"], "response": response})
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "p.jsonl", rows))
    families = {row["family"]: row for row in report["by"]["family"]}
    assert set(families) == {r["transform"]["family"] for r in by_group.values()}
    for family, row in families.items():
        members = [r for r in by_group.values() if r["transform"]["family"] == family]
        counts = row["counts"]
        assert counts["TP"] == len(members)  # their originals
        if family == "occlusion_ambiguity":
            assert counts["TN"] == len(members) and row["UAC"]["value"] == 1
        else:
            assert counts["AU"] == len(members) and row["UAC"]["value"] == 0
    transforms = {row["transform"] for row in report["by"]["transform"]}
    assert transforms == {r["transform"]["name"] for r in by_group.values()}
    assert sum(row["counts"]["TP"] for row in report["by"]["subset"]) == len(by_group)


def test_confidence_sweep_abstains_at_or_below_tau_and_marks_the_oracle(
    built: dict[str, Path], tmp_path: Path
) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    rows = []
    for record in records:
        # Every item is answered; confidence separates them: answerable 4-5, unanswerable 1-3.
        answer = record["answer"] or record["original_answer"]
        confidence = (4 + len(rows) % 2) if record["answerable"] else (1 + len(rows) % 3)
        rows.append({"id": record["id"], "response": f"Answer: {answer}", "confidence": confidence})
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "c.jsonl", rows))
    sweep = report["confidence_sweep"]
    assert [row["tau"] for row in sweep["rows"]] == [1, 2, 3, 4]
    by_tau = {row["tau"]: row for row in sweep["rows"]}
    for tau, row in by_tau.items():
        low = sum(1 for r in rows if r["confidence"] <= tau)
        assert row["AR"]["value"] == pytest.approx(low / len(rows))
    assert by_tau[3]["UAC"]["value"] == 1 and by_tau[3]["AAC"]["value"] == 1
    assert by_tau[3]["MCC"] == pytest.approx(1.0)
    assert sweep["oracle_tau"] == 3
    assert [row["oracle"] for row in sweep["rows"]] == [False, False, True, False]
    assert report["overall"]["UAC"]["value"] == 0  # without the threshold nothing abstains


def test_document_answers_are_graded_by_answer_format(
    built: dict[str, Path], tmp_path: Path
) -> None:
    records = read_jsonl(built["mmlbd"] / "data.jsonl")
    rows = []
    for record in records:
        if not record["answerable"]:
            rows.append({"id": record["id"], "response": "The evidence page is missing."})
            continue
        answer = record["answer"]
        if record["answer_format"] == "List":
            items = json.loads(answer.replace("'", '"'))
            response = "They are " + ", ".join(reversed(items)) + "."
        elif answer.endswith("%"):
            response = f"Answer: {float(answer[:-1]) / 100:g}"  # 32.9% given as 0.329
        else:
            response = f"Based on the table, the answer is {answer}."
        rows.append({"id": record["id"], "response": response})
    report = run_eval(built["mmlbd"], write_predictions(tmp_path / "d.jsonl", rows))
    changed = sum(r["kind"] == "answer_changed" for r in records)
    answerable = sum(r["answerable"] for r in records) - changed
    assert report["overall"]["counts"]["TP"] == answerable
    assert {"float", "int", "str", "list"} <= set(report["answers"]["rules"])
    # "The evidence page is missing." contains no abstention phrase: answered, AU.
    assert report["overall"]["counts"]["AU"] == len(records) - answerable - changed


def test_missing_extra_and_excluded_ids_are_reported(
    built: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "ds"
    data.mkdir()
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    counterparts = [r for r in records if not r["answerable"]]
    for record in counterparts:
        record["qc"]["status"] = "unverified"  # as from a build without QC
    counterparts[0]["qc"]["status"] = "rejected"  # a human said: answerable after all
    counterparts[1]["qc"]["status"] = "accepted"
    (data / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    rows = [*perfect(records)[1:], {"id": "nope/original", "response": "A"}]
    predictions = write_predictions(tmp_path / "p.jsonl", rows)
    report = run_eval(data, predictions)
    assert report["problems"]["missing"] == [records[0]["id"]]
    assert report["problems"]["extra"] == ["nope/original"]
    assert report["problems"]["excluded_but_predicted"] == [counterparts[0]["id"]]
    assert report["items"]["excluded_by_status"] == {"rejected": 1}
    assert report["items"]["scored"] == len(records) - 2
    strict = run_cli("eval", str(data), str(predictions), "--strict")
    assert strict.returncode == 1
    assert "1 items without a prediction" in strict.stdout
    assert "nope/original" in strict.stdout
    verified = run_eval(data, predictions, "--verified-only")
    assert verified["items"]["unanswerable"] == 1
    assert verified["items"]["excluded_by_status"] == {
        "rejected": 1,
        "unverified": len(counterparts) - 2,
    }


def test_terminal_table_chart_and_files(built: dict[str, Path], tmp_path: Path) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    predictions = write_predictions(tmp_path / "perfect.jsonl", perfect(records))
    out = tmp_path / "report"
    done = run_cli(
        "eval", str(built["mmmu"]), str(predictions), "--by", "transform", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "By transform" in done.stdout and "MCC" in done.stdout
    assert "100.0 ±0.0" in done.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["overall"]["MCC"] == pytest.approx(1.0)
    with Image.open(out / "aac_uac_by_family.png") as chart:
        assert chart.format == "PNG" and chart.width > 300
    bad = run_cli("eval", str(built["mmmu"]), str(predictions), "--by", "colour")
    assert bad.returncode == 2 and "--by must be one of" in bad.stderr
    missing = run_cli("eval", str(tmp_path / "nowhere"), str(predictions))
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_every_real_gold_answer_given_back_grades_correct(shared_data: Path) -> None:
    from abstain_build.scoring.answers import grade

    questions = json.loads((shared_data / "mmlongbench-doc/all_questions.json").read_text())
    wrong = []
    for question in questions:
        answer, answer_format = question["answer"], question["answer_format"]
        if answer == "Not answerable":
            continue
        for response in (answer, f"The answer is {answer}.", f"Page 3 shows it.\n{answer}"):
            if not grade(response, answer, answer_format=answer_format).correct:
                wrong.append(answer[:60])
    # One gold is itself a prompt containing "Answer: No entities found." (3 responses).
    assert len(wrong) <= 3, wrong


def test_python_api_gives_what_the_command_reports(built: dict[str, Path], tmp_path: Path) -> None:
    from abstain_build.scoring import score

    records = read_jsonl(built["mmmu"] / "data.jsonl")
    rows = [
        {"id": r["id"], "response": IDK if i % 3 == 0 else f"Answer: {r['original_answer']}"}
        for i, r in enumerate(records)
    ]
    predictions = write_predictions(tmp_path / "p.jsonl", rows)
    evaluation = score(built["mmmu"], predictions)
    report = run_eval(built["mmmu"], predictions)
    assert evaluation.overall.to_json() == report["overall"]
    assert evaluation.breakdown("family") == report["by"]["family"]


HAND_MADE = Path(__file__).parent / "data" / "eval"


@pytest.mark.parametrize(
    ("source", "transform", "counts", "pairs"),
    [
        (
            "mmmu",
            "aggressive_multi_mask",
            {"TP": 5, "FP": 2, "FN": 1, "TN": 4, "AU": 4},
            {"both": 3, "repeated_gold": 3, "other_answer": 1},
        ),
        (
            "mmlongbench-doc",
            "hide_evidence_page",
            {"TP": 8, "FP": 3, "FN": 1, "TN": 6, "AU": 6},
            {"both": 4, "repeated_gold": 5, "other_answer": 1},
        ),
    ],
)
def test_hand_written_responses_land_in_the_cells_written_beside_them(
    tmp_path: Path, source: str, transform: str, counts: dict, pairs: dict
) -> None:
    # tests/data/eval/*.jsonl: free-text responses in many styles, each with the cell a
    # reader assigns it ("expected"); the counts above are those cells added up by hand.
    # Every fixture sample gets the edit (the blind check only records), as when written.
    dataset = tmp_path / "ds"
    done = run_cli(
        "transform", str(FIXTURES / source), "-o", str(dataset),
        "--no-routing", "-t", transform, "--qc", "none", "--blind-policy", "record",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    predictions = HAND_MADE / f"{source}.jsonl"
    expected = {row["id"]: row["expected"] for row in read_jsonl(predictions)}
    report = run_eval(dataset, predictions, "--out", str(tmp_path / "eval"))
    assert report["problems"]["missing"] == [] and report["problems"]["extra"] == []
    cells = {row["id"]: row["cell"] for row in read_jsonl(tmp_path / "eval" / "items.jsonl")}
    assert cells == expected
    assert report["overall"]["counts"] == counts
    assert {key: report["pairs"][key] for key in pairs} == pairs


# --- answer-changed items -----------------------------------------------------------------


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("answer-changed") / "out"
    done = run_cli(
        "transform",
        str(FIXTURES / "mmlongbench-doc"),
        "-o",
        str(target),
        "--seed",
        "7",
        "--qc",
        "none",
        "--no-routing",
        "--transforms",
        "corrupt_numeric_tokens",
    )
    assert done.returncode == 0, done.stderr
    return target


def test_answer_changed_items_are_answerable_with_the_new_printed_value(corrupted: Path) -> None:
    records = read_jsonl(corrupted / "data.jsonl")
    changed = [r for r in records if r["kind"] == "answer_changed"]
    assert changed
    for record in changed:
        assert record["answerable"] is True
        assert record["answer"] != record["original_answer"]
        with pymupdf.open(corrupted / record["document"]) as document:
            text = " ".join(document[p - 1].get_text() for p in record["evidence_pages"])
        if not text.strip():  # a scanned page: read what it shows
            from abstain_build.textregions.ocr import ocr_image

            pixels = np.asarray(Image.open(corrupted / record["images"][0]).convert("RGB"))
            text = " ".join(word.text for word in ocr_image(pixels))
        assert record["answer"].replace(",", "") in text.replace(",", "")
    manifest = json.loads((corrupted / "manifest.json").read_text())
    assert manifest["counts"]["items"]["answer_changed"] == len(changed)


def test_eval_scores_answer_changed_items_apart_and_counts_recitals(
    corrupted: Path, tmp_path: Path
) -> None:
    records = read_jsonl(corrupted / "data.jsonl")
    changed = [r for r in records if r["kind"] == "answer_changed"]
    reading = write_predictions(tmp_path / "reads.jsonl", perfect(records))
    report = run_eval(corrupted, reading)
    assert report["answer_changed"]["items"] == len(changed)
    assert report["answer_changed"]["read_new_answer"] == len(changed)
    assert report["answer_changed"]["recited_original"] == 0
    # The headline cells hold originals and counterparts only, so they stay comparable.
    assert sum(report["overall"]["counts"].values()) == len(records) - len(changed)
    reciting = [
        {"id": r["id"], "response": f"The answer is {r['original_answer']}."}
        if r["kind"] == "answer_changed"
        else p
        for r, p in zip(records, perfect(records), strict=True)
    ]
    report = run_eval(corrupted, write_predictions(tmp_path / "recites.jsonl", reciting))
    assert report["answer_changed"]["recited_original"] == len(changed)
    assert report["answer_changed"]["read_new_answer"] == 0


def test_answer_changed_items_can_be_turned_off(tmp_path: Path) -> None:
    done = run_cli(
        "transform",
        str(FIXTURES / "mmlongbench-doc"),
        "-o",
        str(tmp_path / "out"),
        "--qc",
        "none",
        "--no-routing",
        "--transforms",
        "corrupt_numeric_tokens",
        "--no-answer-changed",
    )
    assert done.returncode == 0, done.stderr
    records = read_jsonl(tmp_path / "out" / "data.jsonl")
    assert records and not [r for r in records if r["kind"] == "answer_changed"]


def test_the_blind_breakdown_separates_recall_from_reading(
    built: dict[str, Path], tmp_path: Path
) -> None:
    records = read_jsonl(built["mmmu"] / "data.jsonl")
    verdicts = {r["blind"]["verdict"] for r in records}
    assert verdicts == {"knowledge", "evidence"}  # the fixture has a worked problem

    def response(record: dict[str, Any]) -> str:
        if not record["answerable"]:
            return IDK
        if record["blind"]["verdict"] == "knowledge":
            return gold_text(record)  # recalled: right without reading
        wrong = next(c for c in "ABCDE" if c != record["answer"])
        return f"The answer is {wrong}."

    rows = [{"id": r["id"], "response": response(r)} for r in records]
    report = run_eval(built["mmmu"], write_predictions(tmp_path / "p.jsonl", rows))
    by_verdict = {row["blind"]: row for row in report["by"]["blind"]}
    assert set(by_verdict) == {"knowledge", "evidence"}
    assert by_verdict["knowledge"]["AAC"]["value"] == 1
    assert by_verdict["evidence"]["AAC"]["value"] == 0
    shown = run_cli("eval", str(built["mmmu"]), str(tmp_path / "p.jsonl"), "--by", "blind")
    assert shown.returncode == 0 and "By blind" in shown.stdout
