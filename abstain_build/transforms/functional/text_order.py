"""Write new text into a page's content stream where the text it replaces was drawn.

Text extraction (PyMuPDF, pdfminer, pypdf, most PDF-to-text tools) reads a page in the
order its content stream draws glyphs. Text added with ``page.insert_text`` goes into a
new stream after everything else, so a number rewritten inside a sentence is read at the
very end of the page, detached from its sentence, and a list of loose numbers there gives
away which values were edited. Here each new piece of text is spliced into the stream
right after the text object that draws the glyph before it on its line (or right before
the one drawing the glyph after it), so a reader of the text layer finds the sentence
whole again. When that glyph is drawn by a form, the text goes into a private copy of the
form (other pages showing it stay as they were). A text object holding a whole
paragraph, as TeX writes them, is closed after the line that shows the glyph and reopened
with its line matrix, so the new text is read after its own line.

Which text object draws a glyph is asked of MuPDF itself: the stream cut after the k-th
text object (or text-showing operator) either draws the glyph or not, and a binary search
over k finds it. Content streams are parsed and written by pikepdf (inline images and
string escapes included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import pikepdf
import pymupdf
from pymupdf import mupdf

from ...textregions.words import share_a_line

#: How far (points) a glyph may sit from the new text and still count as its neighbour.
_SAME_LINE_GAP = 1.5


#: A box (page coordinates) and the colour (0..1 RGB) to fill it with.
Underlay = tuple[tuple[float, float, float, float], tuple[float, float, float]]


@dataclass(frozen=True)
class PlacedText:
    """Text to draw at ``origin`` (page coordinates, rotation removed: the baseline start),
    in a base-14 font, squeezed horizontally by ``squeeze``; ``rect`` is where it goes.
    ``underlay``: a box filled first, in the same place in the stream (an erased value's
    background over a picture)."""

    text: str
    origin: tuple[float, float]
    fontname: str
    size: float
    colour: tuple[float, float, float]
    squeeze: float
    rect: tuple[float, float, float, float]
    underlay: Underlay | None = None


@dataclass(frozen=True)
class _Glyph:
    char: str
    bbox: tuple[float, float, float, float]
    origin: tuple[float, float]


@dataclass(frozen=True)
class _Unit:
    """A drawing step that can hold text: a ``BT``..``ET`` object or a form's ``Do``."""

    start: int
    end: int


def _glyphs(
    page: pymupdf.Page, clip: pymupdf.Rect | None = None, spaces: bool = False
) -> list[_Glyph]:
    """The glyphs ``page.get_text("rawdict", clip=clip)`` reports, in its order (spaces
    too with ``spaces``)."""
    textpage = page.get_textpage(clip=clip, flags=pymupdf.TEXTFLAGS_RAWDICT)
    found = None
    if _CHARACTER_BOXES and _has_pictures(textpage):
        found = _read_characters(textpage, spaces)
    if found is not None:
        return found
    data = textpage.extractRAWDICT()
    return [
        _Glyph(char["c"], tuple(char["bbox"]), tuple(char["origin"]))
        for block in data.get("blocks", [])
        for line in block.get("lines", [])
        for span in line.get("spans", [])
        for char in span.get("chars", [])
        if spaces or char["c"].strip()
    ]


#: PyMuPDF's own character box and overlap test, which its dictionary filters with (its
#: Python fallbacks of the C++ code; without them, the dictionary is always built).
_CHARACTER_BOXES = hasattr(pymupdf, "JM_char_bbox") and hasattr(pymupdf, "JM_rects_overlap")


def _has_pictures(textpage: pymupdf.TextPage) -> bool:
    return any(block.m_internal.type == mupdf.FZ_STEXT_BLOCK_IMAGE for block in textpage.this)


