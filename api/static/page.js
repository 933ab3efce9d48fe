// What the pages share (recount, replay, the operator console): the game id from /recount/7 or
// /replay/7, an element with text, a JSON GET whose error is the API's own message, and moves as
// people read them (numbered from 1, words whole).
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

// A move's number as the recount counts (from 1); an API without `number` gives the index.
const moveNumber = (m) => (m.number ?? m.index + 1);

// The whole word from GCG notation and a board (rows of letters, '.' empty) that holds the
// played-through tiles: "ZE.rA" at 8F -> "ZE(B)rA" (a runner-up's reading on the console).
function wordShown(position, word, rows) {
  if (!position || !word || !rows) return word || "";
  let m = /^(\d+)([A-Z])$/.exec(position), r, c, across = true;
  if (m) { r = Number(m[1]) - 1; c = m[2].charCodeAt(0) - 65; } else {
    m = /^([A-Z])(\d+)$/.exec(position);
    if (!m) return word;
    r = Number(m[2]) - 1; c = m[1].charCodeAt(0) - 65; across = false;
  }
  let out = "", through = false;
  [...word].forEach((ch, i) => {
    const [rr, cc] = across ? [r, c + i] : [r + i, c];
    const on = ch === "." ? ((rows[rr] || "")[cc] || "?") : null;
    if (on && !through) { out += "("; through = true; }
    if (!on && through) { out += ")"; through = false; }
    out += on && on !== "." ? on : (on ? "?" : ch);
  });
  return through ? `${out})` : out;
}

// A square in words, as the boards' coordinates read: column letter, then row ("O1", "H8"). A
// play's position keeps GCG's order, which gives its direction ("8D" across, "D8" down).
const squareWords = (r, c) => `${String.fromCharCode(65 + c)}${r + 1}`;

// The tiles a play in GCG notation puts down: [{r, c, letter}] for each letter not already on the
// board ('.'), a blank in lower case, '?' a blank whose letter nobody named.
function playTiles(position, word) {
  let m = /^(\d+)([A-Z])$/.exec(position || ""), r, c, across = true;
  if (m) { r = Number(m[1]) - 1; c = m[2].charCodeAt(0) - 65; } else {
    m = /^([A-Z])(\d+)$/.exec(position || "");
    if (!m) return [];
    r = Number(m[2]) - 1; c = m[1].charCodeAt(0) - 65; across = false;
  }
  return [...(word || "")].map((letter, i) => ({ r: across ? r : r + i, c: across ? c + i : c, letter }))
    .filter((t) => t.letter !== ".");
}

// A square named either way ("H11" or "11H") as {r, c}; null for anything else.
function squareAt(text) {
  let m = /^([A-Z])(\d+)$/.exec(text || "");
  if (m) return { r: Number(m[2]) - 1, c: m[1].charCodeAt(0) - 65 };
  m = /^(\d+)([A-Z])$/.exec(text || "");
  return m ? { r: Number(m[1]) - 1, c: m[2].charCodeAt(0) - 65 } : null;
}

// The API's own list of what a runner-up changes ([{square, was, now}], when /moves sends it) as
// the two tile lists boardChange compares: the squares' tiles as read, and as the runner-up has them.
function changedTiles(changes) {
  const side = (key) => changes.filter((x) => x[key] !== null && squareAt(x.square))
    .map((x) => ({ ...squareAt(x.square), letter: x[key] }));
  return { from: side("was"), to: side("now") };
}

// What taking one reading of a play instead of another changes on the board: the tiles only the
// one has ("takes off") and the tiles only the other has ("puts down"), each "V at H11".
function boardChange(from, to) {
  const key = (t) => `${t.r},${t.c},${t.letter}`;
  const had = new Set(from.map(key)), has = new Set(to.map(key));
  const words = (t) => `${t.letter === "?" ? "a blank" : t.letter} at ${squareWords(t.r, t.c)}`;
  return { off: from.filter((t) => !has.has(key(t))).map(words), on: to.filter((t) => !had.has(key(t))).map(words) };
}

// A move as people read it: "8D ZE(B)rA +BE", "exchange 4", "phony withdrawn: MAZEY". The API's
// `text` has the words whole; a withdrawn phony is named from the play its `takes_back` points at.
function moveText(m, moves) {
  const text = m.text || "";
  const phony = m.takes_back != null && moves ? moves.find((p) => p.index === m.takes_back) : null;
  const word = phony && (phony.shown || phony.word);
  return word ? `${text}: ${word}` : text;
}

// "25 Nov 10:24" in the reader's time zone, from the store's ISO time.
function shortTime(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return iso || "";
  const day = d.toLocaleDateString("en-GB", { day: "numeric", month: "short" });
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", hour12: false });
  return `${day} ${time}`;
}

// "Open in Woogles" (replay, recount): the link the server built (/api/games/{id}/woogles, the GCG
// export in Woogles' import link; no GCG is made here) in `item`'s <a>, and in `note` why Woogles
// will not mark the game complete, or why there is no link.
async function showWoogles(api, item, note) {
  let w;
  try {
    w = await getJSON(`${api}/woogles`);
  } catch (err) {
    w = {url: null, why: `No Woogles link: ${err.message}`};
  }
  item.hidden = !w.url;
  if (w.url) item.querySelector("a").href = w.url;
  note.textContent = w.why || "";
  note.hidden = !w.why;
}
