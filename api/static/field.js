// One OBS field: the game id comes from the URL, the field name from the page (data-field).
// A clock field (p1_clock ...) counts down by itself between updates.
followGame(gameIdFromPath(), (live) => {
  fillFields(document, live.fields);
  tickClocks(document, live);
  document.body.dataset.seq = live.seq;
});
