"""Synthetic overhead scenes of a Scrabble board with exact ground truth (deterministic per seed).

`render_topdown` draws the board from straight above; `render_scene` photographs it with a
camera pose, light, hands, blur, noise and JPEG. Training and recorder tests use both.
"""
from .board import DESIGNS, STYLES, SceneConfig, TopDown, render_topdown
from .fonts import available_fonts
from .scene import Scene, render_scene

__all__ = ["DESIGNS", "STYLES", "Scene", "SceneConfig", "TopDown", "available_fonts", "render_scene",
           "render_topdown"]
