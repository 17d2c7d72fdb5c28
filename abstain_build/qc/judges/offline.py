"""The two offline reference judges: ``offline:leak`` and ``offline:retention``.

They are reference checks, not test-takers: each compares the perturbed item with its
original (and gold answer) and says what it measured. Every verdict has
``kind="reference"``, a ``score`` (the measurement, None when there was nothing to
measure) and a justification that starts with "reference check". An item that cannot be
read (no original, an undecodable image or PDF, an OCR failure) gets ERROR.

``offline:leak``: is the answer still readable?
    *Evidence transforms* (image, document). The perturbed evidence is read through every
    channel a model could use, cheapest first: the PDF text layer, OCR of the pixels, and
    OCR after an attempt to undo the perturbation (:mod:`.pixels`: a contrast stretch when
    the record says darken/overlay or the gray range is under 128 levels; an unsharp mask
    when it says blur).

    1. The gold answer (the option text for a letter answer; each item of a list; not a
       bare digit, not text under three characters) printed on the original evidence
       (:func:`abstain_build.qc.leak.find_in_text`: every form of the gold, see
       :mod:`abstain_build.evidence.forms`): ANSWERABLE (score 1) if any channel still
       shows it on the perturbed evidence (decisive: the item is rejected, see
       :func:`abstain_build.qc.consensus.consensus`, unless the transform keeps the value
       on purpose, as a column merge does), else
       UNANSWERABLE (score 0). Confidence: found by the text layer or plain OCR HIGH, only
       after undoing the perturbation MEDIUM; found inside text the transform wrote (a
       merged cell) LOW, beside text it wrote (an inserted row, a changed value) one
       step lower. Not found: HIGH when the original's text layer showed it, else MEDIUM.
    2. Unless the gold answer is *one of several candidates the original prints* (another
       option of the question is printed too; or a name of up to three words with other
       capitalised names of its shape on the page): reading "West" off a legend beside
       "North" and "South" says nothing about which region grew most. Then, as when the
       answer is not printed at all (computed, counted, paraphrased), the judge counts the
       original's distinctive evidence words *in the regions the transform edited* (all
       of them when the record names none): numbers of two characters or more, words of
       three letters or more that are not stopwords, OCR words of confidence 50 or more.
       An occurrence survives when the perturbed evidence shows the word more often than
       the original shows it outside the edited regions. Score: the surviving share, best
       channel family (text layer, OCR); ANSWERABLE from :data:`LEAK_SURVIVAL`.
    3. Fewer than :data:`MIN_EVIDENCE_WORDS` such words (a radiograph, a score, a circuit
       with three labels): UNANSWERABLE, LOW, "nothing to read; the retention judge
       decides".

    *Question rewrites* (transform target "question"; the evidence is the original's, so
    reading it says nothing about the rewrite):

    - a rewrite that changes no number and at most two words (:func:`same_question`) is
      the original question: read like an evidence transform (so the identity is
      ANSWERABLE);
    - a changed sentence that states the gold answer and does not deny it ("Note: the
      document reports 11,642.4." but not "... says it is not 11,642.4."): ANSWERABLE,
      HIGH (MEDIUM when only some items of a list answer are stated);
    - new years asked about (temporal drift): ANSWERABLE (MEDIUM) when the evidence prints
      every one of them (the new question may have an answer there), else UNANSWERABLE
      (MEDIUM);
    - otherwise UNANSWERABLE, LOW, "nothing to read; the retention judge decides".

``offline:retention``: how much of the original evidence signal survives?
    *Evidence transforms*. The original's edge pixels (a step of 40 gray levels or more to
    a neighbour) in the measured region, and the share still there in the best of the
    perturbed image and its restorations, placed on the original's canvas (a crop goes
    back where it was cut from; what is missing counts as lost). Text is judged word by
    word: inside a word box of the original (text layer, or OCR words of confidence 50 or
    more) the edges count only if the word's pixels still correlate with the original's
    at 0.8 or more in absolute value (:data:`.pixels.GLYPH_NCC`): blind to a uniform
    darkening, veil or inversion, not to another digit printed in place of the old one,
    whose strokes sit where the old ones did (edge positions alone kept 0.45-0.97, median
    0.72, of the fixtures' corrupted numbers). Elsewhere an edge counts when the perturbed
    image has one within a pixel. Edges the perturbation added (a mask's border) count
    for nothing.
    Region: the whole image for images (the image is the evidence); for document pages
    the regions the transform's record names (a hidden page whole, a cropped page's
    removed half; the whole pages when the record names none): a page holds much more
    than the evidence, and whole-page scores of token edits stay high (fixtures: numeric
    corruption 0.80-1.00, median 0.90; column merges 0.82-0.97). ANSWERABLE from
    :data:`RETENTION`.

    *Question rewrites*. A trivial variant of the original
    (:func:`abstain_build.rewrites.variants.trivial_reason`) that changes no number:
    ANSWERABLE, HIGH, score 1. Otherwise the MiniLM cosine of the changed sentences, as
    the semantic gate measures it (:func:`compared`); ANSWERABLE from
    :data:`REWRITE_COSINE`, the gate's own threshold (measured on 24,027 MMMU-Pro rewrite
    pairs, :mod:`abstain_build.rewrites.semantic`): a rewrite that passed the gate is
    never rejected here, the check is for rewrites that did not come through it. A
    rewrite that keeps the wording (trivial, or cosine at the threshold or above) but
    changes the numbers it asks about (FY2020 -> FY2015) is UNANSWERABLE, MEDIUM: an
    embedding does not tell years apart; the leak judge checks whether the evidence
    prints the new ones.

Confidence of a thresholded score ``s`` against threshold ``t``: the margin as a share of
the room on its side, ``(s - t) / (1 - t)`` above and ``(t - s) / t`` below; HIGH from 0.5,
MEDIUM from 0.2, LOW under 0.2.

Thresholds, from ``bench/judges_offline.py`` (seed 7; every transform of each sample's axis
on the 8 fixture MMMU items, the 12 answerable fixture MMLongBench-Doc questions, the 21
shared MMMU items and 89 answerable shared MMLongBench-Doc questions: 1,519 items):

- :data:`LEAK_SURVIVAL` = 0.5. The surviving share (813 items judged by evidence words)
  is 1.00 for every identity, 0.71-1.00 for darkening, 0.88-1.00 for column merges and
  distractor rows (they keep the values on purpose), and 0.42 at most for everything that
  removes or corrupts (crops, masks, blurs, hidden pages, erasures, corruptions; medians
  0.00-0.20): any threshold from 0.43 to 0.70 gives the same verdicts.
- :data:`RETENTION` = 0.5: at least half of the original's signal. Identity 1.00,
  darkening 0.94-1.00 (undone by the stretch); blurs, hidden pages, erasures and dense
  masks 0.07 at most; random masks 0.17, corruptions 0.44, distractor rows 0.33, element
  removal 0.48, column merges 0.55 at most (median 0.33). The partial removals spread
  around the middle: crops 0.31-0.83 (median 0.49), occlusion bars 0.32-0.72 (0.49), veil
  plus label masks 0.01-0.99 (0.43); ANSWERABLE for 79%, 76%, 55% of them at 0.4, 48%,
  45%, 41% at 0.5 and 14%, 10%, 41% at 0.6.
- :data:`REWRITE_COSINE` = 0.90 (the gate's). The 267 offline rewrites that change no
  number score 0.10 (p5), 0.37 (median), 0.86 (p95), 0.89 at most; the 42 temporal drifts
  0.79-1.00.

Against the method's reference (about 15% of items rejected: 12% MMMU, 17% MMLBD, evidence
corruption highest): both judges say ANSWERABLE (the consensus rejects) for 5-7% of the
image items (the darkenings) and 0-0.1% of the document items; at least one does (reject
or review) for 16-21% of image items and 13-20% of document items, every column merge and
distractor row among them. ``bench/judges_offline.py`` prints every rate.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from ...content.restorations import retention
from ...errors import InputError
from ...evidence.policy import ATTRIBUTE, policy_of
from ...rewrites.caption import alternative_names
from ...rewrites.changed import changed_sentences
from ...rewrites.variants import trivial_reason
from ...rewrites.variants import words as question_words
from ...text.sentences import split_sentences
from ...textregions.words import Word
from ..leak import answer_numbers, find_in_text
from .base import ANSWERABLE, ERROR, UNANSWERABLE, Judge, JudgeItem, Verdict, register_judge
from .evidence import MIN_OCR_CONF, OCR, TEXT_LAYER, Evidence, gold_items

#: Share of the edited region's evidence words still readable from which the leak judge
#: says ANSWERABLE.
LEAK_SURVIVAL = 0.5
#: Share of the original's edge pixels still present from which the retention judge says
#: ANSWERABLE.
RETENTION = 0.5
#: Cosine of the changed sentences from which a rewrite still asks the original question.
REWRITE_COSINE = 0.90
#: Fewer evidence words than this on the original: nothing to read.
MIN_EVIDENCE_WORDS = 3
#: Fewer original edge pixels than this in the measured region: nothing to retain.
MIN_EDGE_PIXELS = 50

_PREFIX = "reference check"
#: What an unreadable item raises (a broken image or PDF, a page out of range, an OCR
#: engine that fails): the verdict is ERROR, never a crash of the run.
_UNREADABLE = (InputError, ValueError, IndexError, RuntimeError)
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|neither|nor|excludes?|excluded|without|cannot|isn't|doesn't|"
    r"don't|didn't|wasn't|aren't)\b",
    re.IGNORECASE,
)
_STOPWORDS = frozenset(
    """the and for are but not you all any can had her was one our out has him his how its
    may new now old see two way who did get let put say she too use from have into more
    most much must only over such than that them then they this were what when where which
    while will with would your also been both each here just like many same some very
    about after again being could does doing down during every other their there these
    those under until upon whom why""".split()  # noqa: SIM905
)
_TRIM = ".,;:!?()[]{}\"'“”‘’*|"


def confidence(score: float, threshold: float) -> str:
    """LOW / MEDIUM / HIGH from the margin as a share of the room on the score's side."""
    if score >= threshold:
        room = 1.0 - threshold
        margin = (score - threshold) / room if room > 0 else 1.0
    else:
        margin = (threshold - score) / threshold if threshold > 0 else 1.0
    return "HIGH" if margin >= 0.5 else "MEDIUM" if margin >= 0.2 else "LOW"


