"""The rule profile a GCG record was played under (what `--rules auto` means)."""
from __future__ import annotations

from ..rules import AUTO, get_profile
from .records import GcgGame

__all__ = ["choose_rules"]


def choose_rules(requested: str, gcg: GcgGame) -> str:
    """The profile a GCG record was played under. `requested` other than "auto" is taken as
    given (checked: RulesError for unknown rules). auto: NASPA; CSW's 5-point challenge with
    challenge bonuses or a CSW #lexicon; plus/minus endings (a player losing their own rack
    while another gains it) are WESPA's, or the box's with more than two players."""
    if requested != AUTO:
        get_profile(requested)
        return requested
    csw = gcg.meta.get("lexicon", "").upper().startswith("CSW")
    bonus = any(t.kind == "challenge" and t.score > 0 for t in gcg.turns)
    if len(gcg.players) > 2:
        return "box"
    gained = {t.player for t in gcg.turns if t.kind == "end_points"}
    lost = {t.player for t in gcg.turns if t.kind == "end_penalty" and t.score < 0}
    if gained and lost - gained:
        return "wespa"
    return "naspa-csw" if csw or bonus else "naspa"
