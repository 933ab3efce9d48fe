// One OBS field: the game id comes from the URL, the field name from the page (data-field).
followGame(gameIdFromPath(), (live) => { fillFields(document, live.fields); document.body.dataset.seq = live.seq; });