def target_of(item: JudgeItem, evidence: Evidence) -> str:
    """ "question" for a rewrite (evidence untouched), else "evidence"."""
    target = (item.transform or {}).get("target")
    if target:
        return "question" if target == "question" else "evidence"
    if evidence.evidence_unchanged and item.question != evidence.reference.question:
        return "question"
    return "evidence"


def searchable(items: Sequence[str]) -> list[str]:
    """Answer items worth looking for: not a bare digit, not text under three characters."""
    out = []
    for item in items:
        text = item.strip()
        if re.fullmatch(r"[-+]?\d", text):
            continue
        if re.search(r"\d", text) or len(text) >= 3:
            out.append(text)
    return out


def numbers_changed(original: str, rewrite: str) -> tuple[list[str], list[str]]:
    """Digit-bearing words (years, fiscal years, quarters, values) the rewrite took out and
    put in, in reading order."""
    a, b = question_words(original), question_words(rewrite)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += [w for w in a[i1:i2] if any(c.isdigit() for c in w)]
            added += [w for w in b[j1:j2] if any(c.isdigit() for c in w)]
    return removed, added


def compared(original: str, rewrite: str) -> tuple[str, str]:
    """The changed sentences of a rewrite, as the semantic gate compares them.

    A rewrite that is the original plus a note is split there, so the note stands alone
    even after an unterminated question (or one ending "... in FY2015.", which the
    sentence splitter reads as a number's full stop).
    """
    base = original.rstrip()
    note = rewrite[len(base) :].strip() if rewrite.startswith(base) else ""
    return changed_sentences(original, rewrite, note or None)


