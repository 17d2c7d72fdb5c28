"""Export: Hub-ready parquet that `datasets` reloads field for field, pixel for pixel."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abstain_build import BuildConfig, build
from abstain_build.errors import ConfigError
from abstain_build.export import export_dataset, load_built
from abstain_build.export.shards import write_shards

from .conftest import FIXTURES, SHARED_DATA, read_jsonl, run_cli


@pytest.fixture
def builds(fixture_builds: dict[str, Path]) -> dict[str, Path]:
    return fixture_builds


def reload(out: Path) -> dict[str, list[dict]]:
    from datasets import load_dataset

    loaded = load_dataset(str(out), cache_dir=str(out.parent / f"{out.name}-hf-cache"))
    return {split: list(loaded[split]) for split in loaded}


def assert_same_as_built(root: Path, out: Path) -> None:
    """Every record of the build is in the export, every field equal, every image the same
    pixels, every document the same bytes."""
    built = read_jsonl(root / "data.jsonl")
    splits = reload(out)
    exported = {row["id"]: (split, row) for split, rows in splits.items() for row in rows}
    assert sorted(exported) == sorted(r["id"] for r in built)
    for record in built:
        split, row = exported[record["id"]]
        assert split == record["kind"]
        for name, value in record.items():
            if name in ("images", "document"):
                continue
            assert _plain(row[name]) == _plain(value), (record["id"], name)
        assert len(row["images"]) == len(record["images"])
        for picture, path in zip(row["images"], record["images"], strict=True):
            assert isinstance(picture, Image.Image)
            assert np.array_equal(np.asarray(picture), np.asarray(Image.open(root / path)))
        if record["document"]:
            assert not Path(row["document"]).is_absolute()
            assert (out / row["document"]).read_bytes() == (root / record["document"]).read_bytes()
        else:
            assert row["document"] is None


def _plain(value: object) -> object:
    """Arrow fills absent struct fields with None: compare what both sides state."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def assert_nothing_private(root: Path, out: Path) -> None:
    names = {p.relative_to(out).parts[0] for p in out.rglob("*")}
    shipped = {"README.md", "data", "documents", "errors.jsonl", "transform_distribution.png"}
    assert names <= shipped, names
    secrets = [str(root.resolve()).encode(), str(root).encode(), b"/state/", b"manifest.json"]
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in secrets:
                assert secret not in data, (path, secret)


@pytest.mark.parametrize("name", ["mmmu", "mmlongbench-doc"])
def test_an_export_reloads_with_every_field_and_image(
    builds: dict[str, Path], tmp_path: Path, name: str
) -> None:
    out = tmp_path / "export"
    result = export_dataset(builds[name], out)
    kinds = {r["kind"] for r in read_jsonl(builds[name] / "data.jsonl")}
    assert set(result.splits) == kinds and {"original", "counterpart"} <= kinds
    assert_same_as_built(builds[name], out)
    assert_nothing_private(builds[name], out)
    documents = {r["document"] for r in read_jsonl(builds[name] / "data.jsonl") if r["document"]}
    assert result.documents == len(documents) == len(list((out / "documents").glob("*.pdf")))


