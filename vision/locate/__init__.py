"""Markerless localization of the 15x15 grid in a raw overhead frame.

Flow (detection on a copy reduced by an integer factor to about ``work_px``):

1. Rough board quads from cheap segmentations: the convex hull of the largest edge blob;
   the hull of all large dense-edge regions (closed, then opened so arms and clutter drop
   off; an arm may cut the board in pieces); the hull of the board's dominant colour, sampled
   in the middle of the edge blob; the filled edge blob opened with discs of a few sizes, so
   a score sheet, bag or shadow touching the board drops off; the whole frame (a board that
   fills the picture has no table around it); if none fits well, a quad from the grid's two
   Hough line families, and one from line segments grouped by the two vanishing points they
   point at (a steep view, where the families are not 90 degrees apart and one fans out).
2. Each quad is warped to a square with a margin. The grid is then a periodic line pattern,
   so per axis we search spacing s and offset o maximising the gradient profile at the 16
   lines o + k*s (squares are equal size, so this is a cheap 2-D search), then once more
   inside the fitted grid, now aligned with the lines rather than the rim.
3. Refinement and slides: each of the 16 lines x 15 squares per axis is found where the grey
   differs from both sides (a line; a tile's edge differs from one side only), with the sign
   the board's lines have (lighter or darker than the squares; a gap between tiles is dark), and one
   homography is solved from those point-on-line constraints (linear least squares, robust
   trimming of pieces pulled by tiles); then the grid is slid by whole
   squares where that explains more line pieces (a rim about one square wide looks like one
   more line to the periodic fit, but no line crosses the rim). This runs on the work image,
   and again on the full frame once the refinement has fixed the spacing.
4. The premium-square pattern may slide the grid further: only the true place gives every
   premium kind one colour (an arm hiding the outer row leaves the lines undecided).
5. Two last refinements on the full frame (the second with a narrow window), and the same two
   with the outer lines' offsets free (a band or outline framing the grid is not one more line;
   kept unless they find fewer pieces of the inner lines), then
   ``quality``: the fraction of line pieces found where 16 equally spaced lines predict
   them (the weaker axis); tiles, hands and a wrong grid all lower it. Candidates are ranked
   by the same share with faint pieces included (the ``fit``; printed lines can be faint);
   a clear fit, or a second quad reaching a grid already finished, ends the search,
   and a weak result is searched again at double resolution (small boards). When nothing is
   accepted, the finished grids are scored once more with line pieces at the width their lines
   show (an out-of-focus photo's lines are wider than the piece tolerance).

Modules: ``config`` (LocateConfig), ``fix`` (BoardFix, fix_from_corners), ``quads`` (step 1),
``periodic`` (step 2), ``grid`` (a grid's warp and slides), ``lines`` (steps 3 and 5: line pieces,
refinement, quality), ``premium`` (step 4), ``search`` (find_board: the candidates ranked), ``prewarped`` (prewarped_corners: a frame already
warped edge to edge, no search).
"""
from tilecam.vision.locate.config import LocateConfig
from tilecam.vision.locate.fix import BoardFix, fix_from_corners, order_corners
from tilecam.vision.locate.lines import grid_quality
from tilecam.vision.locate.prewarped import prewarped_corners
from tilecam.vision.locate.search import find_board

__all__ = ["BoardFix", "LocateConfig", "find_board", "fix_from_corners", "grid_quality", "order_corners", "prewarped_corners"]
