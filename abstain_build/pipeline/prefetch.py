"""Ask the rewrite model for all of a sample's question transforms at once.

A worker applies a sample's transforms one after another; in LLM mode each rewrite would
wait for its own reply in turn. Their first requests do not depend on one another, so
they are sent together (up to the client's concurrency) before the transforms run, and
each transform then finds its reply among the sample's inputs (``rewrite_base.ask_once``).
Nothing else changes: the same requests, the same replies, the same records.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..media.inputs import SampleInputs
from ..model import Sample
from ..models import ModelClient
from ..transforms.base import Transform, TransformContext
from ..transforms.rewrite_base import RewriteTransform, reply_key


def prefetch_rewrites(
    transforms: list[Transform], sample: Sample, inputs: SampleInputs, llm: ModelClient
) -> int:
    """Send the first request of every rewrite transform in ``transforms``; how many were sent."""
    ctx = TransformContext(sample=sample, inputs=inputs, rng=np.random.default_rng(0), seed=0)
    jobs = []
    for transform in transforms:
        if not isinstance(transform, RewriteTransform) or not sample.question.strip():
            continue
        made = transform.model_request(ctx)  # inputs are read here, in this thread
        if made is not None:
            jobs.append(made)
    if len(jobs) < 2:
        return 0
    with ThreadPoolExecutor(max_workers=min(len(jobs), llm.options.concurrency)) as pool:
        results = list(pool.map(lambda job: llm.ask(*job), jobs))
    for (request, _), result in zip(jobs, results, strict=True):
        inputs.derived(reply_key(request), lambda result=result: result)
    return len(jobs)
