// The broadcast overlay: board with the last play highlighted, scores, last play, unseen pool.
const PREMIUM = { "=": ["tw", "TW"], "-": ["dw", "DW"], '"': ["tl", "TL"], "'": ["dl", "DL"],
                  "^": ["ql", "QL"], "~": ["qw", "QW"], "*": ["ct", "★"] };

function squareName(row, col) { return `${row + 1}${String.fromCharCode(65 + col)}`; }

// The board square shown at display cell (i, j) after q clockwise quarter turns (?rotate=q): a
// camera or a commentator may see the board from another side than the GCG coordinates assume.
function boardSquare(i, j, n, q) {
  return [[i, j], [n - 1 - j, i], [n - 1 - i, n - 1 - j], [j, n - 1 - i]][q];
}

function renderBoard(live) {
  const board = document.getElementById("board");
  const n = live.premiums.length;
  board.style.setProperty("--n", n);
  const last = new Set(live.last_play);
  const coord = (text) => { const el = document.createElement("div"); el.className = "coord"; el.textContent = text; return el; };
  // GCG coordinates round the board, turned with it: after a quarter turn the row numbers run across the top.
  const q = options.rotate;
  const coordLabel = (r, c, acrossTop) => ((q % 2 === 0) === acrossTop ? String.fromCharCode(65 + c) : String(r + 1));
  const cells = [coord("")];
  for (let j = 0; j < n; j++) cells.push(coord(coordLabel(...boardSquare(0, j, n, q), true)));
  for (let i = 0; i < n; i++) {
    cells.push(coord(coordLabel(...boardSquare(i, 0, n, q), false)));
    for (let j = 0; j < n; j++) {
      const [r, c] = boardSquare(i, j, n, q);
      const sq = document.createElement("div");
      const [cls, label] = PREMIUM[live.premiums[r][c]] || ["", ""];
      sq.className = `sq ${cls}`;
      sq.textContent = label;
      const ch = live.rows[r][c];
      if (ch !== ".") {
        const tile = document.createElement("div");
        // a blank is its letter in lower case; "?" is a blank whose letter nobody has named yet
        const undecided = ch === "?";
        const blank = undecided || ch !== ch.toUpperCase();
        tile.className = "tile" + (blank ? " blank" : "") + (undecided ? " undecided" : "")
          + (last.has(squareName(r, c)) ? " last" : "");
        tile.dataset.square = squareName(r, c);
        tile.textContent = ch.toUpperCase();
        if (undecided) tile.title = "blank: its letter was not read yet";
        if (!blank) {
          const pts = document.createElement("span");
          pts.className = "pts";
          pts.textContent = live.values[ch] ?? "";
          tile.appendChild(pts);
        }
        sq.appendChild(tile);
      }
      cells.push(sq);
    }
  }
  board.replaceChildren(...cells);
}

// The last play's word with its played-through letters and blanks marked: "ZE(B)rA", drawn from
// the play's parts (`last_played`); any other move is its words (`last_play`).
function renderLastPlay(live) {
  const el = document.querySelector("#last [data-field=last_play]");
  const text = live.fields.last_play, p = live.last_played;
  if (el.dataset.shown === text) return;
  el.dataset.shown = text;
  if (!p) { el.textContent = text; return; }
  const word = p.word, signed = (n) => `${n >= 0 ? "+" : ""}${n}`;
  const w = document.createElement("span");
  w.className = "word";
  let through = false;
  for (const ch of word) {
    if (ch === "(") through = true;
    const span = document.createElement("span");
    span.textContent = ch;
    const blank = ch !== ch.toUpperCase();
    span.className = (through ? "through" : "") + (blank ? " blank" : "");
    w.appendChild(span);
    if (ch === ")") through = false;
  }
  const bonus = p.bonus === null ? "" : `, challenge bonus ${signed(p.bonus)}`;
  el.replaceChildren(`${live.players[p.player].name}: ${p.position} `, w, ` ${signed(p.score)}${bonus}`);
}

