"""What real boards and tiles look like, as data: board schemes, premium labels, tile styles.

Each is drawn at random around these anchors (colours jittered), so the network never learns
one look. Named factors can be held out of training whole and measured on their own.
"""
from __future__ import annotations

# Board schemes, RGB: plain square, TW, DW, TL, DL, grid lines, rim (beyond the grid).
SCHEMES: dict[str, dict[str, tuple[int, int, int]]] = {
    "standard": dict(plain=(222, 212, 186), tw=(196, 52, 46), dw=(236, 168, 160), tl=(42, 96, 172),
                     dl=(158, 204, 228), line=(246, 242, 232), rim=(120, 34, 36)),
    # Milton Bradley / Selchow & Righter vintage: tan squares, thin white lines
    "vintage": dict(plain=(188, 170, 138), tw=(208, 46, 52), dw=(232, 150, 160), tl=(40, 116, 190),
                    dl=(140, 196, 226), line=(238, 234, 224), rim=(150, 40, 40)),
    # Hasbro red-rim family board: light beige squares
    "hasbro": dict(plain=(212, 204, 188), tw=(214, 36, 46), dw=(240, 166, 176), tl=(30, 132, 206),
                   dl=(124, 192, 230), line=(246, 244, 238), rim=(204, 32, 36)),
    # the white 2021 Hasbro board
    "white": dict(plain=(240, 240, 236), tw=(226, 62, 56), dw=(246, 172, 166), tl=(48, 130, 202),
                  dl=(162, 206, 236), line=(196, 196, 198), rim=(236, 236, 234)),
    "tournament_green": dict(plain=(28, 118, 78), tw=(204, 52, 50), dw=(228, 120, 112), tl=(38, 112, 200),
                             dl=(118, 178, 228), line=(190, 214, 196), rim=(18, 78, 50)),
    "grey": dict(plain=(132, 136, 140), tw=(200, 52, 52), dw=(222, 132, 142), tl=(50, 100, 190),
                 dl=(122, 172, 212), line=(182, 184, 188), rim=(58, 60, 64)),
    "dark": dict(plain=(62, 64, 74), tw=(176, 44, 44), dw=(188, 108, 128), tl=(44, 82, 160),
                 dl=(92, 140, 178), line=(112, 112, 124), rim=(26, 26, 32)),
    "black": dict(plain=(30, 30, 32), tw=(188, 40, 46), dw=(190, 92, 122), tl=(40, 82, 172),
                  dl=(72, 132, 182), line=(84, 84, 90), rim=(12, 12, 14)),
    # a light grey board with muted premiums (dark tiles stand out on it)
    "light_grey": dict(plain=(206, 208, 210), tw=(214, 120, 116), dw=(226, 184, 182), tl=(120, 158, 206),
                       dl=(178, 204, 224), line=(168, 170, 174), rim=(184, 186, 190)),
}

# Looks added with issue 28's factors: drawn by name (the training data names every look), not
# by SceneConfig's 'random', so seeded renders that name no look stay as they were.
NAMED_ONLY = ("light_grey", "ebony", "red_ink", "heart")

# Premium labels. "short" and "full" are English; "foreign" prints other languages' boards.
LABEL_STYLES = ("none", "short", "full", "foreign", "dots")
SHORT_LABELS = {"tw": (("TW",), ("3W",), ("TWS",)), "dw": (("DW",), ("2W",), ("DWS",)),
                "tl": (("TL",), ("3L",), ("TLS",)), "dl": (("DL",), ("2L",), ("DLS",))}
FULL_LABELS = {"tw": (("TRIPLE", "WORD", "SCORE"), ("TRIPLE WORD", "SCORE")),
               "dw": (("DOUBLE", "WORD", "SCORE"), ("DOUBLE WORD", "SCORE")),
               "tl": (("TRIPLE", "LETTER", "SCORE"), ("TRIPLE LETTER", "SCORE")),
               "dl": (("DOUBLE", "LETTER", "SCORE"), ("DOUBLE LETTER", "SCORE"))}
FOREIGN_LABELS = {"tw": (("MOT", "COMPTE", "TRIPLE"), ("DREIFACHER", "WORTWERT"), ("PALABRA", "TRIPLE"),
                         ("PAROLA", "TRIPLA")),
                  "dw": (("MOT", "COMPTE", "DOUBLE"), ("DOPPELTER", "WORTWERT"), ("PALABRA", "DOBLE"),
                         ("PAROLA", "DOPPIA")),
                  "tl": (("LETTRE", "COMPTE", "TRIPLE"), ("DREIFACHER", "BUCHSTABEN-", "WERT"),
                         ("LETRA", "TRIPLE"), ("LETTERA", "TRIPLA")),
                  "dl": (("LETTRE", "COMPTE", "DOUBLE"), ("DOPPELTER", "BUCHSTABEN-", "WERT"),
                         ("LETRA", "DOBLE"), ("LETTERA", "DOPPIA"))}
STAR_FORMS = ("star", "star_outline", "diamond", "circle", "none", "label")

