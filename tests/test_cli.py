"""The command line: registry listing, usage errors, samples, version and config files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from abstain_build import __version__
from abstain_build.model import FAMILIES
from abstain_build.transforms import get_registry

from .conftest import FIXTURES, ROOT, read_jsonl, run_cli

BUILTINS = ("adaptive_darkness", "hide_evidence_page", "temporal_drift")


def assert_usage_error(done, *fragments: str) -> None:
    """Exit 2, one line on stderr that says what is wrong, no traceback."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error:"), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture(scope="module")
def listed() -> list[dict]:
    done = run_cli("transforms", "list", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- transforms list / show -------------------------------------------------------------------


def test_transforms_list_json_describes_every_builtin(listed: list[dict]) -> None:
    by_name = {row["name"]: row for row in listed}
    assert set(BUILTINS) <= set(by_name)
    for name in BUILTINS:
        assert by_name[name]["origin"] == "builtin"


def test_transforms_list_json_rows_have_the_documented_keys(listed: list[dict]) -> None:
    assert isinstance(listed, list) and listed
    for row in listed:
        assert {"name", "version", "family", "axis", "target", "origin", "params"} <= set(row)
        assert isinstance(row["version"], int) and row["version"] >= 1, row
        assert row["family"] in FAMILIES[row["axis"]], row
        assert row["target"] in ("image", "document", "question"), row
        assert isinstance(row["params"], dict)


def test_transforms_list_json_matches_the_registry(listed: list[dict]) -> None:
    registry = get_registry()
    expected = {name for name in registry.names() if registry.origin(name) == "builtin"}
    assert {row["name"] for row in listed if row["origin"] == "builtin"} == expected


def test_transforms_list_table_shows_each_full_name(listed: list[dict]) -> None:
    done = run_cli("transforms", "list")
    assert done.returncode == 0, done.stderr
    for row in listed:
        assert row["name"] in done.stdout


def test_transforms_list_table_is_not_truncated_when_piped(listed: list[dict]) -> None:
    done = run_cli("transforms", "list", env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    for row in listed:
        assert row["family"] in done.stdout
        assert row["axis"] in done.stdout


def test_transforms_show_json_gives_defaults_and_bounds() -> None:
    done = run_cli("transforms", "show", "temporal_drift", "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["name"] == "temporal_drift"
    declared = get_registry().get("temporal_drift").params
    assert set(info["params"]) == set(declared)
    for name, spec in declared.items():
        shown = info["params"][name]
        assert shown["default"] == spec.default
        assert shown["low"] == spec.low
        assert shown["high"] == spec.high
        assert shown["choices"] == (list(spec.choices) if spec.choices is not None else None)
    assert info["params"]["min_gap"]["low"] is not None
    assert info["params"]["direction"]["choices"]


def test_transforms_show_table_lists_parameters() -> None:
    done = run_cli("transforms", "show", "temporal_drift")
    assert done.returncode == 0, done.stderr
    for name in ("min_gap", "max_gap", "direction"):
        assert name in done.stdout


def test_transforms_show_unknown_name_is_a_one_line_error_listing_known_names() -> None:
    done = run_cli("transforms", "show", "nope")
    assert_usage_error(done, "nope", *BUILTINS)


def test_transforms_show_misspelt_name_suggests_the_close_one() -> None:
    done = run_cli("transforms", "show", "temporal_drfit")
    assert_usage_error(done, "temporal_drfit", "did you mean temporal_drift")


# --- transform usage errors -------------------------------------------------------------------


def test_transform_unknown_name_is_refused_with_suggestion(tmp_path: Path) -> None:
    done = run_cli(
        "transform", "fixtures/mmmu", "--out", str(tmp_path / "o"), "-t", "adaptive_darknes"
    )
    assert_usage_error(done, "adaptive_darknes", "did you mean adaptive_darkness")


def test_transform_bad_param_syntax_is_refused(tmp_path: Path) -> None:
    done = run_cli(
        "transform", "fixtures/mmmu", "--out", str(tmp_path / "o"), "--param", "divisor=12"
    )
    assert_usage_error(done, "divisor=12", "NAME.KEY=VALUE")


def test_transform_param_outside_bounds_is_refused(tmp_path: Path) -> None:
    args = ["--param", "adaptive_darkness.divisor=1000"]
    done = run_cli("transform", "fixtures/mmmu", "--out", str(tmp_path / "o"), *args)
    assert_usage_error(done, "adaptive_darkness.divisor", "maximum")


def test_transform_zero_workers_is_refused(tmp_path: Path) -> None:
    done = run_cli("transform", "fixtures/mmmu", "--out", str(tmp_path / "o"), "--workers", "0")
    assert_usage_error(done, "workers")


def test_transform_without_out_is_refused() -> None:
    done = run_cli("transform", "fixtures/mmmu")
    assert_usage_error(done, "out")


def test_transform_missing_source_is_refused(tmp_path: Path) -> None:
    done = run_cli("transform", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert_usage_error(done, "nowhere", "does not exist")


def test_transform_unknown_config_key_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "build.toml"
    config.write_text('source = "x"\nsead = 3\n', encoding="utf-8")
    done = run_cli("transform", "--config", str(config), "--out", str(tmp_path / "o"))
    assert_usage_error(done, "sead (did you mean seed?)")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('seed = "three"', "seed: expected a whole number, got 'three'"),
        ('workers = "two"', "workers: expected a whole number, got 'two'"),
        ("dpi = 144.5", "dpi: expected a whole number, got 144.5"),
        ('overwrite = "yes"', "overwrite: expected true or false"),
        ("transforms = 3", "transforms: expected a list"),
    ],
)
def test_config_values_are_typed(tmp_path: Path, line: str, message: str) -> None:
    config = tmp_path / "build.toml"
    config.write_text(f'source = "x"\n{line}\n', encoding="utf-8")
    done = run_cli("transform", "--config", str(config), "--out", str(tmp_path / "o"))
    assert_usage_error(done, message)


def test_config_keys_may_be_the_flag_names() -> None:
    from abstain_build.config import resolve_config

    config = resolve_config(
        {"concurrency": 2, "transforms": "aggressive_crop, adaptive_darkness", "no_routing": True},
        {"source": "x", "out": "y"},
    )
    assert config.model_concurrency == 2 and config.routing == "none"
    assert config.transforms == ["aggressive_crop", "adaptive_darkness"]


@pytest.mark.parametrize(
    "args",
    [
        ["-t", "adaptive_darknes"],
        ["--param", "adaptive_darkness.divisor=1000"],
        ["--workers", "0"],
    ],
    ids=["unknown-transform", "param-bounds", "workers"],
)
def test_refused_run_writes_no_output_folder(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "o"
    done = run_cli("transform", "fixtures/mmmu", "--out", str(out), *args)
    assert done.returncode == 2
    assert not out.exists()


# --- start-up ---------------------------------------------------------------------------------

#: What `--help` must not import: the PDF, image and model libraries and the parts of the
#: package that bring them (each command imports what it runs on when it runs).
HEAVY_AT_START_UP = (
    "fitz",
    "pymupdf",
    "pikepdf",
    "cv2",
    "PIL",
    "numpy",
    "pyarrow",
    "rapidfuzz",
    "matplotlib",
    "spacy",
    "torch",
    "tokenizers",
    "datasets",
    "openai",
    "anthropic",
    "abstain_build.config",
    "abstain_build.pipeline",
    "abstain_build.qc",
    "abstain_build.transforms",
    "abstain_build.loaders.mmmu",
    "abstain_build.models",
    "abstain_build.scoring",
    "abstain_build.review",
    "abstain_build.validity",
)

HELP_PROBE = """
import contextlib, io, json, sys
import typer
from abstain_build.cli import app
group = typer.main.get_command(app)
calls = [["--help"], *([name, "--help"] for name in group.commands)]
calls += [["transforms", name, "--help"] for name in group.commands["transforms"].commands]
for args in calls:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        app(args, prog_name="abstain-build")
print(json.dumps({"calls": len(calls), "modules": sorted(sys.modules)}))
"""


def test_help_of_every_command_imports_no_heavy_library() -> None:
    """`abstain-build --help` (and each command's) starts in a fraction of a second: it loads
    Typer and Rich, not PyMuPDF, numpy, the models or the pipeline (bench/startup.py)."""
    done = subprocess.run(
        [sys.executable, "-c", HELP_PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe["calls"] >= 16  # the app, every command and both `transforms` commands
    loaded = [
        name
        for name in probe["modules"]
        if any(name == heavy or name.startswith(heavy + ".") for heavy in HEAVY_AT_START_UP)
    ]
    assert not loaded, loaded


# --- version and samples ----------------------------------------------------------------------


def test_version_prints_the_package_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"abstain-build {__version__}"


def test_samples_lists_thirteen_records_with_one_skipped() -> None:
    done = run_cli("samples", "fixtures/mmlongbench-doc")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.strip().splitlines()
    assert "13 records" in header
    assert len(rows) == 13
    statuses = [row.split()[1] for row in rows]
    assert statuses.count("skipped") == 1
    assert statuses.count("ok") == 12


def test_samples_json_prints_one_object_per_line() -> None:
    done = run_cli("samples", "fixtures/mmlongbench-doc", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 13
    rows = [json.loads(line) for line in lines]
    assert all({"id", "status", "question", "detail"} <= set(row) for row in rows)
    assert [row["status"] for row in rows].count("skipped") == 1
    assert len({row["id"] for row in rows}) == 13


# --- config files -----------------------------------------------------------------------------

BUILD_FLAGS = [
    "--seed",
    "3",
    "--limit",
    "3",
    "--transforms",
    "aggressive_multi_mask",
    "--no-routing",
    "--param",
    "aggressive_multi_mask.min_coverage=1",
    "--qc",
    "none",
]
BUILD_TOML = """\
source = "../data/mmmu"
out = "../runs/from-config"
seed = 3
limit = 3
transforms = ["aggressive_multi_mask"]
routing = "none"
qc = "none"

[transform_params.aggressive_multi_mask]
min_coverage = 1
"""


@pytest.fixture(scope="module")
def config_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/mmmu (a copy of the fixture), conf/build.toml, and three builds under runs/."""
    root = tmp_path_factory.mktemp("config")
    shutil.copytree(FIXTURES / "mmmu", root / "data" / "mmmu")
    config = root / "conf" / "build.toml"
    config.parent.mkdir()
    config.write_text(BUILD_TOML, encoding="utf-8")
    # a working directory where "../data/mmmu" would mean root/deep/data/mmmu (absent)
    elsewhere = root / "deep" / "er"
    elsewhere.mkdir(parents=True)
    runs = [
        run_cli("transform", "--config", str(config), "--quiet", cwd=elsewhere),
        run_cli(
            "transform",
            str(root / "data" / "mmmu"),
            "--out",
            str(root / "runs" / "from-flags"),
            "--quiet",
            *BUILD_FLAGS,
        ),
        run_cli(
            "transform",
            "--config",
            str(config),
            "--out",
            str(root / "runs" / "overridden"),
            "--seed",
            "4",
            "--quiet",
            cwd=elsewhere,
        ),
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr
    return root


def test_config_relative_paths_resolve_from_the_config_folder(config_project: Path) -> None:
    out = config_project / "runs" / "from-config"
    assert (out / "data.jsonl").is_file()
    assert not (config_project / "deep" / "runs").exists()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert Path(manifest["config"]["source"]) == (config_project / "data" / "mmmu").resolve()


def test_config_file_gives_the_same_data_as_the_equivalent_flags(config_project: Path) -> None:
    from_config = (config_project / "runs" / "from-config" / "data.jsonl").read_bytes()
    from_flags = (config_project / "runs" / "from-flags" / "data.jsonl").read_bytes()
    assert from_config
    assert from_config == from_flags


def test_command_line_flags_override_the_config_file(config_project: Path) -> None:
    out = config_project / "runs" / "overridden"
    config = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["config"]
    assert config["seed"] == 4
    assert config["out"] == str(out.resolve())
    # what the flags did not override still comes from the file
    assert config["limit"] == 3
    assert config["transform_params"] == {"aggressive_multi_mask": {"min_coverage": 1}}
    base = (config_project / "runs" / "from-config" / "data.jsonl").read_bytes()
    assert (out / "data.jsonl").read_bytes() != base


def test_param_flag_values_are_typed_like_toml(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = run_cli(
        "transform",
        "fixtures/mmmu",
        "--out",
        str(out),
        "--limit",
        "1",
        "-q",
        "--transforms",
        "aggressive_multi_mask",
        "--param",
        "aggressive_multi_mask.min_coverage=1",
        "--qc",
        "none",
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["transform_params"] == {"aggressive_multi_mask": {"min_coverage": 1}}
    (record,) = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert json.loads(record["transform"]["params"])["min_coverage"] == 1.0


def test_transforms_may_be_named_comma_separated_or_with_the_option_repeated(
    tmp_path: Path,
) -> None:
    done = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(tmp_path / "o"), "--limit", "1",
        "-t", "aggressive_multi_mask,blur_edge_mask", "-t", "overlay_label_mask", "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["config"]["transforms"] == [
        "aggressive_multi_mask",
        "blur_edge_mask",
        "overlay_label_mask",
    ]


def test_progress_goes_to_a_log_as_plain_lines_per_phase(tmp_path: Path) -> None:
    done = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(tmp_path / "o"), "--limit", "3",
        "-t", "aggressive_multi_mask", "--progress-every", "0",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert any(line.startswith("routing: 1/3") for line in lines), lines
    assert any(line.startswith("building: 3/3") for line in lines), lines
    assert "\x1b[" not in done.stderr  # no terminal codes in a log
    quiet = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(tmp_path / "q"), "--limit", "3",
        "-t", "aggressive_multi_mask", "--progress-every", "0", "-q",
    )  # fmt: skip
    assert quiet.returncode == 0 and "building:" not in quiet.stderr


def test_classify_reports_its_progress_in_a_log_and_keeps_stdout_clean() -> None:
    done = run_cli(
        "classify", str(FIXTURES / "mmmu"), "--json", "--progress-every", "0", "--limit", "4"
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("classifying: ")][
        -1
    ].startswith("classifying: 4/4")
    assert len(json.loads(done.stdout)["items"]) == 4  # one JSON document, nothing else
    quiet = run_cli("classify", str(FIXTURES / "mmmu"), "--progress-every", "0", "--quiet")
    assert quiet.returncode == 0 and "classifying:" not in quiet.stderr


def test_a_phase_that_starts_closes_the_one_before_it_in_a_log() -> None:
    """A sample that fails to load leaves routing at 89/90: its last line goes out when
    building starts, not after "building: 90/90" at the end."""
    import io

    from rich.console import Console

    from abstain_build.progress import PhaseProgress

    stream = io.StringIO()
    with PhaseProgress(Console(file=stream, force_terminal=False), every=3600) as progress:
        progress(1, 3, "route")
        progress(2, 3, "route")
        progress(1, 2, "build")
        progress(2, 2, "build")
    lines = [line.split(",")[0] for line in stream.getvalue().splitlines()]
    assert lines == ["routing: 2/3", "building: 2/2"], lines


def test_every_command_maps_failures_one_way(tmp_path: Path) -> None:
    """``mapped_failures``, around each command's work: a setting it cannot use and a stop
    exit 2 with the reason, an unexpected error exits 2 with its type (its traceback under
    --debug), and Ctrl-C exits 130 where the command resumes."""
    import typer

    from abstain_build.commands.app import mapped_failures
    from abstain_build.errors import ConfigError, RunStopped

    def exit_code(exc: BaseException, **how: bool) -> int:
        with pytest.raises(typer.Exit) as raised, mapped_failures(**how):
            raise exc
        return raised.value.exit_code

    assert exit_code(ConfigError("no such source")) == 2
    assert exit_code(RunStopped("the model is unusable")) == 2
    assert exit_code(ValueError("odd")) == 2
    assert exit_code(KeyboardInterrupt(), resumable=True) == 130
    with pytest.raises(ValueError), mapped_failures(debug=True):
        raise ValueError("odd")
    with pytest.raises(KeyboardInterrupt), mapped_failures():
        raise KeyboardInterrupt
    done = run_cli("replay", str(tmp_path))
    assert done.returncode == 2
    assert "is not a folder built by `transform`" in done.stderr
