"""The question classifiers of routing: evidence types, image dependency (heuristic and
LLM mode against a real HTTP server on 127.0.0.1), the lenient question reader, the
``classify`` command, and agreement with hand-checked labels on the real question files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abstain_build.loaders import open_source
from abstain_build.model import EVIDENCE, MODALITY, Sample
from abstain_build.models import ClientOptions, ModelClient
from abstain_build.questions.prompts import PURPOSE, parse_dependency_reply
from abstain_build.routing import (
    DEPENDENCY_CLASSES,
    EVIDENCE_TYPES,
    Distribution,
    classify_dependency,
    classify_evidence,
    classify_heuristic,
    classify_source,
    has_time_reference,
    iter_questions,
    time_references,
)

from .conftest import FIXTURES, SHARED_DATA, run_cli, write_jsonl
from .model_server import ModelServer, Received, reply

pytestmark = pytest.mark.usefixtures("no_real_keys")

HANDCHECK = Path(__file__).parent / "data" / "routing_handcheck.json"
#: Measured: 26/30 on both samples; the floor leaves room for small rule changes.
AGREEMENT_FLOOR = 0.8

INCLINE = (
    "A block of mass m = 5.0 kg is released from rest on a frictionless incline that makes"
    " an angle θ = 30° with the horizontal (<image 1>). It slides a distance d = 4.0 m down"
    " the incline. Taking g = 9.8 m/s² and using energy conservation, m g d sin θ = ½ m v²,"
    " i.e. v = √(2 g d sin θ), what is the block's speed after sliding the distance d?"
)
CIRCUIT = "Use nodal analysis on the circuit shown in <image 1> to find the voltage across R2."


# -- evidence types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "label", "trigger"),
    [
        ("How many reportable segments are listed in the annual report?", "Counting", "how many"),
        ("What was the number of employees at the end of the period?", "Counting", "number of"),
        ("What is the sum of the file sizes of the two smallest files?", "Aggregation", "sum"),
        ("What is the average age of the respondents in the survey?", "Aggregation", "average"),
        ("What is the mean score of the control group?", "Aggregation", "the mean"),
        ("What is Costco's debt to EBITDA ratio?", "Aggregation", "ratio"),
        ("Which region had the highest share of online shoppers?", "Comparative", "highest"),
        (
            "Are there more Instagram users in Vietnam than fans of the Appota page?",
            "Comparative",
            "more instagram users in vietnam than",
        ),
        (
            "What is the difference between the two estimates of the population?",
            "Comparative",
            "difference between",
        ),
        (
            "Which Hispanic group is more likely to approve of capitalism?",
            "Comparative",
            "more likely",
        ),
        ("According to the chart on page 5, who leads the party?", "Visual", "chart"),
        ("What colour is the logo on the cover page?", "Visual", "colour"),
        # 0e94b4... p8 (shared): a question about the shapes a slide draws
        ("Which shapes does the slide use to illustrate the closure aspect?", "Visual", "shapes"),
        ("Who is the chief executive officer of the company?", "Extractive", "who is"),
        ("Name the three founders mentioned in the report.", "Extractive", "name the"),
        ("How much did Costco spend on share repurchases in FY2021?", "Temporal", "FY2021"),
        ("What percentage of adults used TikTok in 2019?", "Temporal", "2019"),
        (
            "Describe the products that the Energy Solutions segment installs.",
            "Descriptive",
            "describe",
        ),
        ("How does this document define the law of good gestalt?", "Descriptive", "how does"),
    ],
)
def test_each_type_is_triggered_by_its_patterns(question: str, label: str, trigger: str) -> None:
    result = classify_evidence(question)
    assert result.label == label
    assert trigger in result.matches[label]
    assert result.mode == "rules" and not result.defaulted


#: The method's tie order, written out so that a change to ``EVIDENCE_TYPES`` shows here.
TIE_ORDER = (
    "Counting",
    "Aggregation",
    "Comparative",
    "Visual",
    "Extractive",
    "Temporal",
    "Descriptive",
)
FRAGMENTS = {
    "Counting": "how many segments",
    "Aggregation": "the sum of the sales",
    "Comparative": "the highest value",
    "Visual": "the chart",
    "Extractive": "which item",
    "Temporal": "in FY2020",
    "Descriptive": "describe",
}


@pytest.mark.parametrize(
    ("first", "second"),
    [(a, b) for i, a in enumerate(TIE_ORDER) for b in TIE_ORDER[i + 1 :]],
)
def test_ties_go_to_the_earlier_type(first: str, second: str) -> None:
    assert EVIDENCE_TYPES == TIE_ORDER
    result = classify_evidence(f"{FRAGMENTS[second]} and {FRAGMENTS[first]}?")
    assert result.label == first
    assert result.matches[first] and result.matches[second]
    assert second in result.secondary


def test_every_type_records_its_matches_even_when_it_loses() -> None:
    result = classify_evidence(
        "How many of the bars in the chart show a total above the highest average in 2019?"
    )
    assert result.label == "Counting"
    matches = result.to_json()["matches"]
    assert matches["Aggregation"] == ["total", "average"]
    assert matches["Comparative"] == ["highest"]
    assert matches["Visual"] == ["chart"]
    assert matches["Temporal"] == ["2019"]


def test_a_question_without_triggers_is_extractive_by_default_with_no_matches() -> None:
    result = classify_evidence("Is the headset waterproof when submerged?")
    assert result.label == "Extractive" and result.defaulted
    assert all(found == [] for found in result.matches.values())
    assert result.to_json()["matched"] == []


def test_answer_format_instructions_are_not_matched() -> None:
    question = (
        "How many triangles are in the first figure?"
        ' Please write the answer in the list format, e.g., ["black","red"]'
    )
    result = classify_evidence(question)
    assert result.label == "Counting"
    assert result.matches["Visual"] == ["figure"]
    assert result.ignored.startswith("Please write the answer")
    rounded = classify_evidence("What was the FY2021 capex? Round your answer to two decimals.")
    assert rounded.ignored == "Round your answer to two decimals."


def test_mean_as_a_verb_and_names_are_not_triggers() -> None:
    assert classify_evidence("What does socialism mean to Latinos?").matches["Aggregation"] == []
    best_buy = classify_evidence("What is the effective tax rate of Best Buy?")
    assert best_buy.matches["Comparative"] == []
    at_least = classify_evidence("Which sites are used by at least one adult in ten?")
    assert at_least.matches["Comparative"] == []


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("What was revenue in FY2020?", ["FY2020"]),
        ("What was revenue in FY 2019?", ["FY 2019"]),
        ("In Q3 2015, what is the cost of an install?", ["Q3 2015"]),
        ("What was the Q3 revenue?", ["Q3"]),
        ("Who won the election in 2019?", ["2019"]),
        ("What is the ratio for the fiscal year ending January 28, 2023?", None),
        ("Which bands were popular in the 1990s?", ["1990s"]),
        ("How did prices move in the 2010s?", ["2010s"]),
        ("How many shares were held as of March 2007?", ["March 2007"]),
        ("How many square miles did the county cover in 1882?", ["in 1882"]),
        ("What share of users were online from 2013-2014?", ["2013", "2014"]),
    ],
)
def test_time_references_are_found(question: str, found: list[str] | None) -> None:
    assert has_time_reference(question)
    if found is not None:
        assert time_references(question) == found


@pytest.mark.parametrize(
    "question",
    [
        "What is the revenue of the cloud segment?",
        "Heat flows from a 1500 K source to the engine.",
        "The fund paid $2019 in fees and 2,019 people applied.",
        "What does Figure 3 show on page 21?",
        "Which questions in Q41a-t were asked?",
    ],
)
def test_numbers_that_are_not_times_are_not_time_references(question: str) -> None:
    assert not has_time_reference(question)


# -- image dependency, heuristic --------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("<image 1>", ()),
        ("<image 1> <image 2>", ()),
        ("<image 1> What is this?", ()),
        ("Which is not a <image 1>?", ()),
        ("<image 1> is a symbol of...", ()),
        ("Which of these animals is a herbivore?", ("<image 2>", "<image 3>", "<image 4>")),
    ],
)
def test_questions_that_are_their_image_are_exclusive(question: str, options: tuple) -> None:
    result = classify_heuristic(question, options)
    assert result.label == "Exclusive"
    assert result.mode == "heuristic" and result.reasons


def test_a_text_sufficient_numeric_question_with_formulas_is_decorative() -> None:
    result = classify_heuristic(INCLINE, ("4.43 m/s", "4.90 m/s", "6.26 m/s"))
    assert result.label == "Decorative"
    assert result.scores["text_sufficiency"] >= 0.6 > result.scores["image_dependency"] + 0.2
    assert result.features is not None and result.features.formulas >= 3


def test_a_task_on_a_pictured_circuit_is_essential() -> None:
    result = classify_heuristic(CIRCUIT)
    assert result.label == "Essential"
    assert {"circuit", "shown"} <= set(result.features.visual_keywords)


def test_given_values_with_a_figure_reference_are_partial() -> None:
    question = (
        "As shown in <image 1>, a 12.5 kg block is pulled by a force F = 40 N at 30° across"
        " a floor with a friction coefficient of 0.20. What is the acceleration of the block?"
    )
    assert classify_heuristic(question).label == "Partial"


def test_visual_words_raise_image_dependency_and_values_raise_text_sufficiency() -> None:
    plain = classify_heuristic("Find the current through the resistor. <image 1>").scores
    visual = classify_heuristic(
        "Find the current through the resistor labeled in the circuit diagram. <image 1>"
    ).scores
    numeric = classify_heuristic(
        "Find the current through the 4.7 kΩ resistor when 12 V is applied. <image 1>"
    ).scores
    assert visual["image_dependency"] > plain["image_dependency"]
    assert numeric["text_sufficiency"] > plain["text_sufficiency"]


def test_years_and_labels_are_not_counted_as_data() -> None:
    result = classify_heuristic("<image 1> In Table 7, which store of 2012 is Individual 9?")
    assert result.features.numbers == 0


def test_heuristic_results_serialize_with_scores_features_and_reasons() -> None:
    data = classify_dependency(CIRCUIT, (), 1).to_json()
    assert data["label"] in DEPENDENCY_CLASSES and data["mode"] == "heuristic"
    assert set(data["scores"]) == {"text_sufficiency", "image_dependency"}
    assert all(0.0 <= v <= 1.0 for v in data["scores"].values())
    assert data["features"]["visual_keywords"] and data["reasons"] and data["model"] is None
    json.dumps(data)


# -- image dependency, LLM mode ---------------------------------------------------------------


def verdict(label: str = "Essential", text: float = 0.2, image: float = 0.9) -> str:
    return json.dumps(
        {
            "class": label,
            "text_sufficiency": text,
            "image_dependency": image,
            "reason": "the values are only in the drawing",
        }
    )


def client_for(server: ModelServer, cache: Path | None = None, reasks: int = 2) -> ModelClient:
    options = ClientOptions(cache_path=cache, max_reasks=reasks)
    return ModelClient(f"openai:judge@{server.openai_url}", options)


def test_llm_mode_uses_the_models_class_and_records_it(server: ModelServer) -> None:
    server.push(reply(verdict("Exclusive", 0.05, 0.97)))
    with client_for(server) as llm:
        result = classify_dependency(INCLINE, ("4.43 m/s", "4.90 m/s"), 1, llm=llm)
    assert result.label == "Exclusive"
    assert result.mode == f"llm:openai:judge@{server.openai_url}"
    assert result.scores == {"text_sufficiency": 0.05, "image_dependency": 0.97}
    assert result.reasons == ("the values are only in the drawing",)
    assert result.model["ok"] and result.model["purpose"] == PURPOSE
    prompt = server.requests[0].texts()[-1]
    assert INCLINE in prompt and "B. 4.90 m/s" in prompt
    assert "not available" in prompt


def test_llm_mode_sends_the_images_when_there_are_some(server: ModelServer) -> None:
    server.push(reply(verdict()))
    png = (FIXTURES / "mmmu" / "images" / "fixture_chart_bar_1.png").read_bytes()
    with client_for(server) as llm:
        classify_dependency("What does <image 1> show?", (), 1, images=(png,), llm=llm)
    assert len(server.requests[0].images()) == 1
    assert "1 image(s) are attached" in server.requests[0].texts()[-1]


def test_a_malformed_reply_is_asked_again(server: ModelServer) -> None:
    server.push(reply("It is essential, I think."), reply(verdict("Partial", 0.6, 0.4)))
    with client_for(server) as llm:
        result = classify_dependency(CIRCUIT, (), 1, llm=llm)
    assert result.label == "Partial" and result.mode.startswith("llm:")
    assert len(server.requests) == 2
    assert "could not be used" in server.requests[1].texts()[-1]


def test_malformed_replies_fall_back_to_the_heuristic_with_the_reason(
    server: ModelServer,
) -> None:
    server.responder = lambda _: reply('{"class": "Crucial", "text_sufficiency": 2}')
    with client_for(server, reasks=1) as llm:
        result = classify_dependency(CIRCUIT, (), 1, llm=llm)
    assert result.label == classify_heuristic(CIRCUIT).label
    assert result.mode.startswith("heuristic (llm failed: no parseable reply in 2 asks")
    assert "class" in result.mode
    assert result.features is not None
    assert result.model["ok"] is False and result.model["kind"] == "unparseable"


def test_a_failed_call_falls_back_to_the_heuristic(server: ModelServer) -> None:
    from .model_server import error

    server.responder = lambda _: error(401, "bad key")
    with client_for(server) as llm:
        result = classify_dependency(CIRCUIT, (), 1, llm=llm)
    assert result.mode.startswith("heuristic (llm failed:")
    assert result.label == "Essential"


def test_replies_are_cached_when_a_cache_file_is_given(server: ModelServer, tmp_path: Path) -> None:
    server.responder = lambda _: reply(verdict())
    cache = tmp_path / "models.sqlite"
    for _ in range(2):
        with client_for(server, cache) as llm:
            result = classify_dependency(CIRCUIT, (), 1, llm=llm)
        assert result.label == "Essential"
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Essential",
        '["Essential"]',
        '{"class": "Crucial", "text_sufficiency": 0.1, "image_dependency": 0.9}',
        '{"class": "Essential", "text_sufficiency": 1.5, "image_dependency": 0.9}',
        '{"class": "Essential", "text_sufficiency": true, "image_dependency": 0.9}',
        '{"class": "Essential", "image_dependency": 0.9}',
        '{"class": "Essential", "text_sufficiency": 0.1, "image_dependency": 0.9, "x": 1}',
        '{"class": "Essential", "text_sufficiency": 0.1, "image_dependency": 0.9, "reason": 3}',
    ],
)
def test_replies_outside_the_format_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_dependency_reply(text)


def test_fenced_replies_and_any_letter_case_are_read() -> None:
    parsed = parse_dependency_reply(
        '```json\n{"class": "partial", "text_sufficiency": 0.55, "image_dependency": 0.4}\n```'
    )
    assert parsed.label == "Partial" and parsed.scores["text_sufficiency"] == 0.55


# -- reading questions ------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["mmmu", "mmmu-parquet", "mmlongbench-doc"])
def test_question_ids_are_the_loaders_sample_ids(dataset: str) -> None:
    samples = {s.id: s for s in open_source(FIXTURES / dataset) if isinstance(s, Sample)}
    questions = {q.id: q for q in iter_questions(FIXTURES / dataset)}
    assert samples and set(samples) <= set(questions)
    for sample_id, sample in samples.items():
        assert questions[sample_id].question == sample.question
        assert questions[sample_id].axis == sample.axis


def test_question_only_files_keep_every_record(tmp_path: Path) -> None:
    records = [
        {
            "doc_id": "missing.pdf",
            "doc_type": "Report",
            "question": "How many charts are in the report?",
            "answer": "3",
            "evidence_pages": "[]",
            "evidence_sources": "[]",
            "answer_format": "Int",
        },
        {
            "doc_id": "missing.pdf",
            "doc_type": "Report",
            "question": "Who signed the 2031 annex?",
            "answer": "Not answerable",
            "evidence_pages": "[]",
            "evidence_sources": "[]",
            "answer_format": "None",
        },
    ]
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    assert all(not isinstance(item, Sample) for item in open_source(path))
    found = list(iter_questions(path))
    assert [q.axis for q in found] == [EVIDENCE, EVIDENCE]
    assert [q.answerable for q in found] == [True, False]
    assert found[0].question == "How many charts are in the report?"
    assert found[0].n_images == 0


def test_mmmu_questions_without_images_count_their_placeholders(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "pro.jsonl",
        [
            {
                "id": "test_Art_1",
                "question": "Compare <image 1> and <image 2>.",
                "options": "['<image 3>', 'Both']",
                "answer": "A",
                "img_type": "['Paintings']",
            },
            {"id": "test_Art_2", "options": "['x']", "answer": "A"},
            "{not json",
        ],
    )
    found = list(iter_questions(path))
    assert [q.id for q in found[:2]] == ["test_Art_1", "test_Art_2"]
    first = found[0]
    assert first.axis == MODALITY and first.n_images == 3
    assert first.options == ("<image 3>", "Both") and first.images == ()
    assert found[1].error == "the record has no question"
    assert found[2].error and "malformed JSON" in found[2].error


def test_the_distribution_counts_every_class_of_each_axis() -> None:
    distribution = Distribution()
    for dataset in ("mmmu", "mmlongbench-doc"):
        for item in classify_source(FIXTURES / dataset):
            distribution.add(item)
    data = distribution.to_json()
    modality, evidence = data["axes"][MODALITY], data["axes"][EVIDENCE]
    assert list(modality["counts"]) == list(DEPENDENCY_CLASSES)
    assert list(evidence["counts"]) == list(EVIDENCE_TYPES)
    assert modality["total"] == 8 and evidence["total"] == 13
    assert evidence["unanswerable_in_source"] == 1
    assert sum(evidence["shares"].values()) == pytest.approx(1.0, abs=1e-3)
    assert modality["modes"] == {"heuristic": 8} and evidence["modes"] == {"rules": 13}


# -- the classify command ---------------------------------------------------------------------


def _json_document(stdout: str) -> tuple[list[dict], dict]:
    document = json.loads(stdout)
    return document["items"], document["summary"]


def test_classify_json_prints_one_document_of_items_and_their_summary() -> None:
    done = run_cli("classify", "fixtures/mmmu", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # one JSON value, whatever its layout
    assert sorted(document) == ["items", "summary"]
    rows, distribution = document["items"], document["summary"]
    assert len(rows) == 8 and distribution["records"] == 8
    assert {row["class"] for row in rows} <= set(DEPENDENCY_CLASSES)
    assert all(row["dependency"]["mode"] == "heuristic" for row in rows)
    assert sum(distribution["axes"][MODALITY]["counts"].values()) == 8


def test_classify_table_shows_classes_and_the_mix() -> None:
    done = run_cli("classify", "fixtures/mmlongbench-doc", "--limit", "5")
    assert done.returncode == 0, done.stderr
    assert "5 records" in done.stdout
    assert "Counting" in done.stdout and "share" in done.stdout
    assert "how many" in done.stdout or "what was" in done.stdout


def test_classify_with_a_model_uses_it_and_caches_only_where_told(
    server: ModelServer, tmp_path: Path
) -> None:
    def answer(received: Received) -> object:
        return reply(verdict("Essential", 0.1, 0.8))

    server.responder = answer
    cache = tmp_path / "replies.sqlite"
    args = ("classify", "fixtures/mmmu", "--json", "--limit", "2")
    spec = f"openai:judge@{server.openai_url}"
    done = run_cli(*args, "--llm", spec, "--cache", str(cache))
    assert done.returncode == 0, done.stderr
    rows, distribution = _json_document(done.stdout)
    assert [row["mode"] for row in rows] == [f"llm:{spec}"] * 2
    assert distribution["axes"][MODALITY]["modes"] == {f"llm:{spec}": 2}
    assert cache.is_file() and len(server.requests) == 2
    assert all(len(r.images()) >= 1 for r in server.requests)
    again = run_cli(*args, "--llm", spec, "--cache", str(cache))
    assert again.returncode == 0 and len(server.requests) == 2


def test_classify_refuses_a_missing_source() -> None:
    done = run_cli("classify", "no/such/folder")
    assert done.returncode == 2 and "does not exist" in done.stderr


@pytest.mark.parametrize(
    ("file", "axis", "total", "unanswerable"),
    [
        ("mmlongbench-doc/all_questions.json", EVIDENCE, 1082, 223),
        ("mmmu/questions_mmmu_pro.jsonl", MODALITY, 1730, 0),
    ],
)
def test_classify_reads_the_real_question_only_files(
    file: str, axis: str, total: int, unanswerable: int
) -> None:
    if not (SHARED_DATA / file).is_file():
        pytest.skip(f"{SHARED_DATA / file} is absent (real question files)")
    done = run_cli("classify", str(SHARED_DATA / file), "--json")
    assert done.returncode == 0, done.stderr
    rows, distribution = _json_document(done.stdout)
    assert len(rows) == total and not any("error" in row for row in rows)
    summary = distribution["axes"][axis]
    assert summary["total"] == total and summary["unanswerable_in_source"] == unanswerable
    assert all(count > 0 for count in summary["counts"].values())


# -- agreement with hand-checked labels -------------------------------------------------------


@pytest.mark.parametrize("dataset", ["mmmu-pro", "mmlongbench-doc"])
def test_classifiers_agree_with_the_hand_checked_labels(dataset: str) -> None:
    items = [i for i in json.loads(HANDCHECK.read_text())["items"] if i["dataset"] == dataset]
    file = SHARED_DATA / items[0]["file"]
    if not file.is_file():
        pytest.skip(f"{file} is absent (real question files)")
    wanted = {item["id"]: item["label"] for item in items}
    predicted = {q.id: c.label for q, c in _classified(file) if q.id in wanted}
    assert set(predicted) == set(wanted)
    agree = sum(predicted[i] == label for i, label in wanted.items())
    print(f"{dataset}: {agree}/{len(wanted)} agree with the hand-checked labels")
    assert agree / len(wanted) >= AGREEMENT_FLOOR


def _classified(file: Path):
    for item in classify_source(file):
        yield item.record, item
