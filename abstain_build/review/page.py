"""The review page: one self-contained HTML document (inline CSS and JS, nothing fetched
from elsewhere). It only ever receives an item's question, options and media URLs, so
nothing on it (or in its requests) can hint at how the item was made."""

from __future__ import annotations

import json

_PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Answerability review</title>
<style>
:root {
  --bg: #f3f4f7; --card: #fff; --ink: #1c2230; --muted: #5b6476; --line: #dbe0e8;
  --ok: #1d7a4c; --no: #b42318; --skip: #5b6476; --accent: #3056d3;
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body {
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  background: var(--bg); color: var(--ink); min-height: 100vh;
  display: flex; flex-direction: column;
}
header {
  position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 18px;
  padding: 10px 24px; background: var(--card); border-bottom: 1px solid var(--line);
}
.brand { font-weight: 650; letter-spacing: .01em; }
#who { color: var(--muted); font-size: 14px; }
.progress { margin-left: auto; display: flex; align-items: center; gap: 12px; min-width: 320px; }
#progress-text { font-variant-numeric: tabular-nums; white-space: nowrap; font-size: 14px; }
.bar { flex: 1; height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; }
#bar-fill { height: 100%; width: 0; background: var(--accent); transition: width .2s; }
main { flex: 1; width: 100%; max-width: 1440px; margin: 0 auto; padding: 20px 24px; }
#item {
  display: grid; grid-template-columns: minmax(300px, 420px) 1fr; gap: 22px; align-items: start;
}
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
.question-card { position: sticky; top: 72px; padding: 18px 20px; }
.eyebrow { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .06em; }
#question { font-size: 17px; margin: 6px 0 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
#options { margin: 0 0 14px; padding: 0; list-style: none; }
#options li {
  display: flex; gap: 10px; padding: 6px 10px; margin: 4px 0;
  border: 1px solid var(--line); border-radius: 6px;
}
#options .letter { font-weight: 650; color: var(--muted); min-width: 1.2em; }
#document-link { display: inline-block; margin-bottom: 12px; color: var(--accent); }
#current-vote { font-size: 14px; color: var(--muted); min-height: 1.5em; }
#current-vote strong { color: var(--ink); }
details {
  margin-top: 14px; border-top: 1px solid var(--line); padding-top: 10px;
  font-size: 14px; color: var(--muted);
}
summary { cursor: pointer; color: var(--ink); }
details ul { padding-left: 18px; margin: 8px 0 0; }
#media { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
a.imgref { display: inline-flex; align-items: center; gap: 4px; padding: 1px 6px 1px 2px;
  border: 1px solid var(--line); border-radius: 6px; text-decoration: none; color: inherit;
  font-size: 0.9em; vertical-align: middle; white-space: nowrap; }
