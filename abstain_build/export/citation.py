"""The card's BibTeX: the exported dataset itself, and the paper whose method built it.

The dataset's entry is built from the card's name (and the Hub address when the export is
pushed); it carries no author or year because the build knows neither.
"""

from __future__ import annotations

import re

#: MM-AQA, the method abstain-build implements (arXiv 2604.14799).
METHOD_BIBTEX = """@misc{madhusudhan2026knowing,
  title = {Knowing When Not to Answer: Evaluating Abstention in Multimodal Reasoning Systems},
  author = {Madhusudhan, Nishanth and others},
  year = {2026},
  eprint = {2604.14799},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL},
  url = {https://arxiv.org/abs/2604.14799}
}"""

#: Characters LaTeX reads as commands, and what BibTeX must hold instead.
_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_text(text: str) -> str:
    """``text`` as BibTeX prints it (``mmlongbench_doc`` would otherwise start a subscript)."""
    return "".join(_LATEX.get(char, char) for char in text)


def citation_key(name: str) -> str:
    """A BibTeX key from a dataset's name: lowercase words joined by ``_``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "dataset"


def dataset_bibtex(name: str, source: str | None, repo: str | None) -> str:
    """The exported dataset's entry; ``source`` is its source's Hub id, ``repo`` its own."""
    fields = [f"  title = {{{{{latex_text(name)}}}}}"]
    if repo:
        fields.append(f"  howpublished = {{\\url{{https://huggingface.co/datasets/{repo}}}}}")
    made_from = f" of {latex_text(source)}" if source else ""
    fields.append(
        f"  note = {{Unanswerable counterparts{made_from}, built with abstain-build"
        " following the MM-AQA method}"
    )
    return "\n".join([f"@misc{{{citation_key(name)},", ",\n".join(fields), "}"])
