"""Human review: the queue, votes, the majority, Fleiss' kappa, the server and the page."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from abstain_build.review import (
    AnnotatorError,
    ReviewError,
    append_vote,
    build_queue,
    check_annotator,
    decide,
    finalize,
    fleiss_kappa,
    latest_votes,
    open_queue,
    safe_asset,
    start_server,
)
from abstain_build.review.auth import annotator_token, item_key, review_secret
from abstain_build.review.queue import flagged_outside, qc_status
from abstain_build.review.server import ReviewServer, ReviewSession

from .conftest import ROOT, read_jsonl, run_cli

U, A, S = "UNANSWERABLE", "ANSWERABLE", "SKIP"
KEY = b"a review secret for tests"
DISAGREEING_JUDGES = [
    {
        "judge": "judge-a",
        "verdict": U,
        "confidence": "high",
        "justification": "the figure is masked",
        "kind": "model",
        "score": 0.9,
    },
    {
        "judge": "judge-b",
        "verdict": A,
        "confidence": "low",
        "justification": "the legend is still readable",
        "kind": "model",
        "score": 0.4,
    },
]

# --- datasets -----------------------------------------------------------------------------


@pytest.fixture
def built(fixture_builds: dict[str, Path]) -> dict[str, Path]:
    """The two shipped fixtures, built once for the session (tests work on copies)."""
    return fixture_builds


def copy_of(built: dict[str, Path], name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(built[name], target)
    return target


def unanswerable_ids(root: Path) -> list[str]:
    return [r["id"] for r in read_jsonl(root / "data.jsonl") if not r["answerable"]]


def set_statuses(root: Path, statuses: dict[str, str]) -> None:
    """What QC would have written: a status per item, disagreeing judges on flagged ones."""
    path = root / "data.jsonl"
    records = read_jsonl(path)
    for record in records:
        status = statuses.get(record["id"])
        if status is None:
            continue
        record["qc"]["status"] = status
        if status == "flagged":
            record["qc"]["judges"] = DISAGREEING_JUDGES
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def flag_some(root: Path, flagged: int, others: tuple[str, ...] = ("accepted", "rejected")):
    """The first ``flagged`` unanswerable items flagged, the rest cycling through ``others``."""
    ids = unanswerable_ids(root)
    statuses = {i: "flagged" for i in ids[:flagged]}
    statuses.update({i: others[n % len(others)] for n, i in enumerate(ids[flagged:])})
    set_statuses(root, statuses)
    return statuses


# --- Fleiss' kappa --------------------------------------------------------------------------

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_matches_the_published_worked_example() -> None:
    result = fleiss_kappa(WIKIPEDIA_TABLE)
    assert round(result.kappa, 3) == 0.210
    assert round(result.observed, 3) == 0.378
    assert round(result.expected, 3) == 0.213
    assert [round(p, 3) for p in result.shares] == [0.143, 0.200, 0.279, 0.150, 0.229]
    assert (result.items, result.ratings) == (10, 140)


def test_fleiss_kappa_extremes_and_undefined_cases() -> None:
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]).kappa == 1.0
    assert fleiss_kappa([[1, 1], [1, 1]]).kappa == -1.0
    assert fleiss_kappa([[3, 0], [3, 0]]).kappa is None  # one category only: chance is 1
    empty = fleiss_kappa([[1, 0], [0, 1], [0, 0]])  # nobody rated an item twice
    assert empty.kappa is None and empty.items == 0


def test_fleiss_kappa_with_varying_rater_counts() -> None:
    # Per item agreement 1, 1, 0 (P-bar 2/3); shares 3/7 and 4/7 (P-e 25/49):
    # kappa = (2/3 - 25/49) / (1 - 25/49) = 23/72. The single-rating row is left out.
    result = fleiss_kappa([[2, 0], [0, 3], [1, 1], [1, 0]])
    assert result.items == 3 and result.ratings == 7
    assert result.kappa == pytest.approx(23 / 72)


def test_fleiss_kappa_rejects_ragged_or_negative_rows() -> None:
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 2], [1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[3, -1]])


# --- the queue ----------------------------------------------------------------------------


def synthetic_records(families: dict[str, int], flagged: int = 0) -> list[dict[str, Any]]:
    records = []
    for family, count in families.items():
        for n in range(count):
            gid = f"{family}-{n:02d}"
            records.append({"id": f"{gid}/original", "answerable": True, "transform": None,
                            "qc": {"status": "control"}})  # fmt: skip
            records.append({"id": f"{gid}/t", "answerable": False, "transform": {"family": family},
                            "qc": {"status": "accepted"}})  # fmt: skip
    for record in [r for r in records if not r["answerable"]][:flagged]:
        record["qc"]["status"] = "flagged"
    return records


def test_audit_is_spread_evenly_over_families() -> None:
    records = synthetic_records({"a": 10, "b": 10, "c": 2, "d": 5})
    queue = build_queue(records, audit=14, seed=1, secret=KEY)
    counts = Counter(item.family for item in queue.items)
    assert sum(counts.values()) == 14
    assert counts["c"] == 2  # a small family gives all it has ...
    others = [counts[f] for f in ("a", "b", "d")]
    assert max(others) - min(others) <= 1  # ... and the rest is shared evenly
    assert all(item.reason == "audit" for item in queue.items)
    assert all(item.id.endswith("/t") for item in queue.items)  # never a control


def test_audit_larger_than_the_pool_takes_everything() -> None:
    records = synthetic_records({"a": 3, "b": 1})
    queue = build_queue(records, audit=50, seed=0, secret=KEY)
    assert sorted(item.id for item in queue.items) == sorted(
        r["id"] for r in records if not r["answerable"]
    )


def test_queue_is_seeded_and_holds_every_flagged_item_once() -> None:
    records = synthetic_records({"a": 6, "b": 6, "c": 6}, flagged=4)
    first = build_queue(records, audit=6, seed=5, secret=KEY)
    again = build_queue(records, audit=6, seed=5, secret=KEY)
    other = build_queue(records, audit=6, seed=6, secret=KEY)
    assert [i.id for i in first.items] == [i.id for i in again.items]
    assert [i.id for i in first.items] != [i.id for i in other.items]
    flagged = [i.id for i in first.items if i.reason == "flagged"]
    assert len(flagged) == len(set(flagged)) == 4
    audited = [i for i in first.items if i.reason == "audit"]
    assert len(audited) == 6 and not set(flagged) & {i.id for i in audited}
    assert Counter(i.family for i in audited) == {"a": 2, "b": 2, "c": 2}


def test_queue_does_not_depend_on_hash_randomisation(tmp_path: Path) -> None:
    records = synthetic_records({"x": 5, "y": 4, "z": 3}, flagged=2)
    source = tmp_path / "records.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    script = (
        "import json, sys; from abstain_build.review import build_queue;"
        f"q = build_queue(json.load(open({str(source)!r})), audit=5, seed=9, secret=b'k');"
        "print(json.dumps([i.id for i in q.items]))"
    )
    outputs = set()
    for hash_seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONHASHSEED=hash_seed),
            cwd=ROOT,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_queue_file_is_fixed_once_created(built: dict[str, Path], tmp_path: Path) -> None:
    root = copy_of(built, "mmlongbench-doc", tmp_path)
    flag_some(root, 2)
    created = open_queue(root, audit=4, seed=2)
    ids = [item.id for item in created.items]
    assert len(ids) == 6
    # QC flags more items later: the queue does not change, but the count says so.
    set_statuses(root, dict.fromkeys(unanswerable_ids(root), "flagged"))
    reopened = open_queue(root)
    assert [item.id for item in reopened.items] == ids
    assert flagged_outside(reopened, read_jsonl(root / "data.jsonl")) == len(
        unanswerable_ids(root)
    ) - len(ids)
    with pytest.raises(ReviewError, match="--audit 4"):
        open_queue(root, audit=5)
    with pytest.raises(ReviewError, match="--seed 2"):
        open_queue(root, seed=3)
    stored = json.loads((root / "review" / "queue.json").read_text())
    assert [row["id"] for row in stored["items"]] == ids
    assert stored["audit"]["requested"] == 4 and stored["flagged"] == 2


def test_an_empty_queue_is_not_fixed(built: dict[str, Path], tmp_path: Path) -> None:
    root = copy_of(built, "mmmu", tmp_path)
    set_statuses(root, dict.fromkeys(unanswerable_ids(root), "accepted"))
    assert open_queue(root).items == []
    assert not (root / "review" / "queue.json").exists()


# --- votes --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["alice", "Bob_2", "r.smith", "a-b", "x" * 64])
def test_filename_safe_annotator_names_are_accepted(name: str) -> None:
    assert check_annotator(name) == name


@pytest.mark.parametrize(
    "name", ["", "../etc", "a/b", "a\\b", ".hidden", "a b", "x" * 65, "a..b", "é", None]
)
def test_other_annotator_names_are_refused(name: Any) -> None:
    with pytest.raises(AnnotatorError):
        check_annotator(name)


def test_latest_vote_wins_and_null_retracts(tmp_path: Path) -> None:
    append_vote(tmp_path, "ann", "g1/t", A)
    append_vote(tmp_path, "ann", "g2/t", U)
    append_vote(tmp_path, "ann", "g1/t", U)  # changed
    append_vote(tmp_path, "ann", "g3/t", S)
    append_vote(tmp_path, "ann", "g2/t", None)  # undone
    assert latest_votes(tmp_path, "ann") == {"g1/t": U, "g3/t": S}
    assert list(latest_votes(tmp_path, "ann")) == ["g1/t", "g3/t"]  # order of casting
    lines = read_jsonl(tmp_path / "review" / "votes-ann.jsonl")
    assert len(lines) == 5 and {line["annotator"] for line in lines} == {"ann"}
    with pytest.raises(ValueError):
        append_vote(tmp_path, "ann", "g1/t", "MAYBE")


def test_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    append_vote(tmp_path, "ann", "g1/t", A)
    with (tmp_path / "review" / "votes-ann.jsonl").open("a") as handle:
        handle.write('{"item": "g2/t", "vote": "UNANS')  # killed mid-write
    assert latest_votes(tmp_path, "ann") == {"g1/t": A}


# --- finalize -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "minimum", "expected"),
    [
        ({"a": U, "b": U, "c": A}, 3, (U, "majority")),
        ({"a": A, "b": A, "c": U}, 3, (A, "majority")),
        ({"a": U, "b": A, "c": S}, 3, (None, "too_few_votes")),  # a skip is not a vote
        ({"a": U, "b": A, "c": S}, 2, (None, "tie")),
        ({"a": U, "b": U, "c": A, "d": A}, 3, (None, "tie")),
        ({"a": U, "b": S, "c": S}, 1, (U, "majority")),
        ({}, 1, (None, "too_few_votes")),
    ],
)
def test_decide(votes: dict[str, str], minimum: int, expected: tuple) -> None:
    assert decide(votes, minimum) == expected


def test_finalize_applies_the_majority_and_keeps_everything_else(
    built: dict[str, Path], tmp_path: Path
) -> None:
    root = copy_of(built, "mmlongbench-doc", tmp_path)
    statuses = flag_some(root, 5, others=("accepted", "rejected", "unverified"))
    queue = open_queue(root, audit=4, seed=0)
    items = [item.id for item in queue.items]
    before = (root / "data.jsonl").read_text(encoding="utf-8").splitlines()
    plan = [  # per queue position: annotators a, b, c, d (None: no vote)
        (U, U, A, None),  # majority U
        (A, A, U, None),  # majority A
        (U, A, S, None),  # 2 votes < 3: no label
        (U, U, A, A),  # tie
        (U, U, U, None),
        (A, S, A, A),
        (U, None, U, U),
        (A, A, A, None),
        (S, S, S, None),
    ]
    assert len(items) == len(plan)
    for item, votes in zip(items, plan, strict=True):
        for annotator, vote in zip("abcd", votes, strict=True):
            if vote is not None:
                append_vote(root, annotator, item, A if vote == U else U)  # first thoughts
                append_vote(root, annotator, item, vote)  # the latest vote counts
    summary = finalize(root, min_annotators=3)

    expected = [(U, "majority"), (A, "majority"), (None, "too_few_votes"), (None, "tie")]
    expected += [(U, "majority"), (A, "majority"), (U, "majority"), (A, "majority")]
    expected += [(None, "too_few_votes")]
    records = {r["id"]: r for r in read_jsonl(root / "data.jsonl")}
    for item, (label, outcome), votes in zip(items, expected, plan, strict=True):
        human = records[item]["qc"]["human"]
        assert (human["label"], human["outcome"]) == (label, outcome), item
        assert human["status_before"] == statuses[item]
        assert human["reason"] == ("flagged" if statuses[item] == "flagged" else "audit")
        cast = {n: v for n, v in zip("abcd", votes, strict=True) if v is not None}
        assert {v["annotator"]: v["vote"] for v in human["votes"]} == cast
        status = {U: "accepted", A: "rejected", None: statuses[item]}[label]
        assert records[item]["qc"]["status"] == status
        if statuses[item] == "flagged":
            assert records[item]["qc"]["judges"] == DISAGREEING_JUDGES
    # Every record outside the queue is untouched, byte for byte, in its place.
    after = (root / "data.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        if json.loads(old)["id"] not in items:
            assert old == new
    assert summary["outcomes"] == {"majority": 6, "too_few_votes": 2, "tie": 1}
    assert sorted(summary["annotators"]) == ["a", "b", "c", "d"]
    written = json.loads((root / "review" / "summary.json").read_text())
    assert written["items"] == summary["items"]

    # Finalizing again (say, with a lower bar) starts from QC's statuses, not from ours.
    again = finalize(root, min_annotators=2)
    records = {r["id"]: r for r in read_jsonl(root / "data.jsonl")}
    third = records[items[2]]["qc"]
    assert (third["human"]["outcome"], third["human"]["status_before"]) == (
        "tie",
        statuses[items[2]],
    )
    assert third["status"] == statuses[items[2]]
    assert again["outcomes"]["tie"] == 2


def test_finalize_reports_kappa_and_the_confusion_with_qc(
    built: dict[str, Path], tmp_path: Path
) -> None:
    root = copy_of(built, "mmlongbench-doc", tmp_path)
    statuses = flag_some(root, 0, others=("accepted", "rejected", "unverified"))
    queue = open_queue(root, audit=9, seed=4)
    votes_for = {"accepted": [U, U, A], "rejected": [A, U, A], "unverified": [U, U, U]}
    table = []
    for item in queue.items:
        plan = votes_for[statuses[item.id]]
        for annotator, vote in zip(("x", "y", "z"), plan, strict=True):
            append_vote(root, annotator, item.id, vote)
        table.append([plan.count(U), plan.count(A)])
    summary = finalize(root)
    assert summary["agreement"]["fleiss_kappa"] == round(fleiss_kappa(table).kappa, 6)
    assert summary["agreement"]["items"] == len(queue.items)
    confusion = summary["confusion"]
    audited = Counter(statuses[item.id] for item in queue.items)
    assert confusion["matrix"]["accepted"] == {U: audited["accepted"], A: 0, "undecided": 0}
    assert confusion["matrix"]["rejected"] == {U: 0, A: audited["rejected"], "undecided": 0}
    assert "unverified" not in confusion["matrix"]
    assert confusion["audited_without_qc"] == audited["unverified"]
    assert confusion["qc_agreement"] == 1.0
    # The card gains this dataset's own validity per transform (the audit's majority labels).
    transform_of = {
        r["id"]: (r["transform"] or {}).get("name") for r in read_jsonl(root / "data.jsonl")
    }
    expected: dict[str, Counter] = {}
    for item in queue.items:
        label = U if statuses[item.id] in ("accepted", "unverified") else A
        expected.setdefault(transform_of[item.id], Counter())[label] += 1
    card = (root / "README.md").read_text(encoding="utf-8")
    assert "### This dataset's own review" in card
    for name, labels in expected.items():
        assert f"| {name} | {sum(labels.values())} | {labels[U]} | {labels[A]} | 0 |" in card


def test_status_before_review_follows_a_later_qc_run() -> None:
    human = {"label": U, "outcome": "majority", "votes": [], "status_before": "flagged"}
    finalized = {"qc": {"status": "accepted", "human": human}}
    assert qc_status(finalized) == "flagged"  # the status finalize set: QC's was flagged
    requalified = {"qc": {"status": "rejected", "human": human}}
    assert qc_status(requalified) == "rejected"  # QC ran again since: its new status
    undecided = {"qc": {"status": "flagged", "human": {**human, "label": None}}}
    assert qc_status(undecided) == "flagged"
    assert qc_status({"qc": {"status": "accepted", "human": None}}) == "accepted"


def test_finalize_without_a_queue_says_so(built: dict[str, Path], tmp_path: Path) -> None:
    root = copy_of(built, "mmmu", tmp_path)
    with pytest.raises(ReviewError, match="queue"):
        finalize(root)


# --- the server, over HTTP ----------------------------------------------------------------


def request(
    port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """A raw request: the path is sent exactly as given (no normalisation)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = None
    sent = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    connection.request(method, path, body=data, headers=sent)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def token(root: Path, annotator: str) -> str:
    return annotator_token(annotator, review_secret(root))


