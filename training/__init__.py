"""What train.py builds a PPO run from, besides PPO itself (which train.py holds, in CleanRL's order):

- :mod:`training.trajectories`: the learner's decisions, kept until their hand ends, then given their GAE;
- :mod:`training.belief_tracker`: the belief head's targets, its accuracy and the concealment reward;
- :mod:`training.checkpoint`: the layout of the trainer's state in a training checkpoint;
- :mod:`training.run_folder`: a run folder's lock and contents;
- :mod:`training.stop_signals`: SIGINT and SIGTERM, acted on at an update boundary.
"""