# Tile styles: face colours (RGB) and ink colours to draw from.
STYLES = ("wood", "ivory", "white", "coloured", "jewel", "ebony", "red_ink")
TILE_STYLES = {
    # light maple to orange-brown to walnut, per tile tint varies (real wood does)
    "wood": dict(faces=((230, 206, 164), (216, 184, 136), (206, 150, 96), (196, 124, 78), (164, 112, 74)),
                 inks=((26, 22, 20), (48, 30, 22)), radius=(0.04, 0.12), grain=True),
    # engraved ivory plastic
    "ivory": dict(faces=((242, 236, 218), (236, 226, 196)), inks=((24, 24, 28), (40, 36, 30)),
                  radius=(0.12, 0.2), grain=False),
    "white": dict(faces=((248, 248, 246), (236, 238, 240)), inks=((16, 16, 18), (30, 40, 80)),
                  radius=(0.1, 0.22), grain=False),
    # dark plastic with white or yellow letters
    "coloured": dict(faces=((112, 26, 36), (26, 36, 92), (22, 92, 52), (26, 26, 30), (238, 198, 48)),
                     inks=((245, 245, 240), (240, 208, 60)), radius=(0.1, 0.2), grain=False),
    # held out by default: purple, red and teal plastic
    "jewel": dict(faces=((104, 40, 134), (190, 32, 44), (20, 122, 132)), inks=((240, 212, 64), (246, 246, 246)),
                  radius=(0.1, 0.2), grain=False),
    # black and charcoal tiles with white letters (high contrast on a light board)
    "ebony": dict(faces=((20, 20, 22), (44, 44, 48), (30, 34, 42)), inks=((248, 248, 246), (236, 236, 228)),
                  radius=(0.06, 0.18), grain=False),
    # cream and white tiles with red letters (broadcast sets with red serif letters)
    "red_ink": dict(faces=((244, 238, 222), (250, 248, 242), (232, 220, 196)), inks=((196, 28, 34), (160, 18, 28)),
                    radius=(0.06, 0.18), grain=False),
    # Issue 45's broad mix, drawn only by the rack renderer for the learned rack finder's training (not
    # in STYLES: the board renders and the tile model never see them): walnut tiles with light letters,
    # and pro tiles (bright plastic faces of many colours, dark letters)
    "walnut": dict(faces=((92, 60, 40), (110, 72, 46), (74, 50, 36), (124, 84, 56)),
                   inks=((240, 228, 200), (226, 190, 110)), radius=(0.04, 0.12), grain=True),
    "pro": dict(faces=((120, 190, 230), (240, 150, 170), (160, 220, 150), (250, 220, 120), (200, 170, 230),
                       (250, 170, 90)), inks=((20, 20, 24), (36, 28, 60)), radius=(0.14, 0.26), grain=False),
}

# Issue 28's renderer factors: what real sets and boards do that the first renders did not. Each
# is a SceneConfig field with named options ('random' draws one), so a whole factor can be kept
# out of training and measured on its own. The first option of each is the old look: a render
# that names no factor is the same, pixel for pixel, as before these were added.
RENDER_FACTORS: dict[str, tuple[str, ...]] = {
    # where the point value sits: the old subscript (bottom right, fixed size), any corner, close
    # beside the letter (a narrow I gets its value right against it), above or below it, or none
    "value_place": ("subscript", "corner", "beside", "stacked", "none"),
    # what a blank carries: nothing, a face, a star, a maker's logo, a heart (issue 36, named only)
    "blank_print": ("plain", "face", "star", "logo", "heart"),
    # Braille tiles: the letter's cell embossed in a top corner
    "braille": ("none", "dots"),
    # letter stroke: the font's own, or thickened (bold sets)
    "weight": ("regular", "bold"),
    # how tiles lie: the old small jitter, or pushed up to a third of a square off their squares
    "placement": ("neat", "loose"),
    # the old occasional thin line across the board, or a fold seam down the middle
    "fold": ("occasional", "middle"),
    # print just outside the grid: none, column letters and row numbers, lines of text
    "legend": ("none", "coordinates", "text"),
    # issue 36: printed dots above and below the letter (a real edition's raised dots, which beside a
    # bare I and its value made the readers say L, T, '!' or '1')
    "marks": ("none", "dots"),
}
# Factors added after issue 28 draw from their own stream (render_topdown), so the draws of the
# others, and every earlier render, stay as they were.
LATER_FACTORS = {"marks": 36}
# how far a tile may sit off its square's centre, in squares, per placement
PLACEMENT_JITTER = {"neat": None, "loose": (0.15, 0.34)}   # None: SceneConfig.tile_jitter_frac
LEGEND_TEXT = ("PREMIUM WORD SQUARES", "DOUBLE WORD SCORE", "TRIPLE LETTER SCORE", "CROSSWORD GAME",
               "LETTER DISTRIBUTION", "A-1 B-3 C-3 D-2", "SCORE SHEET", "SCHIEBEN", "PUNTI")
# Braille cells (dots 1-6: 1 2 3 down the left column, 4 5 6 down the right)
BRAILLE_DOTS = {
    "A": "1", "B": "12", "C": "14", "D": "145", "E": "15", "F": "124", "G": "1245", "H": "125",
    "I": "24", "J": "245", "K": "13", "L": "123", "M": "134", "N": "1345", "O": "135", "P": "1234",
    "Q": "12345", "R": "1235", "S": "234", "T": "2345", "U": "136", "V": "1236", "W": "2456",
    "X": "1346", "Y": "13456", "Z": "1356", "Ä": "345", "Ö": "246", "Ü": "1256"}
