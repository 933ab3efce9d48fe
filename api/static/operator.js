// Operator console: every write goes through the REST API with the bearer token.
const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
// The token lives as long as this tab (sessionStorage), not on disk for whoever opens the page
// next; one that an older version kept in localStorage is removed.
localStorage.removeItem("tilecam-token");
tokenInput.value = sessionStorage.getItem("tilecam-token") || "";
tokenInput.addEventListener("change", () => {
  sessionStorage.setItem("tilecam-token", tokenInput.value.trim());
  checkToken();
});
let source = null;

// The token is checked as soon as it is entered (GET /api/token writes nothing), so a pasted
// wrong one is found out now, not at the first play recorded.
let tokenChecked = "";  // each token is checked once: the field's blur fires a second change event
async function checkToken() {
  const token = tokenInput.value.trim();
  if (token && token === tokenChecked) return;
  tokenChecked = token;
  tokenInput.classList.remove("token-ok", "token-bad");
  if (!token) return;
  try {
    const r = await api("GET", "/api/token");
    if (tokenInput.value.trim() !== token) return;  // changed meanwhile
    tokenInput.classList.add("token-ok");
    tokenInput.title = `token of ${r.operator}`;
    say(`token accepted: writes are signed "${r.operator}"`);
  } catch (e) {
    tokenChecked = "";  // the same token typed again is checked again
    tokenInput.classList.add("token-bad");
    tokenInput.title = e.message;
    say(`token refused: ${e.message}. Paste the operator token again.`, true);
  }
}

// One line of plain text; after an entry, an Undo button for a short while (it voids what was written).
let undoTimer = null;
function say(text, error = false, undo = null) {
  $("message").textContent = typeof text === "string" ? text : "done";
  $("message").className = error ? "error" : "";
  clearTimeout(undoTimer);
  $("message-undo").hidden = !undo;
  $("message-undo").textContent = (undo && undo.label) || "Undo";
  $("message-undo").onclick = undo;
  if (undo) undoTimer = setTimeout(() => { $("message-undo").hidden = true; }, UNDO_WINDOW_MS);
}
const UNDO_WINDOW_MS = 15000;
let live = null;     // the game's live state as last received
let movesNow = [];   // /moves as last loaded

// A question in the page (a <dialog>, not window.confirm, so a stray Enter cannot answer it);
// resolves with the value of the button chosen, or null when dismissed with Escape.
function ask(text, choices, detail = null) {
  const dlg = $("confirm");
  $("confirm-text").textContent = text;
  $("confirm-detail").replaceChildren(...(detail ? [detail] : []));
  $("confirm-choices").replaceChildren(...choices.map(([value, label]) => {
    const b = document.createElement("button"); b.value = value; b.textContent = label; return b;
  }));
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue || null), { once: true });
    dlg.returnValue = "";
    dlg.showModal();
  });
}
const playerName = (p) => (live && live.players[p] ? live.players[p].name : `player ${p + 1}`);
function gameId() { return $("game").value; }

