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
