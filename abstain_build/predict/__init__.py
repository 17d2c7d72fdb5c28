"""Run a model on a built dataset, as the method evaluates it: ``abstain-build predict``.

``predict(DATASET, SPEC, OUT)`` asks the model each item (question, options, the images or
evidence pages the record ships) under one condition (base, vconf, cot) and one clause
(standard, extreme), and writes the predictions file ``eval`` reads, plus a sidecar with
each reply, its tokens and calls. Resumable: items already in OUT are not asked again.
"""

from .prompts import CLAUSES, CONDITIONS, build_request, parse_reply
from .run import PredictResult, predict

__all__ = ["CLAUSES", "CONDITIONS", "PredictResult", "build_request", "parse_reply", "predict"]
