"""What a question asks about the page's *things*, as opposed to the values it prints.

Blind readers answered questions that count, colour or locate graphical things through
edits meant to take values away: a blurred page still shows how many pie charts it holds
and what colour the highlighted band is; corrupting digits does not change how many
exhibits a report has. These rules let such transforms decline those questions:

- :func:`counts_parts`: the question counts parts of the document (charts, tables,
  figures, pages, slides, sections, footnotes...) or the times something is mentioned:
  the answer is not a printed value, so number corruption cannot take it away.
- :func:`counts_presented`: the same, or a count of what the pages present ("how many QR
  codes are shown"): for number corruption.
- :func:`graphical_ask`: the question counts, colours or locates graphical things
  (charts, tables, photos, logos, people in a picture): a blur or dense masks keep the
  shapes and colours it is about.
- :func:`shape_ask`: the question asks the shape of what a plot draws (a trend, a
  correlation, a relationship between two quantities): a blurred or partly covered scatter
  plot still rises from lower left to upper right.

Each returns the matched words (a reason a reader can check) or None.
"""

from __future__ import annotations

import re

_GRAPHIC = (
    r"(?:pie|bar|line|donut|doughnut|flow)?\s?(?:charts?|graphs?|plots?|diagrams?"
    r"|figures?|tables?|images?|pictures?|photos?|photographs?|maps?|logos?|icons?"
    r"|illustrations?|screenshots?|infographics?|drawings?|flowcharts?|bars?|pies?"
    r"|arrows?|boxes|circles?|flags?|cartoons?|emojis?|symbols?|shapes?|colou?rs?)"
)
#: People and objects count as graphical only where the question points at a picture.
_DEPICTED = (
    r"(?:people|persons?|men|women|children|kids|faces?|hands?|cars?|animals?|dogs?|cats?"
    r"|birds?|buildings?|trees?|players?|students?|workers?)"
)
#: A count of whatever a picture shows: "how many incorrect postures are demonstrated",
#: and of what a mark shows: "how many lines are highlighted" (the bands outlast a blur).
_COUNT_SHOWN = re.compile(
    r"\bhow\s+many\b[^?.]{0,80}?\b(?:demo\w*strated|illustrated|depicted|pictured|drawn"
    r"|photographed|highlighted|underlined|circled|shaded|boxed|struck\s+through)\b",
    re.IGNORECASE,
)
_PICTURE_CONTEXT = re.compile(
    r"\b(?:photos?|photographs?|pictures?|images?|figures?|illustrations?|drawings?"
    r"|shown|depicted|pictured|appear(?:s|ing)?|visible|wearing|on\s+the\s+cover"
    r"|(?:in|on)\s+(?:the\s+)?(?:page|slide)s?)\b",
    re.IGNORECASE,
)
_STRUCTURE = (
    r"(?:pages?|slides?|sections?|subsections?|chapters?|appendi(?:x|ces)|footnotes?"
    r"|references?|citations?|bullet\s+points?|bullets?|paragraphs?|headings?|columns?"
    r"|rows?|hyperlinks?|links?|equations?|tabs?|steps?|exhibits?)"
)
_COUNT = r"\b(?:how\s+many|(?<!\bpage\s)numbers?\s+of|count\s+(?:of\s+)?(?:the\s+)?)"
_GAP = r"(?:\s+[\w'-]+){0,4}?\s+"

