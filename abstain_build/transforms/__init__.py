"""Transforms: the registry and the building blocks for writing one."""

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
