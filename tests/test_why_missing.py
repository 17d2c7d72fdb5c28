"""Why items are missing: the build summary and the card name the top not-applicable,
blind-check and QC rejection reasons with the counts the records hold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from abstain_build.pipeline.reasons import reason_kind

from .conftest import FIXTURES, read_jsonl, run_cli
from .model_server import ModelServer, Received, reply

pytestmark = pytest.mark.usefixtures("no_real_keys")


@pytest.fixture(scope="module")
def resumed_summary(
    fixture_builds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """The session's MMMU fixture build, re-run from the command line: every sample is
    done, so the command only prints the summary of what the folder holds."""
    build = tmp_path_factory.mktemp("why") / "mmmu"
    shutil.copytree(fixture_builds["mmmu"], build)
    done = run_cli(
        "transform", str(FIXTURES / "mmmu"), "--out", str(build), "--seed", "3",
        "--min-validity", "0", "--progress-every", "0",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "(resumed after 8)" in done.stderr
    return build, done.stderr


def _attempts(build: Path, transform: str, starts: str) -> int:
    """Samples whose routing attempts say ``transform`` could not act for this reason."""
    return sum(
        1
        for record in read_jsonl(build / "data.jsonl")
        if record["routing"]
        for attempt in record["routing"]["attempts"]
        if attempt["transform"] == transform and attempt["reason"].startswith(starts)
    )


def test_summary_lists_the_not_applicable_reasons_with_the_counts_in_the_records(
    resumed_summary: tuple[Path, str],
) -> None:
    build, stderr = resumed_summary
    crops = _attempts(build, "aggressive_crop", "image 1: no edge's 50% cut takes all")
    darkened = _attempts(build, "adaptive_darkness", "image 1 prints answer-bearing text (")
    assert crops >= 2 and darkened >= 1  # several samples, each naming its own words
    lines = stderr.splitlines()
    heading = lines.index("  not applicable, top reasons:")
    crop = (
        f"    {crops} aggressive_crop: image N: no edge's N% cut takes all the answer-bearing text"
    )
    dark = (
        f"    {darkened} adaptive_darkness: image N prints answer-bearing text, which a contrast"
        " stretch makes legible again after darkening"
    )
    assert crop in lines and dark in lines
    listed = lines[heading + 1 : heading + 6]
    counts = [int(line.split()[0]) for line in listed if line.startswith("    ")]
    assert counts == sorted(counts, reverse=True)  # most frequent first


def test_summary_and_card_list_the_blind_checks_grounds(
    resumed_summary: tuple[Path, str],
) -> None:
    build, stderr = resumed_summary
    givens = [
        record["id"]
        for record in read_jsonl(build / "data.jsonl")
        if record["kind"] == "original"
        and record["blind"]["verdict"] == "knowledge"
        and record["blind"]["evidence"][0].startswith("givens: states 5 quantities with units (")
    ]
    assert givens == ["fixture_physics_incline/original"]
    lines = stderr.splitlines()
    at = lines.index("  answerable without the evidence (blind check), top reasons:")
    assert lines[at + 1] == "    1 givens: states N quantities with units and no data elsewhere"
    card = (build / "README.md").read_text(encoding="utf-8")
    assert "## Why items are missing" in card
    assert "| 1 | givens: states N quantities with units and no data elsewhere |" in card
    crops = _attempts(build, "aggressive_crop", "image 1: no edge's 50% cut takes all")
    assert (
        f"| {crops} | aggressive_crop: image N: no edge's N% cut takes all the answer-bearing"
        " text |" in card
    )


def test_summary_lists_qc_rejections_with_the_judges_reasons(
    server: ModelServer, tmp_path: Path
) -> None:
    """Both judges find the first item answerable: it is rejected, the sample goes on to
    its next transform, and the summary says who rejected what and why."""
    calls: dict[str, int] = {}

    def judge(received: Received) -> object:
        model = received.body["model"]
        calls[model] = calls.get(model, 0) + 1
        verdict = "ANSWERABLE" if calls[model] == 1 else "UNANSWERABLE"
        justification = "the legend still names the gold" if verdict == "ANSWERABLE" else "gone"
        return reply(
            json.dumps(
                {
                    "answer": "none",
                    "verdict": verdict,
                    "confidence": "HIGH",
                    "justification": justification,
                }
            )
        )

    server.responder = judge
    out = tmp_path / "out"
    done = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(out), "--limit", "1", "--qc", "judges",
        "--judge", f"openai:judge-a@{server.openai_url}",
        "--judge", f"openai:judge-b@{server.openai_url}",
        "--progress-every", "0",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    (rejected,) = record["qc"]["rejected"]
    lines = done.stderr.splitlines()
    at = lines.index("  rejected by QC, top reasons:")
    assert sorted(lines[at + 1 : at + 3]) == [
        f"    1 {rejected['transform']}: model:openai:{name}@{server.openai_url}:"
        " the legend still names the gold"
        for name in ("judge-a", "judge-b")
    ]


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        (
            "no table with adjacent value columns on the evidence pages (page 4: 1 tables;"
            " the answer is not printed as a number on this page)",
            "no table with adjacent value columns on the evidence pages",
        ),
        (
            "re-read gate: the answer is still stated: page 4 (text_layer): '2018';"
            " page 4 (ocr): '2018'",
            "re-read gate: the answer is still stated",
        ),
        (
            "no rewrite passed the gates in 3 attempts: length: rewrite too long: 96 chars",
            "no rewrite passed the gates in N attempts",
        ),
        (
            "the answer 'YouTube' is no value: it cannot be made wrong as a number",
            "the answer … is no value: it cannot be made wrong as a number",
        ),
        (
            "model:openai:gpt-4o@http://127.0.0.1:8080/v1 answered right without the evidence",
            "model:openai:gpt-4o@http://127.0.0.1:8080/v1 answered right without the evidence",
        ),
    ],
    ids=["aside", "clauses", "numbers", "quotes", "address"],
)
def test_a_reason_loses_its_samples_details_and_keeps_its_rule(reason: str, kind: str) -> None:
    assert reason_kind(reason) == kind
