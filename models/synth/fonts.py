"""Free fonts found on this machine (installed by `make fonts` from Debian packages)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

# Debian puts TeX Gyre (fonts-texgyre) under texmf, not /usr/share/fonts.
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path("/usr/share/texmf/fonts"))
# Family -> file names to look for (bold weights: tile letters are heavy).
CANDIDATES: dict[str, tuple[str, ...]] = {
    "dejavu-sans": ("DejaVuSans-Bold.ttf",),
    "dejavu-serif": ("DejaVuSerif-Bold.ttf",),
    "dejavu-condensed": ("DejaVuSansCondensed-Bold.ttf",),
    "liberation-sans": ("LiberationSans-Bold.ttf",),
    "liberation-serif": ("LiberationSerif-Bold.ttf",),
    "freesans": ("FreeSansBold.ttf",),
    "freeserif": ("FreeSerifBold.ttf",),
    "texgyre-heros": ("texgyreheros-bold.otf",),
    "nimbus-sans": ("NimbusSans-Bold.otf", "NimbusSans-Bold.t1", "NimbusSanL-Bold.ttf"),
}


class FontsMissing(RuntimeError):
    pass


@lru_cache(maxsize=1)
def available_fonts() -> dict[str, Path]:
    """Family name -> font file, for every candidate family present."""
    files: dict[str, Path] = {}
    for root in FONT_DIRS:
        if root.is_dir():
            for p in root.rglob("*"):
                files.setdefault(p.name, p)
    found = {}
    for family, names in CANDIDATES.items():
        for name in names:
            if name in files and files[name].suffix in (".ttf", ".otf"):
                found[family] = files[name]
                break
    if not found:
        raise FontsMissing("no usable font found under " + ", ".join(map(str, FONT_DIRS)) + ": run `make fonts` "
                           "(Debian fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf, fonts-texgyre, "
                           "fonts-urw-base35)")
    return found
