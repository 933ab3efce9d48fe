"""What macondo (and so Woogles) and Quackle refuse or misread in a GCG file, as a checker.

Read from domino14/macondo gcgio/gcg.go and game/game.go (playTurn, SetRackFor, MoveFromEvent)
and quackle/quackle quackleio/gcgio.cpp (GCGIO::read); the rules are restated here, in tilecam's
own words and code. `check_gcg(text)` returns one message per broken rule, naming the line;
[] means both readers load the file as tilecam meant it.

macondo
- The first line may be '#character-encoding', and only UTF-8 (or no line: ISO-8859-1); the
  pragma anywhere else refuses the file.
- Every line, trimmed, must match one of its patterns, tried in a fixed order and anywhere in
  the line: a line no pattern matches refuses the file (an unknown pragma such as '#event'
  included); the first pattern that matches decides what the line is.
- Exactly two players (#player1, #player2, nickname and name), different nicknames, before the
  first turn; '#title', '#description', '#id AUTHORITY ID', '#lexicon', '#tile-distribution',
  '#board-layout', '#game-type' before the first turn too; no '#note' before the first turn
  (it has no event to hang on).
- Turn lines: the rack is one token; a play's score is '+N', and its, a pass's, an exchange's, a
  withdrawal's and a challenge bonus's running total is not negative; only end-rack, time and
  lost-rack lines may have a negative total. A withdrawal is '-- -N', a pass '- +0'.
- It replays every line: a play's tiles (blanks as '?') must be in its rack, and a play's or an
  exchange's rack must be drawable from the tiles not on the board; '-N' exchanges the rack's
  first N bytes; every tile must be a tile of the named distribution.
Quackle
- '#playerN' has a nickname and a name; a turn starts '>nick:' (the colon on the nickname).
- The token after the nickname is always the rack: a line without one is misread (the move is
  taken for the rack); a rack in parentheses is the end-of-game tile bonus.
- '-N' is an exchange of N unseen tiles, '-' or '-0' a pass.
"""
from __future__ import annotations

import re
from collections import Counter

from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS

# macondo's tile distributions by the name '#tile-distribution' gives them
MACONDO_NAMES = {"english": "en", "german": "de", "french": "fr", "spanish": "es", "polish": "pl",
                 "dutch": "nl", "norwegian": "no", "catalan": "ca", "english_super": "en-super"}
A = re.ASCII  # Go's \s, \S and \w are ASCII classes

# (token, pattern) in macondo's order; the first that matches anywhere in the trimmed line wins.
MACONDO_LINES = [(name, re.compile(rx, A)) for name, rx in [
    ("player", r"^#player([1-2])\s+(\S+)\s+(.+)"),
    ("title", r"^#title\s+(.*)"),
    ("description", r"^#description\s+(.*)"),
    ("id", r"^#id\s+(\S+)\s+(\S+)"),
    ("rack1", r"^#rack1\s+(\S+)"),
    ("rack2", r"^#rack2\s+(\S+)"),
    ("encoding", r"^#character-encoding\s+(\S+)"),
    ("play", r">(\S+):\s+(\S+)\s+(\w+)\s+(\S+)\s+\+(\d+)\s+(\d+)"),
    ("note", r"^#note\s+(.*)"),
    ("lexicon", r"^#lexicon\s+(.+)"),
    ("withdrawn", r">(\S+):\s+(\S+)\s+--\s+-(\d+)\s+(\d+)"),
    ("pass", r">(\S+):\s+(\S+)\s+-\s+\+0\s+(\d+)"),
    ("challenge", r">(\S+):\s+(\S*)\s+\(challenge\)\s+\+(\d+)\s+(\d+)"),
    ("exchange", r">(\S+):\s+(\S+)\s+-(\S+)\s+\+0\s+(\d+)"),
    ("end_points", r">(\S+):\s+\((\S+)\)\s+\+(\d+)\s+(-?\d+)"),
    ("time", r">(\S+):(?:\s+(\S*))?\s+\(time\)\s+\+?-(\d+)\s+(-?\d+)"),
    ("end_penalty", r">(\S+):\s+(\S+)\s+\((\S+)\)\s+-(\d+)\s+(-?\d+)"),
    ("game-type", r"^#game-type\s+(.*)"),
    ("tile-set", r"^#tile-set\s+(.*)"),
    ("game-board", r"^#game-board\s+(.*)"),
    ("continuation", r"^#- (.*)"),
    ("board-layout", r"^#board-layout\s+(.*)"),
    ("tile-distribution", r"^#tile-distribution\s+(.*)"),
    ("incomplete", r"^#incomplete.*"),
    ("tile", r"^#tile (\S+)\s+(\S+)"),
]]
EVENTS = {"play", "withdrawn", "pass", "challenge", "exchange", "end_points", "time", "end_penalty"}
STARTS_GAME = {"play", "pass", "exchange", "rack1", "rack2"}
BEFORE_GAME = {"player", "title", "description", "id", "lexicon", "board-layout", "tile-distribution",
               "game-type"}
