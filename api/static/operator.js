// Operator console: every write goes through the REST API with the bearer token.
const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
// The token lives as long as this tab (sessionStorage), not on disk for whoever opens the page
// next; one that an older version kept in localStorage is removed.
localStorage.removeItem("tilecam-token");
tokenInput.value = sessionStorage.getItem("tilecam-token") || "";
tokenInput.addEventListener("change", () => sessionStorage.setItem("tilecam-token", tokenInput.value.trim()));
let source = null;

function say(text, error = false) { $("message").textContent = text; $("message").className = error ? "error" : ""; }
function gameId() { return $("game").value; }

async function api(method, path, body) {
  const headers = { "Authorization": `Bearer ${tokenInput.value.trim()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const d = data.detail;
    throw new Error(typeof d === "string" ? d : (d || []).map((e) => `${e.loc.slice(1).join(".")}: ${e.msg}`).join("; ") || res.statusText);
  }
  return data;
}

async function loadGames(select) {
  const games = await api("GET", "/api/games");
  const current = select || gameId();
  $("game").replaceChildren(...games.map((g) => new Option(`${g.id}: ${g.players.map((p) => p.name).join(" vs ")}`, g.id)));
  if (current) $("game").value = current;
  if (!$("game").value && games.length) $("game").value = games[games.length - 1].id;
  follow();
}

async function loadMoves() {
  if (!gameId()) return;
  const moves = await api("GET", `/api/games/${gameId()}/moves`);
  $("moves").replaceChildren(...moves.map((m) => {
    const tr = document.createElement("tr");
    tr.dataset.index = m.index;
    if (m.corrected) tr.classList.add("corrected");
    if (m.claimed !== null && m.engine !== null && m.claimed !== m.engine) tr.classList.add("differs");
    const cells = [m.index, m.nick, m.text, m.claimed ?? "", m.engine ?? "", m.agreed, m.totals.join(" – ")];
    cells.forEach((v, i) => { const td = document.createElement("td"); td.textContent = v; if (i === 3) td.className = "claimed"; tr.appendChild(td); });
    if (m.blank_undecided) {
      // Nobody named this blank's letter (the GCG holds a guess): the operator designates it.
      tr.classList.add("undecided");
      const mark = document.createElement("span");
      mark.className = "undecided-mark"; mark.textContent = "blank?";
      mark.title = "a blank whose letter was not read: designate it with a blank correction";
      tr.children[2].append(" ", mark);
    }
    const td = document.createElement("td");
    const b = document.createElement("button"); b.type = "button"; b.textContent = "fix";
    b.onclick = () => {
      document.querySelector("#fix [name=index]").value = m.index;
      if (m.blank_undecided) document.querySelector("#fix [name=kind]").value = "blank";
    };
    td.appendChild(b); tr.appendChild(td);
    return tr;
  }));
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

function follow() {
  if (source) source.close();
  if (!gameId()) return;
  const id = gameId();
  $("overlay-link").href = `/overlay/${id}`; $("gcg-link").href = `/api/games/${id}.gcg`; $("recount-link").href = `/api/games/${id}/recount`;
  source = followGame(id, (live) => {
    showPlayers(live);
    fillFields($("clock"), live.fields);
    tickClocks($("clock"), live);
    loadMoves().catch((e) => say(e.message, true));
  });
}

function form(id, handler) {
  $(id).addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(e.target));
    if (e.submitter && e.submitter.name) data[e.submitter.name] = e.submitter.value;
    try { say(await handler(data) || "done"); } catch (err) { say(err.message, true); }
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
  .then(() => loadGames()));
form("play", async (d) => {
  const r = await api("POST", `/api/games/${gameId()}/plays`, { position: d.position, word: d.word, claimed: num(d.claimed) });
  return `recorded: ${r.live.last_text}`;
});
form("turn", (d) => d.exchange
  ? api("POST", `/api/games/${gameId()}/exchanges`, { count: num(d.count) })
  : api("POST", `/api/games/${gameId()}/passes`, {}));
form("challenge", (d) => api("POST", `/api/games/${gameId()}/challenges`, { outcome: d.outcome, words: num(d.words), challenger: num(d.challenger) })
  .then((r) => (r.seqs.length ? `challenge recorded: ${r.live.last_text}` : "valid play; nothing to record under this rule")));
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
});
form("time", (d) => api("POST", `/api/games/${gameId()}/time-penalties`, { player: Number(d.player), minutes: Number(d.minutes) }));
form("end", (d) => {
  // One rack per player the game has (the hidden seats are not sent).
  const racks = [...document.querySelectorAll("#end [name^=r]:not([name=reason])")].filter((el) => !el.hidden).map((el) => el.value);
  return api("POST", `/api/games/${gameId()}/end`, { racks: racks.some((r) => r) ? racks : null, reason: d.reason });
});
form("fix", (d) => {
  const bodies = {
    blank: { square: d.a, letter: d.b }, letter: { square: d.a, letter: d.b }, play: { position: d.a, word: d.b },
    exchange: { count: num(d.a) }, pass: {}, score: { agreed: num(d.a) },
  };
  return api("POST", `/api/games/${gameId()}/moves/${d.index}/corrections`, { kind: d.kind, reason: d.reason, ...bodies[d.kind] })
    .then(() => `move ${d.index} corrected`);
});

$("game").addEventListener("change", follow);
$("refresh").addEventListener("click", () => loadGames().catch((e) => say(e.message, true)));
loadGames().catch((e) => say(e.message, true));
