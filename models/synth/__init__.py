"""Synthetic overhead scenes of a Scrabble board with exact ground truth (deterministic per seed).

`render_topdown` draws the board from straight above; `render_scene` photographs it with a
camera pose, light, hands, blur, noise and JPEG. Training and recorder tests use both.
"""
from .board import DESIGNS, STYLES, SceneConfig, TopDown, render_topdown
from .looks import LABEL_STYLES, RENDER_FACTORS
from .fonts import available_fonts, faces_of, family_of
from .scene import Scene, render_scene
from .tilecheck import tile_check_board, tile_check_plan

__all__ = ["DESIGNS", "LABEL_STYLES", "RENDER_FACTORS", "STYLES", "Scene", "SceneConfig", "TopDown", "available_fonts", "faces_of",
           "family_of", "render_scene",
           "render_topdown", "tile_check_board", "tile_check_plan"]