async function api(method, path, body) {
  const headers = { "Authorization": `Bearer ${tokenInput.value.trim()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const d = data.detail;
    const err = new Error(typeof d === "string" ? d : (d || []).map((e) => `${e.loc.slice(1).join(".")}: ${e.msg}`).join("; ") || res.statusText);
    err.status = res.status;
    throw err;
  }
  return data;
}

// A load the operator did not ask for (the live feed's move list, the game list): a refused token
// is the token check's to say (one message, "token refused: ..."), not each load's own 401.
function loadFailed(e) {
  if (e.status === 401) { if (!tokenInput.classList.contains("token-bad")) { tokenChecked = ""; checkToken(); } return; }
  say(e.message, true);
}

// A game in the menu: which table, when, live or finished, and the score, so four games of the
// same two players are told apart ("#4 · table 1 · 25 Nov 10:24 · live · Cesar 110 – Josh 164").
function gameLabel(g) {
  const table = g.meta && g.meta.table ? ` · table ${g.meta.table}` : "";
  const score = g.players.map((p, i) => `${p.name} ${g.scores[i] ?? 0}`).join(" – ");
  return `#${g.id}${table} · ${shortTime(g.created)} · ${g.ended ? "finished" : "live"} · ${score}`;
}
let gamesNow = [];
// Newest first; the page opens on the newest live game (the newest game when none is live).
async function loadGames(select) {
  const games = (await api("GET", "/api/games")).slice().sort((a, b) => b.id - a.id);
  gamesNow = games;
  const current = select || gameId();
  $("game").replaceChildren(...games.map((g) => {
    const o = new Option(gameLabel(g), g.id);
    o.dataset.status = g.ended ? "finished" : "live";
    return o;
  }));
  // (a select with options always has a value: the first option's, so the choice is made here)
  const keep = current && games.some((g) => String(g.id) === String(current));
  if (keep) $("game").value = current;
  else if (games.length) $("game").value = (games.find((g) => !g.ended) || games[0]).id;
  if (String(followed) !== $("game").value) follow();
}
// The menu's entry for the game followed, kept up to date from its live state.
function relabel(live) {
  const o = [...$("game").options].find((x) => x.value === String(live.game_id));
  const g = gamesNow.find((x) => x.id === live.game_id);
  if (!o || !g) return;
  Object.assign(g, { players: live.players, scores: live.scores, ended: live.ended });
  o.textContent = gameLabel(g);
  o.dataset.status = g.ended ? "finished" : "live";
}

async function loadMoves() {
  if (!gameId()) return;
  const moves = await api("GET", `/api/games/${gameId()}/moves`);
  $("moves").replaceChildren(...moves.map((m) => {
    const tr = document.createElement("tr");
    tr.dataset.index = m.index;
    if (m.corrected) tr.classList.add("corrected");
    if (m.claimed !== null && m.engine !== null && m.claimed !== m.engine) tr.classList.add("differs");
    const cells = [moveNumber(m), playerName(m.player), moveText(m, moves), m.claimed ?? "", m.engine ?? "", m.agreed, m.totals.join(" – ")];
    cells.forEach((v, i) => { const td = document.createElement("td"); td.textContent = v; if (i === 3) td.className = "claimed"; tr.appendChild(td); });
    if (m.blank_undecided) {
      // Nobody named this blank's letter (the GCG holds a guess): the operator designates it.
      tr.classList.add("undecided");
      const mark = document.createElement("span");
      mark.className = "undecided-mark"; mark.textContent = "blank?";
      mark.title = "a blank whose letter was not read: designate it with a blank correction";
      tr.children[2].append(" ", mark);
    }
    // Whose turn it was, when the camera could not be sure (no clock press): marked where the
    // operator looks; a move out of turn by the record is the louder of the two.
    const turnMark = m.out_of_turn ? ["out of turn", "turn-wrong", "taken by a player who was not on turn by the record: a turn before it is missing, or the play is credited to the wrong player"]
      : m.turn_inferred ? ["turn?", "turn-inferred", "no clock press said whose turn this was: credited to the player on turn"] : null;
    if (turnMark) {
      const mark = document.createElement("span");
      mark.className = `turn-mark ${turnMark[1]}`; mark.textContent = turnMark[0]; mark.title = turnMark[2];
      tr.children[1].append(" ", mark);
    }
    const td = document.createElement("td");
    const b = document.createElement("button"); b.type = "button"; b.textContent = "fix";
    b.onclick = () => {
      document.querySelector("#fix [name=number]").value = moveNumber(m);
      if (m.blank_undecided) document.querySelector("#fix [name=kind]").value = "blank";
      document.querySelector("#fix [name=a]").focus();
    };
    td.appendChild(b);
    if (m.corrected) {
      const c = document.createElement("button"); c.type = "button"; c.textContent = "undo fix"; c.className = "undo-fix";
      c.title = "take back this move's latest correction (one more correction in the log)";
      c.onclick = () => undoLatestCorrection(m).catch((e) => say(e.message, true));
      td.append(" ", c);
    }
    tr.appendChild(td);
    const tdu = document.createElement("td");
    const u = document.createElement("button"); u.type = "button"; u.textContent = "undo"; u.className = "undo";
    u.onclick = () => voidMove(m).catch((e) => say(e.message, true));
    tdu.appendChild(u); tr.appendChild(tdu);
    return tr;
  }));
  movesNow = moves;
  renderReview(moves);
  await loadRacks();
}

// The rack cameras (issue 30): each player's rack as last read (live: the console has the token),
// and the reads waiting for the operator, each with its certainty and evidence photo, one click to
// confirm it as read and a box to type the rack as it is. Both are recorded in the game's rack log.
async function loadRacks() {
  if (!gameId()) return;
  const out = await api("GET", `/api/games/${gameId()}/racks`);
  const now = out.current.map((r, p) => (r ? `${playerName(p)}: ${rackWords(r)}` : null)).filter((x) => x);
  $("racks-now").textContent = now.length ? `Racks now: ${now.join(" · ")}` : "";
  const queue = out.reads.filter((r) => r.review);
  $("racks-review").hidden = out.reads.length === 0;
  $("racks-count").textContent = queue.length ? `(${queue.length})` : "";
  $("racks-queue").replaceChildren(...queue.map((r) => {
    const li = document.createElement("li");
    li.dataset.seq = r.seq;
    const text = document.createElement("span");
    text.className = "reading";
    text.append(`${playerName(r.player)}'s rack after move ${r.turn}: `, ...(r.tiles.length ? rackSlots(r) : [rackWords(r)]), rackDoubts(r),
      r.flag ? ` — ${r.flag}` : "");
    li.appendChild(text);
    if (r.frame) li.appendChild(rackEvidence(r));
    const choices = document.createElement("p");
    choices.className = "choices";
    const confirm = document.createElement("button");
    confirm.type = "button"; confirm.className = "rack-confirm"; confirm.textContent = `confirm ${rackWords(r)}`;
    confirm.onclick = () => confirmRack(r, undefined).catch((e) => say(e.message, true));
    const box = document.createElement("input");
    box.className = "rack-fix"; box.size = 9; box.placeholder = "the rack"; box.autocomplete = "off";
    const fix = document.createElement("button");
    fix.type = "button"; fix.className = "rack-fix-button"; fix.textContent = "fix";
    fix.onclick = () => confirmRack(r, box.value.trim()).catch((e) => say(e.message, true));
    box.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); fix.click(); } });
    choices.append(confirm, " or ", box, " ", fix);
    li.appendChild(choices);
    return li;
  }));
}
// A read in words: its tiles, or "an empty rack" (after a bingo, in a 7-tile exchange: a read too).
function rackWords(r) {
  return r.tiles.length ? r.text : "an empty rack";
}
// The read as the camera gave it, each slot marked as it may go on air: a tile read under [racks]
// review_below in a red box (off air until confirmed), a tile not seen as '·' in a grey one.
function rackSlots(r) {
  const slots = r.slots || r.tiles.map((t) => (t === null ? "unseen" : "sure"));
  return r.tiles.map((t, i) => {
    const el = document.createElement("span");
    el.className = `rack-slot ${slots[i]}`;
    el.textContent = t === null ? "·" : t.length > 1 ? `[${t}]` : t;
    if (slots[i] !== "sure") el.title = slots[i] === "unseen" ? "not seen" : `read at ${percent(r.certainty[i] ?? 0)}: not on air`;
    return el;
  });
}
// Why it waits, in words: the tiles read unsurely with their certainty, the tiles not seen.
function rackDoubts(r) {
  const slots = r.slots || [];
  const unsure = r.tiles.map((t, i) => [t, r.certainty[i], slots[i]]).filter(([t, , k]) => t !== null && k === "unsure")
    .map(([t, c]) => (c === null || c === undefined ? t : `${t} ${percent(c)}`));
  const unseen = r.tiles.filter((t) => t === null).length;
  const parts = [];
  if (unsure.length) parts.push(`not sure: ${unsure.join(", ")}`);
  if (unseen) parts.push(`${unseen} tile${unseen > 1 ? "s" : ""} not seen`);
  const sure = r.certainty.filter((c) => c !== null);
  if (!parts.length && sure.length) parts.push(`least certain tile ${percent(Math.min(...sure))}`);
  return parts.length ? ` — ${parts.join("; ")}` : "";
}
async function confirmRack(r, tiles) {
  if (tiles === "") return say("type the rack as it is, or confirm the read", true);
  await api("POST", `/api/games/${gameId()}/racks/${r.seq}/confirm`, tiles === undefined ? {} : { tiles });
  await loadRacks();
  say(tiles === undefined ? `${playerName(r.player)}'s rack confirmed: ${rackWords(r)}` : `${playerName(r.player)}'s rack fixed: ${tiles.toUpperCase()}`);
}
// A rack read's photo, folded; fetched with the token (a rack is not on air before the operator sees it).
function rackEvidence(r) {
  const box = document.createElement("details");
  box.className = "evidence";
  const sum = document.createElement("summary");
  sum.textContent = "photo";
  box.appendChild(sum);
  box.addEventListener("toggle", async () => {
    if (!box.open || box.querySelector("img")) return;
    const res = await fetch(r.frame, { headers: { "Authorization": `Bearer ${tokenInput.value.trim()}` } });
    if (!res.ok) return say(`rack photo: ${res.statusText}`, true);
    const img = document.createElement("img");
    img.className = "evidence"; img.alt = `evidence of ${playerName(r.player)}'s rack`;
    img.src = URL.createObjectURL(await res.blob());
    box.appendChild(img);
  });
  return box;
}

