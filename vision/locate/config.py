"""LocateConfig: the thresholds of board localization, one settings section."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LocateConfig(BaseModel):
    """Thresholds of board localization (``vision.locate``)."""

    model_config = ConfigDict(extra="forbid")

    square_px: int = Field(40, ge=8, le=200, description="pixels per square in the canonical grid image")
    work_px: int = Field(640, ge=256, le=2048,
                         description="longer side of the downscaled copy used for detection, px")
    fit_square_px: int = Field(26, ge=12, le=64,
                               description="pixels per square of the warps used to fit the line pattern")
    refine_square_px: int = Field(32, ge=12, le=96,
                                  description="pixels per square of the final full-resolution refinement warp")
    min_board_area_frac: float = Field(0.08, gt=0, lt=1,
                                       description="smallest rough board quad, as a fraction of the image area")
    quad_margin_frac: float = Field(0.12, ge=0, le=0.5,
                                    description="margin kept around a rough quad when warping it, fraction of its side")
    grid_to_quad_min: float = Field(0.60, gt=0.3, le=1.0,
                                    description="smallest grid side as a fraction of the rough quad side")
    grid_to_quad_max: float = Field(1.12, ge=1.0, le=1.6,
                                    description="largest grid side as a fraction of the rough quad side")
    piece_area_frac: float = Field(0.15, gt=0, le=1,
                                   description="dense-edge regions at least this fraction of the largest one "
                                               "join the board (an arm may cut it in pieces)")
    cut_radius_fracs: tuple[float, ...] = Field((0.3, 0.5, 0.7),
                                                description="openings of the filled edge blob that cut off what "
                                                            "touches the board, as fractions of its largest "
                                                            "inscribed radius")
    colour_tolerance: float = Field(22.0, gt=0, le=255, description="YCrCb distance that still counts as board colour")
    refine_iters: int = Field(3, ge=0, le=8, description="line-fit refinement passes after the periodic fit")
    refine_window_frac: float = Field(0.3, gt=0.05, lt=0.5,
                                      description="search half-window for a line piece, fraction of a square")
    ridge_frac: float = Field(0.07, gt=0, lt=0.3,
                              description="the refinement finds a line where the grey is lighter (or darker) "
                                          "than this fraction of a square away on both sides; a tile's edge is "
                                          "a step and does not count")
    final_window_frac: float = Field(0.15, gt=0.02, lt=0.5,
                                     description="search half-window of the last full-resolution pass, fraction "
                                                 "of a square")
    refine_outlier_frac: float = Field(0.08, gt=0.01, lt=0.5,
                                       description="line pieces further than this (fraction of a square) are dropped")
    min_aspect: float = Field(0.6, gt=0, le=1,
                              description="smallest ratio of the grid's mean side lengths (tilt foreshortens it: "
                                          "0.6 is a view about 53 degrees off vertical)")
    min_periodic_contrast: float = Field(0.15, ge=0, le=1,
                                         description="smallest on-line vs mid-square profile contrast "
                                                     "of the periodic fit")
    hough_votes_frac: float = Field(0.2, gt=0, lt=1,
                                    description="Hough votes a line needs, as a fraction of the work image's "
                                                "shorter side")
    hough_family_deg: float = Field(12.0, gt=0, lt=45,
                                    description="largest angle between a line and its family's direction "
                                                "(perspective fans the lines out)")
    hough_below_fit: float = Field(0.75, ge=0, le=1,
                                   description="the Hough-line quad is tried when no region quad reached "
                                               "this fit")
    segment_family_deg: float = Field(1.5, gt=0, lt=10,
                                      description="a line segment belongs to a vanishing point's family when it "
                                                  "points at it within this angle (the steep-view quad)")
    max_shift_squares: int = Field(3, ge=1, le=5,
                                   description="the periodic fit is checked against slides of up to this many "
                                               "squares minus one")
    accept_fit: float = Field(0.75, ge=0, le=1,
                              description="a rough quad whose grid reaches this fit ends the search (wrong "
                                          "grids finished on synthetic seeds 1000-3499 reached at most 0.71)")
    same_grid_squares: float = Field(0.25, gt=0, lt=1,
                                     description="two fits whose corners agree within this fraction of a square "
                                                 "are the same grid (a second quad agreeing ends the search)")
    piece_tolerance_frac: float = Field(0.08, gt=0, lt=0.5,
                                        description="a line piece this close (fraction of a square) to its predicted "
                                                    "place counts for the quality and the fit")
    retry_fit: float = Field(0.6, ge=0, le=1,
                             description="below this fit the search is repeated at double resolution "
                                         "(below min_fit always; up to retry_fit only for small squares)")
    retry_below_square_px: float = Field(16.0, gt=0, le=200,
                                         description="a weak fit is searched again at double resolution only "
                                                     "when its squares are smaller than this at the work size, px")
    fit_strength_frac: float = Field(0.05, gt=0, lt=1,
                                     description="a line piece counts for the fit when its gradient peak is at "
                                                 "least this fraction of the strong pieces' (faint printed lines "
                                                 "count; the reported quality uses 0.2)")
    premium_min_fit: float = Field(0.1, ge=0, le=1,
                                   description="the premium-square pattern may slide the grid when it explains at "
                                               "least this share of the squares' colour variance there")
    premium_margin: float = Field(0.05, ge=0, le=1,
                                  description="... and at least this much more of it than where the lines put the "
                                              "grid (a finished grid with such a slide left gets fit 0)")
    min_fit: float = Field(0.5, ge=0, le=1,
                           description="grids with fewer line pieces found (faint ones included) than this "
                                       "fraction raise BoardNotFound, unless several rough quads agree on them "
                                       "(agree_min_quads)")
    agree_min_quads: int = Field(3, ge=2, le=64,
                                 description="a grid under min_fit is still accepted when at least this many rough "
                                             "quads (both resolutions) led to it ...")
    agree_squares: float = Field(0.1, gt=0, lt=1,
                                 description="... within this fraction of a square of its finished corners ...")
    agree_min_fit: float = Field(0.4, ge=0, le=1,
                                 description="... and its fit is at least this")
    agree_low_fit: float = Field(0.3, ge=0, le=1,
                                 description="... or at least this, when its line pieces are found all over the "
                                             "board (agree_min_balance; finished grids on synthetic seeds 1000-9199: "
                                             "a wrong grid with its pieces spread had 3+ quads at fit 0.24, right "
                                             "ones from 0.31)")
    agree_min_balance: float = Field(0.5, ge=0, le=1,
                                     description="... spread: every quarter of the grid finds at least this share "
                                                 "of the four quarters' mean rate of line pieces (a grid dragged off "
                                                 "at one corner finds them where it fits)")
