// The broadcast overlay: board with the last play highlighted, scores, last play, unseen pool.
const PREMIUM = { "=": ["tw", "TW"], "-": ["dw", "DW"], '"': ["tl", "TL"], "'": ["dl", "DL"],
                  "^": ["ql", "QL"], "~": ["qw", "QW"], "*": ["ct", "★"] };

function squareName(row, col) { return `${row + 1}${String.fromCharCode(65 + col)}`; }

function renderBoard(live) {
  const board = document.getElementById("board");
  const n = live.premiums.length;
  board.style.setProperty("--n", n);
  const last = new Set(live.last_play);
  const coord = (text) => { const el = document.createElement("div"); el.className = "coord"; el.textContent = text; return el; };
  // GCG coordinates round the board: columns A.. across the top, rows 1.. down the side.
  const cells = [coord("")];
  for (let c = 0; c < n; c++) cells.push(coord(String.fromCharCode(65 + c)));
  for (let r = 0; r < n; r++) {
    cells.push(coord(String(r + 1)));
    for (let c = 0; c < n; c++) {
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

function render(live) {
  renderBoard(live);
  fillFields(document, live.fields);
  tickClocks(document, live);
  document.getElementById("pool").textContent = live.fields.unseen_tiles;
  // Two to four players: the seats the game has are shown, the player on turn marked.
  [0, 1, 2, 3].forEach((p) => {
    const el = document.getElementById(`p${p}`);
    el.hidden = p >= live.players.length;
    el.classList.toggle("on-turn", !live.ended && live.on_turn === p);
  });
  document.getElementById("status").textContent = live.ended ? "Game over" : "";
  document.body.dataset.seq = live.seq;
}

const gameId = gameIdFromPath();
followGame(gameId, render, (s) => { if (s) document.getElementById("status").textContent = s; });
