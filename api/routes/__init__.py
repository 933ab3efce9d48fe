"""One router per resource: games (reads), live (SSE, OBS fields), operator (writes), media, overlay pages."""