def queue_path(root: Path, annotator: str) -> str:
    return f"/api/queue?annotator={annotator}&token={token(root, annotator)}"


@pytest.fixture
def served(built: dict[str, Path], tmp_path: Path):
    root = copy_of(built, "mmlongbench-doc", tmp_path)
    flag_some(root, 3)
    with start_server(root, port=0, audit=2, seed=0) as server:
        yield root, server


def test_server_binds_loopback_only(served) -> None:
    root, server = served
    assert server.server.server_address[0] == "127.0.0.1"
    session = ReviewSession(root, open_queue(root))
    for host in ("0.0.0.0", "::", "192.168.1.10", "localhost", ""):
        with pytest.raises(ValueError, match=r"127\.0\.0\.1"):
            ReviewServer(session, 0, host=host)


def test_queue_api_shows_nothing_that_hints_at_the_answer(served) -> None:
    root, server = served
    status, body = request(server.port, "GET", queue_path(root, "ann"))
    assert status == 200
    text = body.decode()
    payload = json.loads(text)
    queue = open_queue(root)
    assert [item["key"] for item in payload["items"]] == [i.key for i in queue.items]
    records = {r["id"]: r for r in read_jsonl(root / "data.jsonl")}
    for item in queue.items:
        record = records[item.id]
        for secret in (
            record["id"],
            record["group_id"],
            record["transform"]["name"],
            record["transform"]["family"],
            "assets/",
        ):
            assert secret not in text, secret
    for word in ("flagged", "audit", "judge", "verdict", "accepted", "rejected", "status"):
        assert word not in text.lower(), word
    assert {key for item in payload["items"] for key in item} == {
        "key",
        "question",
        "options",
        "media",
        "document",
    }


