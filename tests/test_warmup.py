"""The run's warm-up: one stage per kind of kernels, compiled side by side."""
from __future__ import annotations

from ludica import gdl, stages
from ludica.runtime.warmup import kinds, warm_stages


def _load(*names):
    return [gdl.load(stages.path(n)) for n in names]


def test_one_stage_per_kind_in_the_order_met():
    othello, tic_tac_toe, small, ataxx, connect_four = _load("standard-8x8", "tic-tac-toe", "small-board-6x6",
                                                            "ataxx", "connect-four")
    chosen = kinds([othello, tic_tac_toe, small, ataxx, connect_four])
    assert chosen == {"othello": othello, "placement": tic_tac_toe, "generic": ataxx}


def test_warm_stages_compiles_each_kind_in_its_own_process():
    # kernels already cached by the other tests: this checks the processes run and report the kinds
    assert warm_stages(_load("standard-8x8", "tic-tac-toe", "small-board-6x6"), jobs=2) == ["othello", "placement"]
