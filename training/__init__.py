"""Training agents. The PPO trainer (:mod:`training.trainer`, in CleanRL's order; ``python train.py``
is its command line, :mod:`briscola_cli.train`) and what it is built from and used for:

- :mod:`training.config`: a run's config, its keys' ranges and docstrings, read from YAML and overrides;
- :mod:`training.trajectories`: the learner's decisions, kept until their hand ends, then given their GAE;
- :mod:`training.belief_tracker`: the belief head's targets, its accuracy and the concealment reward;
- :mod:`training.checkpoint`: the layout of the trainer's state in a training checkpoint;
- :mod:`training.run_folder`: a run folder's lock and contents;
- :mod:`training.stop_signals`: SIGINT and SIGTERM, acted on at an update boundary;
- :mod:`training.rollout_workers`: the rollout played by Ray actors, the update here (config key ``workers``);
- :mod:`training.sweep`: one run per seed, aggregated over seeds (``briscola sweep``), on Ray if asked;
- :mod:`training.exploit`: the exploitability audit (``briscola exploit``);
- :mod:`training.belief_model`: a partner-belief model fitted on games of agents (``briscola belief``).
"""
