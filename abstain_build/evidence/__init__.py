"""Where a document states its answer, and whether a perturbed item still does.

* :mod:`.forms`: the forms a gold answer is printed in ("$34.7 million" states 34.7).
* :mod:`.anchors`: the question's terms that locate the gold's row, sentence or chart.
* :mod:`.reading`: what can be read on each page (text layer, OCR, OCR of charts).
* :mod:`.statements`: gold mentions on a reading, and which of them state the answer.
* :mod:`.map`: the evidence map of one sample, computed once and recorded in the item.
* :mod:`.gate`: the re-read gate: everything a perturbed item ships, read again.
* :mod:`.policy`: what each kind of transform must leave unstated.
"""