def test_media_are_served_from_the_assets_folder(served) -> None:
    root, server = served
    queue = open_queue(root)
    key = queue.items[0].key
    record = next(r for r in read_jsonl(root / "data.jsonl") if r["id"] == queue.items[0].id)
    status, body = request(server.port, "GET", f"/media/{key}/0")
    assert status == 200 and body == (root / record["images"][0]).read_bytes()
    status, body = request(server.port, "GET", f"/media/{key}/document")
    assert status == 200 and body == (root / record["document"]).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/data.jsonl",
        "/review/queue.json",
        "/assets/../data.jsonl",
        "/media/../data.jsonl",
        "/media/KEY/../../data.jsonl",
        "/media/KEY/..%2f..%2fdata.jsonl",
        "/media/KEY/%2e%2e",
        "/media/KEY/99",
        "/media/KEY/-1",
        "/media/KEY/0/../../manifest.json",
        "/media/nope/0",
        "//etc/passwd",
    ],
)
def test_paths_outside_the_items_media_are_refused(served, path: str) -> None:
    root, server = served
    status, body = request(server.port, "GET", path.replace("KEY", open_queue(root).items[0].key))
    assert (status, json.loads(body)) == (404, {"error": "not found"})


def test_records_pointing_outside_assets_are_not_served(
    built: dict[str, Path], tmp_path: Path
) -> None:
    root = copy_of(built, "mmlongbench-doc", tmp_path)
    ids = unanswerable_ids(root)[:3]
    set_statuses(root, dict.fromkeys(ids, "flagged"))
    (root / "assets" / "link.png").symlink_to(root / "manifest.json")
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"not yours")
    records = read_jsonl(root / "data.jsonl")
    hostile = {
        ids[0]: ["../outside.png", "data.jsonl"],
        ids[1]: [str(outside), "assets/link.png"],
        ids[2]: ["assets/../manifest.json", "assets"],
    }
    for record in records:
        if record["id"] in hostile:
            record["images"] = hostile[record["id"]]
            record["document"] = "../outside.png"
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert safe_asset(root, "../outside.png") is None
    assert safe_asset(root, "assets/link.png") is None
    with start_server(root, port=0) as server:
        for item_id in ids:
            key = item_key(item_id, review_secret(root))
            for which in ("0", "1", "document"):
                assert request(server.port, "GET", f"/media/{key}/{which}")[0] == 404