def same_question(original: str, rewrite: str) -> str | None:
    """Why ``rewrite`` asks what ``original`` asks (a trivial variant that changes no
    number), or None."""
    reason = trivial_reason(original, rewrite)
    if reason is None or any(numbers_changed(original, rewrite)):
        return None
    return reason


_YEAR = re.compile(r"(?:fy)?((?:19|20)\d{2}|\d{2})$")


def years_of(tokens: Sequence[str]) -> set[int]:
    """Years named by question words: 2015, fy2015, fy15."""
    years = set()
    for token in tokens:
        match = _YEAR.fullmatch(token)
        if match is None or (len(match.group(1)) == 2 and not token.startswith("fy")):
            continue
        value = int(match.group(1))
        years.add(value if value > 99 else 2000 + value)
    return years


def prints_year(text: str, year: int) -> bool:
    """Whether ``text`` prints ``year`` (2015, FY2015, FY15, FY '15)."""
    short = f"{year % 100:02d}"
    return bool(
        re.search(rf"(?<![\d.,]){year}(?!\d)", text)
        or re.search(rf"\bFY\s?'?{short}\b", text, re.IGNORECASE)
    )


def is_selection(item: JudgeItem, items: Sequence[str], texts: Sequence[str]) -> bool:
    """Is the gold answer one of several candidates the evidence prints (an option among
    printed options, a name among names of its shape)? Then seeing it printed says
    nothing: the question is which one, and the evidence words decide."""
    joined = " ".join(texts)
    if item.options:
        gold = set(items)
        others = searchable([o for o in item.options if o.strip() not in gold])
        return any(find_in_text([other], joined) for other in others)
    names = [i for i in items if not answer_numbers(i, None) and len(i.split()) <= 3]
    return (
        bool(names)
        and len(names) == len(items)
        and all(alternative_names(name, texts) for name in names)
    )


