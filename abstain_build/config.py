"""Run configuration: flags, TOML files and manifests resolve to one ``BuildConfig``."""

from __future__ import annotations

import difflib
import functools
import json
import tomllib
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .evidence.context import CONTEXTS
from .media.images import DEFAULT_MAX_PIXELS
from .media.pdf import DEFAULT_DPI
from .schema import EVIDENCE_SETS

#: "auto": question-aware routing, one item per sample; "none": every transform that fits.
ROUTING_MODES = ("auto", "none")

#: Settings that do not change what is written, so a resumed run may differ in them.
#: Where a build's samples can run (``--executor``).
EXECUTORS = ("local", "ray")

NOT_FINGERPRINTED = frozenset(
    {
        "out",
        "workers",
        "executor",
        "ray_address",
        "overwrite",
        "model_concurrency",
        "model_timeout",
        "max_unusable_replies",
        "ocr_cache",
    }
)


@dataclass
class BuildConfig:
    """Everything that defines a build. Field names are the TOML keys and the CLI flags."""

    source: str
    out: str
    format: str | None = None
    seed: int = 0
    workers: int = 1
    #: Where samples run: "local" (``workers`` processes on this machine) or "ray" (Ray
    #: tasks, at most ``workers`` in flight, on ``ray_address`` or a local Ray).
    executor: str = "local"
    ray_address: str | None = None
    transforms: list[str] | None = None  # None: every registered transform that applies
    routing: str = "auto"
    transform_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugins: list[str] = field(default_factory=list)
    limit: int | None = None
    max_pixels: int = DEFAULT_MAX_PIXELS
    dpi: int = DEFAULT_DPI
    overwrite: bool = False
    #: Rewrite model for the question transforms (``openai:MODEL[@URL]``,
    #: ``anthropic:MODEL[@URL]``); None: offline templates.
    llm: str | None = None
    model_concurrency: int = 4  # model calls in flight at once, over all workers
    model_timeout: float = 120.0  # seconds per HTTP attempt
    #: Model replies in a row not in the format asked for before the run stops (0: never).
    max_unusable_replies: int = 5
    #: Verification: "offline" (the offline reference judges), "judges" (the ``judges``
    #: given), "none" (structural checks only). None: "judges" if judges are given.
    qc: str | None = None
    judges: list[str] = field(default_factory=list)
    #: What a model is meant to see of a document sample: "document" (the whole PDF, as
    #: MMLongBench-Doc's evaluation gives it) or "pages" (the evidence pages' images).
    context: str = "document"
    #: Keep a corruption that printed one clean new answer as an answer-changed item
    #: (answerable, with the new value as its gold); False: drop it (SPEC 7).
    answer_changed: bool = True
    #: The blind check's model (text only; same spec forms as ``llm``); None: the offline
    #: cues. What a question answerable without its evidence gets: "rewrite" (question
    #: rewrites only), "skip" (not used as a source) or "record" (recorded only).
    blind_gate: str | None = None
    blind_policy: str = "rewrite"
    #: The validity policy (SPEC 8): accept a counterpart only where the Wilson lower bound
    #: of its transform's measured validity reaches this. None: 0.85 with offline QC; with
    #: model judges the figures are recorded and the bar applies only when given. 0: off.
    min_validity: float | None = None
    #: Ledgers of blind readings to add to the package's (``abstain-build audit --ingest``).
    ledgers: list[str] = field(default_factory=list)
    #: Evidence sets to add per sample (``gold``, ``gold+distractors``,
    #: ``distractors``, ``none``; see :mod:`.pipeline.evidence_sets`), and distractors per set.
    evidence_sets: list[str] = field(default_factory=list)
    distractors: int = 4
    #: Where page readings and OCR results are kept: a folder shared by builds over the
    #: same documents reads each page once for all of them. None: ``OUT/state/ocr``.
    ocr_cache: str | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError("workers must be at least 1")
        if self.executor not in EXECUTORS:
            raise ConfigError(
                f"executor {self.executor!r} is not available; choose one of {', '.join(EXECUTORS)}"
            )
        unknown = [name for name in self.evidence_sets if name not in EVIDENCE_SETS]
        if unknown:
            raise ConfigError(
                f"evidence set {unknown[0]!r} is not available; choose from"
                f" {', '.join(EVIDENCE_SETS)}"
            )
        if not 1 <= self.distractors <= 50:
            raise ConfigError("distractors must be between 1 and 50")
        if self.ray_address and self.executor != "ray":
            raise ConfigError("ray_address is used with executor 'ray' only")
        if self.limit is not None and self.limit < 0:
            raise ConfigError("limit must be zero or more")
        if self.routing not in ROUTING_MODES:
            raise ConfigError(
                f"routing {self.routing!r} is not available;"
                f" choose one of {', '.join(ROUTING_MODES)}"
            )
        if self.context not in CONTEXTS:
            raise ConfigError(
                f"context {self.context!r} is not available; choose one of {', '.join(CONTEXTS)}"
            )
        if not 36 <= self.dpi <= 600:
            raise ConfigError("dpi must be between 36 and 600")
        if self.max_pixels < 1_000_000:
            raise ConfigError("max_pixels must be at least 1,000,000")
        if self.model_concurrency < 1:
            raise ConfigError("model_concurrency must be at least 1")
        if self.model_timeout <= 0:
            raise ConfigError("model_timeout must be positive")
        if self.max_unusable_replies < 0:
            raise ConfigError("max_unusable_replies must be zero (never stop) or more")
        if self.llm is not None:
            from .models.spec import parse_spec

            self.llm = parse_spec(self.llm).unredacted  # ConfigError for a malformed spec
        if self.blind_gate is not None:
            from .models.spec import parse_spec

            self.blind_gate = parse_spec(self.blind_gate).unredacted
        from .blind.verdict import POLICIES

        if self.blind_policy not in POLICIES:
            raise ConfigError(
                f"blind_policy {self.blind_policy!r} is not one of {', '.join(POLICIES)}"
            )
        if self.min_validity is not None and not 0 <= self.min_validity <= 1:
            raise ConfigError(f"min_validity must be between 0 and 1, got {self.min_validity}")
        self._check_qc()

    def _check_qc(self) -> None:
        from .qc.verify import QC_MODES

        if self.qc is None:
            self.qc = "judges" if self.judges else "offline"
        if self.qc not in QC_MODES:
            raise ConfigError(f"qc {self.qc!r} is not one of {', '.join(QC_MODES)}")
        if self.qc == "judges" and len(self.judges) < 2:
            raise ConfigError(
                "--qc judges needs two judges: --judge A --judge B (model specs such as"
                " openai:MODEL[@URL], or offline:leak / offline:retention)"
            )
        if self.qc != "judges" and self.judges:
            raise ConfigError(f"--judge is given, but --qc is {self.qc}: use --qc judges")

    def to_dict(self) -> dict[str, Any]:
        """The settings as written (manifest.json, state/config.json): models by their
        labels, a key in an endpoint URL's query masked (the fields keep the real URL)."""
        return public_settings(asdict(self))

    def fingerprint(self) -> dict[str, Any]:
        """The settings that determine the output (used to refuse mixing two configs in one DIR)."""
        data = {k: v for k, v in self.to_dict().items() if k not in NOT_FINGERPRINTED}
        data["source"] = str(Path(self.source).resolve())
        return data


