// The recount page: /api/games/{id}/recount, /moves (evidence frames) and the .json log
// (corrections: who, when, why), laid out for a director to read and print.
"use strict";
(() => {
  const gid = pageGameId();
  const api = `/api/games/${gid}`;
  const $ = (id) => document.getElementById(id);
  const show = (v) => (v === null || v === undefined ? "–" : v);
  let engineAt = [];  // engineAt[i][p]: player p's total after event i, scored as the engine scores


  // The engine's running totals: each event's engine score where the engine gives one (passes,
  // exchanges score what was agreed, nothing to recompute). A withdrawn phony takes back what the
  // engine gave the play, not what was announced, or one misannounced phony would leave the
  // engine's column off for the rest of the game.
  function engineTotals(moves, players) {
    const t = new Array(players).fill(0);
    const lastPlay = new Array(players).fill(null);
    return moves.map((m) => {
      let pts = m.engine ?? m.agreed;
      if (m.kind === "phony_withdrawn" && lastPlay[m.player] && lastPlay[m.player].engine !== null) {
        pts = -lastPlay[m.player].engine;
      }
      if (m.kind === "play") lastPlay[m.player] = m;
      t[m.player] += pts;
      return t.slice();
    });
  }

  function correctionsBySeq(log) {
    const out = new Map();
    for (const e of log) {
      if (e.kind !== "correction") continue;  // voids are listed apart: their move is gone
      if (!out.has(e.target)) out.set(e.target, []);
      out.get(e.target).push(e);
    }
    return out;
  }

  // A correction as the director reads it: "25 Nov 10:24, demo operator: blank at D8 named S (why)".
  // `change` is the API's own words; without it, what the log entry says.
  function correctionText(c) {
    let change = c.change;
    if (!change) {
      const rep = c.replacement || {};
      change = c.agreed !== null && c.agreed !== undefined
        ? `score ${rep.agreed ?? "?"} → ${c.agreed}` : `${(rep.kind || "move").replace(/_/g, " ")} re-entered`;
    }
    let why = c.reason && c.reason !== change ? ` (${c.reason})` : "";
    // A play re-entered as it was read changes nothing: say what was done, in plain words.
    if (change === "no change") { change = c.reason ? `${c.reason}, nothing changed` : "checked, nothing changed"; why = ""; }
    return `${shortTime(c.at || c.created)}, ${c.by || "?"}: ${change}${why}`;
  }

  // On paper every page carries the title and its number (the page's margin boxes): a loose
  // sheet of a recount still says which game it is. CSSOM, which the page's CSP allows.
  function printHeader(title) {
    const sheet = [...document.styleSheets].find((s) => (s.href || "").endsWith("/recount.css"));
    if (!sheet) return;
    const text = JSON.stringify(title);  // a CSS string: quotes and backslashes escaped
    sheet.insertRule(`@media print { @page { @top-left { content: ${text}; } } }`, sheet.cssRules.length);
  }

  function render(rc, moves, log, game) {
    const names = rc.players.map((p) => p.name);
    const n = names.length;
    document.title = `Recount: ${names.join(" vs ")} (game ${gid})`;
    $("title").textContent = `Recount: ${names.join(" vs ")}`;
    const table = game && game.meta && game.meta.table ? ` · table ${game.meta.table}` : "";
    const played = game ? ` · played ${shortTime(game.created)}` : "";
    $("meta").textContent = `Game ${gid}${table} · rules ${rc.rules} · ${rc.moves.length} events${played} · printed ${shortTime(new Date().toISOString())}`;
    // a loose printed sheet says it too: who played which move is a guess
    printHeader(`Recount: ${names.join(" vs ")} · game ${gid}${table}${rc.turns ? " · turns inferred" : ""}`);
    $("replay").href = `/replay/${gid}`;
    $("gcg").href = `${api}.gcg`;
    $("json").href = `${api}.json`;
    showWoogles(api, $("woogles"), $("woogles-note"));

    engineAt = engineTotals(rc.moves, n);
    const engineFinal = engineAt.length ? engineAt[engineAt.length - 1] : new Array(n).fill(0);
    const head = $("finals").tHead.rows[0];
    names.forEach((nm) => head.append(el("th", nm)));
    rc.final.forEach((v, p) => $("final-recorded").append(el("td", v, engineFinal[p] !== v ? "apart" : "")));
    engineFinal.forEach((v) => $("final-engine").append(el("td", v)));

    const first = rc.first_discrepancy;
    const firstEl = $("first");
    // Scores that agree are the engine's sums of what the camera read: say how much of it no person checked.
    const unchecked = rc.unconfirmed ? `${rc.unconfirmed} of ${rc.camera_plays} camera plays ` +
      `${rc.unconfirmed === 1 ? "was" : "were"} never confirmed by a person` : "";
    if (first) {
      firstEl.className = "found";
      firstEl.textContent = `First discrepancy: move ${moveNumber(first)}, ${names[first.player]}, ${moveText(first, rc.moves)}: ` +
        (first.what === "tiles" ? first.over_set
          : `claimed ${show(first.claimed)}, engine ${show(first.engine)}, agreed ${first.agreed}`) +
        (first.what === "correction" ? " (a ruling against both)" : "") +
        ` · ${rc.discrepancies.length} in all` + (unchecked ? ` · ${unchecked}` : "");
    } else if (rc.turns) {
      // Scores that agree are no proof of who played them: never "No discrepancy" alone.
      firstEl.className = "doubt";
      firstEl.textContent = "No discrepancy in the scores, but the turns were inferred: every score agrees with " +
        "the engine for the moves as credited, and who played which move is a guess." +
        (unchecked ? ` ${unchecked[0].toUpperCase()}${unchecked.slice(1)}.` : "");
    } else if (unchecked) {
      // nor of what the camera read: never "No discrepancy" alone while a camera play is unchecked
      firstEl.className = "doubt";
      firstEl.textContent = `Every score agrees with the engine; ${unchecked}.`;
    } else {
      firstEl.className = "none";
      firstEl.textContent = "No discrepancy: every score agrees with the engine.";
    }
    $("turns").textContent = rc.turns ? `${rc.turns[0].toUpperCase()}${rc.turns.slice(1)}.` : "";
    $("turns").hidden = !rc.turns;

    const hr = el("tr");
    ["#", "Player", "Move", "Claimed", "Engine", "Agreed"].forEach((h, i) => hr.append(el("th", h, i === 2 ? "text" : "")));
    names.forEach((nm, p) => hr.append(el("th", `${nm} recorded`, p === 0 ? "sep" : "")));
    names.forEach((nm, p) => hr.append(el("th", `${nm} engine`, p === 0 ? "sep" : "")));
    ["Correction", "Evidence"].forEach((h) => hr.append(el("th", h, "text sep")));
    $("moves").tHead.append(hr);

    const disc = new Set(rc.discrepancies.map((d) => d.index));
    const frames = new Map(moves.map((m) => [m.index, m.frame]));
    const inferredAt = new Set(moves.filter((m) => m.turn_inferred).map((m) => m.index));
    // The rack camera's read each move was played from (issue 30), as far as racks are on air.
    const rackOf = new Map(moves.map((m) => [m.index, m]));
    // The recount's own list (each with `change` in words); an older API: the log's entries.
    const fixes = rc.corrections ? correctionsBySeq(rc.corrections) : correctionsBySeq(log);
    const voids = (rc.corrections || []).filter((c) => c.kind === "void");
    $("voids").replaceChildren(...voids.map((c) => el("li", correctionText(c))));
    $("voids-section").hidden = !voids.length;
    const body = $("moves").tBodies[0];
    rc.moves.forEach((m, i) => {
      const tr = el("tr");
      tr.dataset.index = m.index;
      if (disc.has(m.index)) tr.classList.add("disc");
      if (first && first.index === m.index) tr.classList.add("first");
      // a move credited to the player on turn without a clock press: its player is a guess
      const inferred = inferredAt.has(m.index);
      if (inferred) tr.classList.add("inferred");
      const player = el("td", inferred ? `${names[m.player]} (turn inferred)` : names[m.player], "text");
      tr.append(el("td", moveNumber(m)), player, el("td", moveText(m, rc.moves), "text move"),
                el("td", show(m.claimed), "claimed"), el("td", show(m.engine), "engine"), el("td", m.agreed, "agreed"));
      m.totals.forEach((v, p) => tr.append(el("td", v, p === 0 ? "rec-total sep" : "rec-total")));
      let apart = false;
      engineAt[i].forEach((v, p) => {
        apart ||= v !== m.totals[p];
        tr.append(el("td", v, p === 0 ? "eng-total sep" : "eng-total"));
      });
      if (apart) tr.classList.add("apart");
      const who = el("td", "", "who sep");
      for (const c of fixes.get(m.seq) || []) {
        tr.classList.add("corrected");
        const line = el("div", correctionText(c), "fix");
        if (c.created) line.title = c.created;  // the store's UTC time, as logged
        who.append(line);
      }
      tr.append(who);
      const ev = el("td", "", "text evidence");
      if (frames.get(m.index)) {
        // A thumbnail of the rectified photo, on screen and on paper; a frame without grid
        // corners has no board view: its raw frame instead.
        const raw = `${api}/moves/${m.index}/frame.jpg`;
        const a = el("a");
        a.href = `${raw}?view=board`;
        const img = el("img", null, "thumb");
        img.alt = `evidence photo of move ${moveNumber(m)}`;
        img.src = `${raw}?view=board`;
        img.addEventListener("error", () => {
          if (img.dataset.view === "raw") return;
          img.dataset.view = "raw"; img.src = raw; a.href = raw;
        }, { once: false });
        a.append(img);
        const rawLink = el("a", "raw", "raw noprint");
        rawLink.href = raw;
        ev.append(a, rawLink);
      } else {
        ev.textContent = "–";
      }
      const mv = rackOf.get(m.index);
      if (mv && mv.rack_frame) {
        // The rack's evidence beside the board's: the rack the move was played from.
        const ra = el("a", null, "rack-evidence");
        ra.href = mv.rack_frame;
        const rimg = el("img", null, "thumb rack-thumb");
        rimg.alt = `rack of move ${moveNumber(m)}`;
        rimg.src = mv.rack_frame;
        ra.append(rimg);
        if (mv.rack) ra.title = `rack ${mv.rack}`;
        ev.append(ra, el("span", mv.rack ? ` rack ${mv.rack}` : "", "rack-text"));
      }
      tr.append(ev);
      body.append(tr);
    });

    names.forEach((nm, p) => { const o = el("option", nm); o.value = p; $("sheet-player").append(o); });
    document.body.dataset.ready = "1";
  }

  async function compare(ev) {
    ev.preventDefault();
    const player = Number($("sheet-player").value);
    const cumulative = $("sheet-totals").value.split(/[\s,;]+/).filter(Boolean).map(Number);
    const out = $("sheet-result");
    const r = await fetch(`${api}/recount`, {method: "POST", headers: {"Content-Type": "application/json"},
                                             body: JSON.stringify({player, cumulative})});
    const body = await r.json();
    const head = $("sheet-rows").tHead, rows = $("sheet-rows").tBodies[0];
    head.replaceChildren(); rows.replaceChildren();
    if (!r.ok) { out.className = "bad"; out.textContent = body.detail; return; }
    const hr = el("tr");
    ["Turn", "Move", "Sheet", "Record", "Engine"].forEach((h, i) => hr.append(el("th", h, i === 1 ? "text" : "")));
    head.append(hr);
    let firstEngine = null;
    for (const row of body.rows) {
      const engine = row.index === null ? null : engineAt[row.index][player];
      const tr = el("tr");
      if (!row.agrees || row.sheet !== engine) tr.classList.add("mismatch");
      if (firstEngine === null && row.sheet !== engine) firstEngine = row;
      tr.append(el("td", row.turn), el("td", row.text, "text"), el("td", show(row.sheet), "sheet"),
                el("td", show(row.record), row.agrees ? "" : "off"), el("td", show(engine), row.sheet === engine ? "" : "off"));
      rows.append(tr);
    }
    const rec = body.first_mismatch;
    out.className = rec || firstEngine ? "bad" : "ok";
    out.textContent = [
      rec ? `The sheet parts from the record at turn ${rec.turn} (${rec.text}): sheet ${show(rec.sheet)}, record ${show(rec.record)}.`
          : "The sheet agrees with the record.",
      firstEngine ? `It parts from the engine at turn ${firstEngine.turn}.` : "It agrees with the engine.",
    ].join(" ");
    $("sheet").classList.add("filled");
  }

  // ?racks=off / ?racks_delay=N as on the overlay: passed to /moves, which leaves out what they hide.
  function racksAsked() {
    const q = new URLSearchParams(location.search), out = new URLSearchParams();
    ["racks", "racks_delay"].forEach((k) => { if (q.get(k) !== null) out.set(k, q.get(k)); });
    return out.toString() ? `?${out}` : "";
  }
  $("print").addEventListener("click", () => window.print());
  $("sheet-form").addEventListener("submit", (e) => compare(e).catch((err) => { $("sheet-result").textContent = err.message; }));
  Promise.all([getJSON(`${api}/recount`), getJSON(`${api}/moves${racksAsked()}`), getJSON(`${api}.json`)])
    .then(([rc, moves, full]) => render(rc, moves, full.log, full.game))
    .catch((err) => { $("status").textContent = err.message; document.body.dataset.ready = "error"; });
})();
