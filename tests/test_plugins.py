"""Plugins: an installed entry point, a --plugin module, and the registry's rules."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from abstain_build.model import MODALITY
from abstain_build.transforms import (
    ImageTransform,
    RegistryError,
    get_registry,
    register_transform,
    transforms,
)

from .conftest import FIXTURES, ROOT, read_jsonl, run_cli

PLUGIN_MODULE = """\
import numpy as np

from abstain_build.model import MODALITY, Region
from abstain_build.transforms import ImagePlan, ImageTransform, register_transform


@register_transform
class Blackout(ImageTransform):
    name = "test_blackout"
    family = "missing_visual_information"
    axis = MODALITY
    description = "Every pixel black."

    def plan_image(self, image, index, rng, ctx):
        height, width = image.shape[:2]
        return ImagePlan(params={}, regions=[Region((0, 0, width, height), kind="mask")])

    def apply_image(self, image, params):
        return np.zeros_like(image)
"""


def _params(record: dict[str, Any]) -> dict[str, Any]:
    params = record["transform"]["params"]
    return json.loads(params) if isinstance(params, str) else params


# --- an installed plugin (entry point) --------------------------------------------------------


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/plugin installed into a private folder (nothing is built inside the repo)."""
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "--version"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        pytest.skip(f"pip is not available in this interpreter: {probe.stderr.strip()}")
    root = tmp_path_factory.mktemp("plugin")
    copy = root / "plugin"
    shutil.copytree(ROOT / "examples" / "plugin", copy)
    site = root / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "--target",
            str(site),
            str(copy),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return site