#: Settings that name models (``openai:MODEL@URL``); a judge may also be a registered name.
MODEL_SETTINGS = ("llm", "blind_gate", "judges")


def public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with every model named by its label (``public_spec``): what is written,
    and what a resumed run compares, so the same command resumes and no secret is needed
    back from disk."""
    from .models.spec import public_spec

    public = dict(settings)
    for key in MODEL_SETTINGS:
        value = public.get(key)
        if isinstance(value, str):
            public[key] = public_spec(value)
        elif isinstance(value, list):
            public[key] = [public_spec(v) if isinstance(v, str) else v for v in value]
    return public


#: Keys named after the command-line flags, for the settings whose field names differ.
FLAG_KEYS = {
    "concurrency": "model_concurrency",
    "judge": "judges",
    "plugin": "plugins",
    "param": "transform_params",
    "ledger": "ledgers",
}
#: Settings that hold a list; a comma-separated string is split the way the flag is.
_LIST_KEYS = ("transforms", "judges", "plugins", "ledgers")


def _known(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """Keys as fields (flag names accepted: ``concurrency``, ``no_routing``, ...); an
    unknown key is refused with the nearest known one."""
    names = {f.name for f in fields(BuildConfig)}
    cleaned: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name == "no_routing":
            if value is not None and not isinstance(value, bool):
                raise ConfigError(f"{origin}: no_routing: expected true or false, got {value!r}")
            if value:
                cleaned["routing"] = "none"
            continue
        cleaned[FLAG_KEYS.get(name, name)] = value
    unknown = sorted(set(cleaned) - names)
    if unknown:
        hints = []
        for key in unknown:
            near = difflib.get_close_matches(key, sorted(names | set(FLAG_KEYS)), n=1)
            hints.append(f"{key} (did you mean {near[0]}?)" if near else key)
        raise ConfigError(f"{origin}: unknown setting(s) {', '.join(hints)}")
    for key in _LIST_KEYS:
        if isinstance(cleaned.get(key), str):
            cleaned[key] = [part.strip() for part in cleaned[key].split(",") if part.strip()]
    return cleaned


def typed_config(settings: dict[str, Any], origin: str = "configuration") -> BuildConfig:
    """A ``BuildConfig`` from loose settings (TOML, JSON, flags), every value checked against
    its field's type by pydantic, strictly: ``seed = "three"`` is refused, not coerced."""
    from pydantic import ValidationError

    data = {k: str(v) if isinstance(v, Path) else v for k, v in settings.items()}
    try:
        checked = _settings_model().model_validate(data, strict=True)
    except ValidationError as exc:
        lines = []
        for error in exc.errors(include_url=False):
            where = ".".join(str(part) for part in error["loc"] if not str(part).isdigit())
            where = where.split(".")[0] if error["loc"] else "value"
            lines.append(f"{where}: {_expected(error)}, got {error.get('input')!r}")
        raise ConfigError(f"{origin}: " + "; ".join(dict.fromkeys(lines))) from None
    return BuildConfig(**checked.model_dump(exclude_unset=True))