// The review queue: each play read under the threshold, one line each: the reading, its certainty,
// the evidence photo on demand (the rectified frame with the new tiles outlined, loaded when
// opened), one click to confirm it as read, and the runner-up readings, each taken only after a
// question that shows what it changes on the board. Both are a play correction (ReenterPlay):
// confirming re-enters the play as read, which marks it reviewed.
// Rounded down, so that a value under 1 never shows as 100 % (0.9995 is 99.9 %, not 100.0 %).
const percent = (p) => `${(Math.floor(1000 * p + 1e-9) / 10).toFixed(1)} %`;
// Why a play is in the queue, in words, from the API's typed reasons (MoveOut.doubts, scoring's Doubt).
const DOUBTS = {
  certainty: (m) => `read at ${percent(m.certainty)}, under the review threshold`,
  not_from_rack: () => "its tiles were not on the rack read before it",
  from_pool: () => "no letter read is one the unseen tiles hold: the likeliest the pool allows",
  unlearned_tile: () => "it holds a tile not yet learned at this table",
  built_on_doubt: () => "its words run through a tile of an earlier play still in doubt",
  inferred: () => "seen with another play at once: the split or order between them is a guess",
  tile_counts: () => "re-read by the camera: more of a tile was read than the set has",
  reread: () => "re-read by the camera from later boards",
};
function doubtText(m) {
  const why = (m.doubts || []).map((d) => (DOUBTS[d] ? DOUBTS[d](m) : d));
  if (m.blank_undecided) why.push("a blank's letter nobody named");
  // a record kept before the reasons were: its certainty is all there is to say
  if (!why.length && m.certainty !== null) why.push(`certainty ${percent(m.certainty)}`);
  return why.join("; ");
}
// A reading as the rest of the page writes a play: "1H MA(s)TERL?", the played-through tiles in
// parentheses (they are on the board now, as they were then).
const readingText = (position, word) => `${position} ${wordShown(position, word, live && live.rows)}`;
function renderReview(moves) {
  const queue = moves.filter((m) => m.review);
  $("review").hidden = queue.length === 0;
  $("review-count").textContent = queue.length ? `(${queue.length})` : "";
  $("review-queue").replaceChildren(...queue.map((m) => {
    const li = document.createElement("li");
    li.dataset.index = m.index;
    const text = document.createElement("span");
    text.className = "reading";
    if (m.kind === "exchange") return exchangeReview(m, moves, li, text);
    if (m.kind === "pass") return passReview(m, moves, li, text);
    text.textContent = `move ${moveNumber(m)}, ${playerName(m.player)}: ${moveText(m, moves)} — ${doubtText(m)}`;
    li.appendChild(text);
    if (m.frame) li.appendChild(evidence(m));
    const fix = (position, word, reason) => api("POST", `/api/games/${gameId()}/moves/${m.index}/corrections`,
      { kind: "play", position, word, reason })
      .then((r) => loadMoves().then(() => say(`move ${moveNumber(m)}: ${reason}`, false, undoCorrection(r.seqs[0], m))))
      .catch((e) => say(e.message, true));
    const button = (label, onclick) => {
      const b = document.createElement("button"); b.type = "button"; b.textContent = label; b.onclick = onclick; return b;
    };
    const choices = document.createElement("p");
    choices.className = "choices";
    if (m.blank_undecided) {
      // Confirming would clear the flag with the blank's letter still unknown: name it first.
      choices.appendChild(button("name the blank first", () => openFix(m, "blank")));
    } else {
      choices.appendChild(button(`confirm ${readingText(m.position, m.word)}`, () => fix(m.position, m.word, "confirmed as read")));
    }
    for (const r of m.runner_ups) {
      const label = `${readingText(r.position, r.word)} (${percent(r.probability)})`;
      const b = button(label, async () => {
        // the API's list of the squares it changes when it sends one; else worked out from the two readings
        const tiles = r.changes && r.changes.length ? changedTiles(r.changes)
          : { from: playTiles(m.position, m.word), to: playTiles(r.position, r.word) };
        const change = boardChange(tiles.from, tiles.to);
        const score = r.score === null || r.score === undefined ? "" : ` It scores ${r.score} (the reading on air: ${m.agreed}).`;
        const q = `Take the reading ${readingText(r.position, r.word)} for move ${moveNumber(m)}? The camera gives it ` +
          `${percent(r.probability)} against ${percent(m.certainty)} for ${readingText(m.position, m.word)}; it goes on air at once.${score}`;
        const detail = document.createElement("div");
        detail.append(changeList(change), changeBoard(tiles.from, tiles.to));
        if (await ask(q, [["take", `Take ${readingText(r.position, r.word)}`], ["", "Keep the reading"]], detail) !== "take") {
          return say("nothing changed");
        }
        return fix(r.position, r.word, `runner-up reading taken (${percent(r.probability)})`);
      });
      b.className = "runner-up";
      choices.append(" ", b);
    }
    li.appendChild(choices);
    return li;
  }));
}
// An exchange the rack camera told from unsure reads (issue 43): its count as read, its tiles not
// named; one click confirms it as read (an exchange correction of the same count), or the
// correction box below fixes it (another count, a pass).
function exchangeReview(m, moves, li, text) {
  text.textContent = `move ${moveNumber(m)}, ${playerName(m.player)}: ${moveText(m, moves)}` +
    " — an exchange the rack camera told from reads it was not sure of";
  li.appendChild(text);
  const count = Number((/exchange (\d+)/.exec(m.text) || [])[1]);   // "exchange 3": its tiles not named
  if (!count) return li;
  const choices = document.createElement("p");
  choices.className = "choices";
  const b = document.createElement("button");
  b.type = "button"; b.textContent = `confirm the exchange of ${count}`;
  b.onclick = () => api("POST", `/api/games/${gameId()}/moves/${m.index}/corrections`,
    { kind: "exchange", count, reason: "confirmed as read" })
    .then((r) => loadMoves().then(() => say(`move ${moveNumber(m)}: confirmed as read`, false, undoCorrection(r.seqs[0], m))))
    .catch((e) => say(e.message, true));
  choices.appendChild(b);
  li.appendChild(choices);
  return li;
}
// A pass whose rack the camera read before and after with tiles it was not sure of, differing only
// in those: a pass or an exchange, it cannot say (issue 43). One click confirms the pass; the
// correction box below makes it the exchange it was.
function passReview(m, moves, li, text) {
  text.textContent = `move ${moveNumber(m)}, ${playerName(m.player)}: ${moveText(m, moves)}` +
    " — a pass or an exchange: the rack camera's reads differ only in tiles it was not sure of";
  li.appendChild(text);
  const choices = document.createElement("p");
  choices.className = "choices";
  const b = document.createElement("button");
  b.type = "button"; b.textContent = "confirm the pass";
  b.onclick = () => api("POST", `/api/games/${gameId()}/moves/${m.index}/corrections`,
    { kind: "pass", reason: "confirmed as read" })
    .then((r) => loadMoves().then(() => say(`move ${moveNumber(m)}: confirmed as read`, false, undoCorrection(r.seqs[0], m))))
    .catch((e) => say(e.message, true));
  choices.appendChild(b);
  li.appendChild(choices);
  return li;
}
// The evidence photo, folded: the image is fetched when the operator opens it.
function evidence(m) {
  const box = document.createElement("details");
  box.className = "evidence";
  const sum = document.createElement("summary");
  sum.textContent = "photo";
  box.appendChild(sum);
  box.addEventListener("toggle", () => {
    if (!box.open || box.querySelector("img")) return;
    const img = document.createElement("img");
    img.className = "evidence"; img.alt = `evidence of move ${moveNumber(m)}`;
    img.src = `/api/games/${gameId()}/moves/${m.index}/frame.jpg?view=board`;
    img.onerror = () => { img.onerror = null; img.src = `/api/games/${gameId()}/moves/${m.index}/frame.jpg`; };
    const a = document.createElement("a"); a.href = img.src; a.target = "_blank"; a.appendChild(img);
    box.appendChild(a);
  });
  return box;
}
// What a correction changes on the board, for the question before it: two short lists.
function changeList(change) {
  const ul = document.createElement("ul");
  ul.className = "board-change";
  const item = (cls, head, tiles) => {
    const li = document.createElement("li"); li.className = cls;
    li.textContent = `${head}: ${tiles.length ? tiles.join(", ") : "nothing"}`;
    return li;
  };
  ul.append(item("off", "Takes off the board", change.off), item("on", "Puts on the board", change.on));
  return ul;
}
// The same change drawn on the board as it stands: the tiles that come off struck through in red,
// the ones that go on in green, every other tile grey.
function changeBoard(from, to) {
  const n = live.rows.length, at = (t) => `${t.r},${t.c}`;
  const off = new Map(from.map((t) => [at(t), t])), on = new Map(to.map((t) => [at(t), t]));
  const grid = document.createElement("div");
  grid.className = "change-board";
  grid.style.setProperty("--n", n);
  grid.setAttribute("aria-hidden", "true");
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const sq = document.createElement("span");
      const k = `${r},${c}`, was = off.get(k), now = on.get(k);
      const here = live.rows[r][c];
      if (was && now && was.letter === now.letter) { sq.textContent = now.letter; sq.className = "tile"; }
      else if (now && was) { sq.textContent = now.letter; sq.className = "put"; sq.title = `${now.letter} replaces ${was.letter} at ${squareWords(r, c)}`; }
      else if (now) { sq.textContent = now.letter; sq.className = "put"; sq.title = `${now.letter} at ${squareWords(r, c)} goes on`; }
      else if (was) { sq.textContent = was.letter; sq.className = "taken"; sq.title = `${was.letter} at ${squareWords(r, c)} comes off`; }
      else if (here !== ".") { sq.textContent = here; sq.className = "tile"; }
      grid.appendChild(sq);
    }
  }
  return grid;
}
function openFix(m, kind) {
  document.querySelector("#fix [name=number]").value = moveNumber(m);
  document.querySelector("#fix [name=kind]").value = kind;
  document.querySelector("#fix [name=a]").focus();
  say(`move ${moveNumber(m)}: type the blank's square and its letter, then Correct`);
}