def _with_site(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def pixelated(plugin_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pixelate") / "run"
    done = run_cli(
        "transform",
        "fixtures/mmmu",
        "--out",
        str(out),
        "--transforms",
        "pixelate",
        "--no-routing",
        "--quiet",
        env=_with_site(plugin_site),
    )
    assert done.returncode == 0, done.stderr
    return out


def test_installed_plugin_is_listed_with_its_entry_point(plugin_site: Path) -> None:
    done = run_cli("transforms", "list", "--json", env=_with_site(plugin_site))
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert "pixelate" in rows
    assert "entry point" in rows["pixelate"]["origin"]
    assert "pixelate" in rows["pixelate"]["origin"]
    assert rows["adaptive_darkness"]["origin"] == "builtin"


def test_installed_plugin_transform_emits_one_item_per_sample(pixelated: Path) -> None:
    records = read_jsonl(pixelated / "data.jsonl")
    samples = {r["group_id"] for r in records if r["answerable"]}
    produced = [r for r in records if r["transform"] is not None]
    assert len(samples) == len(read_jsonl(FIXTURES / "mmmu" / "samples.jsonl"))
    assert all(r["transform"]["name"] == "pixelate" for r in produced)
    # A plugin's image edit is an evidence edit like any other: not for a question the
    # blind check finds answerable without its image.
    needs_image = {r["group_id"] for r in records if r["blind"]["verdict"] == "evidence"}
    assert 0 < len(needs_image) < len(samples)
    assert sorted(r["group_id"] for r in produced) == sorted(needs_image)


def test_installed_plugin_output_is_constant_within_each_block(pixelated: Path) -> None:
    record = next(
        r for r in read_jsonl(pixelated / "data.jsonl") if r["id"] == "fixture_chart_bar/pixelate"
    )
    block = _params(record)["per_image"][0]["block"]
    assert block >= 2
    result = np.asarray(Image.open(pixelated / record["images"][0]))
    original = np.asarray(
        Image.open(pixelated / "assets" / "fixture_chart_bar" / "original" / "image_1.png")
    )
    assert result.shape == original.shape

    def blocks_constant(image: np.ndarray) -> bool:
        height, width = image.shape[:2]
        for y in range(0, height, block):
            for x in range(0, width, block):
                tile = image[y : y + block, x : x + block].reshape(-1, *image.shape[2:])
                if not (tile == tile[0]).all():
                    return False
        return True

    assert not blocks_constant(original), "the check would pass on the original too"
    assert blocks_constant(result)


def test_installed_plugin_can_be_shown(plugin_site: Path) -> None:
    done = run_cli("transforms", "show", "pixelate", env=_with_site(plugin_site))
    assert done.returncode == 0, done.stderr
    assert "block_fraction" in done.stdout
    assert "entry point" in done.stdout


# --- --plugin MODULE --------------------------------------------------------------------------


@pytest.fixture
def module_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / "some_module.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    return folder


def test_plugin_module_is_listed_with_its_origin(module_dir: Path) -> None:
    done = run_cli(
        "transforms",
        "list",
        "--json",
        "--plugin",
        "some_module",
        env={"PYTHONPATH": str(module_dir)},
    )
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["test_blackout"]["origin"] == "plugin module some_module"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_plugin_module_transform_runs(module_dir: Path, tmp_path: Path, workers: str) -> None:
    out = tmp_path / "run"
    done = run_cli(
        "transform",
        "fixtures/mmmu",
        "--out",
        str(out),
        "--plugin",
        "some_module",
        "--transforms",
        "test_blackout",
        "--limit",
        "3",
        "--workers",
        workers,
        "--quiet",
        "--qc",
        "none",
        env={"PYTHONPATH": str(module_dir)},
    )
    assert done.returncode == 0, done.stderr
    records = read_jsonl(out / "data.jsonl")
    produced = [r for r in records if r["transform"] is not None]
    assert [r["transform"]["name"] for r in produced] == ["test_blackout"] * 3
    control = next(r for r in records if r["id"] == f"{produced[0]['group_id']}/original")
    original = np.asarray(Image.open(out / control["images"][0]))
    blacked = np.asarray(Image.open(out / produced[0]["images"][0]))
    assert blacked.shape[:2] == original.shape[:2] and not blacked.any()


def test_plugin_module_that_fails_to_import_exits_2(tmp_path: Path) -> None:
    (tmp_path / "broken_cli_plugin.py").write_text(
        'raise RuntimeError("plugin exploded")\n', encoding="utf-8"
    )
    done = run_cli(
        "transform",
        "fixtures/mmmu",
        "--out",
        str(tmp_path / "o"),
        "--plugin",
        "broken_cli_plugin",
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "broken_cli_plugin" in lines[0] and "plugin exploded" in lines[0]


def test_plugin_module_with_an_invalid_class_exits_2(tmp_path: Path) -> None:
    source = PLUGIN_MODULE.replace("@register_transform\n", "").replace(
        '"missing_visual_information"', '"no_such_family"'
    )
    (tmp_path / "invalid_cli_plugin.py").write_text(source, encoding="utf-8")
    done = run_cli(
        "transforms", "list", "--plugin", "invalid_cli_plugin", env={"PYTHONPATH": str(tmp_path)}
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "no_such_family" in done.stderr and "family" in done.stderr


# --- the README's example ------------------------------------------------------------------


def readme_example() -> tuple[str, list[str]]:
    """The transform README.md shows under "Writing a transform", and the command it gives
    to run it (the first python and bash blocks of that section, read as they are)."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Writing a transform")[1]
    section = section.split("\n## ")[0]
    code = section.split("```python\n", 1)[1].split("\n```", 1)[0]
    command = section.split("```bash\n", 1)[1].split("\n```", 1)[0]
    return code, shlex.split(command)


def test_the_readme_example_makes_accepted_counterparts_on_the_fixture(tmp_path: Path) -> None:
    code, command = readme_example()
    assert command[:2] == ["abstain-build", "transform"]
    module = command[command.index("--plugin") + 1]
    (tmp_path / f"{module}.py").write_text(code, encoding="utf-8")
    args = list(command[1:])
    args[args.index("--out") + 1] = str(tmp_path / "out")
    done = run_cli(*args, "--limit", "2", "--quiet", env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    name = command[command.index("--transforms") + 1]
    made = [r for r in read_jsonl(tmp_path / "out" / "data.jsonl") if r["transform"]]
    assert made and all(r["transform"]["name"] == name for r in made)
    assert any(r["qc"]["status"] == "accepted" and not r["answerable"] for r in made)


# --- registry rules (in-process) --------------------------------------------------------------


def _image_transform(name: str, **attrs: Any) -> type[ImageTransform]:
    body = {
        "name": name,
        "family": "occlusion_ambiguity",
        "axis": MODALITY,
        "description": "test",
        "apply_image": lambda self, image, params: image,
        **attrs,
    }
    return type(f"T_{name}", (ImageTransform,), body)


def test_registering_a_taken_name_is_refused() -> None:
    get_registry()
    first = _image_transform("test_clash")
    second = _image_transform("test_clash")
    try:
        register_transform(first)
        with pytest.raises(RegistryError, match="already registered"):
            register_transform(second)
        assert transforms.get("test_clash") is first
    finally:
        transforms.unregister("test_clash")


def test_override_replaces_a_registered_name() -> None:
    get_registry()
    first = _image_transform("test_override")
    second = _image_transform("test_override")
    try:
        register_transform(first)
        register_transform(second, override=True)
        assert transforms.get("test_override") is second
    finally:
        transforms.unregister("test_override")


def test_registering_over_a_builtin_is_refused() -> None:
    get_registry()
    builtin = transforms.get("adaptive_darkness")
    with pytest.raises(RegistryError, match="adaptive_darkness"):
        register_transform(_image_transform("adaptive_darkness"))
    assert transforms.get("adaptive_darkness") is builtin
    assert transforms.origin("adaptive_darkness") == "builtin"


@pytest.mark.parametrize(
    ("attrs", "complaint"),
    [
        ({"family": "no_such_family"}, "family"),
        ({"family": "evidence_removal"}, "family"),  # a family of the other axis
        ({"axis": "sideways"}, "axis"),
        ({"target": "audio"}, "target"),
        ({"name": "Test_Upper"}, "lowercase"),
        ({"name": "test-dash"}, "lowercase"),
    ],
    ids=["unknown-family", "other-axis-family", "axis", "target", "uppercase", "dash"],
)
def test_invalid_declaration_is_refused_at_registration(
    attrs: dict[str, Any], complaint: str
) -> None:
    get_registry()
    name = attrs.get("name", "test_invalid")
    cls = _image_transform(name, **{k: v for k, v in attrs.items() if k != "name"})
    try:
        with pytest.raises(RegistryError) as raised:
            register_transform(cls)
        assert complaint in str(raised.value)
        bad_value = next(iter(attrs.values()))
        assert repr(bad_value) in str(raised.value) or complaint == "target"
        assert name not in transforms
    finally:
        transforms.unregister(name)


def test_broken_plugin_module_gives_a_clear_registry_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_inprocess_plugin.py").write_text(
        textwrap.dedent(
            """\
            import numpy  # a real import first, then the failure
            raise ImportError("needs a library that is not installed")
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError) as raised:
        get_registry(("broken_inprocess_plugin",))
    message = str(raised.value)
    assert "broken_inprocess_plugin" in message
    assert "needs a library that is not installed" in message
    assert "broken_inprocess_plugin" not in sys.modules


def test_missing_plugin_module_gives_a_clear_registry_error() -> None:
    with pytest.raises(RegistryError, match="no_such_plugin_module_xyz"):
        get_registry(("no_such_plugin_module_xyz",))


def test_console_script_finds_a_plugin_module_in_the_current_folder(
    module_dir: Path, tmp_path: Path
) -> None:
    """Like ``python -m``: ``--plugin some_module`` with some_module.py in the working folder."""
    script = Path(sys.executable).parent / "abstain-build"
    if not script.exists():
        pytest.skip("the abstain-build console script is not installed beside this interpreter")
    out = tmp_path / "run"
    done = subprocess.run(
        [
            str(script),
            "transform",
            str(FIXTURES / "mmmu"),
            "--out",
            str(out),
            "--plugin",
            "some_module",
            "--transforms",
            "test_blackout",
            "--limit",
            "1",
            "--workers",
            "2",
            "-q",
            "--qc",
            "none",
        ],
        cwd=module_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert [r["transform"]["name"] for r in read_jsonl(out / "data.jsonl") if r["transform"]] == [
        "test_blackout"
    ]


def test_judges_are_a_registry_like_the_transforms() -> None:
    """A misspelt judge is answered with the close names; a second class under a taken
    name is refused, naming where the first came from; a judge name needs its prefix."""
    from abstain_build.errors import ConfigError
    from abstain_build.qc.judges.base import Judge, get_judge, judges, register_judge

    with pytest.raises(
        ConfigError, match=r"unknown judge 'offline:lek' \(did you mean offline:leak"
    ):
        get_judge("offline:lek")
    assert judges.origin("offline:leak") == "builtin"

    class Copy(Judge):
        name = "offline:leak"

        def judge(self, item):  # pragma: no cover - never called
            raise NotImplementedError

    with pytest.raises(
        RegistryError, match="judge 'offline:leak' is already registered by builtin"
    ):
        register_judge(Copy)

    class Unprefixed(Judge):
        name = "leak"

        def judge(self, item):  # pragma: no cover - never called
            raise NotImplementedError

    with pytest.raises(RegistryError, match="a judge name looks like 'offline:leak'"):
        register_judge(Unprefixed)
    assert "leak" not in judges
