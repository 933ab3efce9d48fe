// One OBS field: the game (or table) comes from the URL, the field name from the page (data-field).
// A clock field (p1_clock ...) counts down by itself between updates. Empty until the game exists.
pageOptions();
followPage((live) => {
  fillFields(document, live.fields);
  tickClocks(document, live);
  document.body.dataset.seq = live.seq;
}, () => { document.getElementById("field").textContent = ""; });