// Undo of a correction: one more correction putting the move back as it stood (the log stays
// append-only); only a move's latest correction can be taken back.
function undoCorrection(seq, m) {
  const undo = async () => {
    try {
      await api("POST", `/api/games/${gameId()}/corrections/${seq}/undo`, { reason: "undone at the console" });
      await loadMoves();
      say(`move ${moveNumber(m)}: correction undone`);
    } catch (e) { say(e.message, true); }
  };
  undo.label = "Undo this correction";
  return undo;
}
async function undoLatestCorrection(m) {
  const rc = await api("GET", `/api/games/${gameId()}/recount`);
  const fix = (rc.corrections || []).filter((c) => c.kind === "correction" && c.target === m.seq).pop();
  if (!fix) return say(`move ${moveNumber(m)} has no correction to undo`, true);
  const what = `move ${moveNumber(m)} (${playerName(m.player)}: ${moveText(m, movesNow)})`;
  if (await ask(`Undo the latest correction of ${what}: ${fix.change}${fix.reason ? ` (${fix.reason})` : ""}? ` +
                "It stays in the log, with its undo after it.", [["undo", "Undo the correction"], ["", "Keep it"]]) !== "undo") {
    return say("nothing undone");
  }
  await undoCorrection(fix.seq, m)();
}