INT32 = 2 ** 31 - 1
BOARD_SIZE = {"CrosswordGame": 15, "SuperCrosswordGame": 21}


def macondo_token(line: str) -> tuple[str, re.Match] | None:
    for name, rx in MACONDO_LINES:
        if m := rx.search(line):
            return name, m
    return None


def intended(line: str) -> str | None:
    """What a line is meant to be, read as tilecam and the GCG spec read it."""
    if line.startswith("#"):
        key = line[1:].split(None, 1)[0].lower() if len(line) > 1 else ""
        if re.fullmatch(r"player[0-9]+", key):
            return "player"
        return {"character-encoding": "encoding"}.get(key, key)
    if not line.startswith(">"):
        return None
    toks = line.split(":", 1)[1].split() if ":" in line else []
    body = [t for t in toks if not re.fullmatch(r"[+-]?[0-9]+", t)] if toks else []
    last = body[-1] if body else ""
    if last == "--":
        return "withdrawn"
    if last == "-":
        return "pass"
    if last.lower() in ("(challenge)", "(time)"):
        return last.lower()[1:-1]
    if last.startswith("(") and last.endswith(")"):
        return "end_penalty" if len(body) >= 2 else "end_points"
    numbers = [t for t in toks if re.fullmatch(r"[+-]?[0-9]+", t)]
    if len(numbers) >= 3 and numbers[-3].startswith("-"):  # '-3 +0 N': an exchange by count
        return "exchange"
    if last.startswith("-"):
        return "exchange"
    return "play"