def _read_characters(textpage: pymupdf.TextPage, spaces: bool) -> list[_Glyph] | None:
    """What PyMuPDF's dictionary of ``textpage`` reports, read without building it:
    building it encodes every picture on the page (a scanned page's background: some
    60 ms for a clip whose text takes 1.5 ms), and the binary searches below ask for a
    clip thousands of times a page.

    The characters are filtered as PyMuPDF filters them (the block, the line and the
    character box must meet the text page's area). PyMuPDF also drops a line's last span
    when its box is empty, which only characters of zero width or height make: when such
    a character would be reported, None says to ask PyMuPDF itself.
    """
    stext = textpage.this
    area = mupdf.FzRect(stext.m_internal.mediabox)
    out = []
    for block in stext:
        if block.m_internal.type != mupdf.FZ_STEXT_BLOCK_TEXT or _misses(area, block):
            continue
        for line in block:
            if _misses(area, line):
                continue
            for char in line:
                text = chr(char.m_internal.c)
                if not (spaces or text.strip()):
                    continue
                box = pymupdf.JM_char_bbox(line, char)
                if box.x1 <= box.x0 or box.y1 <= box.y0:
                    return None
                if pymupdf.JM_rects_overlap(area, box):
                    origin = char.m_internal.origin
                    out.append(_Glyph(text, (box.x0, box.y0, box.x1, box.y1), (origin.x, origin.y)))
    return out


def _misses(area: mupdf.FzRect, part: object) -> bool:
    box = mupdf.FzRect(part.m_internal.bbox)
    return bool(mupdf.fz_is_empty_rect(mupdf.fz_intersect_rect(area, box)))


def neighbour(glyphs: Sequence[_Glyph], rect: Sequence[float]) -> tuple[_Glyph, str] | None:
    """The glyph the new text follows in reading order, and on which side of it the text
    goes ("after" it, or "before" it when nothing precedes the text on its line).

    On its own line the text follows the end of the nearest line above it that overlaps it
    horizontally (a new table row follows the row above).
    """
    line = [g for g in glyphs if share_a_line(g.bbox, rect)]
    left = [g for g in line if g.bbox[2] <= rect[0] + _SAME_LINE_GAP]
    if left:
        return max(left, key=lambda g: g.bbox[2]), "after"
    right = [g for g in line if g.bbox[0] >= rect[2] - _SAME_LINE_GAP]
    if right:
        return min(right, key=lambda g: g.bbox[0]), "before"
    above = [g for g in glyphs if g.bbox[3] <= rect[1] + _SAME_LINE_GAP and g.bbox[0] < rect[2]]
    if above:
        nearest = max(g.bbox[3] for g in above)
        row = [g for g in above if g.bbox[3] >= nearest - _SAME_LINE_GAP]
        return max(row, key=lambda g: g.bbox[2]), "after"
    return None


def _transforms(instructions: Sequence) -> list[pymupdf.Matrix]:
    """The transformation (CTM) in force before each instruction, and after the last."""
    stack: list[pymupdf.Matrix] = []
    ctm = pymupdf.Matrix(1, 0, 0, 1, 0, 0)
    before = []
    for instruction in instructions:
        before.append(ctm)
        if isinstance(instruction, pikepdf.ContentStreamInlineImage):
            continue
        operator = str(instruction.operator)
        if operator == "q":
            stack.append(ctm)
        elif operator == "Q":
            ctm = stack.pop() if stack else ctm
        elif operator == "cm" and len(instruction.operands) == 6:
            ctm = pymupdf.Matrix(*(float(v) for v in instruction.operands)) * ctm
    before.append(ctm)
    return before


def _units(instructions: Sequence) -> list[_Unit]:
    units: list[_Unit] = []
    start = None
    for index, instruction in enumerate(instructions):
        operator = _operator(instruction)
        if operator == "BT":
            start = index
        elif operator == "ET" and start is not None:
            units.append(_Unit(start, index))
            start = None
        elif operator == "Do" and start is None:
            units.append(_Unit(index, index))
    return units


def _number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _snippet(page: pymupdf.Page, item: PlacedText, ctm: pymupdf.Matrix) -> bytes:
    """The drawing of ``item`` in the user space in force where it is spliced (``ctm``),
    with every text-state parameter it relies on set, inside its own ``q``..``Q``."""
    undo = ~ctm
    x, y = pymupdf.Point(item.origin) * ~page.transformation_matrix
    code = item.text.encode("cp1252", errors="replace").hex()
    r, g, b = item.colour
    parts = [
        "q",
        " ".join(_number(v) for v in (undo.a, undo.b, undo.c, undo.d, undo.e, undo.f)) + " cm",
    ]
    if item.underlay is not None:
        box = pymupdf.Rect(item.underlay[0]) * ~page.transformation_matrix
        fill = " ".join(_number(v) for v in item.underlay[1])
        parts.append(
            f"{fill} rg {_number(box.x0)} {_number(box.y0)} "
            f"{_number(box.width)} {_number(box.height)} re f"
        )
    parts += [
        "BT",
        "0 Tr 0 Tc 0 Tw 100 Tz 0 Ts",
        f"/{item.fontname} {_number(item.size)} Tf",
        f"{_number(r)} {_number(g)} {_number(b)} rg",
        f"{_number(item.squeeze)} 0 0 1 {_number(x)} {_number(y)} Tm",
        f"<{code}> Tj",
        "ET",
        "Q",
    ]
    return ("\n" + "\n".join(parts) + "\n").encode("ascii")


