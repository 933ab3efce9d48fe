// What the director's pages (recount, replay) share: the game id from /recount/7 or /replay/7,
// an element with text, and a JSON GET whose error is the API's own message.
"use strict";
const pageGameId = () => Number(location.pathname.split("/").filter(Boolean)[1]);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

async function getJSON(url) {
  const r = await fetch(url);
  const body = await r.json();
  if (!r.ok) throw new Error(body.detail || `${url}: HTTP ${r.status}`);
  return body;
}