// Undo: a Void entry in the log (nothing is rewritten); refused with the server's reason when a
// later move depends on the one named.
async function voidMove(m, confirmed = false) {
  const what = `move ${moveNumber(m)} (${playerName(m.player)}: ${moveText(m, movesNow)})`;
  if (!confirmed && await ask(`Undo ${what}? It stays in the log, voided.`, [["void", "Undo it"], ["", "Keep it"]]) !== "void") {
    return say("nothing undone");
  }
  await api("POST", `/api/games/${gameId()}/moves/${m.index}/void`, { seq: m.seq, reason: "undone at the console" });
  await loadMoves();
  say(`undone: ${what}`);
}
// The entries just written, as moves (for the Undo button after an entry): the last ones standing.
async function lastMoves(seqs) {
  await loadMoves();
  return movesNow.filter((m) => seqs.includes(m.seq));
}
function undoOf(moves) {
  if (!moves.length) return null;
  return async () => {
    try {
      for (const m of [...moves].reverse()) await voidMove(m, true);
      say(`undone: ${moves.map((m) => moveText(m)).join(", ")}`);
    } catch (e) { say(e.message, true); }
  };
}

// Two to four players: one option per player in the player menus, inputs for the seats the game has.
function showPlayers(live) {
  const names = live.players.map((p) => p.name);
  document.querySelectorAll("select.players").forEach((sel) => {
    const keep = sel.value;
    const first = sel.name === "challenger" ? [new Option("next player", "")] : [];
    sel.replaceChildren(...first, ...names.map((n, i) => new Option(`${i + 1}: ${n}`, String(i))));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  });
  document.querySelectorAll("[data-seat]").forEach((el) => {
    el.hidden = Number(el.dataset.seat) >= names.length;
    if (el.hidden) el.value = "";  // a seat this game does not have sends nothing
  });
  $("scores").textContent = names.map((n, i) => `${n} ${live.scores[i]}`).join(" – ") + (live.ended ? " (ended)" : "");
}

