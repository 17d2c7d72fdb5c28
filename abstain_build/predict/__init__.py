"""Run a model on a built dataset, as the method evaluates it: ``abstain-build predict``.

``predict(DATASET, SPEC, OUT)`` asks the model each item (question, options, the images or
evidence pages the record ships) under one condition (base, vconf, cot) and one clause
(standard, extreme), as one model (``standalone``) or a Reasoner-Verifier system
(``mas-sequential``, ``mas-iterative``), or runs an abstention baseline instead
(``BASELINES``). It writes the predictions file ``eval`` reads, a sidecar with each step's
reply, tokens and calls, and a cost summary. Resumable: items already in OUT are not
asked again.
"""

from .agents import SYSTEMS
from .methods import ANCHORS, BASELINES
from .prompts import CLAUSES, CONDITIONS, build_request, parse_reply
from .run import PredictResult, grid_paths, method_label, predict

__all__ = [
    "ANCHORS",
    "BASELINES",
    "CLAUSES",
    "CONDITIONS",
    "SYSTEMS",
    "PredictResult",
    "build_request",
    "grid_paths",
    "method_label",
    "parse_reply",
    "predict",
]