def evidence_token(word: Word, min_conf: float = 0.0) -> str | None:
    """The word as evidence (case-folded, outer punctuation trimmed), or None if too common."""
    if word.conf < min_conf:
        return None
    text = word.text.strip(_TRIM).casefold()
    if any(ch.isdigit() for ch in text):
        return text if len(text) >= 2 else None
    if len(text) >= 3 and text.isalpha() and text not in _STOPWORDS:
        return text
    return None


def _inside(word: Word, mask: np.ndarray) -> bool:
    x, y = word.centre
    row, col = int(y), int(x)
    return 0 <= row < mask.shape[0] and 0 <= col < mask.shape[1] and bool(mask[row, col])


def _quote(items: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in items[:3]) + (" ..." if len(items) > 3 else "")


def _fail(judge: Judge, error: Exception) -> Verdict:
    return judge.verdict(ERROR, "", f"{_PREFIX} could not read the item: {error}")


# -- offline:leak --------------------------------------------------------------------------


@dataclass
class Survival:
    """Evidence words of the edited region, and how many are still readable."""

    channel: str
    words: int
    survived: int
    examples: list[str]
    scope: str = "where the transform edited it"

    @property
    def share(self) -> float:
        return self.survived / self.words if self.words else 0.0


@register_judge
class LeakJudge(Judge):
    """Is the gold answer, or the edited region's evidence words, still readable?"""

    name = "offline:leak"
    kind = "reference"
    description = (
        "Reference check: reads the perturbed evidence (text layer, OCR, OCR after undoing a"
        " darkening or blur) for the gold answer or the original's evidence words."
    )

    def judge(self, item: JudgeItem) -> Verdict:
        try:
            return self._judge(item)
        except _UNREADABLE as error:
            return _fail(self, error)

    def _judge(self, item: JudgeItem) -> Verdict:
        evidence = Evidence(item)
        reference = evidence.reference
        items = searchable(gold_items(item))
        if target_of(item, evidence) == "question" and not same_question(
            reference.question, item.question
        ):
            return self._rewrite(evidence, items)
        answer_note = "the gold answer is too short to search for"
        if items:
            seen, texts = self._answer_on_original(evidence, items)
            if seen and not is_selection(item, items, texts):
                return self._answer_verdict(evidence, items, seen)
            answer_note = (
                "the gold answer is one of several candidates the original prints (which one"
                " is the question)"
                if seen
                else "the gold answer is not printed on the original evidence"
            )
        survival = self._survival(evidence)
        if survival is None:
            return self.verdict(
                UNANSWERABLE,
                "LOW",
                f"{_PREFIX}: {answer_note}, and the original shows fewer than"
                f" {MIN_EVIDENCE_WORDS} distinctive words where the transform edited it (or"
                " anywhere, without a recorded edit): nothing to read; the retention judge"
                " decides",
            )
        share = survival.share
        verdict = ANSWERABLE if share >= LEAK_SURVIVAL else UNANSWERABLE
        return self.verdict(
            verdict,
            confidence(share, LEAK_SURVIVAL),
            f"{_PREFIX}: {answer_note}; {survival.survived} of the {survival.words} evidence"
            f" words the original shows {survival.scope} are still readable"
            f" ({survival.channel}; e.g. {_quote(survival.examples)}): {share:.2f}"
            f" {'>=' if verdict == ANSWERABLE else '<'} {LEAK_SURVIVAL:.2f}",
            share,
        )

    # -- the answer ----------------------------------------------------------------------

    @staticmethod
    def _answer_on_original(
        evidence: Evidence, items: list[str]
    ) -> tuple[list[tuple[str, str]], list[str]]:
        """(where, channel) of every place the original shows the answer, text layer first,
        and the texts of the channel that showed it."""
        seen: list[tuple[str, str]] = []
        texts: list[str] = []
        channels = [TEXT_LAYER, OCR] if evidence.is_document else [OCR]
        for channel in channels:
            texts = [
                " ".join(w.text for w in evidence.original_words(index, channel))
                for index in range(len(evidence))
            ]
            seen = [
                (evidence.label(index), channel)
                for index, text in enumerate(texts)
                if find_in_text(items, text)
            ]
            if seen:
                break
        return seen, texts

    def _answer_verdict(
        self, evidence: Evidence, items: list[str], seen: list[tuple[str, str]]
    ) -> Verdict:
        where = ", ".join(f"{label} ({channel})" for label, channel in seen)
        stated = f"the gold answer {_quote(items)} is printed on the original ({where})"
        layers = {channel for _, channel in seen}
        order = sorted(
            (rank, index, channel)
            for index in range(len(evidence))
            for rank, channel in enumerate(evidence.perturbed_channels(index))
        )
        for _, index, channel in order:
            words = evidence.perturbed_words(index, channel)
            found = find_in_text(items, " ".join(w.text for w in words))
            if not found:
                continue
            level = "HIGH" if channel in (TEXT_LAYER, OCR) else "MEDIUM"
            caveat = ""
            decisive = policy_of({"transform": evidence.record}) != ATTRIBUTE
            written = [
                str(t.get("new") or "")
                for t in (evidence.record.get("edits") or {}).get("tokens") or []
                if t.get("where") in ("page", "image")
            ]
            if any(find_in_text(items, text) for text in written if text):
                decisive = False
                level, caveat = (
                    "LOW",
                    "; it is inside text the transform wrote (a merged or reordered cell):"
                    " readable, but whether it can still be attributed is beyond a reading"
                    " check",
                )
            elif any(written):
                level = "MEDIUM" if level == "HIGH" else "LOW"
                caveat = (
                    "; the transform wrote other text on the evidence (an inserted row, a"
                    " changed value), which may compete with it"
                )
            return self.verdict(
                ANSWERABLE,
                level,
                f"{_PREFIX}: {stated} and still readable on the perturbed"
                f" {evidence.label(index)} ({channel}: {_quote(found)}){caveat}",
                1.0,
                found=f"{evidence.label(index)} ({channel}): {found[0]!r}" if decisive else "",
            )
        read = sorted({channel for _, _, channel in order})
        return self.verdict(
            UNANSWERABLE,
            "HIGH" if TEXT_LAYER in layers else "MEDIUM",
            f"{_PREFIX}: {stated} and no longer readable on the perturbed evidence"
            f" (read: {', '.join(read)})",
            0.0,
        )

    # -- evidence words --------------------------------------------------------------------

    @staticmethod
    def _survival(evidence: Evidence) -> Survival | None:
        """The best channel's surviving share of the edited region's evidence words."""
        masks = [evidence.region_mask(i) for i in range(len(evidence))]
        whole = all(mask is None for mask in masks)
        families = [TEXT_LAYER, OCR] if evidence.is_document else [OCR]
        best: Survival | None = None
        for family in families:
            edited: Counter[str] = Counter()
            elsewhere: Counter[str] = Counter()
            min_conf = MIN_OCR_CONF if family == OCR else 0.0
            for index, mask in enumerate(masks):
                for word in evidence.original_words(index, family):
                    token = evidence_token(word, min_conf)
                    if token is None:
                        continue
                    if whole or (mask is not None and _inside(word, mask)):
                        edited[token] += 1
                    else:
                        elsewhere[token] += 1
            total = sum(edited.values())
            if total < MIN_EVIDENCE_WORDS:
                continue
            shown: Counter[str] = Counter()
            used: set[str] = set()
            for index in range(len(evidence)):
                per_image: Counter[str] = Counter()
                for channel in evidence.perturbed_channels(index):
                    if (channel == TEXT_LAYER) != (family == TEXT_LAYER):
                        continue
                    read = Counter(
                        t
                        for w in evidence.perturbed_words(index, channel)
                        if (t := evidence_token(w)) is not None
                    )
                    if any(read[t] > per_image[t] for t in edited):
                        used.add(channel)
                    per_image |= read
                shown += per_image
            kept = {t: min(n, max(0, shown[t] - elsewhere[t])) for t, n in edited.items()}
            survived = sum(kept.values())
            examples = [t for t, n in kept.items() if n] or list(edited)
            channel = " + ".join(sorted(used)) if used else family
            scope = "on its evidence" if whole else "where the transform edited it"
            candidate = Survival(channel, total, survived, examples, scope)
            if best is None or candidate.share > best.share:
                best = candidate
        return best

    # -- rewrites --------------------------------------------------------------------------

    def _rewrite(self, evidence: Evidence, items: list[str]) -> Verdict:
        item, original = evidence.item, evidence.reference.question
        _, added = compared(original, item.question)
        for sentence in split_sentences(added):
            if _NEGATION.search(sentence):
                continue
            stated = [
                answer
                for answer in items
                if not find_in_text([answer], original) and find_in_text([answer], sentence)
            ]
            if stated:
                return self.verdict(
                    ANSWERABLE,
                    "HIGH" if len(stated) == len(items) else "MEDIUM",
                    f"{_PREFIX}: question rewrite that states the gold answer itself"
                    f" ({_quote(stated)} in {sentence!r})",
                    1.0,
                )
        removed, put_in = numbers_changed(original, item.question)
        years = sorted(years_of(put_in) - years_of(removed))
        if years:
            texts = self._evidence_texts(evidence)
            printed = [y for y in years if any(prints_year(t, y) for t in texts)]
            if printed and len(printed) == len(years):
                return self.verdict(
                    ANSWERABLE,
                    "MEDIUM",
                    f"{_PREFIX}: the rewrite asks about {', '.join(map(str, years))}, and the"
                    " evidence prints that period: it may answer the new question",
                    1.0,
                )
            return self.verdict(
                UNANSWERABLE,
                "MEDIUM",
                f"{_PREFIX}: the rewrite asks about {', '.join(map(str, years))}, which the"
                " evidence does not print",
                0.0,
            )
        return self.verdict(
            UNANSWERABLE,
            "LOW",
            f"{_PREFIX}: question rewrite; the evidence is unchanged, so reading it says"
            " nothing about the new question, and the rewrite does not state the gold"
            " answer: nothing to read; the retention judge decides",
        )

    @staticmethod
    def _evidence_texts(evidence: Evidence) -> list[str]:
        """What the original evidence says: text layer of each page, else OCR."""
        texts = []
        for index in range(len(evidence)):
            layer = evidence.original_words(index, TEXT_LAYER) if evidence.is_document else []
            words = layer or evidence.original_words(index, OCR)
            texts.append(" ".join(w.text for w in words))
        return texts


