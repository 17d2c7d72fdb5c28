"""``offline:leak``: is the answer still readable on the perturbed item? (:mod:`.offline`
says how it reads each channel and when it finds the answer.)"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...evidence.policy import ATTRIBUTE, policy_of
from ...text.sentences import split_sentences
from ..leak import find_in_text
from .base import ANSWERABLE, UNANSWERABLE, Judge, JudgeItem, Verdict, register_judge
from .evidence import MIN_OCR_CONF, OCR, TEXT_LAYER, Evidence, gold_items
from .offline_checks import (
    CHECK,
    UNREADABLE,
    compared,
    confidence,
    evidence_token,
    failed_verdict,
    inside_mask,
    is_selection,
    numbers_changed,
    prints_year,
    quoted,
    same_question,
    searchable,
    target_of,
    years_of,
)

#: Share of the edited region's evidence words still readable from which the leak judge
#: says ANSWERABLE.
LEAK_SURVIVAL = 0.5
#: Fewer evidence words than this on the original: nothing to read.
MIN_EVIDENCE_WORDS = 3
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|neither|nor|excludes?|excluded|without|cannot|isn't|doesn't|"
    r"don't|didn't|wasn't|aren't)\b",
    re.IGNORECASE,
)


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
        except UNREADABLE as error:
            return failed_verdict(self, error)

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
                f"{CHECK}: {answer_note}, and the original shows fewer than"
                f" {MIN_EVIDENCE_WORDS} distinctive words where the transform edited it (or"
                " anywhere, without a recorded edit): nothing to read; the retention judge"
                " decides",
            )
        share = survival.share
        verdict = ANSWERABLE if share >= LEAK_SURVIVAL else UNANSWERABLE
        return self.verdict(
            verdict,
            confidence(share, LEAK_SURVIVAL),
            f"{CHECK}: {answer_note}; {survival.survived} of the {survival.words} evidence"
            f" words the original shows {survival.scope} are still readable"
            f" ({survival.channel}; e.g. {quoted(survival.examples)}): {share:.2f}"
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
        stated = f"the gold answer {quoted(items)} is printed on the original ({where})"
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
                f"{CHECK}: {stated} and still readable on the perturbed"
                f" {evidence.label(index)} ({channel}: {quoted(found)}){caveat}",
                1.0,
                found=f"{evidence.label(index)} ({channel}): {found[0]!r}" if decisive else "",
            )
        read = sorted({channel for _, _, channel in order})
        return self.verdict(
            UNANSWERABLE,
            "HIGH" if TEXT_LAYER in layers else "MEDIUM",
            f"{CHECK}: {stated} and no longer readable on the perturbed evidence"
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
                    if whole or (mask is not None and inside_mask(word, mask)):
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
                    f"{CHECK}: question rewrite that states the gold answer itself"
                    f" ({quoted(stated)} in {sentence!r})",
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
                    f"{CHECK}: the rewrite asks about {', '.join(map(str, years))}, and the"
                    " evidence prints that period: it may answer the new question",
                    1.0,
                )
            return self.verdict(
                UNANSWERABLE,
                "MEDIUM",
                f"{CHECK}: the rewrite asks about {', '.join(map(str, years))}, which the"
                " evidence does not print",
                0.0,
            )
        return self.verdict(
            UNANSWERABLE,
            "LOW",
            f"{CHECK}: question rewrite; the evidence is unchanged, so reading it says"
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