// Each player's rack as far as the server lets it out (?racks=off, ?racks_delay=N, [racks] on_air):
// tiles with their points; a slot the camera could not see an empty dimmed slot, one read unsure
// a dimmed '?' (the server sends no letter for either: `slots` says which), a rack waiting for the
// operator marked.
// Racks asked for by name (?parts=...,racks): a player with none to show (no rack camera, none on
// air yet) keeps their name and seven empty slots, so that such a page is never blank.
const RACKS_ASKED = (new URLSearchParams(location.search).get("parts") || "").split(",").includes("racks");
const EMPTY_RACK = { text: "", review: false, tiles: Array(7).fill(null), empty: true };
function renderRacks(live) {
  const racks = (live.racks || []).map((r, p) => r || (RACKS_ASKED && live.players[p] ? EMPTY_RACK : null));
  document.getElementById("racks").hidden = !racks.some((r) => r);
  [0, 1, 2, 3].forEach((p) => {
    const el = document.getElementById(`rack${p}`);
    const rack = racks[p];
    el.hidden = !rack;
    if (!rack) { el.replaceChildren(); delete el.dataset.rack; return; }
    el.classList.toggle("empty", !!rack.empty);
    const slots = rack.slots || rack.tiles.map((t) => (t === null ? "unseen" : "sure"));
    const key = rack.text + rack.review + slots.join();
    if (el.dataset.rack === key) return;
    el.dataset.rack = key;
    el.classList.toggle("review", rack.review);
    const name = document.createElement("span");
    name.className = "who";
    name.textContent = live.players[p] ? live.players[p].name : `Player ${p + 1}`;
    const tiles = rack.tiles.map((t, i) => {
      const tile = document.createElement("span");
      // (with the operator's token the letter read unsure comes too, dimmed)
      const unsure = slots[i] === "unsure";
      tile.className = "rtile" + (unsure ? " unsure" : t === null ? " unseen" : t === "?" ? " blank" : "");
      tile.title = unsure ? "not sure yet" : t === null ? "not seen" : "";
      tile.textContent = t === null ? (unsure ? "?" : "") : t === "?" ? "" : t;
      if (t && t !== "?") {
        const pts = document.createElement("span");
        pts.className = "pts";
        pts.textContent = live.values[t] ?? "";
        tile.appendChild(pts);
      }
      return tile;
    });
    el.replaceChildren(name, ...tiles);
  });
}

function render(live) {
  document.getElementById("placeholder").hidden = true;
  document.getElementById("overlay").hidden = false;
  renderBoard(live);
  fillFields(document, live.fields);
  renderLastPlay(live);
  // A play under review is on air as the camera read it, marked unconfirmed.
  document.getElementById("last").classList.toggle("unconfirmed", !!live.last_unconfirmed);
  tickClocks(document, live);
  renderRacks(live);
  document.getElementById("pool").textContent = live.fields.unseen_tiles;
  // "39 / 54" needs its unit; "1 vowel · 5 consonants" says it in words.
  document.querySelector("#unseen .vc-unit").hidden = /[a-z]/i.test(live.fields.vowels_consonants || "");
  // Two to four players: the seats the game has are shown, the player on turn marked.
  [0, 1, 2, 3].forEach((p) => {
    const el = document.getElementById(`p${p}`);
    el.hidden = p >= live.players.length;
    el.classList.toggle("on-turn", !live.ended && live.on_turn === p);
  });
  // Turns the camera inferred (no clock press): the scores and the result on air say who played
  // which move is a guess, in the API's words, for as long as the record has such a turn.
  const hedge = document.getElementById("hedge");
  hedge.textContent = live.hedge ? live.hedge[0].toUpperCase() + live.hedge.slice(1) : "";
  hedge.hidden = !live.hedge;
  // The result (winner and spread) says the game is over; "Game over" only if it has none.
  document.getElementById("status").textContent = live.ended && !live.fields.result ? "Game over" : "";
  document.body.dataset.seq = live.seq;
}

const options = pageOptions();
followPage(render, (text) => {
  // Nothing to show yet: one quiet line instead of an empty board or an error.
  const el = document.getElementById("placeholder");
  el.textContent = text;
  el.hidden = false;
  document.getElementById("overlay").hidden = true;
}, (s) => { document.getElementById("status").textContent = s; });