_COUNT_GRAPHIC = re.compile(rf"{_COUNT}{_GAP}{_GRAPHIC}\b", re.IGNORECASE)
_COUNT_GRAPHIC_NEAR = re.compile(rf"{_COUNT}\s+{_GRAPHIC}\b", re.IGNORECASE)
_COUNT_DEPICTED = re.compile(rf"{_COUNT}{_GAP}{_DEPICTED}\b|{_COUNT}\s+{_DEPICTED}\b", re.I)
_COUNT_STRUCTURE = re.compile(
    rf"{_COUNT}{_GAP}{_STRUCTURE}\b|{_COUNT}\s+{_STRUCTURE}\b|\bhow\s+many\s+times\b", re.I
)
_COLOUR = re.compile(
    r"\b(?:what|which)\s+(?:is\s+the\s+)?colou?rs?\b|\bcolou?r(?:s|ed)?\s+(?:of|is|are|does"
    r"|do|used|represents?|indicates?|stands?)\b|\bin\s+what\s+colou?r\b|\bcolou?r[- ]coded\b",
    re.IGNORECASE,
)
_LOCATE = re.compile(
    r"\b(?:on|in)\s+(?:which|what)\s+(?:page|slide|side|corner|part\s+of\s+the\s+(?:page"
    r"|slide|figure|image|picture|chart))\b"
    r"|\bwhich\s+(?:page|slide)\s+(?:contains|has|shows|displays|includes)\b"
    r"|\bwhere\s+(?:is|are|was|were)\b[^?]{0,80}?\b(?:placed|positioned|shown|displayed"
    r"|depicted|located\s+(?:on|in)\s+the\s+(?:page|slide|figure|image|picture|chart))\b"
    r"|\b(?:top|bottom|upper|lower)[- ](?:left|right)\b|\bposition\s+of\s+the\b",
    re.IGNORECASE,
)


def _said(match: re.Match[str] | None) -> str | None:
    return " ".join(match.group(0).split()) if match else None


def counts_parts(question: str) -> str | None:
    """Why ``question`` counts document parts, mentions or graphical things (see the
    module docstring); None when it counts none."""
    depicted = _COUNT_DEPICTED.search(question)
    counted = (
        _said(_COUNT_GRAPHIC_NEAR.search(question))
        or _said(_COUNT_STRUCTURE.search(question))
        or _said(_COUNT_GRAPHIC.search(question))
        or (_said(depicted) if depicted and _PICTURE_CONTEXT.search(question) else None)
    )
    return f"counts parts of the document or mentions ({counted!r})" if counted else None


#: "How many instances of the website are presented", "how many QR codes are shown": the
#: counted things are on the pages, and the count is the reader's, printed nowhere.
_COUNT_PRESENTED = re.compile(
    r"\bhow\s+many\b(?:\s+\S+){1,8}?\s+(?:are|is|were|was)\s+(?:being\s+)?(?:presented"
    r"|shown|displayed|featured|listed|demo\w*strated|illustrated|depicted|pictured)\b",
    re.IGNORECASE,
)


def counts_presented(question: str) -> str | None:
    """Why ``question`` counts what the pages present (counts parts, or things that "are
    shown"): wrong digits leave such a count as it was (a reader counted four screenshots
    of a website through corrupted numbers). None otherwise."""
    parts = counts_parts(question)
    if parts:
        return parts
    presented = _said(_COUNT_PRESENTED.search(question))
    return f"counts what the pages present ({presented!r})" if presented else None


def graphical_ask(question: str) -> str | None:
    """Why ``question`` is about graphical things (count, colour or place), or None."""
    counted = _said(_COUNT_GRAPHIC_NEAR.search(question)) or _said(_COUNT_GRAPHIC.search(question))
    if counted:
        return f"counts graphical things ({counted!r})"
    depicted = _COUNT_DEPICTED.search(question)
    if depicted and _PICTURE_CONTEXT.search(question):
        return f"counts what a picture shows ({_said(depicted)!r})"
    shown = _said(_COUNT_SHOWN.search(question))
    if shown:
        return f"counts what a picture shows ({shown!r})"
    colour = _said(_COLOUR.search(question))
    if colour:
        return f"asks a colour ({colour!r})"
    place = _said(_LOCATE.search(question))
    if place:
        return f"asks where something is ({place!r})"
    return None


