"""Validity as a measured number: blind readings per transform version, and the
acceptance policy built on them (SPEC section 8).

* :mod:`.ledger`: the readings (one JSON line each) and the ledger shipped with the package;
* :mod:`.table`: per transform and per transform x question kind, validity with a Wilson
  95% interval at the current versions;
* :mod:`.policy`: whether a counterpart may be accepted offline;
* :mod:`.kits` and :mod:`.ingest`: blind reading kits, and grading the readers' answers.
"""

from .ledger import PACKAGE_LEDGER, VERDICTS, Reading, fingerprint, read_ledgers
from .policy import DEFAULT_MIN_VALIDITY, MIN_READINGS, ValidityPolicy, load_policy, run_policy
from .table import CELL_MIN_READINGS, Estimate, ValidityTable, wilson

__all__ = [
    "CELL_MIN_READINGS",
    "DEFAULT_MIN_VALIDITY",
    "MIN_READINGS",
    "PACKAGE_LEDGER",
    "VERDICTS",
    "Estimate",
    "Reading",
    "ValidityPolicy",
    "ValidityTable",
    "fingerprint",
    "load_policy",
    "read_ledgers",
    "run_policy",
    "wilson",
]
