// The page's own racks options (?racks=off, ?broadcast=<broadcast token>), passed on to every API call:
// the server leaves out the racks the request may not see, so a hidden rack never reaches the page at all.
function rackQuery() {
  const q = new URLSearchParams(location.search);
  const out = new URLSearchParams();
  ["racks", "broadcast"].forEach((k) => { if (q.get(k) !== null) out.set(k, q.get(k)); });
  const text = out.toString();
  return text ? `?${text}` : "";
}

// Follows a game's SSE stream and hands each live state to a callback.
// EventSource reconnects by itself; the first event after (re)connecting is the current state.
function followGame(gameId, onLive, onStatus) {
  const source = new EventSource(`/api/games/${gameId}/events${rackQuery()}`);
  source.addEventListener("update", (e) => onLive(JSON.parse(e.data).live));
  source.onopen = () => onStatus && onStatus("");
  source.onerror = () => onStatus && onStatus("reconnecting…");
  return source;
}

function gameIdFromPath() {
  const m = location.pathname.match(/\/overlay\/(\d+)/);
  return m ? m[1] : new URLSearchParams(location.search).get("game");
}

// Sets every element with data-field="name" to that OBS field's text.
function fillFields(root, fields) {
  root.querySelectorAll("[data-field]").forEach((el) => {
    const v = fields[el.dataset.field];
    if (v !== undefined && el.textContent !== v) el.textContent = v;
  });
}

// The game clock ticks here, between updates: a live state says each player's time as of when it
// was sent, and only the running player's goes down, so the page counts down by itself (one timer,
// not one SSE message per second) from the moment the state arrived.
function formatClock(ms) {
  // As the server's fields: seconds round up, overtime is "-m:ss" from its first started second.
  const s = Math.ceil(Math.abs(ms) / 1000);
  return `${ms < 0 ? "-" : ""}${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const clockTicker = { clock: null, received: 0, root: null, timer: null };

function showClocks() {
  const { clock, received, root } = clockTicker;
  if (!clock) return;
  const elapsed = performance.now() - received;
  clock.remaining_ms.forEach((ms, p) => {
    const left = p === clock.running ? ms - elapsed : ms;
    const text = formatClock(left);
    root.querySelectorAll(`[data-field="p${p + 1}_clock"]`).forEach((el) => {
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle("overtime", left < 0);
      el.classList.toggle("running", p === clock.running);
    });
  });
}

// Call with every live state: follows its clock (or stops ticking when the game has none).
function tickClocks(root, live) {
  Object.assign(clockTicker, { clock: live.clock, received: performance.now(), root });
  if (live.clock && !clockTicker.timer) clockTicker.timer = setInterval(showClocks, 200);
  if (!live.clock && clockTicker.timer) { clearInterval(clockTicker.timer); clockTicker.timer = null; }
  showClocks();
}

// What the page's URL names: /overlay/{id}[/field] follows that game, /overlay/table/{n}[/field] the
// table's current game (its newest), switching to a new game at the table without a reload. Until
// there is a game to follow, onWaiting(text) is called: an OBS source should look calm, not broken.
const WAIT_MS = 2000;

function followPage(onLive, onWaiting, onStatus) {
  const table = location.pathname.match(/^\/overlay\/table\/(\d+)/);
  let source = null;
  let gameId = null;
  const follow = (id) => {
    if (source) source.close();
    gameId = String(id);
    document.body.dataset.game = gameId;
    delete document.body.dataset.waiting;
    source = followGame(gameId, onLive, onStatus);
  };
  const waiting = (text) => { document.body.dataset.waiting = "1"; onWaiting(text); };
  if (table) {
    const n = table[1];
    const check = async () => {
      try {
        const r = await fetch(`/api/tables/${n}`);
        if (r.ok) {
          const t = await r.json();
          if (String(t.game_id) !== gameId) follow(t.game_id);
        } else if (gameId === null) {
          waiting(`Table ${n}: waiting for the game`);
        }
      } catch (e) { /* the server is restarting: the next tick tries again */ }
    };
    check();
    setInterval(check, WAIT_MS);  // a new game at the table takes over at the next tick
  } else {
    const id = gameIdFromPath();
    // EventSource gives up for good on a 404, so the page asks until the game exists.
    const check = async () => {
      try {
        const r = await fetch(`/api/games/${id}/live${rackQuery()}`);
        if (r.ok) { follow(id); return; }
      } catch (e) { /* try again below */ }
      waiting(`Waiting for game ${id}`);
      setTimeout(check, WAIT_MS);
    };
    check();
  }
}

// Display options from the query string (the server has checked them): scale, theme, parts, rotate.
function pageOptions() {
  const q = new URLSearchParams(location.search);
  const parts = (q.get("parts") || "board,scores,last,unseen,clocks,racks").split(",");
  const opts = { scale: Number(q.get("scale") || 1), theme: q.get("theme") || "transparent",
                 parts: new Set(parts), rotate: Number(q.get("rotate") || 0) % 4 };
  document.body.style.zoom = String(opts.scale);
  document.body.classList.add(`theme-${opts.theme}`);
  ["board", "scores", "last", "unseen", "clocks", "racks"].forEach((p) => {
    document.body.classList.toggle(`no-${p}`, !opts.parts.has(p));
  });
  return opts;
}
