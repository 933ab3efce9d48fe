// The director's view: every table's current game from /api/tables, asked again every 2 s. A poll,
// not a stream: what it shows changes without any game changing (a station falling silent, a new
// game at a table), and the server answers from its cache, so one small request per 2 s is cheap.
// The clocks tick here between polls (formatClock, as the overlay's).
"use strict";
(() => {
  const POLL_MS = 2000;
  const $ = (id) => document.getElementById(id);
  const clocks = { rows: [], received: 0 };  // the running clocks as of the last response
  let lastOk = null;

  // "45 s", "3 min 05 s", "1 h 02 min": how long a station has been silent.
  function duration(s) {
    s = Math.floor(s);
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
    return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
  }

  // How long the station has been silent: a span the next poll updates in place.
  function silentFor(station, after = "") {
    const span = el("span", null, "silent");
    span.dataset.silent = after;
    span.textContent = silentText(station.silent_s, after);
    return span;
  }
  const silentText = (s, after) => (after ? `${duration(s)} ${after}` : `silent ${duration(s)}`);

  function flag(kind, what, text) {
    const d = el("div", null, `flag ${kind}`);
    d.append(el("span", what, "what"), text);
    return d;
  }

  // Each flag in words a director acts on, the first disagreement with its numbers.
  function flags(t) {
    const out = [];
    if (t.damaged) out.push(flag("damaged", "log damaged", t.damaged));
    if (t.lost) out.push(flag("lost", "camera lost", t.lost));
    if (t.tileset) out.push(flag("tileset", "tile set", t.tileset));
    if (t.disagreements.length) {
      const d = t.disagreements[0];
      const who = t.players[d.player] || `player ${d.player + 1}`;
      const text = d.what === "score"
        ? `move ${d.number}, ${who}: claimed ${d.claimed}, engine ${d.engine}`
        : `move ${d.number}, ${who}: ${d.agreed} stands, engine ${d.engine}`;
      const more = t.disagreements.length - 1;
      out.push(flag("score", "score", more ? `${text} (+${more} more)` : text));
    }
    const where = t.station ? `at station ${t.station.name}` : "in the console";
    if (t.flags.includes("order")) out.push(flag("order", "turn order", t.turns));
    if (t.review.length) {
      out.push(flag("review", "review", `${t.review.length === 1 ? "move" : "moves"} ${t.review.join(", ")}: camera unsure or a tile not yet learned, ${
        t.station ? `confirm at station ${t.station.name}` : "confirm in the console"}`));
    }
    if (t.blanks && t.blanks.length) {
      out.push(flag("blank", "blank", `${t.blanks.length === 1 ? "move" : "moves"} ${t.blanks.join(", ")}: a blank nobody named (on air as ?), name it ${where}`));
    }
    // the turn order's doubts in words (the server's); "order" above already says them
    if (t.flags.includes("inferred") && !t.flags.includes("order")) out.push(flag("inferred", "turns", t.turns));
    if (t.station && t.station.stale) {
      const f = flag("stale", "station", `${t.station.name} `);
      f.append(t.station.silent_s === null ? "never heard from" : silentFor(t.station));
      out.push(f);
    }
    if (!out.length) out.push(el("span", "–", "ok"));
    // trust is earned per table: the camera's plays stay flagged until the table's tiles are learned
    if (t.learning) out.push(el("div", t.learning.text, t.learning.trusted ? "learning trusted" : "learning"));
    if (t.station && !t.station.stale) {
      const d = el("div", `${t.station.name}${t.station.url ? ` (${hostOf(t.station.url)})` : ""} · heard `, "station");
      d.append(silentFor(t.station, "ago"));
      out.push(d);
    }
    return out;
  }

  // "pi-07.local:8000" of "http://pi-07.local:8000": where the station is, as the director types it.
  const hostOf = (url) => { try { return new URL(url).host; } catch (e) { return url; } };

  const signed = (n) => `${n >= 0 ? "+" : ""}${n}`;

  // The last play with its word in bold, "Nigel Richards: 8F ZE(B)rA +44", drawn from its parts
  // (`last_played`): the play and its score stay on one line ("8F ZE(B)rA +44"); a narrow column
  // breaks after the name or before what follows (", challenge bonus +5"). Any other move: its words.
  function lastPlay(t) {
    const td = el("td", null, "last");
    const p = t.last_played;
    if (!t.last_play) td.append(el("span", t.moves ? "" : "no move yet", "none"));
    else if (!p) td.append(t.last_play);
    else {
      const play = el("span", null, "play");
      play.append(`${p.position} `, el("span", p.word, "word"), ` ${signed(p.score)}`);
      td.append(`${t.players[p.player]}: `, play, p.bonus === null ? "" : `, challenge bonus ${signed(p.bonus)}`);
    }
    if (t.result) td.append(el("span", t.result, "result"));
    return td;
  }

  function lines(values, cls) {
    const td = el("td", null, cls);
    values.forEach((v) => td.append(el("div", v)));
    return td;
  }

  function row(t) {
    const tr = el("tr");
    tr.id = `table-${t.table}`;
    Object.assign(tr.dataset, { table: t.table, game: t.game_id, flags: t.flags.join(" ") });
    tr.classList.toggle("flagged", t.flags.length > 0);
    tr.classList.toggle("ended", t.ended);
    const no = el("td", t.table, "no");
    // The game's id is the one the console and the recount show; the round once the table has had two.
    no.append(el("span", `game ${t.game_id}${t.games > 1 ? ` · round ${t.games}` : ""}`, "game"),
              el("span", `${t.moves} move${t.moves === 1 ? "" : "s"}`, "game"));
    const who = lines(t.players, "who");
    if (t.on_turn !== null) who.children[t.on_turn].classList.add("on-turn");
    const clock = lines(t.clocks.length ? t.clocks : [], "num clock");
    if (!t.clocks.length) clock.append(el("div", "no clock", "none"));  // said, not a blank cell
    const fl = el("td", null, "flags");
    fl.append(...flags(t));
    const links = el("td", null, "links noprint");
    const box = el("div", null, "box");
    links.append(box);
    for (const [key, label] of [["recount", "Recount"], ["replay", "Replay"], ["operator", "Console"], ["overlay", "Overlay"]]) {
      // The central service only mirrors a forwarded game: it is corrected on its station's console,
      // linked when the station said its address, else named in words (this service's refuses).
      if (key === "operator" && t.station && !t.links.operator) {
        const where = el("span", `Console: at station ${t.station.name}`, "where");
        where.title = "the station gave no address ([tournament] url): corrections are made on its own console";
        where.dataset.link = key;
        box.append(where);
        continue;
      }
      const a = el("a", key === "operator" && t.station ? `Console at ${t.station.name}` : label);
      a.href = t.links[key];
      a.target = "_blank";
      a.dataset.link = key;
      if (key === "operator" && t.station) a.title = `corrections to this game are made on station ${t.station.name}'s console, ${t.links.operator}`;
      box.append(a);
    }
    tr.append(no, who, lines(t.scores.map(String), "num score"), clock, lastPlay(t), fl, links);
    return tr;
  }

  // Between polls only the running player's time goes down, from when the response arrived.
  function tick() {
    const elapsed = performance.now() - clocks.received;
    for (const { td, clock } of clocks.rows) {
      clock.remaining_ms.forEach((ms, p) => {
        const left = p === clock.running ? ms - elapsed : ms;
        const div = td.children[p];
        if (!div) return;
        div.textContent = formatClock(left);
        div.classList.toggle("running", p === clock.running);
        div.classList.toggle("overtime", left < 0);
      });
    }
  }

  // A row is drawn again only when what it shows changes; the times that run on (a station's
  // silence, the clocks) are updated in place, so a link is never pulled from under the pointer.
  const drawn = new Map();  // table -> { tr, sig }
  const signature = (t) => JSON.stringify({
    ...t, clock: t.clock && { ...t.clock, at: 0, remaining_ms: null },
    station: t.station && { ...t.station, heard_at: 0, silent_s: t.station.silent_s === null },
  });

  function render(body) {
    const rows = body.tables.map((t) => {
      const sig = signature(t);
      let d = drawn.get(t.table);
      if (!d || d.sig !== sig) { d = { tr: row(t), sig }; drawn.set(t.table, d); }
      d.tr.querySelectorAll("[data-silent]").forEach((span) => {
        span.textContent = silentText(t.station.silent_s, span.dataset.silent);
      });
      return d.tr;
    });
    const tbody = $("tables").tBodies[0];
    if (rows.length !== tbody.children.length || rows.some((tr, i) => tbody.children[i] !== tr)) {
      tbody.replaceChildren(...rows);
    }
    for (const table of [...drawn.keys()]) if (!body.tables.some((t) => t.table === table)) drawn.delete(table);
    clocks.rows = body.tables.map((t, i) => ({ td: rows[i].querySelector("td.clock"), clock: t.clock })).filter((c) => c.clock);
    clocks.received = performance.now();
    tick();
    const flagged = body.tables.filter((t) => t.flags.length);
    const filtered = new URLSearchParams(location.search).get("flagged") === "true";
    $("count").textContent = filtered ? "(tables that need attention)" : `${body.tables.length} table${body.tables.length === 1 ? "" : "s"}`;
    $("empty").hidden = body.tables.length > 0 || filtered;
    const att = $("attention");
    att.className = flagged.length ? "" : "ok";
    if (!flagged.length) att.textContent = body.tables.length ? "Every table is fine." : "";
    else {
      att.replaceChildren(`${flagged.length} need${flagged.length === 1 ? "s" : ""} attention: `);
      flagged.forEach((t, i) => {
        const a = el("a", `table ${t.table}`);
        a.href = `#table-${t.table}`;
        att.append(...(i ? [", "] : []), a, ` (${t.flags.map((f) => (f === "stale" ? "station" : f)).join(", ")})`);
      });
    }
    lastOk = new Date();
    $("updated").textContent = `updated ${lastOk.toLocaleTimeString("en-GB", { hour12: false })}`;
    $("status").textContent = "";
    document.body.dataset.polls = String(Number(document.body.dataset.polls || 0) + 1);
  }

  async function poll() {
    try {
      render(await getJSON(`/api/tables${location.search}`));
    } catch (e) {
      const since = lastOk ? ` (showing ${lastOk.toLocaleTimeString("en-GB", { hour12: false })})` : "";
      $("status").textContent = `${e instanceof TypeError ? "cannot reach the server" : e.message}${since}`;
    }
  }

  // The filter lives in the URL, so a reload or a printed link keeps it.
  const box = $("only-flagged");
  box.checked = new URLSearchParams(location.search).get("flagged") === "true";
  box.addEventListener("change", () => {
    const q = new URLSearchParams(location.search);
    if (box.checked) q.set("flagged", "true"); else q.delete("flagged");
    history.replaceState(null, "", `${location.pathname}${q.toString() ? `?${q}` : ""}${location.hash}`);
    poll();
  });
  $("print").addEventListener("click", () => window.print());
  poll();
  setInterval(poll, POLL_MS);
  setInterval(tick, 250);
})();