#: A question that supposes a change to what the document reports ("Assume that ... the
#: percentage ... increased by 10 percentage points", "Suppose revenue fell by 5%", "if
#: the share were to double"); not one that only asks to take a point of view ("assuming
#: the perspective of an analyst").
_CHANGE = (
    r"(?:increas|decreas|rose|rise|risen|fell|fall|fallen|grew|grow|drop|doubl|halv|chang"
    r"|went\s+(?:up|down))\w*"
)
#: Within one sentence: the periods of "U.S." or "U.S. will" do not end it.
_SAME_SENTENCE = r"(?:[^?.]|\.(?=\S|\s+[a-z]))"
_SUPPOSED = re.compile(
    rf"\b(?P<supposed>assum(?:e|ing)|suppos(?:e|ing)|imagine|hypothetical(?:ly)?)\b"
    rf"{_SAME_SENTENCE}{{0,200}}?\b(?P<change>{_CHANGE})"
    rf"|\b(?P<if>if)\b{_SAME_SENTENCE}{{0,80}}?\b(?:were|was)\s+to\s+(?P<to>{_CHANGE})",
    re.IGNORECASE,
)


def supposes_a_change(question: str) -> str | None:
    """Why ``question`` works its answer out from a supposed change, or None. Its gold is
    printed nowhere, so the evidence map cannot aim at it, and the values it is worked out
    from are printed in more places than a mask or a region blur takes (a chart's shares,
    the text under it, a later chart of the same survey): held-out readers answered every
    such item those edits made, 14 readings of two questions."""
    match = _SUPPOSED.search(question)
    if match is None:
        return None
    said = f"{match['supposed'] or match['if']} ... {match['change'] or match['to']}"
    return f"supposes a change to what the document reports ({said!r})"


#: What a partial edit that declines :func:`supposes_a_change` says of it.
SUPPOSED_NOTE = (
    ' Nor to a question that supposes a change ("assume the share increased by 10'
    ' points"): its answer is worked out from values printed in more places than the edit'
    " takes."
)


#: What a blur that declines :func:`graphical_ask` and :func:`counts_structure` says of it.
BLUR_DECLINES_NOTE = (
    " Not applicable to questions that count, colour or locate graphical things, or count"
    " parts of the document (appendices, sections, steps: the table of contents and the"
    " layout keep the count): the blur keeps their shapes and colours. Nor to a count no"
    " page prints (the rows of a table, the entries of a list): the layout keeps what the"
    " reader counts; counting the times a word is mentioned stays."
)

_HOW_MANY = re.compile(r"\bhow\s+many\b", re.IGNORECASE)


def asks_a_count(question: str) -> bool:
    """A "how many" question about things, not about the times something is mentioned (a
    blurred page hides its words, and those held)."""
    return bool(_HOW_MANY.search(question)) and not _HOW_MANY_TIMES.search(question)


def counted_by_the_reader(question: str, printed: bool) -> str | None:
    """A "how many" question whose answer no page prints (``printed`` False): the reader
    counts (the steps, the quizzes, the people in a photo), and masks over some of the
    counted things leave the rest to count. The reason, or None."""
    match = _HOW_MANY.search(question)
    if match is None or printed:
        return None
    return "counts things no page prints a number for (the reader counts them)"


def counts_structure(question: str) -> str | None:
    """Why ``question`` counts parts of the document (appendices, sections, steps, pages,
    charts), not mentions: a table of contents, headings and layout keep such a count
    through a blur. None for "how many times ..." (a blurred page hides its words)."""
    if _HOW_MANY_TIMES.search(question):
        return None
    return counts_parts(question)


def counts_document_parts(question: str) -> str | None:
    """Why ``question`` counts the document's own parts (appendices, sections, pages,
    footnotes) or the times something is mentioned, not graphical things on one page: a
    table of contents and the other pages keep such a count when some pages are hidden."""
    counted = _said(_COUNT_STRUCTURE.search(question))
    return f"counts parts of the document or mentions ({counted!r})" if counted else None


_HOW_MANY_TIMES = re.compile(r"\bhow\s+many\s+times\b", re.IGNORECASE)