def _tiles(text: str, dist) -> list[str] | None:
    """Tiles of a rack or word as macondo maps them (None: a character it has no tile for)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "[":
            end = text.find("]", i)
            if end < 0:
                return None
            tok, i = text[i + 1:end], end + 1
        else:
            tok, i = text[i], i + 1
        if tok not in (BLANK, ".") and tok.upper() not in dist.values:
            return None
        out.append(tok)
    return out


def check_gcg(text: str, readers: tuple[str, ...] = ("macondo", "quackle")) -> list[str]:
    problems: list[str] = []
    lines = text.split("\n")
    if "macondo" in readers:
        problems += _check_macondo(lines)
    if "quackle" in readers:
        problems += _check_quackle(lines)
    return problems


def _check_macondo(lines: list[str]) -> list[str]:
    bad: list[str] = []
    players: list[str] = []
    started = False
    dist = DISTRIBUTIONS["en"]
    size = 15
    board: dict[tuple[int, int], str] = {}   # square -> tile as on the board ('a' for a blank a)
    last_play: list[tuple[int, int]] | None = None
    first = lines[0].strip() if lines else ""
    if m := re.match(r"#character-encoding\s+(\S+)", first):
        if m.group(1).lower() not in ("utf-8", "utf8"):
            bad.append(f"line 1: macondo: unhandled character encoding {m.group(1)}")
    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or (no == 1 and line.startswith("#character-encoding")):
            continue
        found = macondo_token(line)
        if found is None:
            bad.append(f"line {no}: macondo: no pattern matches {line!r}")
            continue
        token, m = found
        meant = intended(line)
        if meant is not None and token != meant and not (meant == "player" and token == "player"):
            bad.append(f"line {no}: macondo reads a {token} line, not a {meant} line: {line!r}")
            continue
        if token == "encoding":
            bad.append(f"line {no}: macondo: '#character-encoding' must be the first line")
        if token == "note" and not started:
            bad.append(f"line {no}: macondo: a '#note' before the first turn has no event to belong to")
        if token in BEFORE_GAME and started:
            bad.append(f"line {no}: macondo: {token} pragma after the first turn")
        if token == "player":
            if m.group(1) == "2" and players and m.group(2) == players[0]:
                bad.append(f"line {no}: macondo: two players with the nickname {m.group(2)!r}")
            players.append(m.group(2))
        if token == "tile-distribution":
            name = m.group(1).strip().lower()
            if name not in MACONDO_NAMES:
                bad.append(f"line {no}: macondo knows no tile distribution {name!r}")
            else:
                dist = DISTRIBUTIONS[MACONDO_NAMES[name]]
        if token == "board-layout":
            size = BOARD_SIZE.get(m.group(1).strip(), 0)
            if not size:
                bad.append(f"line {no}: macondo knows no board layout {m.group(1).strip()!r}")
        if token in STARTS_GAME and not started:
            started = True
            if len(players) != 2:
                bad.append(f"line {no}: macondo: wrong number of players defined ({len(players)}, needs 2)")
        if token not in EVENTS:
            continue
        started = True
        nick = m.group(1)
        if nick not in players:
            bad.append(f"line {no}: macondo: player {nick!r} does not exist")
        if any(g and g.lstrip("-").isdigit() and int(g) > INT32 for g in m.groups()):
            bad.append(f"line {no}: macondo: a number too large")
        rack = m.group(2)
        if rack and _tiles(rack, dist) is None:
            bad.append(f"line {no}: macondo: rack {rack!r} holds a character with no tile in {dist.name}")
            continue
        pool = Counter(dist.counts)
        pool.subtract(BLANK if t.islower() else t for t in board.values())
        if token == "play":
            problem, placed = _replay_play(m, board, dist, size)
            if problem:
                bad.append(f"line {no}: macondo: {problem}")
                continue
            need = Counter(BLANK if t.islower() else t for t in placed.values())
            have = Counter(BLANK if t == BLANK else t.upper() for t in _tiles(rack, dist))
            if need - have:
                bad.append(f"line {no}: macondo: tiles {sorted((need - have).elements())} played but "
                           f"not in the rack {rack!r}")
            if have - +pool:
                bad.append(f"line {no}: macondo cannot set the rack {rack!r}: "
                           f"{sorted((have - +pool).elements())} not among the tiles off the board")
            board.update(placed)
            last_play = list(placed)
        elif token == "withdrawn":
            if last_play is None:
                bad.append(f"line {no}: macondo: phony tiles returned without a play")
            else:
                for sq in last_play:
                    board.pop(sq, None)
                last_play = None
        elif token == "exchange":
            what = m.group(3)
            rack_bytes = rack.encode("utf-8")
            if what.isdigit():
                n = int(what)
                try:
                    what = rack_bytes[:n].decode("utf-8")
                except UnicodeDecodeError:
                    bad.append(f"line {no}: macondo: '-{n}' cuts the rack {rack!r} inside a letter")
                    continue
                if n > len(rack_bytes) or n == 0:
                    bad.append(f"line {no}: macondo: exchanged more tiles than are on rack {rack!r}")
                    continue
            tiles = _tiles(what, dist)
            have = Counter(t.upper() if t != BLANK else t for t in _tiles(rack, dist))
            if tiles is None or Counter(t.upper() if t != BLANK else t for t in tiles) - have:
                bad.append(f"line {no}: macondo: exchanged tiles {what!r} are not in the rack {rack!r}")
            if have - +pool:
                bad.append(f"line {no}: macondo cannot set the rack {rack!r}: "
                           f"{sorted((have - +pool).elements())} not among the tiles off the board")
            last_play = None
        elif token in ("pass",):
            last_play = None
    return bad


def _replay_play(m: re.Match, board, dist, size) -> tuple[str | None, dict]:
    pos, word = m.group(3), m.group(4)
    if a := re.fullmatch(r"([0-9]+)([A-Za-z])", pos):
        row, col, dr, dc = int(a.group(1)) - 1, ord(a.group(2).upper()) - 65, 0, 1
    elif d := re.fullmatch(r"([A-Za-z])([0-9]+)", pos):
        row, col, dr, dc = int(d.group(2)) - 1, ord(d.group(1).upper()) - 65, 1, 0
    else:
        return f"no coordinate {pos!r}", {}
    tiles = _tiles(word, dist)
    if tiles is None:
        return f"play {word!r} holds a character with no tile in {dist.name}", {}
    placed = {}
    for i, tok in enumerate(tiles):
        sq = (row + dr * i, col + dc * i)
        if not (0 <= sq[0] < size and 0 <= sq[1] < size):
            return f"play {word!r} runs off the board", {}
        if tok == BLANK:
            return f"'?' in the play {word!r}: a played-through marker with no tile under it", {}
        if tok == ".":
            if sq not in board:
                return f"a played-through marker on an empty square in {word!r}", {}
            continue
        if sq in board:
            if board[sq].upper() != tok.upper():
                return f"the play-through tile is incorrect in {word!r}", {}
            continue
        placed[sq] = tok
    if not placed:
        return f"the play {word!r} places no tile", {}
    return None, placed


def _check_quackle(lines: list[str]) -> list[str]:
    bad: list[str] = []
    nicks: list[str] = []
    for no, raw in enumerate(lines, start=1):
        toks = raw.split()
        if raw.startswith("#player"):
            if len(toks) < 3:
                bad.append(f"line {no}: Quackle: '#player' needs a nickname and a name")
            else:
                nicks.append(toks[1])
            continue
        if not raw.startswith(">"):
            continue
        if not toks[0].endswith(":") or len(toks[0]) < 3:
            bad.append(f"line {no}: Quackle: a turn starts '>nick:' with the colon on the nickname")
            continue
        if toks[0][1:-1] not in nicks:
            bad.append(f"line {no}: Quackle: no '#player' line for {toks[0][1:-1]!r}")
        if len(toks) < 2:
            bad.append(f"line {no}: Quackle: incomplete move")
            continue
        rack, rest = toks[1], toks[2:]
        meant = intended(raw.strip())
        if rack.startswith("(") and rack.endswith(")"):
            if meant != "end_points":
                bad.append(f"line {no}: Quackle reads {rack!r} as the end-of-game tile bonus")
            continue
        if rack.startswith("-") or rack.startswith("(") or not rest or rack.upper() == "UNKNOWN":
            bad.append(f"line {no}: Quackle: no rack: {rack!r} is taken for the rack")
            continue
        bite = rest[0]
        if meant == "exchange" and re.fullmatch(r"-0*", bite):
            bad.append(f"line {no}: Quackle reads {bite!r} as a pass")
        if meant == "play" and (len(rest) < 3 or not re.fullmatch(r"[+-]?[0-9]+", rest[2])):
            bad.append(f"line {no}: Quackle: a play needs position, tiles and score")
    return bad


def macondo_game_over(text: str) -> bool:
    """Whether macondo's reader leaves the game over (GameHistory.PlayState GAME_OVER), as gcgio/gcg.go
    and game/game.go decide it: a '(RACK) +N' end-rack line, a 'RACK (RACK) -N' line or a '(time)'
    line sets it; a play that goes out does not (the game then waits for its end-rack line); its game
    ends itself after six scoreless turns in a row (passes, exchanges, withdrawn plays)."""
    scoreless = 0
    for raw in text.split("\n"):
        found = macondo_token(raw.strip())
        if found is None:
            continue
        token = found[0]
        if token in ("end_points", "end_penalty", "time"):
            return True
        if token in ("pass", "exchange", "withdrawn"):
            scoreless += 1
            if scoreless == 6:
                return True
        elif token in ("play", "challenge"):
            scoreless = 0
    return False