@functools.cache
def _settings_model() -> type:
    """A pydantic model with ``BuildConfig``'s fields and types (the dataclass stays the
    one definition; this only checks values before it is built)."""
    import typing

    from pydantic import ConfigDict, create_model

    hints = typing.get_type_hints(BuildConfig)
    specs: dict[str, Any] = {}
    for item in fields(BuildConfig):
        default = ... if item.default is MISSING and item.default_factory is MISSING else None
        specs[item.name] = (hints[item.name], default)
    return create_model("Settings", __config__=ConfigDict(extra="forbid"), **specs)


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Settings from a TOML file, or from the ``config`` of a previous run's manifest.json.

    Relative paths in a TOML file are relative to the file's folder.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{path}: not valid JSON ({exc})") from None
        data = data.get("config", data) if isinstance(data, dict) else None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a manifest with a 'config' object")
        return _known(data, str(path))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    data = _known(data, str(path))
    for key in ("source", "out"):
        if isinstance(data.get(key), str) and not Path(data[key]).is_absolute():
            data[key] = str((path.parent / data[key]).resolve())
    if isinstance(data.get("ledgers"), list):
        data["ledgers"] = [
            str((path.parent / p).resolve())
            if isinstance(p, str) and not Path(p).is_absolute()
            else p
            for p in data["ledgers"]
        ]
    return data


def resolve_config(file_settings: dict[str, Any], flags: dict[str, Any]) -> BuildConfig:
    """Flags given on the command line win over the file, the file over defaults."""
    merged = dict(file_settings)
    merged.update({key: value for key, value in flags.items() if value is not None})
    for key in ("source", "out"):
        if not merged.get(key):
            raise ConfigError(f"no {key} given (pass it on the command line or in --config)")
    merged = _known(merged, "configuration")
    return typed_config(merged)


def _expected(error: dict[str, Any]) -> str:
    """What a pydantic error asked for, in words."""
    kind = error.get("type", "")
    words = {
        "int_type": "expected a whole number",
        "float_type": "expected a number",
        "string_type": "expected text",
        "bool_type": "expected true or false",
        "list_type": "expected a list",
        "dict_type": "expected a table",
    }
    for prefix, text in words.items():
        if kind.startswith(prefix.removesuffix("_type")):
            return text
    return str(error.get("msg", "invalid value")).lower()
