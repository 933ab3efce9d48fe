// The replay page: the board after any turn (/api/games/{id}/board?turn=N), the move list
// (/moves) and the move's evidence photo, stepped with the arrow keys. The turn is kept in the
// URL's hash (#turn=N) so a link opens the same position.
"use strict";
(() => {
  const gid = pageGameId();
  const api = `/api/games/${gid}`;
  const $ = (id) => document.getElementById(id);
  const PREMIUM = {"=": "tw", "-": "dw", '"': "tl", "'": "dl", "*": "centre"};
  let moves = [], players = [], turn = 0, pending = 0, ended = false, result = "";
  const who = (m) => (players[m.player] ? players[m.player].name : m.nick);
  const signed = (v) => `${v >= 0 ? "+" : ""}${v}`;


  function drawBoard(b) {
    const board = $("board");
    const n = b.rows.length;
    board.style.setProperty("--n", n);  // CSSOM, allowed by the CSP
    const last = new Set(b.last_play);
    // GCG coordinates: columns A.. across the top, rows 1.. down the side
    const cells = [el("div", "", "coord")];
    for (let c = 0; c < n; c++) cells.push(el("div", String.fromCharCode(65 + c), "coord"));
    b.rows.forEach((row, r) => { cells.push(el("div", r + 1, "coord")); [...row].forEach((ch, c) => {
      const sq = el("div", "", "sq");
      if (ch === ".") {
        const p = PREMIUM[b.premiums[r][c]];
        if (p) sq.classList.add(p);
      } else {
        sq.classList.add("tile");
        sq.textContent = ch.toUpperCase();
        if (ch !== ch.toUpperCase()) sq.classList.add("blank");
        const name = b.tiles.find((t) => t.row === r && t.col === c);
        if (name) { sq.dataset.square = name.square; if (last.has(name.square)) sq.classList.add("last"); }
      }
      cells.push(sq);
    }); });
    board.replaceChildren(...cells);
    // After the last turn of a finished game nobody is on turn: the result instead.
    const over = ended && b.turn === moves.length;
    $("scores").replaceChildren(...players.map((p, i) => {
      const s = el("span", `${p.name} ${b.scores[i]}`, !over && b.on_turn === i ? "on-turn" : "");
      s.dataset.player = i;
      return s;
    }), ...(over ? [el("span", result || "Game over", "result")] : []));
  }

  function drawEvidence() {
    const img = $("photo"), note = $("photo-note");
    const m = turn > 0 ? moves[turn - 1] : null;
    $("raw-link").hidden = !(m && m.frame);
    if (!m || !m.frame) {
      img.hidden = true;
      img.removeAttribute("src");
      note.textContent = m ? "No evidence photo for this move." : "The empty board.";
      return;
    }
    const raw = `${api}/moves/${m.index}/frame.jpg`;
    img.hidden = false;
    img.dataset.view = "board";
    img.src = `${raw}?view=board`;
    $("photo-link").href = img.src;
    $("raw-link").href = raw;
    note.textContent = `Move ${moveNumber(m)}, ${who(m)}: ${moveText(m, moves)}. The photo rectified, the new tiles outlined.`;
  }

  let opened = false;
  async function go(n) {
    n = Math.max(0, Math.min(moves.length, n));
    const ticket = ++pending;  // a later step wins over a slower earlier fetch
    const b = await getJSON(`${api}/board?turn=${n}`);
    if (ticket !== pending) return;
    turn = n;
    drawBoard(b);
    drawEvidence();
    const m = turn > 0 ? moves[turn - 1] : null;
    $("turn-label").textContent = m ? `Move ${moveNumber(m)}/${moves.length}: ${who(m)} ${moveText(m, moves)} ${signed(m.agreed)}`
                                    : `Move 0/${moves.length}: the empty board`;
    for (const li of $("moves").children) li.classList.toggle("current", Number(li.dataset.turn) === turn);
    const cur = $("moves").querySelector("li.current");
    if (cur) {
      // the current move in view: the list's own box scrolls (a wide screen); the page follows a
      // step, but not the opening (it opened scrolled past its title, to the last move)
      const y = scrollY;
      cur.scrollIntoView({block: "nearest"});
      if (!opened) scrollTo(scrollX, y);
    }
    opened = true;
    history.replaceState(null, "", `#turn=${turn}`);
    document.body.dataset.turn = String(turn);
  }

  async function start() {
    const [game, ms, live] = await Promise.all([getJSON(api), getJSON(`${api}/moves`),
      getJSON(`${api}/live`).catch(() => null)]);
    moves = ms;
    ended = game.ended;
    result = live ? live.fields.result : "";
    players = game.players;
    $("title").textContent = `Replay: ${players.map((p) => p.name).join(" vs ")}`;
    document.title = `Replay: game ${gid}`;
    $("recount").href = `/recount/${gid}`;
    $("gcg").href = `${api}.gcg`;
    $("json").href = `${api}.json`;
    showWoogles(api, $("woogles"), $("woogles-note"));
    $("moves").replaceChildren(...moves.map((m) => {
      const li = el("li");
      li.dataset.turn = m.index + 1;
      if (m.engine !== null && m.claimed !== null && m.claimed !== m.engine) li.classList.add("disc");
      // one cell each (number, move, score, running total), so no two numbers run together
      li.append(el("span", `${moveNumber(m)}.`, "num"), el("span", `${who(m)}: ${moveText(m, moves)}`, "text"),
                el("span", signed(m.agreed), "score"), el("span", m.cumulative, "total"));
      li.addEventListener("click", () => go(m.index + 1));
      return li;
    }));
    const hash = /turn=(\d+)/.exec(location.hash);
    await go(hash ? Number(hash[1]) : moves.length);
  }

  // A frame without grid corners has no board view: show the raw frame instead.
  $("photo").addEventListener("error", () => {
    const img = $("photo");
    if (img.dataset.view !== "board" || turn === 0) return;
    img.dataset.view = "raw";
    img.src = $("raw-link").href;
    $("photo-link").href = img.src;
    $("photo-note").textContent = `Move ${turn}: the raw frame (no grid corners to rectify it).`;
  });
  const step = (d) => () => go(turn + d).catch(fail);
  $("prev").addEventListener("click", step(-1));
  $("next").addEventListener("click", step(1));
  $("first").addEventListener("click", () => go(0).catch(fail));
  $("last").addEventListener("click", () => go(moves.length).catch(fail));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    const d = {ArrowLeft: -1, ArrowRight: 1}[e.key];
    if (d) { e.preventDefault(); step(d)(); }
    else if (e.key === "Home") { e.preventDefault(); go(0).catch(fail); }
    else if (e.key === "End") { e.preventDefault(); go(moves.length).catch(fail); }
  });
  function fail(err) { $("status").textContent = err.message; document.body.dataset.turn = "error"; }
  start().catch(fail);
})();
