"""The blind check: questions answerable without their evidence get no evidence edit.

The offline cues are tried on a small labelled set (each cue, both verdicts); the model
path runs against the local OpenAI-compatible server (scripted right and wrong blind
answers, the routing consequence, the cache shared by routing and building).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from abstain_build.blind import BlindGate, blind_cues
from abstain_build.blind.cues import absence, nearest_option, quotes_answer
from abstain_build.blind.model_blind import build_blind_request
from abstain_build.model import DocumentRef, Sample, SourceInfo
from abstain_build.validity.ledger import Reading

from .conftest import FIXTURES, read_jsonl, run_cli, write_jsonl
from .model_server import ModelServer, Received, reply

INFO = SourceInfo("test", "test", "test.jsonl", 0)


def question(text: str, options: tuple[str, ...], answer: str = "A") -> Sample:
    return Sample(id="q", source=INFO, question=text, answer=answer, options=options)


PANCREAS = question(
    "<image 1> Which part of the body secretes pancreatic juice?",
    ("rectum", "pancreas", "stomach", "liver"),
    "B",
)
#: Labelled by reading them blind: (sample, the cue that must fire).
KNOWLEDGE = [
    (
        question(
            "<image 1> What is defined as a part that buds to form a series of segments, as"
            " the main body of a tapeworm?",
            ("zygotes", "ephyra", "strobila", "planula"),
            "C",
        ),
        "definition",
    ),
    (
        question(
            "A 32-year-old woman gives birth at term to a girl. The infant has not passed"
            " stool in three days and has abdominal distension. Later in childhood she has"
            " malabsorption and recurrent Pseudomonas pneumonia. Which inherited disorder"
            " is most likely? <image 1>",
            ("Down syndrome", "Cystic fibrosis", "Turner syndrome", "Marfan syndrome"),
            "B",
        ),
        "vignette",
    ),
    (
        question(
            "A piston-cylinder device initially contains 0.4 kg of nitrogen gas at 160 kPa"
            " and 140°C. The nitrogen is expanded isothermally to 100 kPa. Determine the"
            " boundary work. <image 1>",
            ("26.0 kJ", "23.0 kJ", "19.0 kJ", "21.0 kJ"),
            "B",
        ),
        "givens",
    ),
    (PANCREAS, "self_contained"),
]
#: Questions that need their image: no cue may fire.
EVIDENCE = [
    question("<image 1> What is the unemployment rate at point B?", ("5", "0", "2", "6")),
    question(
        "In the Section of left leg, identify the 170 structure. <image 1>",
        ("Soleus", "Gastrocnemius", "Plantaris", "Popliteus"),
    ),
    question(
        "<image 1> What indifference curve represents the greatest level of utility?",
        ("Indifference curve 1", "Indifference curve 2", "Indifference curve 3"),
    ),
    question(
        "<image 1> sees education as serving the needs of _________.",
        ("Society", "Families", "The individual", "All of the above"),
        "D",
    ),
    question("Which carbocation is the most stable?", ("<image 2>", "<image 3>", "<image 4>")),
    question(
        "The wires each have a diameter of 1/2 in., length of 2 ft, and P=6 kip. Determine the"
        " angle of tilt of the rigid beam AB. <image 1>",
        ("0.0239°", "0.0193°", "0.0131°"),
    ),
    # Seen on unseen MMMU-Pro questions: a form's field, a task on the picture, options
    # about the pictured case, a trailing "the following".
    question("What is the Date of Event? <image 1>", ("5/22", "5/18", "5/14")),
    question("<image 1> Circle the correct key of the melody.", ("first key", "second key")),
    question("Choose one clef to form minor scale. <image 1>", ("first clef", "third clef")),
    question(
        "Which statement is false? <image 1>",
        ("The lesion is remote", "This is very unlikely to be venous", "Macrophages help"),
    ),
    question(
        "Who was the mentor of the person who designed the following?<image 1>",
        ("Walter Gropius", "Paul Klee", "Josef Albers"),
        "C",
    ),
    question(
        "The functional group given below is characteristic of organic _____. <image 1>",
        ("amines", "alcohols", "ketones"),
    ),
]


@pytest.mark.parametrize(("sample", "cue"), KNOWLEDGE, ids=[c for _, c in KNOWLEDGE])
def test_each_cue_flags_a_question_answerable_without_its_image(sample: Sample, cue: str) -> None:
    found = blind_cues(sample)
    assert any(f.startswith(f"{cue}:") for f in found), found
    verdict = BlindGate().check(sample)
    assert verdict.knowledge and verdict.method == "heuristic" and verdict.evidence == found


@pytest.mark.parametrize("sample", EVIDENCE, ids=lambda s: s.question[:40])
def test_questions_that_point_into_their_image_are_not_flagged(sample: Sample) -> None:
    assert blind_cues(sample) == []
    assert BlindGate().check(sample).verdict == "evidence"


def test_the_gold_nearest_the_question_in_meaning_is_a_cue_only_by_a_margin() -> None:
    assert "margin" in (nearest_option(PANCREAS) or "")
    # The same question with the gold moved to a distractor: no margin for "rectum".
    assert nearest_option(question(PANCREAS.question, PANCREAS.options, "A")) is None


def document_question(text: str, answer: str) -> Sample:
    document = DocumentRef(path=FIXTURES / "x.pdf", doc_id="x")
    return Sample(
        id="d", source=INFO, question=text, answer=answer, document=document, evidence_pages=(1,)
    )


def test_a_no_to_whether_something_is_there_needs_no_evidence() -> None:
    """Hiding the last page left it blank, and a reader answered "not signed": the gold.
    A "no" to whether something is there is what any page without the evidence says;
    a "no" to another question, or a "yes", is not."""
    signed = document_question(
        "Is there a signature present on the last page? Directly answer 'yes' or 'no'.", "no"
    )
    applies = document_question("Does llama-1 apply qknorm? Directly answer 'yes' or 'no'", "No")
    dominates = document_question(
        "Does the information flow from label words to the target position dominate in all"
        " layers? Answer 'yes' or 'no' directly.",
        "no",
    )
    present = document_question("Is there a signature present on the last page?", "yes")
    assert absence(signed) and absence(applies)
    assert absence(dominates) is None and absence(present) is None
    verdict = BlindGate().check(signed)
    assert verdict.knowledge and verdict.rules_out_evidence_edits
    assert not BlindGate().check(present).knowledge


def test_a_document_question_that_prints_its_own_answer() -> None:
    quoting = document_question(
        "Which company, Northfield Research, ran the survey described in the report?",
        "Northfield Research",
    )
    assert "Northfield Research" in (quotes_answer(quoting) or "")
    choice = document_question(
        "Was the survey run by Northfield Research or by Pew?", "Northfield Research"
    )
    assert quotes_answer(choice) is None
    assert BlindGate().check(quoting).knowledge and not BlindGate().check(choice).knowledge
    # What a document question asks by name is the document's, not a definition.
    governor = document_question(
        "What is the name of the governor as mentioned on the first page?", "Rick Scott"
    )
    assert blind_cues(governor) == []


def test_the_record_policy_decides_nothing() -> None:
    gate = BlindGate("record")
    assert gate.check(PANCREAS).knowledge and not gate.decides


# -- builds ------------------------------------------------------------------------------------


def blind_dataset(root: Path) -> Path:
    """Two chart items: one answerable from knowledge, one only from its chart."""
    (root / "images").mkdir(parents=True)
    chart = FIXTURES / "mmmu" / "images" / "fixture_chart_bar_1.png"
    shutil.copy(chart, root / "images" / "organ_1.png")
    shutil.copy(chart, root / "images" / "chart_1.png")
    write_jsonl(
        root / "samples.jsonl",
        [
            {
                "question": PANCREAS.question,
                "options": list(PANCREAS.options),
                "answer": "B",
                "image_1": "images/organ_1.png",
            },
            {
                "question": "<image 1> The chart shows quarterly revenue for three sales"
                " regions. Which region's revenue grew the most from Q1 to Q4?",
                "options": ["West", "North", "South", "All three regions grew equally"],
                "answer": "A",
                "image_1": "images/chart_1.png",
            },
        ],
    )
    return root


NAMES = "aggressive_multi_mask,blur_edge_mask,missing_context,contradictory_premise"


def build(source: Path, out: Path, *extra: str, env: dict[str, str] | None = None):
    done = run_cli("transform", str(source), "-o", str(out), "-t", NAMES, *extra, env=env)
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out / "data.jsonl")
    manifest = json.loads((out / "manifest.json").read_text())
    return rows, manifest


@pytest.mark.slow
def test_a_knowledge_question_gets_no_evidence_edit_and_the_count_says_why(
    tmp_path: Path,
) -> None:
    source = blind_dataset(tmp_path / "src")
    rows, manifest = build(source, tmp_path / "routed")
    by_group = {}
    for row in rows:
        by_group.setdefault(row["group_id"], []).append(row)
        assert row["blind"]["method"] == "heuristic"
    organ, chart = by_group["organ"], by_group["chart"]
    assert all(r["blind"]["verdict"] == "knowledge" for r in organ)
    assert all(r["transform"] is None or r["transform"]["target"] == "question" for r in organ)
    assert any(r["transform"] and r["transform"]["target"] == "image" for r in chart)
    blind = manifest["counts"]["blind"]
    assert blind["checked"] == 2 and blind["knowledge"] == 1
    assert sum(blind["outcomes"].values()) == 1
    assert "Blind check" in (tmp_path / "routed" / "README.md").read_text()

    # Without routing, the image edits are not applicable to it, with the reason.
    rows, manifest = build(source, tmp_path / "all", "--no-routing")
    assert not [r for r in rows if r["group_id"] == "organ" and r["transform"]]
    reasons = manifest["counts"]["not_applicable"]["aggressive_multi_mask"]
    assert any("answerable without its evidence" in reason for reason in reasons)

    # "skip": not a source at all; "record": edited like any other.
    rows, manifest = build(source, tmp_path / "skip", "--blind-policy", "skip")
    assert {r["group_id"] for r in rows} == {"chart"}
    assert manifest["counts"]["blind"]["outcomes"] == {"skipped as a source": 1}
    # "record" is the policy test_scoring's hand-written cells and the real darkening use.


def blind_answerer(received: Received):
    """Knows the pancreas; cannot read a chart it is not shown."""
    text = received.texts()[-1]
    assert not received.images()
    return reply("B" if "pancreatic" in text else "UNKNOWN")


@pytest.mark.slow
def test_the_model_path_grades_blind_answers_and_caches_them(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    server.responder = blind_answerer
    source = blind_dataset(tmp_path / "src")
    out = tmp_path / "out"
    spec = f"openai:blind@{server.openai_url}"
    env = {"OPENAI_API_KEY": "sk-test"}
    rows, manifest = build(source, out, "--blind-gate", spec, "-j", "2", env=env)
    verdicts = {r["group_id"]: r["blind"] for r in rows}
    assert verdicts["organ"]["verdict"] == "knowledge"
    assert verdicts["organ"]["accuracy"] == 1.0 and verdicts["organ"]["agreement"] == 1.0
    assert verdicts["chart"]["verdict"] == "evidence" and verdicts["chart"]["accuracy"] == 0.0
    assert verdicts["organ"]["method"] == f"model:{spec}"
    assert manifest["counts"]["blind"]["by_method"] == {
        f"model:{spec}": {"knowledge": 1, "evidence": 1, "contested": 0}
    }
    # Three asks per sample, each its own cache entry: routing and building share them.
    assert len(server.requests) == 6
    assert not any(
        r["transform"] and r["transform"]["target"] == "image"
        for r in rows
        if r["group_id"] == "organ"
    )
    again = run_cli(
        "transform", str(source), "-o", str(out), "-t", NAMES, "--blind-gate", spec, env=env
    )
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == 6


def test_a_blind_request_is_text_only_and_each_ask_has_its_own_key() -> None:
    first, second = (build_blind_request(PANCREAS, k) for k in range(2))
    assert not first.images and "B. pancreas" in first.text and "UNKNOWN" in first.text
    assert first.purpose != second.purpose and first.text == second.text


@pytest.mark.slow
def test_a_failing_blind_model_falls_back_to_the_cues_and_says_so(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    from .model_server import error

    server.responder = lambda received: error(400, "bad request")
    source = blind_dataset(tmp_path / "src")
    rows, _ = build(
        source,
        tmp_path / "out",
        "--blind-gate",
        f"openai:blind@{server.openai_url}",
        env={"OPENAI_API_KEY": "sk-test"},
    )
    organ = next(r for r in rows if r["group_id"] == "organ")
    assert organ["blind"]["method"].startswith("heuristic (model:")
    assert "failed" in organ["blind"]["method"] and organ["blind"]["verdict"] == "knowledge"


@pytest.mark.slow
def test_a_document_question_a_model_answers_blind_gets_no_page_edit(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    # The model "knows" ACME's total revenue: that question gets no evidence edit.
    def answerer(received: Received):
        assert not received.images()
        return reply("11642.4" if "total revenue in FY2021" in received.texts()[-1] else "UNKNOWN")

    server.responder = answerer
    out = tmp_path / "out"
    done = run_cli(
        "transform", str(FIXTURES / "mmlongbench-doc"), "-o", str(out),
        "--blind-gate", f"openai:blind@{server.openai_url}", "--qc", "none", "--limit", "3",
        env={"OPENAI_API_KEY": "sk-test"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out / "data.jsonl")
    known = [r for r in rows if "total revenue in FY2021" in r["question"]]
    assert known and all(r["blind"]["verdict"] == "knowledge" for r in known)
    assert all(r["transform"] is None or r["transform"]["target"] == "question" for r in known)
    others = [r for r in rows if r["blind"]["verdict"] == "evidence" and r["transform"]]
    assert any(r["transform"]["target"] == "document" for r in others)


def test_option_similarities_are_cached_by_content(tmp_path: Path, monkeypatch) -> None:
    from abstain_build.blind import cues

    monkeypatch.setenv(cues.CACHE_ENV, str(tmp_path))
    texts = ["Which part of the body secretes pancreatic juice?", "rectum", "pancreas"]
    first = cues.option_similarities(texts)
    files = list((tmp_path / "option-similarity").rglob("*.json"))
    assert len(files) == 1 and first[1] > first[0]
    files[0].write_text("[0.5, 0.25]")  # a cached value is used as it is
    assert cues.option_similarities(texts) == [0.5, 0.25]
    files[0].write_text("not json")  # a broken entry is recomputed and rewritten
    assert cues.option_similarities(texts) == first


def test_a_document_question_names_its_document_to_the_blind_model(
    server: ModelServer, no_real_keys: None
) -> None:
    """A model under test knows which document it reads; a model that remembers the
    answer from that alone makes the sample knowledge-recoverable."""
    from abstain_build.blind.model_blind import ask_blind
    from abstain_build.models import ModelClient

    pdf = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"
    sample = Sample(
        id="acme-revenue",
        source=SourceInfo("mmlongbench", "t", "samples.json", 0),
        question="What was ACME's total revenue in FY2021? Answer in millions.",
        answer="11642.4",
        answer_format="Float",
        document=DocumentRef(path=pdf, doc_id="ACME_2021_10K.pdf"),
        evidence_pages=(4,),
    )
    request = build_blind_request(sample, 0)
    assert "'ACME_2021_10K.pdf'" in request.text and "first page begins" in request.text
    assert "11,642.4" not in request.text and not request.images  # its name, not its pages

    def remembers(received: Received):
        text = received.texts()[-1]
        return reply("11642.4" if "ACME_2021_10K.pdf" in text else "UNKNOWN")

    server.responder = remembers
    client = ModelClient(f"openai:blind@{server.openai_url}")
    try:
        verdict = ask_blind(client, sample)
    finally:
        client.close()
    assert verdict.verdict == "knowledge" and verdict.accuracy == 1.0


def recall(
    source: str, reader: str, verdict: str, basis: str, note: str = "", document: str = ""
) -> Reading:
    return Reading(
        item="0123456789abcdef",
        source=source,
        document=document,
        dataset="mine",
        transform="aggressive_multi_mask",
        version=1,
        mode="rule",
        kind="Essential",
        answer_format="multiple-choice",
        reader=reader,
        answer="A",
        confidence="high" if verdict == "answerable" else "low",
        verdict=verdict,
        note=note,
        date="2026-11-27",
        basis=basis,
    )


def test_questions_readers_answered_from_recall_are_counted_by_reader() -> None:
    from abstain_build.validity.ledger import GOLD_AT_LOW_CONFIDENCE
    from abstain_build.validity.recall import recalled_sources

    low = GOLD_AT_LOW_CONFIDENCE + "; damage: blurred"
    readings = [
        recall("governor", "a-r01", "answerable", "knowledge"),
        recall("governor", "b-r02", "doubtful", "memory", low),  # the gold, low confidence
        recall("once", "a-r01", "answerable", "memory"),
        recall("once", "a-r01", "answerable", "memory"),  # the same reader twice
        recall("read", "a-r01", "answerable", "shipped"),  # read off the page: no recall
        recall("read", "b-r02", "answerable", "shipped"),
        recall("other", "a-r01", "doubtful", "memory", "settled on another answer (high)"),
        recall("other", "b-r02", "doubtful", "memory", "settled on another answer (high)"),
    ]
    assert recalled_sources(readings) == {"governor": 2}


def test_every_question_on_a_document_a_reader_remembered_is_knowledge_recoverable() -> None:
    """Two readers who gave a table's value from memory of an arXiv paper know its other
    tables too: every question on that document is knowledge-recoverable (method
    "readings"), whichever question was read. One reader's recollection is not enough;
    general knowledge is the question's own and flags no document; nor does a value read
    off the page or a wrong recollection."""
    from abstain_build.validity.recall import recalled_documents

    other = "settled on another answer (high)"
    readings = [
        recall("paper-q1", "a-r01", "answerable", "memory", document="paper.pdf"),
        recall("paper-q2", "b-r02", "answerable", "memory", document="paper.pdf"),
        recall("once-q1", "a-r01", "answerable", "memory", document="once.pdf"),
        recall("once-q2", "a-r01", "answerable", "memory", document="once.pdf"),  # same reader
        recall("facts-q1", "a-r01", "answerable", "knowledge", document="facts.pdf"),
        recall("facts-q2", "b-r02", "answerable", "knowledge", document="facts.pdf"),
        recall("report-q1", "b-r02", "answerable", "shipped", document="report.pdf"),
        recall("wrong-q1", "b-r02", "doubtful", "memory", other, document="wrong.pdf"),
        recall("images-q1", "b-r02", "answerable", "memory"),  # no document: an image item
    ]
    documents = recalled_documents(readings)
    assert documents == {"paper.pdf": 2}

    def on(doc_id: str, sample_id: str) -> Sample:
        source = SourceInfo("mmlongbench-doc", "mmlongbench", "samples.json", 0)
        document = DocumentRef(Path("/nowhere") / doc_id, doc_id)
        return Sample(sample_id, source, "What was the F1 on HOVER?", "54.2", document=document)

    gate = BlindGate(documents=documents)
    verdict = gate.check(on("docs/paper.pdf", "paper-q9"))  # a question nobody read
    assert (verdict.method, verdict.verdict) == ("readings", "knowledge")
    assert "remember the document 'paper.pdf'" in verdict.evidence[0]
    for doc_id in ("once.pdf", "report.pdf", "facts.pdf", "wrong.pdf"):
        assert gate.check(on(doc_id, f"{doc_id}-q9")).method != "readings"


def test_questions_readers_answer_otherwise_are_contested_by_share() -> None:
    """Readers who settle, from the item, on another answer than the gold contest the
    question when two or more do and they are a fifth of its readings or more: readings of
    rounds that did not ask what an answer rests on, and carried copies, do not count."""
    from abstain_build.validity.recall import contested_sources

    other = "settled on another answer (high)"
    readings = [
        recall("gap", "a-r01", "doubtful", "shipped", other),
        recall("gap", "b-r02", "doubtful", "shipped", other),
        recall("gap", "b-r03", "unanswerable", ""),
        *[recall("gap", "old-r01", "unanswerable", "") for _ in range(20)],  # basis not asked
        recall("rare", "a-r01", "doubtful", "shipped", other),
        recall("rare", "b-r02", "doubtful", "shipped", other),
        *[recall("rare", f"b-r{n:02d}", "unanswerable", "") for n in range(3, 12)],
        recall("alone", "a-r01", "doubtful", "shipped", other),
        recall("alone", "a-r01", "doubtful", "shipped", other),  # the same reader twice
        recall("gold", "a-r01", "answerable", "shipped"),  # read the gold: not contested
        recall("gold", "b-r02", "answerable", "shipped"),
    ]
    carried = [r.model_copy(update={"carried_from": 1}) for r in readings[:2]]
    assert contested_sources(readings + carried) == {"gap": 2}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("verdict", "basis", "note", "expected"),
    [
        ("answerable", "memory", "", "knowledge"),
        ("doubtful", "shipped", "settled on another answer (high)", "contested"),
    ],
)
def test_a_question_readers_recalled_or_contested_gets_no_evidence_edit(
    tmp_path: Path, verdict: str, basis: str, note: str, expected: str
) -> None:
    """Readers named a governor from the plan's date under every edit of its cover, or
    settled on another answer than the gold: the ledger's readings rule evidence edits
    out (method "readings"), and the card says how many sources that took."""
    source = blind_dataset(tmp_path / "src")
    ledger = tmp_path / "mine.jsonl"
    readings = [recall("chart", r, verdict, basis, note) for r in ("a-r01", "b-r02")]
    ledger.write_text("".join(r.model_dump_json() + "\n" for r in readings))
    rows, manifest = build(source, tmp_path / "out", "--ledger", str(ledger))
    chart = [r for r in rows if r["group_id"] == "chart"]
    assert chart and all(r["blind"]["method"] == "readings" for r in chart)
    assert all(r["blind"]["verdict"] == expected for r in chart)
    assert "2 blind readers" in chart[0]["blind"]["evidence"][0]
    assert not [r for r in chart if r["transform"] and r["transform"]["target"] == "image"]
    blind = manifest["counts"]["blind"]
    # The pancreas question is knowledge-recoverable by its cue, whatever the readings say.
    assert (blind["knowledge"], blind["contested"]) == (
        (2, 0) if expected == "knowledge" else (1, 1)
    )
    card = (tmp_path / "out" / "README.md").read_text()
    assert ("Contested sources: 1;" in card) == (expected == "contested")


@pytest.mark.slow
def test_a_build_gives_no_evidence_edit_on_a_document_a_reader_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two readers gave a survey report's figures from memory: the build's other questions
    on that report get no evidence edit, and those on the 10-K beside it still do. The
    package's own readings are left out, so the two readings are what decides."""
    from abstain_build import BuildConfig, build
    from abstain_build.validity import ledger as ledger_module

    monkeypatch.setattr(ledger_module, "PACKAGE_LEDGER", tmp_path / "none.jsonl")
    ledger = tmp_path / "mine.jsonl"
    ledger.write_text("")

    def counterparts(out: str) -> dict[str, list[dict]]:
        config = BuildConfig(
            source=str(FIXTURES / "mmlongbench-doc"),
            out=str(tmp_path / out),
            qc="none",
            routing="none",
            transforms=["hide_evidence_page"],
            ledgers=[str(ledger)],
        )
        build(config)
        rows = read_jsonl(tmp_path / out / "data.jsonl")
        return {
            name: [r for r in rows if r["group_id"].startswith(name)]
            for name in ("survey_report_2019", "ACME_2021_10K")
        }

    before = counterparts("before")
    assert [r for r in before["survey_report_2019"] if r["kind"] == "counterpart"]
    readings = [
        recall("elsewhere", reader, "answerable", "memory", document="survey_report_2019.pdf")
        for reader in ("a-r01", "b-r02")
    ]
    ledger.write_text("".join(r.model_dump_json() + "\n" for r in readings))
    after = counterparts("after")
    survey, acme = after["survey_report_2019"], after["ACME_2021_10K"]
    assert survey and all(r["blind"]["method"] == "readings" for r in survey)
    assert "remember the document 'survey_report_2019.pdf'" in survey[0]["blind"]["evidence"][0]
    assert not [r for r in survey if r["kind"] == "counterpart"]
    assert all(r["blind"]["method"] != "readings" for r in acme)
    assert [r for r in acme if r["kind"] == "counterpart"]


def test_a_build_is_not_resumed_with_other_recalled_questions(tmp_path: Path) -> None:
    """A killed build resumed after new readings flag one of its questions would mix two
    blind checks: refused, as other validity figures are, with or without QC."""
    from abstain_build import BuildConfig, build
    from abstain_build.errors import ConfigError

    source = blind_dataset(tmp_path / "src")
    ledger = tmp_path / "mine.jsonl"
    ledger.write_text("")
    config = BuildConfig(
        source=str(source), out=str(tmp_path / "out"), qc="none", ledgers=[str(ledger)], limit=1
    )
    build(config)
    readings = [recall("chart", r, "answerable", "memory") for r in ("a-r01", "b-r02")]
    ledger.write_text("".join(r.model_dump_json() + "\n" for r in readings))
    with pytest.raises(ConfigError, match="blind_readings_sha256"):
        build(config)
