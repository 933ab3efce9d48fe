// Follows a game's SSE stream and hands each live state to a callback.
// EventSource reconnects by itself; the first event after (re)connecting is the current state.
function followGame(gameId, onLive, onStatus) {
  const source = new EventSource(`/api/games/${gameId}/events`);
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
