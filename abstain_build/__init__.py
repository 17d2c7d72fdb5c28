"""abstain-build: verified unanswerable counterparts for multimodal QA datasets.

The command line is a thin layer over this API::

    from abstain_build import BuildConfig, build
    result = build(BuildConfig(source="data/mmlongbench-doc", out="runs/mmlbd", seed=7))

The names below are imported on first use, so that ``import abstain_build`` (and the
command's ``--help``) does not load the pipeline and its PDF, image and model libraries.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .lazy_exports import lazy_exports

# PyMuPDF's find_tables() prints an advertisement for another package on stdout, once per
# process; it would land in the middle of `--json` output and worker logs.
os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .config import BuildConfig
    from .errors import ConfigError, SampleError
    from .loaders import open_source
    from .pipeline.build import BuildResult, build
    from .transforms import get_registry, register_transform

#: Each public name and the module it comes from.
_EXPORTS = {
    "BuildConfig": ".config",
    "BuildResult": ".pipeline.build",
    "ConfigError": ".errors",
    "SampleError": ".errors",
    "build": ".pipeline.build",
    "get_registry": ".transforms",
    "open_source": ".loaders",
    "register_transform": ".transforms",
}

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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