@dataclass
class _Stream:
    """A content stream that draws text: the page's, or a form's it shows."""

    xref: int  # the stream's object
    owner: int  # the object whose /Resources it uses (the page, or the form itself)
    instructions: list
    original: bytes
    outer: pymupdf.Matrix  # this stream's user space -> the page's default user space
    splices: dict[int, list[bytes]] = field(default_factory=dict)
    fonts: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.units = _units(self.instructions)
        self.transforms = _transforms(self.instructions)

    def ctm(self, position: int) -> pymupdf.Matrix:
        """Transformation from user space at ``position`` to the page's default space."""
        return self.transforms[position] * self.outer


def _parse(doc: pymupdf.Document, xref: int, owner: int, outer: pymupdf.Matrix) -> _Stream:
    data = doc.xref_stream(xref) or b""
    with pikepdf.new() as scratch:  # the stream object needs its document alive
        instructions = list(pikepdf.parse_content_stream(pikepdf.Stream(scratch, data)))
    return _Stream(xref, owner, instructions, data, outer)


def _reference(value: str) -> int | None:
    parts = value.split()
    return int(parts[0]) if len(parts) == 3 and parts[2] == "R" else None


def _own_resources(doc: pymupdf.Document, owner: int) -> None:
    """Give ``owner`` a /Resources dictionary of its own (an indirect one may be shared by
    other pages, and an entry changed there would change them too)."""
    kind, value = doc.xref_get_key(owner, "Resources")
    if kind == "xref":
        doc.xref_set_key(owner, "Resources", doc.xref_object(_reference(value), compressed=True))


def _form_shown(doc: pymupdf.Document, stream: _Stream, unit: _Unit, depth: int) -> _Stream | None:
    """The form a ``Do`` unit shows, as a private copy ready to edit (None: an image, a
    form nested too deep, or anything unexpected)."""
    instruction = stream.instructions[unit.start]
    if depth >= 3 or str(instruction.operator) != "Do" or not instruction.operands:
        return None
    name = str(instruction.operands[0]).lstrip("/")
    _own_resources(doc, stream.owner)
    kind, value = doc.xref_get_key(stream.owner, f"Resources/XObject/{name}")
    form = _reference(value) if kind == "xref" else None
    if form is None or doc.xref_get_key(form, "Subtype")[1] != "/Form":
        return None
    copy = doc.get_new_xref()
    doc.update_object(copy, doc.xref_object(form, compressed=True))
    doc.update_stream(copy, doc.xref_stream(form) or b"")
    doc.xref_set_key(stream.owner, f"Resources/XObject/{name}", f"{copy} 0 R")
    kind, value = doc.xref_get_key(copy, "Matrix")
    numbers = [float(v) for v in value.strip("[]").split()] if kind == "array" else []
    matrix = pymupdf.Matrix(*numbers) if len(numbers) == 6 else pymupdf.Matrix(1, 0, 0, 1, 0, 0)
    return _parse(doc, copy, copy, matrix * stream.ctm(unit.start))


