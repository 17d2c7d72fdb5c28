"""Human review of unanswerable items: a local page for voting, then the majority's labels.

``abstain-build review DIR`` serves the flagged items (and, with ``--audit N``, a sample
stratified by transform family) to annotators; ``--finalize`` writes the labels into
``data.jsonl`` and the agreement into ``review/summary.json``.
"""

from .finalize import decide, finalize
from .kappa import Kappa, fleiss_kappa
from .queue import Queue, ReviewError, build_queue, open_queue, stratified_sample
from .server import ReviewServer, RunningServer, open_server, safe_asset, serve, start_server
from .votes import AnnotatorError, append_vote, check_annotator, latest_votes

__all__ = [
    "AnnotatorError",
    "Kappa",
    "Queue",
    "ReviewError",
    "ReviewServer",
    "RunningServer",
    "append_vote",
    "build_queue",
    "check_annotator",
    "decide",
    "finalize",
    "fleiss_kappa",
    "latest_votes",
    "open_queue",
    "open_server",
    "safe_asset",
    "serve",
    "start_server",
    "stratified_sample",
]
