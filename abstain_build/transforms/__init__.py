"""Transforms: the registry and the building blocks for writing one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from ..model import Edits, PageCrop, Plan, Region, TokenEdit
    from ..rewrites.offline import Candidate
    from ..rewrites.prompts import RewritePrompt
    from .base import (
        DocumentTransform,
        ImagePlan,
        ImageTransform,
        NotApplicable,
        QuestionTransform,
        Transform,
        TransformContext,
    )
    from .params import Param, ParamError
    from .registry import (
        InvalidTransformError,
        RegistryError,
        get_registry,
        register_transform,
        transforms,
    )
    from .rewrite_base import RewriteTransform

#: Each public name and the module it comes from (imported on first use: a kernel of
#: ``functional`` can be imported without the registry and the transforms' base).
_EXPORTS = {
    "Edits": "..model",
    "PageCrop": "..model",
    "Plan": "..model",
    "Region": "..model",
    "TokenEdit": "..model",
    "Candidate": "..rewrites.offline",
    "RewritePrompt": "..rewrites.prompts",
    "DocumentTransform": ".base",
    "ImagePlan": ".base",
    "ImageTransform": ".base",
    "NotApplicable": ".base",
    "QuestionTransform": ".base",
    "Transform": ".base",
    "TransformContext": ".base",
    "Param": ".params",
    "ParamError": ".params",
    "InvalidTransformError": ".registry",
    "RegistryError": ".registry",
    "get_registry": ".registry",
    "register_transform": ".registry",
    "transforms": ".registry",
    "RewriteTransform": ".rewrite_base",
}

__all__ = [
    "Candidate",
    "DocumentTransform",
    "Edits",
    "ImagePlan",
    "ImageTransform",
    "InvalidTransformError",
    "NotApplicable",
    "PageCrop",
    "Param",
    "ParamError",
    "Plan",
    "QuestionTransform",
    "Region",
    "RegistryError",
    "RewritePrompt",
    "RewriteTransform",
    "TokenEdit",
    "Transform",
    "TransformContext",
    "get_registry",
    "register_transform",
    "transforms",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