// ---- the board: click the first square (again: turn the direction), type the word ----------
const play = { row: null, col: null, dir: "across" };
const colName = (c) => String.fromCharCode(65 + c);
// A position typed (8D across, D8 down) picks the square as a click would; one that is no square
// is sent as typed, so the server says what is wrong with it.
function typedPosition() {
  const v = $("position").value.trim().toUpperCase();
  let m = v.match(/^(\d+)([A-Z])$/);
  if (m) return { row: Number(m[1]) - 1, col: m[2].charCodeAt(0) - 65, dir: "across" };
  m = v.match(/^([A-Z])(\d+)$/);
  if (m) return { row: Number(m[2]) - 1, col: m[1].charCodeAt(0) - 65, dir: "down" };
  return null;
}
function position() {
  if (play.row === null) return $("position").value.trim();
  return play.dir === "across" ? `${play.row + 1}${colName(play.col)}` : `${colName(play.col)}${play.row + 1}`;
}
// The word as typed, with a blank's letter from its picker; '?' unchosen stays '?'.
function typedTiles() {
  const picks = [...document.querySelectorAll("#blanks select")].map((s) => s.value);
  let k = 0;
  return [...$("word").value.toUpperCase()].filter((ch) => ch.trim()).map((ch) => (ch === "?" ? (picks[k++] || "?").toLowerCase() : ch));
}
// The squares the typed word covers: each with the letter typed (a blank's from its picker), the
// tile already there ('.' none, undefined off the board), and whether the two disagree.
function pathSquares() {
  if (play.row === null) return [];
  const raw = [...$("word").value.toUpperCase()].filter((ch) => ch.trim());
  return typedTiles().map((ch, i) => {
    const [r, c] = play.dir === "across" ? [play.row, play.col + i] : [play.row + i, play.col];
    const on = live && live.rows[r] ? live.rows[r][c] : undefined;
    const sameBlank = raw[i] === "?" && on && on !== "." && on !== on.toUpperCase();
    const conflict = on === undefined || (on !== "." && !sameBlank && (raw[i] === "?" || ch.toUpperCase() !== on.toUpperCase()));
    return { r, c, ch, raw: raw[i], on, conflict, square: squareWords(r, c) };
  });
}
// What the typed word cannot be: a letter over a different tile on the board (the API refuses
// it; say so before sending), or a word that runs off the board.
function conflicts() {
  return pathSquares().filter((p) => p.conflict).map((p) => (p.on === undefined
    ? `${p.square} is off the board`
    : `${p.square} has ${p.on === p.on.toUpperCase() ? p.on : `a blank ${p.on}`} on the board, not the ${p.raw === "?" ? "blank" : p.raw} typed`));
}
// The GCG word: a tile already on the board is '.', so the operator never types notation.
function gcgWord() {
  if (play.row === null) return typedTiles().join("");
  return pathSquares().map((p) => (p.on && p.on !== "." ? "." : p.ch)).join("");
}
// The word as people read it: played-through tiles in parentheses ("O(M)S").
function shownWord() {
  if (play.row === null) return typedTiles().join("");
  let out = "", through = false;
  for (const p of pathSquares()) {
    const on = p.on && p.on !== "." && !p.conflict;
    if (on !== through) { out += on ? "(" : ")"; through = on; }
    out += on ? p.on : p.ch;
  }
  return through ? `${out})` : out;
}
function showBlanks() {
  const n = [...$("word").value].filter((ch) => ch === "?").length;
  const have = document.querySelectorAll("#blanks select").length;
  if (n === have) return;
  const letters = live ? Object.keys(live.values).filter((l) => l !== "?" && l.length === 1) : [];
  $("blanks").replaceChildren(...Array.from({ length: n }, (_, i) => {
    const s = document.createElement("select");
    s.setAttribute("aria-label", `blank ${i + 1} stands for`);
    s.className = "blank-pick";
    s.append(new Option(`blank ${i + 1} = ?`, ""), ...letters.map((l) => new Option(l, l)));
    s.addEventListener("change", renderBoard);
    return s;
  }));
}
function renderBoard() {
  if (!live) return;
  const n = live.premiums.length;
  const board = $("board");
  board.className = `n${n}`;
  const path = new Map(pathSquares().map((p) => [`${p.r},${p.c}`, p]));
  const cells = [document.createElement("span")];
  for (let c = 0; c < n; c++) { const h = document.createElement("span"); h.className = "coord"; h.textContent = colName(c); cells.push(h); }
  for (let r = 0; r < n; r++) {
    const h = document.createElement("span"); h.className = "coord"; h.textContent = r + 1; cells.push(h);
    for (let c = 0; c < n; c++) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.square = `${r + 1}${colName(c)}`;
      const ch = live.rows[r][c];
      const prem = { "=": "tw", "-": "dw", '"': "tl", "'": "dl", "^": "ql", "~": "qw", "*": "ct" }[live.premiums[r][c]] || "";
      b.className = `sq ${prem}`;
      if (ch !== ".") { b.textContent = ch.toUpperCase(); b.classList.add("tile"); if (ch !== ch.toUpperCase()) b.classList.add("blank"); }
      const k = `${r},${c}`;
      if (path.has(k)) {
        const p = path.get(k);
        b.classList.add("path");
        if (ch === ".") { b.textContent = p.ch.toUpperCase(); if (p.ch !== p.ch.toUpperCase()) b.classList.add("blank"); }
        if (p.conflict) { b.classList.add("conflict"); b.title = `the board has ${ch}; typed ${p.raw}`; }
      }
      if (r === play.row && c === play.col) { b.classList.add("start"); b.dataset.dir = play.dir; }
      b.addEventListener("click", () => pickSquare(r, c));
      cells.push(b);
    }
  }
  board.replaceChildren(...cells);
  $("dir").textContent = play.dir === "across" ? "across →" : "down ↓";
  $("dir").dataset.dir = play.dir;
  const bad = conflicts();
  $("preview").textContent = position() ? `${position()} ${shownWord() || "…"}` : "pick the first square";
  $("preview").className = bad.length ? "conflict" : "";
  if (bad.length) $("preview").textContent += ` — ${bad.join("; ")}`;
  if (play.row !== null) $("position").value = position();
}
function pickSquare(r, c) {
  if (play.row === r && play.col === c) play.dir = play.dir === "across" ? "down" : "across";
  else Object.assign(play, { row: r, col: c });
  renderBoard();
  $("word").focus();
}
function clearPlay() {
  $("play").reset();
  $("blanks").replaceChildren();
  Object.assign(play, { row: null, col: null, dir: "across" });
  renderBoard();
}
$("dir").addEventListener("click", () => { play.dir = play.dir === "across" ? "down" : "across"; renderBoard(); });
$("word").addEventListener("input", () => { showBlanks(); renderBoard(); });
$("position").addEventListener("input", () => {
  const p = typedPosition();
  Object.assign(play, p && live && p.row < live.rows.length && p.col < live.rows.length ? p : { row: null, col: null });
  renderBoard();
  if (!p) $("preview").textContent = $("position").value ? `${$("position").value} ${shownWord()}` : "pick the first square";
});