#: Words that end the counted phrase of a "how many" question: what follows is not a
#: part of what is counted ("how many quizzes *are* there in units 4-6").
_PHRASE_END = frozenset(
    (  # noqa: SIM905 (a sentence of words reads better than a column of them)
        "are is were was be been does do did should can could will would shall may might"
        " must have has had in on of from for at by with within across per that which who"
        " there appear appears exist exists shown listed included mentioned given used made"
        " not and or to"
    ).split()
)
_COUNTED = re.compile(r"\bhow\s+many\s+((?:[A-Za-z][\w'-]*\s*){1,6})", re.IGNORECASE)


#: A count confined to one place the question names: "on the first page", "in Figure 3",
#: "does the chart show".
_CONFINED = re.compile(
    r"\b(?:on|in)\s+(?:the\s+)?(?:(?:first|second|third|last|cover|title|front|back|\w+th)\s+)?"
    r"(?:page|slide|figure|fig\.|table|chart|graph|diagram|image|picture|photo|map)s?\b"
    r"|\b(?:the|this|that)\s+(?:chart|graph|diagram|figure|table|image|picture|photo|map)\b",
    re.IGNORECASE,
)


def counted_noun(question: str) -> str | None:
    """The head noun of what a "how many" question counts across the document ("quizzes"
    in "how many quizzes are there in units 4, 5 and 6 combined?", "studies" in "how many
    critical thinking case studies are included"), or None, also for a count confined to
    a place the question names ("how many lines are highlighted on the first page")."""
    match = _COUNTED.search(question)
    if match is None or _CONFINED.search(question):
        return None
    head = None
    for token in match.group(1).split():
        word = token.strip("'-").lower()
        if word in _PHRASE_END:
            break
        head = word
    return head if head and len(head) >= 3 else None


_SHAPE = re.compile(
    r"\b(?:relationships?\s+between|correlat\w*|trends?|trending"
    r"|(?:linear|quadratic|exponential|inverse|proportional)\s+(?:relationship|relation|growth)"
    r"|(?:increas|decreas|ris|fall|declin)\w*\s+or\s+(?:increas|decreas|ris|fall|declin)\w*"
    r"|shape\s+of\s+the\s+(?:curve|graph|plot|distribution))\b",
    re.IGNORECASE,
)


def shape_ask(question: str) -> str | None:
    """Why ``question`` asks the shape of what a plot draws (a trend, a correlation, how
    one quantity moves with another), or None: a blur, a veil or a few masks keep the
    cloud of points and the line's slope it is about."""
    said = _said(_SHAPE.search(question))
    return f"asks the shape of what a plot draws ({said!r})" if said else None


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "cover": 1}
#: "The first page", "the cover" (page 1); not "the second cover page" (which cover?).
_NAMED_ORDINAL = re.compile(
    r"\b(first|second|third|fourth|fifth)\s+(?:page|slide)\b"
    r"|\bthe\s+(?:front\s+)?(cover)\b(?!\s+(?:of|letter))",
    re.IGNORECASE,
)
_NAMED_PAGES = re.compile(
    r"\b(?:pages?|slides?|p\.|pp\.)\s*#?\s*(\d{1,4}(?:\s*(?:,|and|&|-|–|to)\s*\d{1,4})*)",
    re.IGNORECASE,
)


def named_pages(question: str) -> set[int]:
    """The page or slide numbers ``question`` names ("on page 1", "pages 18-19", "slides 3
    and 5", "the first page", "the cover"), as the question writes them (a printed number
    or the PDF's own); empty when it names none."""
    pages: set[int] = set()
    for match in _NAMED_PAGES.finditer(question):
        text = match.group(1)
        numbers = [int(n) for n in re.findall(r"\d+", text)]
        if len(numbers) == 2 and re.search(r"-|–|\bto\b", text) and numbers[0] < numbers[1]:
            pages.update(range(numbers[0], min(numbers[1], numbers[0] + 50) + 1))
        else:
            pages.update(numbers)
    for match in _NAMED_ORDINAL.finditer(question):
        pages.add(_ORDINALS[next(g for g in match.groups() if g).lower()])
    return {p for p in pages if p > 0}