# -- offline:retention ---------------------------------------------------------------------


@register_judge
class RetentionJudge(Judge):
    """How much of the original evidence signal (or question) survives?"""

    name = "offline:retention"
    kind = "reference"
    description = (
        "Reference check: share of the original's edge pixels still present in the perturbed"
        " (and restored) evidence; for rewrites, how close the rewrite stays to the question."
    )

    def judge(self, item: JudgeItem) -> Verdict:
        try:
            evidence = Evidence(item)
            if target_of(item, evidence) == "question":
                return self._rewrite(item)
            return self._edges(evidence)
        except _UNREADABLE as error:
            return _fail(self, error)

    def _edges(self, evidence: Evidence) -> Verdict:
        masks = [evidence.region_mask(i) for i in range(len(evidence))]
        if evidence.is_document and any(mask is not None for mask in masks):
            indices = [i for i, mask in enumerate(masks) if mask is not None]
            scope = "the regions the transform edited"
        else:
            indices, masks = list(range(len(evidence))), [None] * len(evidence)
            scope = "the whole evidence page(s)" if evidence.is_document else "the whole image(s)"
        original = kept = words = words_kept = 0
        best: Counter[str] = Counter()
        for index in indices:
            count, how = retention(
                evidence.originals[index],
                evidence.candidates(index),
                masks[index],
                evidence.word_boxes(index),
            )
            original += count.original
            kept += count.kept
            words += count.words
            words_kept += count.words_kept
            if how:
                best[how] += count.kept
        if original < MIN_EDGE_PIXELS:
            return self.verdict(
                UNANSWERABLE,
                "LOW",
                f"{_PREFIX}: the original has {original} edge pixels in {scope}: no signal to"
                " retain; the leak judge decides",
            )
        share = kept / original
        verdict = ANSWERABLE if share >= RETENTION else UNANSWERABLE
        how = best.most_common(1)[0][0] if best else "as perturbed"
        where = ", ".join(evidence.label(i) for i in indices)
        return self.verdict(
            verdict,
            confidence(share, RETENTION),
            f"{_PREFIX}: {share:.2f} of the original's {original} edge pixels in {scope}"
            f" ({where}) are still present ({how}; the glyphs of {words_kept} of {words}"
            f" words survive): {share:.2f} {'>=' if verdict == ANSWERABLE else '<'}"
            f" {RETENTION:.2f}",
            share,
        )

    def _rewrite(self, item: JudgeItem) -> Verdict:
        assert item.reference is not None
        original = item.reference.question
        removed, put_in = numbers_changed(original, item.question)
        reason = trivial_reason(original, item.question)
        if reason is not None and not (removed or put_in):
            return self.verdict(
                ANSWERABLE,
                "HIGH",
                f"{_PREFIX}: the question is a trivial variant of the original ({reason})",
                1.0,
            )
        from ...text.embeddings import similarities

        before, after = compared(original, item.question)
        cosine = float(similarities([(before, after)])[0]) if before or after else 1.0
        if (reason is not None or cosine >= REWRITE_COSINE) and (removed or put_in):
            change = f"{' '.join(removed) or '-'} -> {' '.join(put_in) or '-'}"
            return self.verdict(
                UNANSWERABLE,
                "MEDIUM",
                f"{_PREFIX}: the rewrite keeps the wording (MiniLM cosine {cosine:.2f} of"
                f" the changed sentences) but asks about other numbers ({change}), which"
                " an embedding does not tell apart; the leak judge reads the evidence"
                " for them",
                cosine,
            )
        verdict = ANSWERABLE if cosine >= REWRITE_COSINE else UNANSWERABLE
        relation = "asks what the original asked" if verdict == ANSWERABLE else "asks another thing"
        return self.verdict(
            verdict,
            confidence(cosine, REWRITE_COSINE),
            f"{_PREFIX}: question rewrite; the changed sentences have MiniLM cosine"
            f" {cosine:.2f} to the original's ({'>=' if verdict == ANSWERABLE else '<'}"
            f" {REWRITE_COSINE:.2f}: it {relation})",
            cosine,
        )