def _draws(page: pymupdf.Page, glyph: _Glyph) -> bool:
    x0, y0, x1, y1 = glyph.bbox
    clip = pymupdf.Rect(x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    return any(
        found.char == glyph.char
        and abs(found.origin[0] - glyph.origin[0]) < 0.5
        and abs(found.origin[1] - glyph.origin[1]) < 0.5
        for found in _glyphs(page, clip)
    )


def _first_cut_drawing(
    page: pymupdf.Page, stream: _Stream, glyph: _Glyph, cuts: Sequence[int]
) -> int | None:
    """Index into ``cuts`` of the first cut (the stream kept up to and including that
    instruction) that draws ``glyph``: a binary search; the stream is restored after.
    A cut is read once and thrown away, so it is not compressed."""
    doc = page.parent

    def draws(k: int) -> bool:
        cut = stream.instructions[: cuts[k] + 1]
        doc.update_stream(stream.xref, pikepdf.unparse_content_stream(cut), compress=False)
        return _draws(page, glyph)

    try:
        low, high = 0, len(cuts) - 1
        if high < 0 or not draws(high):
            return None
        while low < high:
            middle = (low + high) // 2
            if draws(middle):
                high = middle
            else:
                low = middle + 1
        return low
    finally:
        doc.update_stream(stream.xref, stream.original)


#: Operators that draw text, and those that position the next line from the line matrix.
_SHOWS = {"Tj", "TJ", "'", '"'}
_LINE_STARTS = {"Td", "TD", "Tm", "T*", "'", '"'}


def _operator(instruction: object) -> str:
    return (
        ""
        if isinstance(instruction, pikepdf.ContentStreamInlineImage)
        else str(instruction.operator)
    )


def _line_matrix(instructions: Sequence, start: int, stop: int) -> pymupdf.Matrix:
    """The text line matrix after the text object opened at ``start`` has run up to
    ``stop`` (the positioning operators only: no glyph widths are needed for it)."""
    line = pymupdf.Matrix(1, 0, 0, 1, 0, 0)
    leading = 0.0
    for instruction in instructions[start:stop]:
        operator = _operator(instruction)
        values = (
            [float(v) for v in instruction.operands if isinstance(v, (int, Decimal))]
            if operator
            else []
        )
        if operator == "TL" and values:
            leading = values[0]
        elif operator in ("Td", "TD") and len(values) == 2:
            line = pymupdf.Matrix(1, 0, 0, 1, values[0], values[1]) * line
            if operator == "TD":
                leading = -values[1]
        elif operator == "Tm" and len(values) == 6:
            line = pymupdf.Matrix(*values)
        elif operator in ("T*", "'", '"'):
            line = pymupdf.Matrix(1, 0, 0, 1, 0, -leading) * line
    return line


def _split_after(
    page: pymupdf.Page,
    stream: _Stream,
    unit: _Unit,
    glyph: _Glyph,
    rect: Sequence[float] | None = None,
) -> tuple[int, bytes, bytes]:
    """Where in a text object to put text that follows ``glyph``: inside the ``TJ`` that
    shows it when that goes on past ``rect`` (:func:`_split_inside`), else right before
    the next operator that starts a line (after the text shown with ``glyph``), or after
    the object.

    Returns the position and what closes and reopens the text object around the insert
    (empty after the object's end). Reopened, the object gets its line matrix back, which
    the operator there positions from.
    """
    shows = [i for i in range(unit.start, unit.end) if _operator(stream.instructions[i]) in _SHOWS]
    found = _first_cut_drawing(page, stream, glyph, shows) if len(shows) > 1 else None
    if found is None and len(shows) == 1:
        found = 0
    if found is not None and rect is not None:
        inside = _split_inside(page, stream, unit, shows[found], rect)
        if inside is not None:
            return inside
    if found is None or len(shows) == 1:
        return unit.end + 1, b"", b""
    for index in range(shows[found] + 1, unit.end):
        if _operator(stream.instructions[index]) in _LINE_STARTS:
            line = _line_matrix(stream.instructions, unit.start, index)
            reopen = " ".join(_number(v) for v in (line.a, line.b, line.c, line.d, line.e, line.f))
            return index, b"\nET", f"\nBT\n{reopen} Tm\n".encode("ascii")
    return unit.end + 1, b"", b""


def _drawn_by(page: pymupdf.Page, stream: _Stream, index: int) -> list[_Glyph]:
    """Every glyph (spaces too) the instruction at ``index`` draws, left to right: those
    drawn with the stream cut after it and not before it."""
    doc = page.parent

    def drawn(stop: int) -> list[_Glyph]:
        cut = pikepdf.unparse_content_stream(stream.instructions[:stop])
        doc.update_stream(stream.xref, cut, compress=False)
        return _glyphs(page, spaces=True)

    try:
        before = {(g.char, round(g.origin[0], 1), round(g.origin[1], 1)) for g in drawn(index)}
        after = drawn(index + 1)
    finally:
        doc.update_stream(stream.xref, stream.original)
    new = [g for g in after if (g.char, round(g.origin[0], 1), round(g.origin[1], 1)) not in before]
    return sorted(new, key=lambda g: g.origin[0])


def _split_inside(
    page: pymupdf.Page, stream: _Stream, unit: _Unit, index: int, rect: Sequence[float]
) -> tuple[int, bytes, bytes] | None:
    """Split the ``TJ`` at ``index`` where ``rect`` is, when it shows glyphs on both sides
    of it (a line of a paragraph drawn by one operator, as TeX and Word write them), so
    the new text is read between them: the operator keeps the glyphs left of ``rect``;
    the rest is shown after the insert, from where it was drawn, and the line matrix is
    then put back for the next line. None where that cannot be done exactly: another
    operator shows text after this one on its line, or its strings do not hold one or
    two bytes per glyph."""
    instruction = stream.instructions[index]
    if _operator(instruction) != "TJ" or not instruction.operands:
        return None
    following = next(
        (
            _operator(i)
            for i in stream.instructions[index + 1 : unit.end + 1]
            if _operator(i) in _SHOWS | _LINE_STARTS | {"ET"}
        ),
        "ET",
    )
    if following in _SHOWS - _LINE_STARTS:
        return None
    array = list(instruction.operands[0])
    glyphs = _drawn_by(page, stream, index)
    left = [g for g in glyphs if g.origin[0] < rect[0]]
    right = [g for g in glyphs if g.origin[0] >= rect[0]]
    strings = [bytes(e) for e in array if isinstance(e, pikepdf.String)]
    total = sum(len(b) for b in strings)
    if not left or not right or total % len(glyphs) or total // len(glyphs) not in (1, 2):
        return None
    need = len(left) * (total // len(glyphs))
    first: list = []
    rest: list = []
    for element in array:
        if need <= 0:
            rest.append(element)
        elif isinstance(element, pikepdf.String):
            data = bytes(element)
            first.append(pikepdf.String(data[:need]))
            if len(data) > need:
                rest.append(pikepdf.String(data[need:]))
            need -= len(data)
        else:
            first.append(element)
    while rest and not isinstance(rest[0], pikepdf.String):
        rest.pop(0)  # the gap to the first glyph on the right is set by the matrix below
    line = _line_matrix(stream.instructions, unit.start, index)
    start = (pymupdf.Point(right[0].origin) * ~page.transformation_matrix) * ~stream.ctm(index)
    resume = " ".join(_number(v) for v in (line.a, line.b, line.c, line.d, start.x, start.y))
    back = " ".join(_number(v) for v in (line.a, line.b, line.c, line.d, line.e, line.f))
    shown = pikepdf.unparse_content_stream(
        [pikepdf.ContentStreamInstruction([pikepdf.Array(rest)], pikepdf.Operator("TJ"))]
    )
    stream.instructions[index] = pikepdf.ContentStreamInstruction(
        [pikepdf.Array(first)], pikepdf.Operator("TJ")
    )
    stream.original = pikepdf.unparse_content_stream(stream.instructions)
    reopen = f"\nBT\n{resume} Tm\n".encode("ascii") + shown + f"\n{back} Tm\n".encode("ascii")
    return index + 1, b"\nET", reopen


def _locate(
    page: pymupdf.Page, stream: _Stream, glyph: _Glyph, forms: dict, depth: int = 0
) -> tuple[_Stream, _Unit] | None:
    """The stream and the unit in it that draw ``glyph``, descending into forms."""
    index = _first_cut_drawing(page, stream, glyph, [unit.end for unit in stream.units])
    if index is None:
        return None
    unit = stream.units[index]
    key = (stream.xref, unit.start)
    if key not in forms:
        forms[key] = _form_shown(page.parent, stream, unit, depth)
    inner = forms[key]
    found = _locate(page, inner, glyph, forms, depth + 1) if inner is not None else None
    return found or (stream, unit)


def _add_font(doc: pymupdf.Document, owner: int, name: str, font: int) -> None:
    """Make font object ``font`` available as ``/name`` to the stream of ``owner``."""
    kind, value = doc.xref_get_key(owner, "Resources")
    if kind == "xref":
        owner = _reference(value)
        kind, value = doc.xref_get_key(owner, "Font")
        path = "Font"
    else:
        kind, value = doc.xref_get_key(owner, "Resources/Font")
        path = "Resources/Font"
    if kind == "xref":
        doc.xref_set_key(_reference(value), name, f"{font} 0 R")
    else:
        doc.xref_set_key(owner, f"{path}/{name}", f"{font} 0 R")


def insert_in_reading_order(
    page: pymupdf.Page, items: Sequence[PlacedText], at_end: bool = False
) -> list[str]:
    """Draw ``items`` on ``page``, each spliced into the content stream (or the form) that
    draws the text before it, right after that text (see the module docstring). Returns,
    per item, where it went: "after" or "before" a neighbour's text object, or "end" when
    no neighbour was found. ``at_end``: draw them all after everything else (what the
    caller drew last must not cover them).
    """
    if not items:
        return []
    doc = page.parent
    fonts = {name: page.insert_font(fontname=name) for name in sorted({i.fontname for i in items})}
    glyphs = [] if at_end else _glyphs(page)
    xrefs = page.get_contents()
    doc.update_stream(xrefs[0], page.read_contents())
    page.set_contents(xrefs[0])
    top = _parse(doc, xrefs[0], page.xref, pymupdf.Matrix(1, 0, 0, 1, 0, 0))
    forms: dict = {}
    edited = {top.xref: top}
    places = []
    spliced: list[tuple[_Stream, int, bytes, bytes, bytes]] = []
    for item in items:
        found = None if at_end else neighbour(glyphs, item.rect)
        located = _locate(page, top, found[0], forms) if found else None
        close = reopen = b""
        if located is None:
            stream, position, place = top, len(top.instructions), "end"
        else:
            stream, unit = located
            place = found[1]
            position = unit.start
            if place == "after" and _operator(stream.instructions[unit.start]) == "BT":
                position, close, reopen = _split_after(page, stream, unit, found[0], item.rect)
            elif place == "after":
                position = unit.end + 1
        drawing = _snippet(page, item, stream.ctm(position))
        stream.splices.setdefault(position, []).append(close + drawing + reopen)
        stream.fonts.add(item.fontname)
        edited[stream.xref] = stream
        places.append(place)
        spliced.append((stream, position, close, drawing, reopen))
    _write(doc, edited, top, fonts)
    # A neighbour drawn inside a clip (a table cell clipped to its own box) clips the new
    # text too: what is not drawn where it was spliced goes after everything else.
    hidden = [n for n, item in enumerate(items) if places[n] != "end" and not _shows(page, item)]
    for n in hidden:
        stream, position, close, drawing, reopen = spliced[n]
        stream.splices[position].remove(close + drawing + reopen)
        stream.splices[position].append(close + reopen)
        end = len(top.instructions)
        top.splices.setdefault(end, []).append(_snippet(page, items[n], top.ctm(end)))
        places[n] = "end"
    if hidden:
        _write(doc, edited, top, fonts)
    return places


def _write(doc: pymupdf.Document, edited: dict, top: _Stream, fonts: dict) -> None:
    for stream in edited.values():
        if stream is not top:
            for name in stream.fonts:
                _add_font(doc, stream.owner, name, fonts[name])
        doc.update_stream(stream.xref, _spliced(stream))


def _shows(page: pymupdf.Page, item: PlacedText) -> bool:
    """Whether ``item``'s text is drawn (not clipped away) where it was placed."""
    x0, y0, x1, y1 = item.rect
    box = pymupdf.Rect(min(x0, item.origin[0]) - 1, y0 - 1, x1 + 1, y1 + 1)
    drawn = "".join(
        g.char
        for g in sorted(_glyphs(page, box), key=lambda g: g.origin[0])
        if abs(g.origin[1] - item.origin[1]) < 1.0
    )
    return "".join(item.text.split()) in drawn


def _spliced(stream: _Stream) -> bytes:
    pieces: list[bytes] = []
    previous = 0
    for position in sorted(stream.splices):
        pieces.append(pikepdf.unparse_content_stream(stream.instructions[previous:position]))
        pieces.extend(stream.splices[position])
        previous = position
    pieces.append(pikepdf.unparse_content_stream(stream.instructions[previous:]))
    return b"\n".join(pieces)