function showTurn() {
  if (!live) return;
  $("on-turn").textContent = live.ended ? "game over" : `on turn: ${playerName(live.on_turn)}`;
  // "turns inferred since move 12: no clock press seen" (the API's words), above the move list
  $("turns-note").textContent = live.turns || "";
  $("turns-note").hidden = !live.turns;
  // trust is earned per table: "learning: 23 of 27 tiles seen, 4 plays confirmed · not yet: J Q X ?"
  const l = live.learning;
  $("learning").hidden = !l;
  if (l) {
    $("learning").textContent = l.trusted ? l.text : `${l.text} · not yet: ${l.missing.join(" ")}`;
    $("learning").classList.toggle("trusted", l.trusted);
  }
}

let followed = null;
function follow() {
  if (source) source.close();
  if (!gameId()) return;
  const id = gameId();
  followed = id;
  $("overlay-link").href = `/overlay/${id}`; $("gcg-link").href = `/api/games/${id}.gcg`; $("recount-link").href = `/recount/${id}`;
  live = null; clearPlay();
  showMirror();
  source = followGame(id, (state) => {
    live = state;
    relabel(live);
    showPlayers(live);
    showTurn();
    renderBoard();
    fillFields($("clock"), live.fields);
    tickClocks($("clock"), live);
    loadMoves().catch(loadFailed);
  });
}

// Each form: its buttons are disabled while its request is in flight (a double-click records one
// pass, not two), and it is cleared after a success, so no value carries over to the next entry.
// A handler returns a message, or [message, undo].
function form(id, handler, keep = false) {
  $(id).addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    if (f.dataset.busy) return;
    const data = Object.fromEntries(new FormData(f));
    if (e.submitter && e.submitter.name) data[e.submitter.name] = e.submitter.value;
    f.dataset.busy = "1";
    const buttons = [...f.querySelectorAll("button")];
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const out = await handler(data);
      const [text, undo, notYet] = Array.isArray(out) ? out : [out, null, null];
      if (notYet) say(notYet, true);  // nothing sent; the form keeps what was typed
      else if (text !== null) { say(text || "done", false, undo); if (!keep) f.reset(); }
    } catch (err) {
      say(err.message, true);
    } finally {
      delete f.dataset.busy;
      buttons.forEach((b) => { b.disabled = false; });
    }
  });
}
const num = (v) => (v === "" || v === undefined ? null : Number(v));

// The named seats in order; a blank third or fourth seat is no player.
const seats = (d, key) => [d[`${key}1`], d[`${key}2`], d[`${key}3`], d[`${key}4`]].filter((v, i) => i < 2 || v);
form("create", async (d) => {
  const players = seats(d, "p").map((name) => ({ name }));
  const g = await api("POST", "/api/games", { players, rules: d.rules, lang: d.lang });
  await loadGames(String(g.id)); return `game ${g.id} created`;
});
form("players", (d) => api("PUT", `/api/games/${gameId()}/players`, { players: seats(d, "p").map((name) => ({ name })) })
  .then(() => loadGames()).then(() => "player names set"));
