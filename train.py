"""PPO self-play for Briscola Chiamata: one policy for all five seats learns the auction, the call
and the play. The trainer is :mod:`training.trainer` (in CleanRL's order); this script is its command
line (:mod:`briscola_cli.train`); ``python train.py --help`` lists the options and every config key.

    python train.py                                   # configs/default.yaml
    python train.py --config configs/tiny.yaml num_envs=16 seed=3
    python train.py --resume runs/default-1           # continue exactly where it stopped
    python train.py --config configs/tiny.yaml --seeds 1,2,3         # one run per seed, aggregated over seeds
    python train.py --exploit heuristic --decisions 5000000          # the heuristic's exploitability
"""

import sys

from briscola_cli.train import main

if __name__ == "__main__":
    sys.exit(main())