a.imgref img { height: 24px; width: auto; border-radius: 3px; }
figure { margin: 0; padding: 12px; overflow: auto; }
figcaption { color: var(--muted); font-size: 13px; margin: 0 0 8px; }
figure img {
  display: block; margin: 0 auto; max-width: 100%; height: auto;
  max-height: calc(100vh - 210px); object-fit: contain; cursor: zoom-in; background: #fff;
}
figure img.page { max-height: none; }
figure img.full { max-width: none; max-height: none; cursor: zoom-out; }
.panel { max-width: 560px; margin: 60px auto; padding: 28px 32px; text-align: center; }
.panel h1 { font-size: 20px; margin: 0 0 10px; }
.panel p { color: var(--muted); }
footer {
  position: sticky; bottom: 0; z-index: 2; background: var(--card);
  border-top: 1px solid var(--line); padding: 12px 24px;
  display: flex; gap: 10px; align-items: center; justify-content: center; flex-wrap: wrap;
}
button {
  font: inherit; border: 1px solid var(--line); background: #fff; color: var(--ink);
  border-radius: 8px; padding: 9px 16px; cursor: pointer;
}
button:hover:not(:disabled) { background: #f0f2f6; }
button:disabled { opacity: .45; cursor: default; }
button.vote { min-width: 180px; font-weight: 650; border-width: 2px; }
#vote-answerable { border-color: var(--ok); color: var(--ok); }
#vote-unanswerable { border-color: var(--no); color: var(--no); }
#vote-skip { border-color: var(--skip); color: var(--skip); min-width: 110px; }
#vote-answerable.selected { background: var(--ok); color: #fff; }
#vote-unanswerable.selected { background: var(--no); color: #fff; }
#vote-skip.selected { background: var(--skip); color: #fff; }
.sep { width: 1px; height: 28px; background: var(--line); margin: 0 6px; }
kbd {
  font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid currentColor;
  border-radius: 4px; padding: 0 5px; margin-left: 8px; opacity: .75;
}
#status { min-width: 150px; font-size: 13px; color: var(--muted); text-align: left; }
#status.error { color: var(--no); font-weight: 600; }
[hidden] { display: none !important; }
@media (max-width: 900px) {
  #item { grid-template-columns: 1fr; }
  .question-card { position: static; }
  .progress { min-width: 180px; }
  button.vote, #vote-skip { min-width: 0; }
  .sep { display: none; }
}
</style>
</head>
<body>
<header>
  <div class="brand">Answerability review</div>
  <div id="who"></div>
  <div class="progress" id="progress">
    <span id="progress-text"></span>
    <div class="bar"><div id="bar-fill"></div></div>
  </div>
</header>
<main>
  <section id="login" class="card panel" hidden>
    <h1>Open your own link</h1>
    <p>Each annotator votes through a link of their own, with a token that only the
    person running the review has. Ask them for yours: it is printed by
    <code>abstain-build review DIR --annotator <span id="login-name">NAME</span></code>.</p>
  </section>
  <section id="item" hidden>
    <div class="card question-card">
      <div class="eyebrow">Can this question be answered from what is shown?</div>
      <p id="question"></p>
      <ul id="options"></ul>
      <a id="document-link" target="_blank" rel="noopener" hidden>Open the whole document (PDF)</a>
      <div id="current-vote"></div>
      <details>
        <summary>How to decide</summary>
        <ul>
          <li><b>Answerable</b>: what is shown is enough to give one answer with confidence.</li>
          <li><b>Unanswerable</b>: the information needed is missing, hidden, unreadable or
              contradicted, or the question has no single defensible answer.</li>
          <li><b>Skip</b>: you cannot judge (outside your expertise, or you are unsure).</li>
          <li>Keys: <kbd>a</kbd> <kbd>u</kbd> <kbd>s</kbd> vote, <kbd>z</kbd> undo the last vote,
              <kbd>&larr;</kbd> <kbd>&rarr;</kbd> move. Click an image to see it at full size.</li>
        </ul>
      </details>
    </div>
    <div id="media"></div>
  </section>
  <section id="done" class="card panel" hidden>
    <h1 id="done-title"></h1>
    <p id="done-text"></p>
  </section>
</main>
<footer id="controls" hidden>
  <button id="back" title="Previous item (←)">&larr; Back</button>
  <button id="forward" title="Next item (→)">Next &rarr;</button>
  <span class="sep"></span>
  <button class="vote" id="vote-answerable" data-vote="ANSWERABLE">Answerable<kbd>a</kbd></button>
  <button class="vote" id="vote-unanswerable" data-vote="UNANSWERABLE">
    Unanswerable<kbd>u</kbd></button>
  <button class="vote" id="vote-skip" data-vote="SKIP">Skip<kbd>s</kbd></button>
  <span class="sep"></span>
  <button id="undo" title="Withdraw your last vote and return to it (z)">Undo<kbd>z</kbd></button>
  <span id="status" role="status" aria-live="polite"></span>
</footer>
<script id="config" type="application/json">__CONFIG__</script>
<script>
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const config = JSON.parse($("config").textContent);
  const query = new URLSearchParams(location.search);
  const annotator = query.get("annotator") || "";
  const token = query.get("token") || "";
  const NAMES = {ANSWERABLE: "Answerable", UNANSWERABLE: "Unanswerable", SKIP: "Skipped"};
  let items = [];
  let votes = {};
  let history = [];
  let index = 0;
  let busy = false;

  function show(section) {
    for (const id of ["login", "item", "done"]) $(id).hidden = id !== section;
    $("controls").hidden = section === "login";
    $("progress").hidden = section === "login";
  }
  function setStatus(text, isError) {
    $("status").textContent = text;
    $("status").classList.toggle("error", Boolean(isError));
  }
  function votedCount() {
    return items.filter((item) => votes[item.key]).length;
  }
  function firstUnvoted(from) {
    for (let step = 0; step < items.length; step++) {
      const at = (from + step) % items.length;
      if (!votes[items[at].key]) return at;
    }
    return -1;
  }
  function updateProgress() {
    const total = items.length;
    const voted = votedCount();
    const position = Math.min(index + 1, total);
    $("progress-text").textContent = `${position} of ${total} \u00b7 ${voted} voted`;
    $("bar-fill").style.width = total ? `${(100 * voted) / total}%` : "0";
  }
  function updateButtons() {
    const onItem = index < items.length;
    const current = onItem ? votes[items[index].key] : undefined;
    for (const button of document.querySelectorAll("button.vote")) {
      button.disabled = !onItem || busy;
      button.classList.toggle("selected", button.dataset.vote === current);
    }
    $("back").disabled = index === 0 || busy;
    $("forward").disabled = index >= items.length - 1 || busy;
    $("undo").disabled = history.length === 0 || busy;
  }
  // "<image 2>" in a question or an option: a small picture of that image, which jumps to
  // it, instead of the placeholder's text (built with DOM nodes: no HTML is parsed).
  function withImageRefs(element, text, media) {
    element.replaceChildren();
    const pattern = /<\s*image\s*(\d+)\s*>/gi;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      element.append(text.slice(last, match.index));
      const n = Number(match[1]);
      const target = media[n - 1];
      if (target) {
        const ref = document.createElement("a");
        ref.className = "imgref";
        ref.href = `#media-${n}`;
        const thumb = document.createElement("img");
        thumb.src = target.url;
        thumb.alt = "";
        ref.append(thumb, `Image ${n}`);
        element.append(ref);
      } else {
        element.append(match[0]);
      }
      last = match.index + match[0].length;
    }
    element.append(text.slice(last));
  }
  function figure(media, isPage, n) {
    const box = document.createElement("figure");
    box.className = "card";
    box.id = `media-${n}`;
    const caption = document.createElement("figcaption");
    caption.textContent = media.label;
    const img = document.createElement("img");
    img.src = media.url;
    img.alt = media.label;
    if (isPage) img.classList.add("page");  // pages fill the width: their text must be legible
    img.addEventListener("click", () => img.classList.toggle("full"));
    box.append(caption, img);
    return box;
  }
  function render() {
    updateProgress();
    updateButtons();
    if (index >= items.length) {
      show("done");
      $("done-title").textContent = items.length ? "All items have your vote" : "Nothing to review";
      $("done-text").textContent = items.length
        ? `${items.length} of ${items.length} voted. Every vote is already saved: you can` +
          " close this page, or use \u2190 to revisit an item and change its vote."
        : "The review queue is empty.";
      return;
    }
    show("item");
    const item = items[index];
    withImageRefs($("question"), item.question, item.media);
    const options = $("options");
    options.replaceChildren();
    item.options.forEach((text, at) => {
      const row = document.createElement("li");
      const letter = document.createElement("span");
      letter.className = "letter";
      letter.textContent = String.fromCharCode(65 + at);
      const body = document.createElement("span");
      withImageRefs(body, text, item.media);
      row.append(letter, body);
      options.append(row);
    });
    options.hidden = item.options.length === 0;
    $("media").replaceChildren(
      ...item.media.map((media, at) => figure(media, Boolean(item.document), at + 1))
    );
    const link = $("document-link");
    link.hidden = !item.document;
    if (item.document) link.href = item.document;
    else link.removeAttribute("href");
    const current = votes[item.key];
    $("current-vote").replaceChildren();
    if (current) {
      const strong = document.createElement("strong");
      strong.textContent = NAMES[current];
      $("current-vote").append("Your vote: ", strong, " (vote again to change it)");
    }
    window.scrollTo(0, 0);
  }
  async function post(key, vote) {
    const response = await fetch("/api/vote", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({annotator, token, item: key, vote}),
    });
    let body = {};
    try { body = await response.json(); } catch (error) { body = {}; }
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  }
  async function send(key, vote) {
    busy = true;
    updateButtons();
    setStatus("Saving\u2026");
    try {
      await post(key, vote);
      return true;
    } catch (error) {
      setStatus(`Not saved: ${error.message}`, true);
      return false;
    } finally {
      busy = false;
      updateButtons();
    }
  }
  async function cast(vote) {
    if (busy || index >= items.length) return;
    const key = items[index].key;
    if (!(await send(key, vote))) return;
    votes[key] = vote;
    history = history.filter((k) => k !== key);
    history.push(key);
    setStatus(`Saved: ${NAMES[vote]}`);
    const next = firstUnvoted(index + 1);
    index = next < 0 ? items.length : next;
    render();
  }
  async function undo() {
    if (busy || history.length === 0) return;
    const key = history[history.length - 1];
    if (!(await send(key, null))) return;
    history.pop();
    delete votes[key];
    index = items.findIndex((item) => item.key === key);
    setStatus("Vote withdrawn");
    render();
  }
  function move(step) {
    if (busy) return;
    const target = index >= items.length && step < 0 ? items.length - 1 : index + step;
    if (target < 0 || target >= items.length) return;
    index = target;
    setStatus("");
    render();
  }
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.repeat) return;  // a held key must not vote on the items that follow
    if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const actions = {
      a: () => cast("ANSWERABLE"),
      u: () => cast("UNANSWERABLE"),
      s: () => cast("SKIP"),
      z: () => undo(),
      ArrowLeft: () => move(-1),
      ArrowRight: () => move(1),
    };
    if (!(key in actions) || $("controls").hidden) return;
    event.preventDefault();
    actions[key]();
  }
  async function start() {
    if (!annotator || !token) {
      show("login");
      if (config.annotator) $("login-name").textContent = config.annotator;
      return;
    }
    $("who").textContent = `Annotator: ${annotator}`;
    for (const button of document.querySelectorAll("button.vote")) {
      button.addEventListener("click", () => cast(button.dataset.vote));
    }
    $("back").addEventListener("click", () => move(-1));
    $("forward").addEventListener("click", () => move(1));
    $("undo").addEventListener("click", () => undo());
    document.addEventListener("keydown", onKey);
    try {
      const params = new URLSearchParams({annotator, token});
      const response = await fetch(`/api/queue?${params}`);
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
      items = body.items;
      votes = body.votes;
      history = body.history;
    } catch (error) {
      show("done");
      $("done-title").textContent = "The review could not start";
      $("done-text").textContent = error.message;
      $("controls").hidden = true;
      return;
    }
    const first = firstUnvoted(0);
    index = first < 0 ? items.length : first;
    render();
  }
  start();
})();
</script>
</body>
</html>
"""


def render_page(annotator: str | None) -> str:
    """The page, with the server's default annotator (a ``?annotator=`` URL overrides it)."""
    config = json.dumps({"annotator": annotator or ""}).replace("<", "\\u003c")
    return _PAGE.replace("__CONFIG__", config)
