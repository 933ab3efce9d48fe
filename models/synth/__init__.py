"""Synthetic overhead scenes of a Scrabble board with exact ground truth (deterministic per seed).

`render_topdown` draws the board from straight above; `render_scene` photographs it with a
camera pose, light, hands, blur, noise and JPEG. Training and recorder tests use both.
`render_rack` is a rack camera's frame (issue 30), its factors `RACK_FACTORS` (`RACK_HELD_OUT` kept out, `RACK_BROAD`
drawn only for the rack finder's training).
"""
from .board import DESIGNS, STYLES, SceneConfig, TopDown, render_topdown
from .looks import LABEL_STYLES, RENDER_FACTORS
from .fonts import available_fonts, faces_of, family_of
from .rack import RACK_BROAD, RACK_FACTORS, RACK_HELD_OUT, RackScene, draw_look, render_rack
from .scene import Scene, render_scene
from .tilecheck import tile_check_board, tile_check_plan

__all__ = ["DESIGNS", "LABEL_STYLES", "RACK_BROAD", "RACK_FACTORS", "RACK_HELD_OUT", "RENDER_FACTORS", "RackScene", "STYLES",
           "Scene", "SceneConfig", "TopDown", "available_fonts", "draw_look", "faces_of", "family_of", "render_rack",
           "render_scene",
           "render_topdown", "tile_check_board", "tile_check_plan"]
