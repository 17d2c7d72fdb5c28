"""abstain-build: verified unanswerable counterparts for multimodal QA datasets.

The command line is a thin layer over this API::

    from abstain_build import BuildConfig, build
    result = build(BuildConfig(source="data/mmlongbench-doc", out="runs/mmlbd", seed=7))
"""

from __future__ import annotations

__version__ = "0.1.0"

from .config import BuildConfig
from .errors import ConfigError, SampleError
from .loaders import open_source
from .pipeline.build import BuildResult, build
from .transforms import get_registry, register_transform

__all__ = [
    "BuildConfig",
    "BuildResult",
    "ConfigError",
    "SampleError",
    "__version__",
    "build",
    "get_registry",
    "open_source",
    "register_transform",
]