def test_votes_are_validated(served) -> None:
    root, server = served
    key = open_queue(root).items[0].key
    good = {"annotator": "ann", "token": token(root, "ann"), "item": key, "vote": U}
    assert request(server.port, "POST", "/api/vote", good)[0] == 200
    cases = [
        ({**good, "item": "0123456789abcdef"}, "unknown item"),
        ({**good, "item": open_queue(root).items[0].id}, "unknown item"),  # ids are not keys
        ({**good, "vote": "MAYBE"}, "vote"),
        ({**good, "annotator": "../../etc/x"}, "annotator"),
        ({**good, "annotator": None}, "annotator"),
        (b"not json", ""),
        ([good], "object"),
    ]
    for body, fragment in cases:
        status, payload = request(server.port, "POST", "/api/vote", body)
        assert status == 400, body
        assert fragment in json.loads(payload)["error"]
    assert request(server.port, "POST", "/api/vote", good, {"Content-Type": "text/plain"})[0] == 415
    assert latest_votes(root, "ann") == {open_queue(root).items[0].id: U}
    assert sorted(p.name for p in (root / "review").iterdir()) == [
        "queue.json",
        "secret",
        "votes-ann.jsonl",
    ]


def test_requests_from_other_sites_or_hosts_are_refused(served) -> None:
    root, server = served
    key = open_queue(root).items[0].key
    vote = {"annotator": "ann", "token": token(root, "ann"), "item": key, "vote": U}
    evil = {"Origin": "http://evil.example"}
    assert request(server.port, "POST", "/api/vote", vote, evil)[0] == 403
    assert request(server.port, "GET", "/", headers={"Host": "evil.example"})[0] == 403
    own = {"Origin": f"http://127.0.0.1:{server.port}"}
    assert request(server.port, "POST", "/api/vote", vote, own)[0] == 200
    assert request(server.port, "GET", "/api/queue?annotator=a/b&token=x")[0] == 400


