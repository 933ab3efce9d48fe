"""Tile distributions as data: how many of each tile, what each is worth, which are vowels, and
what GCG files call the set. One entry of DISTRIBUTIONS is a whole tile set: the rules, the tally,
GCG, the readers (vision) and the renderer (models) all read it from here.

Multi-letter tiles (Spanish CH, LL, RR; Catalan L·L, NY, QU) are single tiles; in text they are written
in brackets, "[CH]" ("[ch]" for a blank standing for CH), as Woogles and macondo do.
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from .errors import TileError

__all__ = ["BLANK", "DISTRIBUTIONS", "Distribution", "letters_of"]

BLANK = "?"


def _base_vowel(tile: str) -> bool:
    """A one-letter tile whose base letter is A, E, I, O or U (Ä, Ó, Ą, Å ... included)."""
    return len(tile) == 1 and unicodedata.normalize("NFD", tile)[0] in "AEIOU"


@dataclass(frozen=True)
class Distribution:
    name: str
    counts: dict[str, int]  # tile -> count; BLANK for blanks
    values: dict[str, int]  # tile -> points; blanks are always worth 0
    rack_size: int = 7
    multi: tuple[str, ...] = field(default=())  # multi-letter tiles, longest first
    # The vowels (tile tracking's vowel/consonant split) are the one-letter tiles whose base
    # letter is A E I O U, and the `extra_vowels` a set names (Norwegian Æ, Ø).
    extra_vowels: str = ""
    # What GCG files call the set: macondo's (and Woogles') '#tile-distribution' name (macondo has no
    # Italian or Romanian set: theirs follow its pattern, the language in English), and the '#lexicon'
    # prefixes of its language's word lists (NSF the Norwegian federation's, DISC the Catalan one).
    gcg_name: str | None = None
    lexicons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        missing = set(self.counts) - set(self.values) - {BLANK}
        if missing:
            raise ValueError(f"distribution {self.name}: no value for {sorted(missing)}")
        odd = set(self.extra_vowels) - set(self.counts)
        if odd:
            raise ValueError(f"distribution {self.name}: vowels {sorted(odd)} are not its tiles")

    @cached_property
    def vowels(self) -> frozenset[str]:
        return frozenset(t for t in self.letters if _base_vowel(t) or t in self.extra_vowels)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def letters(self) -> tuple[str, ...]:
        """Every non-blank tile, in the order given."""
        return tuple(t for t in self.counts if t != BLANK)

    def value(self, tile: str) -> int:
        """Points of one tile; BLANK (or a lower-case blank letter) is 0."""
        if tile == BLANK or tile != tile.upper():
            return 0
        return self.values[tile]

    def rack_value(self, rack: str) -> int:
        return sum(self.value(t) for t in self.tokens(rack))

    def tokens(self, text: str) -> list[str]:
        """Split text into tiles: 'CHURRO' stays letters, '[CH]URRO' gives 'CH' first.

        Lower case is kept (it marks a blank in play notation); validity is checked by the caller.
        """
        if "[" not in text:  # one character a tile: the common case, and replay's hot path
            return list(text)
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "[":
                end = text.find("]", i)
                if end < 0:
                    raise TileError(f"unclosed '[' in {text!r}")
                out.append(text[i + 1 : end])
                i = end + 1
            else:
                out.append(ch)
                i += 1
        return out

    def check_tiles(self, text: str | None, what: str = "tiles") -> str | None:
        """Racks and exchanged tiles: only tiles of this set (either case) and '?' may appear.
        Raises TileError naming the odd tile; returns the text unchanged."""
        if text:
            for tok in self.tokens(text):
                if tok != BLANK and tok.upper() not in self.values:
                    raise TileError(f"{what} {text!r}: {tok!r} is not a tile of the {self.name} set")
        return text

    def is_tile(self, letter: str) -> bool:
        """True for a letter of this alphabet (upper case) or the blank."""
        return letter in self.counts

    def spell(self, tiles: list[str] | tuple[str, ...]) -> str:
        """Inverse of tokens(): multi-letter tiles go back into brackets."""
        return "".join(f"[{t}]" if len(t) > 1 else t for t in tiles)

    def bag(self) -> Counter:
        return Counter(self.counts)


def _dist(name: str, spec: str, **kw) -> Distribution:
    """spec: 'A:9:1 B:2:3 ...' = tile:count:value; '?:2:0' for blanks."""
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    for item in spec.split():
        tile, count, value = item.rsplit(":", 2)
        counts[tile] = int(count)
        values[tile] = int(value)
    multi = tuple(sorted((t for t in counts if len(t) > 1), key=len, reverse=True))
    return Distribution(name, counts, values, multi=multi, **kw)


DISTRIBUTIONS: dict[str, Distribution] = {
    "en": _dist(
        "en",
        "A:9:1 B:2:3 C:2:3 D:4:2 E:12:1 F:2:4 G:3:2 H:2:4 I:9:1 J:1:8 K:1:5 L:4:1 M:2:3 "
        "N:6:1 O:8:1 P:2:3 Q:1:10 R:6:1 S:4:1 T:6:1 U:4:1 V:2:4 W:2:4 X:1:8 Y:2:4 Z:1:10 ?:2:0",
        gcg_name="english", lexicons=("NWL", "TWL", "CSW", "COLLINS"),
    ),
    "de": _dist(
        "de",
        "A:5:1 B:2:3 C:2:4 D:4:1 E:15:1 F:2:4 G:3:2 H:4:2 I:6:1 J:1:6 K:2:4 L:3:2 M:4:3 "
        "N:9:1 O:3:2 P:1:4 Q:1:10 R:6:1 S:7:1 T:6:1 U:6:1 V:1:6 W:1:3 X:1:8 Y:1:10 Z:1:3 "
        "Ä:1:6 Ö:1:8 Ü:1:6 ?:2:0",
        gcg_name="german", lexicons=("RD",),
    ),
    "fr": _dist(
        "fr",
        "A:9:1 B:2:3 C:2:3 D:3:2 E:15:1 F:2:4 G:2:2 H:2:4 I:8:1 J:1:8 K:1:10 L:5:1 M:3:2 "
        "N:6:1 O:6:1 P:2:3 Q:1:8 R:6:1 S:6:1 T:6:1 U:6:1 V:2:4 W:1:10 X:1:10 Y:1:10 Z:1:10 ?:2:0",
        gcg_name="french", lexicons=("FRA", "ODS"),
    ),
    "es": _dist(
        "es",
        "A:12:1 B:2:3 C:4:3 CH:1:5 D:5:2 E:12:1 F:1:4 G:2:2 H:2:4 I:6:1 J:1:8 L:4:1 LL:1:8 "
        "M:2:3 N:5:1 Ñ:1:8 O:9:1 P:2:3 Q:1:5 R:5:1 RR:1:8 S:6:1 T:4:1 U:5:1 V:1:4 X:1:8 "
        "Y:1:4 Z:1:10 ?:2:0",
        gcg_name="spanish", lexicons=("FILE", "FISE"),
    ),
    "pl": _dist(
        "pl",
        "A:9:1 Ą:1:5 B:2:3 C:3:2 Ć:1:6 D:3:2 E:7:1 Ę:1:5 F:1:5 G:2:3 H:2:3 I:8:1 J:2:3 "
        "K:3:2 L:3:2 Ł:2:3 M:3:2 N:5:1 Ń:1:7 O:6:1 Ó:1:5 P:3:2 R:4:1 S:4:1 Ś:1:5 T:3:2 "
        "U:2:3 W:4:1 Y:4:2 Z:5:1 Ź:1:9 Ż:1:5 ?:2:0",
        gcg_name="polish", lexicons=("OSPS",),
    ),
}
# The sets federations play beyond these (issue 28), each from a public source, checked against
# its total. Dutch and Norwegian: macondo's data/letterdistributions (dutch, norwegian.csv).
# Catalan: MAGPIE's catalan.csv (the distribution macondo and Woogles use), with the digraph
# tiles L·L, NY and QU as single tiles, written "[L·L]", "[NY]", "[QU]" (blank: "[ny]").
# Italian and Romanian (no macondo file): the Wikipedia page "Scrabble letter distributions", as
# wI2L/scrabbler's cmd distributions list them. Italian sets have 120 tiles, Dutch 102.
DISTRIBUTIONS |= {
    "it": _dist(
        "it",
        "A:14:1 B:3:5 C:6:2 D:3:5 E:11:1 F:3:5 G:2:8 H:2:8 I:12:1 L:5:3 M:5:3 N:5:3 O:15:1 P:3:5 "
        "Q:1:10 R:6:2 S:6:2 T:6:2 U:5:3 V:3:5 Z:2:8 ?:2:0",
        gcg_name="italian",
    ),
    "nl": _dist(
        "nl",
        "A:6:1 B:2:3 C:2:5 D:5:2 E:18:1 F:2:4 G:3:3 H:2:4 I:4:1 J:2:4 K:3:3 L:3:3 M:3:3 N:10:1 "
        "O:6:1 P:2:3 Q:1:10 R:5:2 S:5:2 T:5:2 U:3:4 V:2:4 W:2:5 X:1:8 Y:1:8 Z:2:4 ?:2:0",
        gcg_name="dutch",
    ),
    "no": _dist(
        "no",
        "A:7:1 B:3:4 C:1:10 D:5:1 E:9:1 F:4:2 G:4:2 H:3:3 I:5:1 J:2:4 K:4:2 L:5:1 M:3:2 N:6:1 "
        "O:4:2 P:2:4 R:6:1 S:6:1 T:6:1 U:3:4 V:3:4 W:1:8 Y:1:6 Æ:1:6 Ø:2:5 Å:2:4 ?:2:0",
        gcg_name="norwegian", lexicons=("NSF",), extra_vowels="ÆØ",
    ),
    "ca": _dist(
        "ca",
        "A:12:1 B:2:3 C:3:2 Ç:1:10 D:3:2 E:13:1 F:1:4 G:2:3 H:1:8 I:8:1 J:1:8 L:4:1 L·L:1:10 "
        "M:3:2 N:6:1 NY:1:10 O:5:1 P:2:3 QU:1:8 R:8:1 S:8:1 T:5:1 U:4:1 V:1:4 X:1:10 Z:1:8 ?:2:0",
        gcg_name="catalan", lexicons=("DISC",),
    ),
    "ro": _dist(
        "ro",
        "A:10:1 B:2:5 C:5:1 D:4:3 E:9:1 F:2:4 G:2:6 H:1:8 I:11:1 J:1:10 L:5:1 M:3:4 N:6:1 O:5:2 "
        "P:4:2 R:6:1 S:6:1 T:7:1 U:5:1 V:2:4 X:1:10 Z:1:8 ?:2:0",
        gcg_name="romanian",
    ),
}
# Super Scrabble: 200 tiles on the 21x21 board, English values.
DISTRIBUTIONS["en-super"] = _dist(
    "en-super",
    "A:16:1 B:4:3 C:6:3 D:8:2 E:24:1 F:4:4 G:5:2 H:5:4 I:13:1 J:2:8 K:2:5 L:7:1 M:6:3 "
    "N:13:1 O:15:1 P:4:3 Q:2:10 R:13:1 S:10:1 T:15:1 U:7:1 V:3:4 W:4:4 X:2:8 Y:4:4 Z:2:10 ?:4:0",
    gcg_name="english_super",
)


def letters_of(*names: str) -> tuple[str, ...]:
    """The letters of the named sets together, each once, in the order the sets give them
    ("en", "de": A..Z then Ä Ö Ü): the alphabet of a reader or a model trained on those sets."""
    out: dict[str, None] = {}
    for name in names:
        out.update(dict.fromkeys(DISTRIBUTIONS[name].letters))
    return tuple(out)