def test_the_card_carries_the_hub_metadata_and_the_source_license(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    from huggingface_hub import DatasetCard

    expected = {"mmmu": "apache-2.0", "mmlongbench-doc": "cc-by-nc-4.0"}
    for name, license in expected.items():
        out = tmp_path / name
        export_dataset(builds[name], out)
        card = DatasetCard.load(out / "README.md")
        data = card.data.to_dict()
        assert data["license"] == license
        assert data["language"] == ["en"] and data["size_categories"] == ["n<1K"]
        assert "visual-question-answering" in data["task_categories"]
        assert ("document-question-answering" in data["task_categories"]) == (
            name == "mmlongbench-doc"
        )
        assert data["pretty_name"] and "abstention" in data["tags"]
        assert data["source_datasets"] == [
            {"mmmu": "MMMU/MMMU", "mmlongbench-doc": "yubo2333/MMLongBench-Doc"}[name]
        ]
        splits = {f["split"] for f in data["configs"][0]["data_files"]}
        assert splits == {r["kind"] for r in read_jsonl(builds[name] / "data.jsonl")}
        assert "data.jsonl" not in card.content and "## Files and loading" in card.content
    custom = tmp_path / "custom"
    export_dataset(builds["mmmu"], custom, license="mit")
    assert DatasetCard.load(custom / "README.md").data.license == "mit"


def _card(out: Path) -> str:
    return (out / "README.md").read_text(encoding="utf-8")


def _blocks(card: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", card, flags=re.DOTALL)


def test_the_card_dataset_info_is_what_datasets_measures_of_the_shards(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    from datasets import load_dataset_builder
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCard

    from abstain_build.export.shards import export_features

    out = tmp_path / "export"
    export_dataset(builds["mmlongbench-doc"], out)
    card = DatasetCard.load(out / "README.md")
    info = DatasetInfosDict.from_dataset_card_data(card.data)["default"]
    assert info.features == export_features()
    measured = load_dataset_builder("parquet", data_dir=str(out), cache_dir=str(tmp_path / "c"))
    measured.download_and_prepare()
    assert list(info.splits) == ["original", "counterpart"]
    for name, split in info.splits.items():
        expected = measured.info.splits[name]
        assert (split.num_examples, split.num_bytes) == (expected.num_examples, expected.num_bytes)
    assert info.download_size == measured.info.download_size
    assert info.dataset_size == sum(split.num_bytes for split in measured.info.splits.values())


def test_the_card_describes_every_column_says_evaluation_only_and_how_to_cite(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    from abstain_build.export.shards import export_features

    out = tmp_path / "export"
    export_dataset(builds["mmmu"], out)
    card = _card(out)
    fields = card[card.index("## Fields") :]
    described = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| (.+) \|$", fields, flags=re.MULTILINE)
    assert [name for name, _, _ in described] == list(export_features())
    assert dict((name, kind) for name, kind, _ in described)["images"] == "list<image>"
    assert all(meaning.strip() for _, _, meaning in described)
    assert "Not for training" in card
    (bibtex,) = _blocks(card, "bibtex")
    assert bibtex.count("{") == bibtex.count("}") and bibtex.count("@misc{") == 2
    assert "@misc{mmmu_abstention_counterparts_abstain_build," in bibtex
    assert "Knowing When Not to Answer: Evaluating Abstention in Multimodal" in bibtex
    assert "{{mmmu abstention counterparts (abstain-build)}}" in bibtex


def test_every_file_the_card_names_is_in_the_export(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    """The build card's "Not included" says "see `errors.jsonl`": the export ships it."""
    out = tmp_path / "export"
    export_dataset(builds["mmmu"], out)
    named = set(re.findall(r"`([\w./-]+\.(?:jsonl|json|parquet|png|pdf))`", _card(out)))
    assert "errors.jsonl" in named
    assert all((out / name).is_file() for name in named), named
    assert (out / "errors.jsonl").read_bytes() == (builds["mmmu"] / "errors.jsonl").read_bytes()


def test_the_cards_loading_example_runs_against_the_export(
    builds: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    export_dataset(builds["mmlongbench-doc"], Path("runs") / "hub")
    card = _card(tmp_path / "runs" / "hub")
    (example,) = _blocks(card, "python")
    assert 'load_dataset("parquet", data_dir="runs/hub")' in example
    scope: dict[str, object] = {}
    exec(example, scope)
    assert set(scope["ds"]) == {"original", "counterpart"}
    assert isinstance(scope["ds"]["counterpart"][0]["images"][0], Image.Image)


def test_a_card_for_the_hub_loads_from_the_repository(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    export_dataset(builds["mmmu"], tmp_path / "hub", repo="someone/abstain")
    card = _card(tmp_path / "hub")
    (example,) = _blocks(card, "python")
    assert 'ds = load_dataset("someone/abstain")' in example and "PATH_OR_REPO" not in card
    assert r"howpublished = {\url{https://huggingface.co/datasets/someone/abstain}}" in card


def test_an_export_is_the_same_bytes_wherever_it_is_made(
    builds: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copies = []
    for where in ("first", "second/deeper"):
        (tmp_path / where).mkdir(parents=True)
        monkeypatch.chdir(tmp_path / where)
        export_dataset(builds["mmlongbench-doc"], Path("hub"))
        files = sorted(p for p in Path("hub").rglob("*") if p.is_file())
        copies.append({str(p): p.read_bytes() for p in files})
    assert copies[0] == copies[1]
    assert str(tmp_path).encode() not in copies[0]["hub/README.md"]


def test_shards_follow_the_hub_naming_and_reload_the_same(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "sharded"
    result = export_dataset(builds["mmmu"], out, shard_size=3)
    originals = result.splits["original"]
    assert len(originals.files) == -(-originals.records // 3) > 1
    assert originals.files[0].endswith(f"original-00000-of-{len(originals.files):05d}.parquet")
    assert_same_as_built(builds["mmmu"], out)


def _parquet_row_groups(path: Path) -> list[int]:
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata
    return [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]


def test_row_groups_hold_100_rows_so_one_row_reads_little(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    """Reading a row reads its whole row group: a shard was one group of up to 256 MB."""
    root = tmp_path / "many"
    root.mkdir()
    shutil.copyfile(builds["mmmu"] / "manifest.json", root / "manifest.json")
    shutil.copytree(builds["mmmu"] / "assets", root / "assets")
    originals = [r for r in read_jsonl(builds["mmmu"] / "data.jsonl") if r["kind"] == "original"]
    copies = [{**r, "id": f"{r['id']}-{n}"} for n in range(13) for r in originals]
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in copies))
    result = export_dataset(root, tmp_path / "export")
    (shard,) = result.splits["original"].files
    assert _parquet_row_groups(tmp_path / "export" / shard) == [100, len(copies) - 100]


def test_a_row_group_ends_before_its_images_pass_the_byte_bound(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    """Document pages weigh MBs each: 100 such rows would make a group of hundreds of MB."""
    import pyarrow.parquet as pq

    records = read_jsonl(builds["mmmu"] / "data.jsonl")
    bound = max(sum((builds["mmmu"] / p).stat().st_size for p in r["images"]) for r in records)
    splits, _ = write_shards(records, builds["mmmu"], tmp_path, row_group_bytes=bound)
    for files in splits.values():
        (shard,) = files.files
        parquet = pq.ParquetFile(tmp_path / shard)
        groups = [parquet.read_row_group(i).to_pylist() for i in range(parquet.num_row_groups)]
        assert len(groups) > 1 and sum(map(len, groups)) == files.records
        for rows in groups:
            size = sum(len(image["bytes"]) for row in rows for image in row["images"])
            assert size <= bound


def test_export_refuses_what_would_lose_or_mix_data(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "once"
    export_dataset(builds["mmmu"], out)
    with pytest.raises(ConfigError, match="not empty"):
        export_dataset(builds["mmmu"], out)
    export_dataset(builds["mmmu"], out, overwrite=True)
    with pytest.raises(ConfigError, match="outside"):
        export_dataset(builds["mmmu"], builds["mmmu"] / "export")
    with pytest.raises(ConfigError, match="manifest"):
        export_dataset(tmp_path, tmp_path / "x")


def test_a_build_folder_loads_with_images_as_images(builds: dict[str, Path]) -> None:
    data = load_built(builds["mmmu"])
    records = read_jsonl(builds["mmmu"] / "data.jsonl")
    assert data["id"] == [r["id"] for r in records]
    first = data[0]["images"][0]
    assert isinstance(first, Image.Image)
    assert np.array_equal(
        np.asarray(first), np.asarray(Image.open(builds["mmmu"] / records[0]["images"][0]))
    )


def test_the_cli_exports_and_says_where_an_upload_failed(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "cli"
    done = run_cli(
        "export", str(builds["mmmu"]), "--to", str(out), "--push-to-hub", "someone/abstain",
        env={"HF_HUB_OFFLINE": "1", "HF_TOKEN": "hf_not_a_real_token"},
    )  # fmt: skip
    assert done.returncode == 2
    assert "the export is in" in done.stderr and "upload to someone/abstain failed" in done.stderr
    assert "hf_not_a_real_token" not in done.stderr
    assert "exported" in done.stderr and (out / "README.md").is_file()
    assert run_cli("export", str(builds["mmmu"]), "--to", str(out)).returncode == 2


def test_export_without_datasets_says_how_to_install_it(
    builds: dict[str, Path], tmp_path: Path
) -> None:
    """A build needs no ``datasets``; an export does, and says so in one line."""
    import os

    shadow = tmp_path / "shadow" / "datasets"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("No module named datasets")\n')
    path = os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])
    out = tmp_path / "export"
    done = run_cli("export", str(builds["mmmu"]), "--to", str(out), env={"PYTHONPATH": path})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pip install 'abstain-build[hub]'" in done.stderr
    assert not out.exists()


def test_the_upload_help_names_the_current_login_command() -> None:
    """`huggingface-cli login` is deprecated: the Hub's CLI is now `hf auth login`."""
    done = run_cli("export", "--help", env={"COLUMNS": "250"})
    assert "`hf auth login`" in done.stdout and "huggingface-cli" not in done.stdout


@pytest.mark.slow
@pytest.mark.exhaustive  # test_shared_data reloads a real document build field for field,
# and the fixture's MMMU build holds images and the card's license the same way
def test_the_shared_mmmu_build_exports_and_reloads(tmp_path: Path) -> None:
    source = SHARED_DATA / "mmmu"
    if not source.is_dir():
        pytest.skip("needs ../shared/data")
    root = tmp_path / "built"
    build(BuildConfig(source=str(source), out=str(root), workers=2))
    out = tmp_path / "export"
    export_dataset(root, out)
    assert_same_as_built(root, out)
    assert_nothing_private(root, out)
    card = (out / "README.md").read_text()
    assert json.dumps("apache-2.0").strip('"') in card


def test_the_build_card_fits_its_data_and_explains_plans_versus_items(
    builds: dict[str, Path],
) -> None:
    images = (builds["mmmu"] / "README.md").read_text()
    documents = (builds["mmlongbench-doc"] / "README.md").read_text()
    assert "PDF" not in images and "evidence pages rendered" not in images
    assert "the PDFs" in documents and "evidence pages rendered" in documents
    for card in (images, documents):
        assert "first choice per sample" in card and "count what was built" in card
        assert "load_built" in card


def test_documents_ship_once_or_not_at_all(builds: dict[str, Path], tmp_path: Path) -> None:
    none = tmp_path / "none"
    result = export_dataset(builds["mmlongbench-doc"], none, documents="none")
    assert result.documents == 0 and not (none / "documents").exists()
    rows = [row for rows in reload(none).values() for row in rows]
    assert rows and all(row["document"] is None for row in rows)
    card = (none / "README.md").read_text()
    assert "document-question-answering" in card and "The PDFs are not included" in card
    with pytest.raises(ConfigError, match="--documents"):
        export_dataset(builds["mmlongbench-doc"], tmp_path / "bad", documents="some")


def test_a_build_whose_context_is_the_evidence_pages_ships_no_pdf_by_default(
    tmp_path: Path,
) -> None:
    root = tmp_path / "pages"
    build(
        BuildConfig(
            source=str(FIXTURES / "mmlongbench-doc"), out=str(root), context="pages", limit=2
        )
    )
    assert export_dataset(root, tmp_path / "auto").documents == 0
    assert export_dataset(root, tmp_path / "full", documents="full").documents > 0