def test_the_page_is_self_contained(served) -> None:
    _, server = served
    status, body = request(server.port, "GET", "/")
    page = body.decode()
    assert status == 200 and page.startswith("<!doctype html>")
    for remote in ("http://", "https://", "<link", " src="):
        assert remote not in page, remote


# --- the command line ---------------------------------------------------------------------


@pytest.mark.slow
def test_cli_serves_until_ctrl_c_and_keeps_the_votes(
    built: dict[str, Path], tmp_path: Path
) -> None:
    root = copy_of(built, "mmmu", tmp_path)
    flag_some(root, 3)
    process = subprocess.Popen(
        [sys.executable, "-m", "abstain_build", "review", str(root), "-a", "ann", "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        port = None
        lines = []
        for line in process.stderr:
            lines.append(line)
            if "open http://127.0.0.1:" in line:
                port = int(line.split("127.0.0.1:")[1].split("/")[0])
                break
        assert port, lines
        assert request(port, "GET", "/")[0] == 200
        key = open_queue(root).items[0].key
        vote = {"annotator": "ann", "token": token(root, "ann"), "item": key, "vote": A}
        assert request(port, "POST", "/api/vote", vote)[0] == 200
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=60)[1]
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, rest
    assert "Traceback" not in rest and "stopped" in rest
    assert latest_votes(root, "ann") == {open_queue(root).items[0].id: A}


@pytest.mark.slow
def test_cli_refuses_bad_names_and_finalizes_as_json(
    built: dict[str, Path], tmp_path: Path
) -> None:
    root = copy_of(built, "mmmu", tmp_path)
    set_statuses(root, dict.fromkeys(unanswerable_ids(root), "accepted"))
    done = run_cli("review", str(root), "--port", "0", "-a", "ann")
    assert done.returncode == 0 and "nothing to review" in done.stderr
    done = run_cli("review", str(root), "--port", "0")
    assert done.returncode == 2 and "name the annotators" in done.stderr
    flag_some(root, 2)
    done = run_cli("review", str(root), "--annotator", "../x", "--port", "0")
    assert done.returncode == 2 and "annotator name" in done.stderr
    done = run_cli("review", str(root), "--finalize")
    assert done.returncode == 2 and "queue" in done.stderr
    queue = open_queue(root)
    for annotator in ("p", "q"):
        append_vote(root, annotator, queue.items[0].id, U)
    done = run_cli("review", str(root), "--finalize", "--min-annotators", "2", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["labels"] == {U: 1, "undecided": len(queue.items) - 1}
    done = run_cli("review", str(root), "--finalize", "--min-annotators", "2")
    assert done.returncode == 0 and "Fleiss" in done.stdout


# --- end to end in a browser --------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    """The system's Chromium driven by Playwright (no downloaded browser)."""
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    chromium = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    chromium = chromium or shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium, or make system-deps)")
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()


# Per queue position, each annotator's final vote, and how it is cast on the page.
E2E_PLAN = [(U, U, U), (A, A, U), (U, U, A), (U, A, S), (A, A, A), (U, U, A), (S, U, U)]


@pytest.mark.slow
def test_three_annotators_in_the_browser(browser, built: dict[str, Path], tmp_path: Path) -> None:
    from playwright.sync_api import expect

    root = copy_of(built, "mmmu", tmp_path)
    statuses = flag_some(root, 4)
    records = {r["id"]: r for r in read_jsonl(root / "data.jsonl")}
    with start_server(root, port=0, audit=3, seed=11) as server:
        queue = open_queue(root)
        total = len(queue.items)
        assert total == len(E2E_PLAN) == 7

        def open_page(annotator: str):
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            page = context.new_page()
            page.goto(server.url(annotator))
            return context, page

        def at(page, position: int, voted: int) -> None:
            """The page shows the item at ``position`` (0-based) and ``voted`` votes."""
            expect(page.locator("#progress-text")).to_have_text(
                f"{position + 1} of {total} · {voted} voted"
            )
            record = records[queue.items[position].id]
            shown_question = re.sub(r"<\s*image\s*(\d+)\s*>", r"Image \1", record["question"])
            expect(page.locator("#question")).to_have_text(shown_question)
            shown = page.locator("body").inner_text()
            transform = record["transform"]
            for secret in (transform["name"], transform["family"], record["group_id"]):
                assert secret not in shown
            assert page.locator("#media img").count() == len(record["images"])
            for image in page.locator("#media img").all():  # served, and decodes
                assert image.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0

        def letter(vote: str) -> str:
            return {A: "a", U: "u", S: "s"}[vote]

        # Annotator 1: keyboard only; closes the page after three items and comes back.
        context, page = open_page("ann1")
        at(page, 0, 0)
        for position in range(3):
            page.keyboard.press(letter(E2E_PLAN[position][0]))
            expect(page.locator("#status")).to_contain_text("Saved")
            at(page, position + 1, position + 1)
        context.close()
        assert len(latest_votes(root, "ann1")) == 3
        context, page = open_page("ann1")
        at(page, 3, 3)  # continues at the first item without a vote
        page.keyboard.press("a")  # a slip ...
        at(page, 4, 4)
        page.keyboard.press("z")  # ... undone: back to it, vote withdrawn
        at(page, 3, 3)
        expect(page.locator("#status")).to_have_text("Vote withdrawn")
        for position in range(3, total):
            page.keyboard.press(letter(E2E_PLAN[position][0]))
            if position + 1 < total:
                at(page, position + 1, position + 1)
        expect(page.locator("#done-title")).to_have_text("All items have your vote")
        expect(page.locator("#progress-text")).to_have_text(f"{total} of {total} · 7 voted")
        page.keyboard.press("ArrowLeft")  # going back shows the vote already cast
        at(page, total - 1, total)
        expect(page.locator("#current-vote")).to_contain_text("Skipped")
        context.close()

        # Annotator 2: buttons only; changes an earlier vote by going back.
        context, page = open_page("ann2")
        buttons = {A: "#vote-answerable", U: "#vote-unanswerable", S: "#vote-skip"}
        for position in range(4):
            vote = E2E_PLAN[position][1]
            wrong_first = position == 2
            page.click(buttons[A if wrong_first else vote])
            at(page, position + 1, position + 1)
        page.click("#back")
        page.click("#back")
        at(page, 2, 4)
        expect(page.locator("#vote-answerable")).to_have_class("vote selected")
        page.click(buttons[E2E_PLAN[2][1]])  # changed; on to the first unvoted item
        at(page, 4, 4)
        for position in range(4, total):
            page.click(buttons[E2E_PLAN[position][1]])
            if position + 1 < total:
                at(page, position + 1, position + 1)
        expect(page.locator("#done-title")).to_have_text("All items have your vote")
        context.close()

        # Annotator 3: a mix, from a fresh page each time.
        for position in range(total):
            context, page = open_page("ann3")
            at(page, position, position)
            vote = E2E_PLAN[position][2]
            if position % 2:
                page.keyboard.press(letter(vote))
            else:
                page.click(buttons[vote])
            expect(page.locator("#status")).to_contain_text("Saved")
            context.close()

    for number, annotator in enumerate(("ann1", "ann2", "ann3")):
        latest = latest_votes(root, annotator)
        assert latest == {
            item.id: E2E_PLAN[position][number] for position, item in enumerate(queue.items)
        }, annotator
    ann1_lines = read_jsonl(root / "review" / "votes-ann1.jsonl")
    assert [line["vote"] for line in ann1_lines].count(None) == 1  # the undo

    done = run_cli("review", str(root), "--finalize", "--min-annotators", "2", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    final = {r["id"]: r for r in read_jsonl(root / "data.jsonl")}
    expected_confusion: dict[str, Counter] = {}
    for position, item in enumerate(queue.items):
        plan = E2E_PLAN[position]
        label, outcome = decide(dict(zip(("1", "2", "3"), plan, strict=True)), 2)
        human = final[item.id]["qc"]["human"]
        assert (human["label"], human["outcome"]) == (label, outcome)
        before = statuses[item.id]
        assert final[item.id]["qc"]["status"] == {U: "accepted", A: "rejected"}.get(label, before)
        if item.reason == "audit":
            expected_confusion.setdefault(before, Counter())[label or "undecided"] += 1
        else:
            assert before == "flagged"
            assert final[item.id]["qc"]["judges"] == DISAGREEING_JUDGES
    # Position 3 (U, A, skip) is a tie; the others have a majority.
    assert summary["outcomes"] == {"majority": 6, "tie": 1}
    table = [[plan.count(U), plan.count(A)] for plan in E2E_PLAN]
    assert summary["agreement"]["fleiss_kappa"] == round(fleiss_kappa(table).kappa, 6)
    assert summary["agreement"]["items"] == 7
    matrix = summary["confusion"]["matrix"]
    assert {status: {k: v for k, v in row.items() if v} for status, row in matrix.items()} == {
        status: dict(counts) for status, counts in expected_confusion.items()
    }


@pytest.mark.slow
def test_the_page_without_a_link_of_ones_own_cannot_vote_and_shows_image_references(
    browser, built: dict[str, Path], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    root = copy_of(built, "mmmu", tmp_path)
    flag_some(root, 2, others=("accepted",))
    with start_server(root, port=0) as server:
        context = browser.new_context()
        page = context.new_page()
        for address in (server.url(), server.url().rstrip("/") + "/?annotator=newcomer"):
            page.goto(address)
            expect(page.locator("#login")).to_be_visible()
            expect(page.locator("#controls")).to_be_hidden()
            page.keyboard.press("u")  # no vote without a token
        page.goto(server.url("newcomer"))
        expect(page.locator("#who")).to_have_text("Annotator: newcomer")
        # "<image 1>" shows as a small picture that jumps to the image, not as its text.
        question = page.locator("#question")
        expect(question.locator("a.imgref")).to_have_count(1)
        expect(question).not_to_contain_text("<image")
        expect(question.locator("a.imgref")).to_have_attribute("href", "#media-1")
        assert page.locator("#media-1 img").count() == 1
        expect(page.locator("#progress-text")).to_have_text("1 of 2 · 0 voted")
        page.keyboard.press("u")
        expect(page.locator("#progress-text")).to_have_text("2 of 2 · 1 voted")
        context.close()
    assert list(latest_votes(root, "newcomer").values()) == [U]
    assert [p.name for p in (root / "review").glob("votes-*")] == ["votes-newcomer.jsonl"]


def test_votes_and_queues_need_the_annotators_own_token(served) -> None:
    root, server = served
    key = open_queue(root).items[0].key
    base = {"item": key, "vote": U}
    refused = [
        {**base, "annotator": "ann"},  # no token
        {**base, "annotator": "ann", "token": token(root, "bob")},  # someone else's
        {**base, "annotator": "mallory", "token": "0" * 32},  # a new name, a guessed token
        {**base, "annotator": "ann", "token": ["not", "a", "string"]},
    ]
    for body in refused:
        status, payload = request(server.port, "POST", "/api/vote", body)
        assert status == 403 and "token" in json.loads(payload)["error"], body
    assert request(server.port, "GET", "/api/queue?annotator=ann")[0] == 403
    assert (
        request(server.port, "GET", f"/api/queue?annotator=ann&token={token(root, 'x')}")[0] == 403
    )
    assert not list((root / "review").glob("votes-*"))
    assert (
        request(
            server.port,
            "POST",
            "/api/vote",
            {**base, "annotator": "ann", "token": token(root, "ann")},
        )[0]
        == 200
    )


def test_item_keys_and_tokens_come_from_a_private_per_review_secret(served, tmp_path: Path) -> None:
    import hashlib

    root, server = served
    secret = root / "review" / "secret"
    assert secret.stat().st_mode & 0o077 == 0  # the owner's alone
    assert len(bytes.fromhex(secret.read_text().strip())) == 32
    for item in open_queue(root).items:
        assert item.key != hashlib.sha256(item.id.encode()).hexdigest()[:16]
        assert item.key == item_key(item.id, review_secret(root))
    link = server.url("ann")
    assert f"token={token(root, 'ann')}" in link and "annotator=ann" in link
    other = tmp_path / "other-review"
    (other / "review").mkdir(parents=True)
    assert review_secret(other) != review_secret(root)  # another review, other keys
    assert annotator_token("ann", review_secret(other)) != token(root, "ann")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the race needs a second user: run as root to start the reader as 'nobody'",
)
def test_another_local_user_never_reads_a_fresh_secret_or_a_vote(tmp_path: Path) -> None:
    """A reader running as another user caught 1,186 of 3,000 fresh secrets: the file was
    written world-readable and restricted after the rename. Now the secret and the votes
    are 0600 from their first byte, in a 0700 folder."""
    import tempfile
    import time

    from abstain_build.review.votes import REVIEW_DIR, append_vote, votes_path

    base = Path(tempfile.mkdtemp(prefix="review-race-"))
    try:
        os.chmod(base, 0o755)  # the dataset folder itself is readable, as builds are
        secret = base / REVIEW_DIR / "secret"
        votes = votes_path(base, "ana")
        system_python = shutil.which("python3", path="/usr/bin:/bin")
        if system_python is None:
            pytest.skip("no system python3 the other user can run")
        reader = subprocess.Popen(
            [
                system_python,
                "-c",
                "import os, sys, time\n"
                "folder, stop, caught = os.path.dirname(sys.argv[1]), time.time() + 2.5, 0\n"
                "while time.time() < stop:\n"
                "    try:\n"
                "        names = os.listdir(folder)\n"
                "    except OSError:\n"
                "        names = [os.path.basename(p) for p in sys.argv[1:3]]\n"
                "    for name in names:\n"
                "        try:\n"
                "            with open(os.path.join(folder, name)) as f:\n"
                "                caught += bool(f.read(1))\n"
                "        except OSError:\n"
                "            pass\n"
                "print(caught)\n",
                str(secret),
                str(votes),
            ],
            stdout=subprocess.PIPE,
            text=True,
            user=65534,
            group=65534,
            cwd=base,
        )
        deadline = time.monotonic() + 2.0
        made = 0
        while time.monotonic() < deadline:
            secret.unlink(missing_ok=True)
            review_secret(base)
            append_vote(base, "ana", f"item{made}", "UNANSWERABLE")
            made += 1
        caught = int(reader.communicate(timeout=60)[0].strip())
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert made > 100
    assert caught == 0
