"""Free fonts found on this machine (installed by `make fonts` from Debian packages).

A font is one face (a family at one weight or width). Faces are grouped into families by
typeface design, not by package: FreeSans, TeX Gyre Heros and Nimbus Sans are all Helvetica,
so holding out "a font family the network never saw" holds out every clone of it.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

# Debian puts TeX Gyre (fonts-texgyre) under texmf, not /usr/share/fonts.
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path("/usr/share/texmf/fonts"))

# face -> (family, file names to look for). Tile letters are mostly heavy; a few regular and
# condensed faces stand in for the thinner and narrower sets.
FACES: dict[str, tuple[str, tuple[str, ...]]] = {
    "dejavu-sans": ("dejavu", ("DejaVuSans-Bold.ttf",)),
    "dejavu-sans-book": ("dejavu", ("DejaVuSans.ttf",)),
    "dejavu-condensed": ("dejavu", ("DejaVuSansCondensed-Bold.ttf",)),
    "dejavu-serif": ("dejavu-serif", ("DejaVuSerif-Bold.ttf",)),
    "liberation-sans": ("helvetica", ("LiberationSans-Bold.ttf",)),
    "liberation-narrow": ("helvetica", ("LiberationSansNarrow-Bold.ttf",)),
    "freesans": ("helvetica", ("FreeSansBold.ttf",)),
    "texgyre-heros": ("helvetica", ("texgyreheros-bold.otf",)),
    "texgyre-heros-cn": ("helvetica", ("texgyreheroscn-bold.otf",)),
    "nimbus-sans": ("helvetica", ("NimbusSans-Bold.otf", "NimbusSanL-Bold.ttf")),
    "nimbus-sans-regular": ("helvetica", ("NimbusSans-Regular.otf",)),
    "liberation-serif": ("times", ("LiberationSerif-Bold.ttf",)),
    "freeserif": ("times", ("FreeSerifBold.ttf",)),
    "nimbus-roman": ("times", ("NimbusRoman-Bold.otf",)),
    "texgyre-termes": ("times", ("texgyretermes-bold.otf",)),
    "urw-gothic": ("gothic", ("URWGothic-Demi.otf",)),
    "urw-gothic-book": ("gothic", ("URWGothic-Book.otf",)),
    "texgyre-adventor": ("gothic", ("texgyreadventor-bold.otf",)),
    "urw-bookman": ("bookman", ("URWBookman-Demi.otf",)),
    "urw-bookman-light": ("bookman", ("URWBookman-Light.otf",)),
    "texgyre-bonum": ("bookman", ("texgyrebonum-bold.otf",)),
    "c059": ("schoolbook", ("C059-Bold.otf",)),
    "texgyre-schola": ("schoolbook", ("texgyreschola-bold.otf",)),
    "p052": ("palatino", ("P052-Bold.otf",)),
    "texgyre-pagella": ("palatino", ("texgyrepagella-bold.otf",)),
    "nimbus-mono": ("courier", ("NimbusMonoPS-Bold.otf",)),
    "liberation-mono": ("courier", ("LiberationMono-Bold.ttf",)),
    "open-sans": ("open-sans", ("OpenSans-Bold.ttf",)),
    "open-sans-extrabold": ("open-sans", ("OpenSans-ExtraBold.ttf",)),
    "open-sans-cond": ("open-sans", ("OpenSans-CondBold.ttf",)),
    "roboto": ("roboto", ("Roboto-Bold.ttf",)),
    "roboto-black": ("roboto", ("Roboto-Black.ttf",)),
    "roboto-medium": ("roboto", ("Roboto-Medium.ttf",)),
    "roboto-condensed": ("roboto", ("RobotoCondensed-Bold.ttf",)),
    "lato": ("lato", ("Lato-Bold.ttf",)),
    "lato-black": ("lato", ("Lato-Black.ttf",)),
    "lato-regular": ("lato", ("Lato-Regular.ttf",)),
    "cantarell": ("cantarell", ("Cantarell-Bold.otf",)),
    "cantarell-extrabold": ("cantarell", ("Cantarell-ExtraBold.otf",)),
    "comfortaa": ("comfortaa", ("Comfortaa-Bold.ttf",)),
    "quicksand": ("quicksand", ("Quicksand-Bold.ttf",)),
    "carlito": ("carlito", ("Carlito-Bold.ttf",)),
    "caladea": ("caladea", ("Caladea-Bold.ttf",)),
    "libertine": ("libertine", ("LinLibertine_RB.otf",)),
    "league-spartan": ("league-spartan", ("LeagueSpartan-Bold.otf",)),
    "league-spartan-black": ("league-spartan", ("LeagueSpartan-Black.otf",)),
    "oxygen": ("oxygen", ("Oxygen-Sans-Bold.ttf",)),
    "cabin": ("cabin", ("Cabin-Bold.otf",)),
    "cabin-medium": ("cabin", ("Cabin-Medium.otf",)),
    "hack": ("hack", ("Hack-Bold.ttf",)),
    "inter": ("inter", ("Inter-Bold.otf",)),
    "inter-black": ("inter", ("Inter-Black.otf",)),
    "inter-semibold": ("inter", ("Inter-SemiBold.otf",)),
}
# Kept for callers that name the old dictionary.
CANDIDATES: dict[str, tuple[str, ...]] = {face: names for face, (_, names) in FACES.items()}
DEBIAN_PACKAGES = ("fonts-dejavu-core", "fonts-liberation", "fonts-freefont-ttf", "fonts-texgyre",
                   "fonts-urw-base35", "fonts-open-sans", "fonts-roboto-unhinted", "fonts-lato",
                   "fonts-cantarell", "fonts-comfortaa", "fonts-quicksand", "fonts-crosextra-carlito",
                   "fonts-crosextra-caladea", "fonts-linuxlibertine", "fonts-league-spartan",
                   "fonts-oxygen", "fonts-cabin", "fonts-hack", "fonts-inter")


class FontsMissing(RuntimeError):
    pass


def family_of(face: str) -> str:
    """The typeface family a face belongs to (a face outside the table is its own family)."""
    return FACES[face][0] if face in FACES else face


def faces_of(families, fonts=None) -> tuple[str, ...]:
    """The available faces of the given families."""
    fonts = fonts if fonts is not None else available_fonts()
    wanted = set(families)
    return tuple(f for f in sorted(fonts) if family_of(f) in wanted)


@lru_cache(maxsize=1)
def available_fonts() -> dict[str, Path]:
    """Face name -> font file, for every face present."""
    files: dict[str, Path] = {}
    for root in FONT_DIRS:
        if root.is_dir():
            for p in root.rglob("*"):
                files.setdefault(p.name, p)
    found = {}
    for face, (_, names) in FACES.items():
        for name in names:
            if name in files and files[name].suffix in (".ttf", ".otf"):
                found[face] = files[name]
                break
    if not found:
        raise FontsMissing("no usable font found under " + ", ".join(map(str, FONT_DIRS)) + ": run `make fonts` "
                           "(Debian " + ", ".join(DEBIAN_PACKAGES) + ")")
    return found
