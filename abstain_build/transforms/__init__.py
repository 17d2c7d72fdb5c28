"""Transforms: the registry and the building blocks for writing one."""

from ..model import Edits, PageCrop, Plan, Region, TokenEdit
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

__all__ = [
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
    "TokenEdit",
    "Transform",
    "TransformContext",
    "get_registry",
    "register_transform",
    "transforms",
]
