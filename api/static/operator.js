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
    if (m.corrected) tr.classList.add("corrected");
    if (m.claimed !== null && m.engine !== null && m.claimed !== m.engine) tr.classList.add("differs");
    const cells = [m.index, m.nick, m.text, m.claimed ?? "", m.engine ?? "", m.agreed, m.totals.join(" – ")];
    cells.forEach((v, i) => { const td = document.createElement("td"); td.textContent = v; if (i === 3) td.className = "claimed"; tr.appendChild(td); });
    const td = document.createElement("td");
    const b = document.createElement("button"); b.type = "button"; b.textContent = "fix";
    b.onclick = () => { document.querySelector("#fix [name=index]").value = m.index; };
    td.appendChild(b); tr.appendChild(td);
    return tr;
  }));
}

function follow() {
  if (source) source.close();
  if (!gameId()) return;
  const id = gameId();
  $("overlay-link").href = `/overlay/${id}`; $("gcg-link").href = `/api/games/${id}.gcg`; $("recount-link").href = `/api/games/${id}/recount`;
  source = followGame(id, (live) => {
    $("scores").textContent = `${live.fields.p1_name} ${live.scores[0]} – ${live.scores[1]} ${live.fields.p2_name}` + (live.ended ? " (ended)" : "");
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

form("create", async (d) => {
  const g = await api("POST", "/api/games", { players: [{ name: d.p1 }, { name: d.p2 }], rules: d.rules, lang: d.lang });
  await loadGames(String(g.id)); return `game ${g.id} created`;
});
form("players", (d) => api("PUT", `/api/games/${gameId()}/players`, { players: [{ name: d.p1 }, { name: d.p2 }] }).then(() => loadGames()));
form("play", async (d) => {
  const r = await api("POST", `/api/games/${gameId()}/plays`, { position: d.position, word: d.word, claimed: num(d.claimed) });
  return `recorded: ${r.live.last_text}`;
});
form("turn", (d) => d.exchange
  ? api("POST", `/api/games/${gameId()}/exchanges`, { count: num(d.count) })
  : api("POST", `/api/games/${gameId()}/passes`, {}));
form("challenge", (d) => api("POST", `/api/games/${gameId()}/challenges`, { outcome: d.outcome, words: num(d.words) })
  .then((r) => (r.seqs.length ? `challenge recorded: ${r.live.last_text}` : "valid play; nothing to record under this rule")));
form("time", (d) => api("POST", `/api/games/${gameId()}/time-penalties`, { player: Number(d.player), minutes: Number(d.minutes) }));
form("end", (d) => api("POST", `/api/games/${gameId()}/end`, { racks: d.r1 || d.r2 ? [d.r1, d.r2] : null, reason: d.reason }));
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