// A play: recorded at the engine's score with the announced one kept as claimed; an announced score
// that differs is asked about before it can stand (an announced 38 must never become the total of
// a play the rules make 21).
form("play", async (d) => {
  if (!position()) throw new Error("pick the word's first square on the board");
  const word = gcgWord();
  const bad = conflicts();
  if (bad.length) throw new Error(`not sent: ${bad.join("; ")}. Type the word as it reads on the board.`);
  if (word.includes("?")) throw new Error("choose the letter each blank stands for");
  const announced = num(d.claimed);
  // the announced score is kept as claimed (the recount shows it); the engine's stands meanwhile
  const body = announced === null ? { position: position(), word } :
    { position: position(), word, claimed: announced, engine_stands: true };
  const r = await api("POST", `/api/games/${gameId()}/plays`, body);
  const [m] = await lastMoves(r.seqs);
  clearPlay();
  const undo = undoOf([m]);
  if (announced !== null && m && announced !== m.engine) {
    const choice = await ask(`${playerName(m.player)} announced ${announced}; the rules give ${m.engine} for ${moveText(m, movesNow)}. Which score stands?`,
      [["engine", `${m.engine} (the rules)`], ["announced", `${announced} (as announced)`], ["void", "Undo the play"]]);
    if (choice === "announced") {
      await api("POST", `/api/games/${gameId()}/moves/${m.index}/corrections`,
        { kind: "score", agreed: announced, reason: `announced ${announced}; the rules give ${m.engine}` });
      return [`recorded: ${moveText(m)}, ${announced} as announced (the rules give ${m.engine})`, undo];
    }
    if (choice === "void") { await voidMove(m, true); return `undone: ${moveText(m)}`; }
    return [`recorded: ${moveText(m)} ${m.engine} (announced ${announced} set aside)`, undo];
  }
  return [`recorded: ${r.live.last_text}`, undo];
});
// Pass and exchange: asked first, and undoable for a while after.
form("turn", async (d) => {
  const who = playerName(live ? live.on_turn : 0);
  // An exchange needs its count (the API refuses one without): asked for before the question.
  if (d.exchange && !(Number(d.count) >= 1)) {
    $("exchange-count").focus();
    return [null, null, "how many tiles were exchanged? Type the count, then Exchange"];
  }
  const what = d.exchange ? `an exchange of ${d.count} tile${Number(d.count) === 1 ? "" : "s"}` : "a pass";
  if (await ask(`Record ${what} for ${who}?`, [["yes", `Record ${what}`], ["", "Cancel"]]) !== "yes") return "nothing recorded";
  const r = d.exchange
    ? await api("POST", `/api/games/${gameId()}/exchanges`, { count: num(d.count) })
    : await api("POST", `/api/games/${gameId()}/passes`, {});
  return [`recorded: ${who}, ${what}`, undoOf(await lastMoves(r.seqs))];
});
form("challenge", async (d) => {
  if (d.outcome === "phony" && await ask("Take the last play off as a phony?", [["yes", "Take it off"], ["", "Cancel"]]) !== "yes") {
    return "nothing recorded";
  }
  const r = await api("POST", `/api/games/${gameId()}/challenges`, { outcome: d.outcome, words: num(d.words), challenger: num(d.challenger) });
  if (!r.seqs.length) return "valid play; nothing to record under this rule";
  return [`challenge recorded: ${r.live.last_text}`, undoOf(await lastMoves(r.seqs))];
});
// The game clock, as its buttons: the first press starts the first player's clock.
form("clock", (d) => {
  const path = `/api/games/${gameId()}/clock`;
  const calls = {
    start: () => api("POST", path, { minutes: num(d.minutes) }).then(() => "clock started: the first press starts it"),
    press: () => api("POST", `${path}/press`, {}).then((r) => `player ${r.clock.running + 1}'s clock runs`),
    pause: () => api("POST", `${path}/pause`).then(() => "clock paused"),
    resume: () => api("POST", `${path}/resume`).then(() => "clock running"),
    undo: () => api("POST", `${path}/undo`, {}).then(() => "last press taken back"),
    finish: () => api("POST", `${path}/finish`).then((r) => `clock stopped; ${r.seqs.length} overtime penalties entered`),
  };
  return calls[d.action]();
}, true);
form("time", async (d) => {
  const r = await api("POST", `/api/games/${gameId()}/time-penalties`, { player: Number(d.player), minutes: Number(d.minutes) });
  return [`recorded: ${playerName(Number(d.player))} ${d.minutes} minute(s) over`, undoOf(await lastMoves(r.seqs))];
});
form("end", async (d) => {
  // One rack per player the game has (the hidden seats are not sent).
  const racks = [...document.querySelectorAll("#end [name^=r]:not([name=reason])")].filter((el) => !el.hidden).map((el) => el.value);
  if (await ask("End the game?", [["yes", "End the game"], ["", "Cancel"]]) !== "yes") return "the game goes on";
  const r = await api("POST", `/api/games/${gameId()}/end`, { racks: racks.some((x) => x) ? racks : null, reason: d.reason });
  const totals = r.live.players.map((p, i) => `${p.name} ${r.live.scores[i]}`).join(" – ");
  return [`game over: ${totals}`, undoOf(await lastMoves(r.seqs))];
});
form("fix", (d) => {
  const bodies = {
    blank: { square: d.a, letter: d.b }, letter: { square: d.a, letter: d.b }, play: { position: d.a, word: d.b },
    exchange: { count: num(d.a) }, pass: {}, score: { agreed: num(d.a) },
  };
  // The form takes the move's number as the list shows it; the API its index.
  const m = movesNow.find((x) => moveNumber(x) === Number(d.number));
  const index = m ? m.index : Number(d.number) - 1;
  return api("POST", `/api/games/${gameId()}/moves/${index}/corrections`, { kind: d.kind, reason: d.reason, ...bodies[d.kind] })
    .then((r) => loadMoves().then(() => [`move ${d.number} corrected`, undoCorrection(r.seqs[0], m || { index, number: Number(d.number) })]));
});

// A central service's mirror of a station's game (/api/games "station"): every write is the station's,
// so the write controls go and the note links the station's console, where the game is corrected.
function showMirror() {
  const g = gamesNow.find((x) => String(x.id) === gameId());
  const station = g && g.station;
  document.body.classList.toggle("mirror", !!station);
  const note = $("mirror-note");
  note.hidden = !station;
  if (!station) return;
  note.replaceChildren(`Game ${g.id} is recorded by station ${station}${g.meta.table ? ` at table ${g.meta.table}` : ""}: `
    + "this service only mirrors it; correct it at the station's console");
  if (g.station_console) {
    const a = document.createElement("a");
    a.href = g.station_console; a.textContent = g.station_console; a.target = "_blank";
    note.append(": ", a);
  } else note.append(" (the station gave no address)");
}

// On the station recording the game followed: what its camera cannot follow (/api/status "lost": no
// board in view, tiles no play explains, ...) stands above the page until it follows again. Elsewhere
// (a central service, a plain server) /api/status names no game and nothing shows.
async function watchCamera() {
  try {
    const st = await (await fetch("/api/status")).json();
    const lost = st.lost && String(st.game_id) === gameId() ? st.lost : "";
    $("camera-lost").textContent = lost ? `CAMERA LOST: ${lost}` : "";
    $("camera-lost").hidden = !lost;
  } catch (e) { /* the next look says it */ }
}
setInterval(watchCamera, 3000);
$("game").addEventListener("change", watchCamera);
$("game").addEventListener("change", follow);
$("refresh").addEventListener("click", () => loadGames().catch(loadFailed));
// /operator?game=7 (the tournament page's "Console" link) opens on that game.
loadGames(new URLSearchParams(location.search).get("game") || undefined).then(watchCamera).catch(loadFailed);
checkToken();
