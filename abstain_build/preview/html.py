"""The preview page: one static HTML file with relative links, readable straight from disk."""

from __future__ import annotations

import difflib
import json
from html import escape
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..model import Sample
from ..routing.route import RouteDecision

if TYPE_CHECKING:
    from .run import PreviewItem

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;
color:#1d1d1f;background:#fafafa;max-width:1400px}
h1{font-size:1.4em;margin-bottom:4px} h2{font-size:1.15em;margin:0 0 6px}
.meta{color:#666;font-size:.9em}
.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:14px 16px;margin:16px 0;
scroll-margin-top:120px}
.images{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start;margin-bottom:10px}
figure{margin:0;flex:1 1 560px;min-width:0}
figure img{max-width:100%;max-height:860px;height:auto;border:1px solid #ccc;cursor:zoom-in}
figure img.zoomed{max-width:none;max-height:none;cursor:zoom-out}
figure.zoomed{flex-basis:100%;overflow-x:auto}
nav.toc{position:sticky;top:0;z-index:2;background:#fafafa;padding:8px 0;
border-bottom:1px solid #ddd;font-size:.9em;line-height:1.9}
nav.toc a{margin-right:10px;white-space:nowrap}
.accepted{background:#d8f3dc;color:#1b4332} .rejected{background:#ffd6d6;color:#7a0000}
.flagged{background:#fff3bf;color:#5c4400} .qc_error{background:#eee;color:#555}
figcaption{font-size:.8em;color:#666}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:.8em;margin-left:6px}
.ok{background:#d8f3dc;color:#1b4332} .not_applicable{background:#eee;color:#555}
.error,.qc_failed,.still_stated{background:#ffd6d6;color:#7a0000}
table{border-collapse:collapse;font-size:.88em;margin:6px 0}
td,th{border:1px solid #e2e2e2;padding:3px 8px;text-align:left;vertical-align:top}
del{background:#ffd6d6;text-decoration:line-through} ins{background:#d8f3dc;text-decoration:none}
.q{font-size:1.02em;line-height:1.45}
ul.compact{margin:4px 0;padding-left:20px;font-size:.9em}
"""


def _question_diff(before: str, after: str) -> str:
    """Word-level diff: removed words struck through, added words highlighted."""
    old, new = before.split(" "), after.split(" ")
    parts: list[str] = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(escape(" ".join(old[a0:a1])))
            continue
        if a1 > a0:
            parts.append(f"<del>{escape(' '.join(old[a0:a1]))}</del>")
        if b1 > b0:
            parts.append(f"<ins>{escape(' '.join(new[b0:b1]))}</ins>")
    return " ".join(parts)


#: Click an image to see it at full size (click again to fit); the link opens the file.
ZOOM = """<script>
document.addEventListener("click", (event) => {
  const image = event.target.closest("figure img");
  if (!image) return;
  event.preventDefault();
  image.classList.toggle("zoomed");
  image.closest("figure").classList.toggle("zoomed");
});
</script>"""


def _figure(path: str, caption: str) -> str:
    return (
        f'<figure><a href="{escape(path)}"><img src="{escape(path)}" alt="{escape(caption)}"'
        f' title="click to zoom"></a><figcaption>{escape(caption)} ·'
        f' <a href="{escape(path)}">open</a></figcaption></figure>'
    )


def anchor(name: str) -> str:
    return "t-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _toc(items: list[PreviewItem], has_routing: bool) -> str:
    links = ['<a href="#original">original</a>']
    if has_routing:
        links.append('<a href="#routing">routing</a>')
    for item in items:
        status = item.qc["status"] if item.qc else item.status
        links.append(
            f'<a href="#{anchor(item.transform.name)}">{escape(item.transform.name)}</a>'
            f"<span class='badge {escape(status)}'>{escape(status.replace('_', ' '))}</span>"
        )
    return f"<nav class='toc'>{' '.join(links)}</nav>"


def _verdicts(item: PreviewItem) -> list[str]:
    """The re-read gate's finding and what a build's offline QC would decide."""
    out = []
    if item.gate:
        mark = "✔" if item.gate_passed else "✘"
        out += ["<h3>Re-read gate</h3>", f"<p>{mark} {escape(item.gate)}</p>"]
    if item.qc is not None:
        status = item.qc["status"]
        lines = "".join(
            f"<li><b>{escape(v['judge'])}</b>: {escape(v['verdict'])}"
            f" ({escape(str(v.get('confidence') or ''))}) {escape(v.get('justification') or '')}"
            "</li>"
            for v in item.qc.get("judges", [])
        )
        error = item.qc.get("error")
        validity = item.qc.get("validity") or {}
        measured = ""
        if validity:
            verdict = "clears the bar" if validity.get("clears") else "held back (flagged)"
            measured = (
                f"<p><b>Measured validity</b>: {escape(str(validity.get('reason', '')))}"
                f" &mdash; {verdict}</p>"
            )
        out += [
            f"<h3>Offline QC <span class='badge {escape(status)}'>{escape(status)}</span></h3>",
            "<p class='meta'>What a build's default QC would decide: accepted when both"
            " judges say UNANSWERABLE and the transform's measured validity clears the bar"
            " (blind readings, see <code>abstain-build validity</code>), rejected when both"
            " say ANSWERABLE, flagged for review when they split or the validity is not"
            " known to be high enough.</p>",
            f"<ul class='compact'>{lines}</ul>" if lines else "",
            measured,
            f"<p>{escape(error)}</p>" if error else "",
        ]
    return out


def _figures(paths: list[str], caption: str) -> str:
    return "".join(_figure(p, f"{caption} {i + 1}") for i, p in enumerate(paths))


def _comparison(original_paths: list[str], item: PreviewItem) -> str:
    """One row per original image: the original, its result and its edited regions."""
    if len(item.overlay_index) == len(item.overlay):
        overlays = dict(zip(item.overlay_index, item.overlay, strict=True))
    else:
        overlays = dict(enumerate(item.overlay))
    rows = []
    for i, original in enumerate(original_paths):
        result = item.images[i] if i < len(item.images) else None
        if result == original:
            cells = [_figure(original, f"original {i + 1} = result {i + 1} (image unchanged)")]
        else:
            cells = [_figure(original, f"original {i + 1}")]
            if result is not None:
                cells.append(_figure(result, f"result {i + 1}"))
        if i in overlays:
            cells.append(_figure(overlays[i], f"edited regions {i + 1}"))
        rows.append(f"<div class='images'>{''.join(cells)}</div>")
    return "".join(rows)


def _kv_table(data: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{escape(str(k))}</th><td>{escape(json.dumps(v, ensure_ascii=False))}</td></tr>"
        for k, v in data.items()
    )
    return f"<table>{rows}</table>" if rows else "<p class='meta'>none</p>"


def _edits(record: dict[str, Any]) -> str:
    edits = record["edits"]
    items: list[str] = []
    if edits["pages_hidden"]:
        items.append(f"pages hidden: {escape(str(edits['pages_hidden']))}")
    for crop in edits["pages_cropped"]:
        items.append(
            f"page {crop['page']} cropped, kept {crop['kept']} half ({escape(crop['reason'])})"
        )
    for token in edits["tokens"][:30]:
        old, new = escape(token["old"]), escape(token["new"])
        items.append(f"{escape(token['where'])}: <del>{old}</del> → <ins>{new}</ins>")
    regions = edits["regions"]
    if regions:
        kinds: dict[str, int] = {}
        for region in regions:
            kinds[region["kind"]] = kinds.get(region["kind"], 0) + 1
        items.append("regions: " + ", ".join(f"{n} × {escape(k)}" for k, n in kinds.items()))
    for note in record["notes"]:
        items.append(f"<span class='meta'>{escape(note)}</span>")
    return "<ul class='compact'>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _rewrite(record: dict) -> list[str]:
    """How a question rewrite was made: generator, template or prompt, gate scores."""
    info = record.get("rewrite") or {}
    if not info.get("generator"):
        return []
    lines = [
        f"generator {escape(info['generator'])} · {escape(info['template'])}"
        f" · attempt {info['attempts']}"
    ]
    for gate in info["gates"]:
        score = "" if gate["score"] is None else f" {gate['score']:.3f}"
        mark = "✔" if gate["passed"] else "✘"
        lines.append(f"{mark} {escape(gate['name'])}{score} {escape(gate['detail'])}")
    usage = info.get("model")
    if usage:
        lines.append(
            f"model: {usage['requests']} request(s),"
            f" {usage['input_tokens']} + {usage['output_tokens']} tokens"
        )
    items = "".join(f"<li>{line}</li>" for line in lines)
    return ["<h3>Rewrite and gates</h3>", f"<ul class='compact'>{items}</ul>"]


def _routing(decision: RouteDecision | None) -> str:
    """The routing section: the sample's classes, every transform's score, the choice."""
    if decision is None:
        return ""
    features = decision.features
    classes = ", ".join(
        f"{key.replace('_', ' ')} <b>{escape(str(features[key]))}</b>"
        for key in ("dependency", "evidence_type")
        if features.get(key)
    )
    rows = "".join(
        f"<tr><td>{escape(s['transform'])}</td><td>{escape(s['family'])}</td>"
        f"<td>{s['affinity']:.2f}</td><td><b>{s['score']:.3f}</b></td>"
        f"<td>{escape('; '.join(s['hard']))}</td><td>{escape('; '.join(s['soft']))}</td></tr>"
        for s in decision.scores
    )
    shown = {k: v for k, v in features.items() if k not in ("notes",) and v not in (None, "", [])}
    chain = " → ".join(decision.chain) or "none"
    return (
        "<div class='card' id='routing'><h2>Routing</h2>"
        f"<p>{classes} <span class='meta'>({escape(str(features.get('classifier_mode')))})"
        "</span></p>"
        f"<p><b>Chosen:</b> {escape(decision.reason)}</p>"
        f"<p><b>Fallback chain:</b> {escape(chain)}</p>"
        "<p class='meta'>score = affinity × 0.05 per hard rule broken × 0.70 per soft"
        " rule; eligible above 0.4 (0.25 when nothing is). In a build, the least-used family"
        " among the eligible wins, so a dataset stays balanced.</p>"
        "<table><tr><th>transform</th><th>family</th><th>affinity</th><th>score</th>"
        f"<th>hard rules broken</th><th>soft rules broken</th></tr>{rows}</table>"
        f"<h3>Features</h3>{_kv_table(shown)}</div>"
    )


def _card(item: PreviewItem, original_paths: list[str], sample: Sample) -> str:
    transform = item.transform
    badge = f"<span class='badge {item.status}'>{item.status.replace('_', ' ')}</span>"
    head = (
        f"<h2>{escape(transform.name)}{badge}</h2>"
        f"<div class='meta'>{escape(transform.family)} · {escape(transform.axis)} · target"
        f" {escape(transform.target)}</div>"
    )
    card_id = f"id='{anchor(transform.name)}'"
    if item.output is None:
        return f"<div class='card' {card_id}>{head}<p>{escape(item.reason)}</p></div>"
    record = item.output.record.to_json()
    body = [
        _comparison(original_paths, item),
        "<p class='q'><b>Question:</b> "
        f"{_question_diff(sample.question, item.output.question)}</p>",
        f"<p class='meta'>intensity {record['intensity']:.1f} / 100 · mode {escape(record['mode'])}"
        f" · seed {record['seed']}{_score(item)}</p>",
        "<h3>Parameters used</h3>",
        _kv_table(record["params"]),
        "<h3>What was edited</h3>",
        _edits(record),
        *_rewrite(record),
        *_verdicts(item),
        "<h3>Structural checks</h3>",
        "<ul class='compact'>"
        + "".join(
            f"<li>{'✔' if c['passed'] else '✘'} {escape(c['name'])} {escape(c['detail'])}</li>"
            for c in item.output.qc["checks"]
        )
        + "</ul>",
    ]
    if item.reason:
        body.insert(0, f"<p><b>{escape(item.reason)}</b></p>")
    return f"<div class='card' {card_id}>{head}{''.join(body)}</div>"


def _score(item: PreviewItem) -> str:
    return "" if item.route_score is None else f" · routing score {item.route_score:.3f}"


def render_html(
    sample: Sample,
    original_paths: list[str],
    items: list[PreviewItem],
    seed: int,
    decision: RouteDecision | None = None,
) -> str:
    options = "".join(f"<li>{escape(o)}</li>" for o in sample.options)
    source = sample.source
    applied = sum(1 for i in items if i.status == "ok")
    summary = (
        f"{applied} of {len(items)} transforms produced an item; "
        + ", ".join(
            f"{i.transform.name}: {i.status.replace('_', ' ')}" for i in items if i.status != "ok"
        )
    ).rstrip("; ")
    pages = f" · evidence pages {list(sample.evidence_pages)}" if sample.evidence_pages else ""
    where = f"{source.dataset} ({source.layout}) · {source.file} record {source.index}{pages}"
    answer_format = (
        f" <span class='meta'>({escape(sample.answer_format)})</span>"
        if sample.answer_format
        else ""
    )
    sheet_link = 'The contact sheet is <a href="contact_sheet.png">contact_sheet.png</a>.'

    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>abstain-build preview: {escape(sample.id)}</title>
<style>{STYLE}</style></head><body>
<h1>Preview of {escape(sample.id)}</h1>
<div class="meta">{escape(where)} · seed {seed} · abstain-build {__version__}</div>
{_toc(items, decision is not None)}
<div class="card" id="original"><h2>Original (answerable control)</h2>
<div class="images">{_figures(original_paths, "original")}</div>
<p class="q"><b>Question:</b> {escape(sample.question)}</p>
{f"<ol type='A'>{options}</ol>" if options else ""}
<p><b>Answer:</b> {escape(sample.answer)}{answer_format}</p>
<p class="meta">{escape(summary)}. {sheet_link}</p>
</div>
{_routing(decision)}
{"".join(_card(item, original_paths, sample) for item in items)}
{ZOOM}
</body></html>
"""
