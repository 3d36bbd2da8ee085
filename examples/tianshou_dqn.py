"""Train Tianshou's DQN in one seat of the PettingZoo env against four random players, then measure it.

    python examples/tianshou_dqn.py                                # 60,000 env steps (2 to 3 minutes on 2 cores)
    python examples/tianshou_dqn.py --steps 20000 --epochs 2 --hands 200

This follows Tianshou's own multi-agent pattern (its tic-tac-toe tutorial): the AEC env is wrapped
in ``tianshou.env.PettingZooEnv``, which moves ``action_mask`` into ``obs.mask``; one DQN learns
in a fixed seat (``--seat``) while ``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` plays uniformly
random legal moves in the other four, all dispatched by ``MultiAgentOffPolicyAlgorithm``. The DQN
policy masks its Q-values and its epsilon-greedy draws with ``obs.mask``, so no seat ever plays an
illegal action; the env is ``raw_env``, which raises on one, so an illegal move would stop the run.

Every learner transition's target is its payoff at the end of the hand (a return horizon longer
than any hand, gamma 1; see ``MAX_HAND_STEPS``). At the end the greedy DQN policy, a uniformly
random legal policy and one that passes in every auction (else random legal) each play the
learner's seat of the same seeded hands of :class:`agents.SingleSeatEnv` (four
``--opponents``, random by default, as in training); the script prints their mean payoffs per hand
with a 95% interval. The defaults gave +2.622 (±0.277) for the DQN, -0.015 (±0.462) for random legal
play and +2.761 (±0.256) for passing (a run of about 2 minutes on 2 cores): against random bidders the DQN
learns little beyond not bidding.
Needs ``pip install 'tianshou>=2.0'`` (its 2.x API) and PyTorch. CPU only, seeded (``--seed``).
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from agents import SingleSeatEnv
from agents.single_seat import mean_payoff
from briscola_env import raw_env
from briscola_env.actions import PASS
from briscola_env.cards import NUM_CARDS, NUM_SEATS
from briscola_env.engine import MAX_AUCTION_LENGTH

# The longest possible hand: the longest auction (every bid in rising order, a pass from each seat),
# the call and the forty cards. Tianshou's wrapper turns a hand into one stream of all five seats'
# steps, so the step after a learner's step is another seat's view: bootstrapping from it would value
# the hand from someone else's side. A return horizon longer than any hand makes every target the
# learner's own payoff at the hand's end (a Monte Carlo return); with gamma 1 nothing is discounted.
MAX_HAND_STEPS = MAX_AUCTION_LENGTH + 1 + NUM_CARDS


def make_env() -> PettingZooEnv:
    """The AEC env in Tianshou's wrapper; float32 views in [0, 1], as the MLP wants."""
    return PettingZooEnv(raw_env(obs_dtype="float32"))


def build_algorithm(seat: int, hidden: list[int], lr: float, eps_train: float):
    """Tianshou's multi-agent algorithm: DQN in ``seat``, masked random play in the others."""
    env = make_env()
    observation_space = env.observation_space["observation"]
    net = Net(state_shape=observation_space.shape, action_shape=env.action_space.n, hidden_sizes=hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, observation_space=observation_space,
                                     eps_training=eps_train, eps_inference=0.0)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=1.0, n_step_return_horizon=MAX_HAND_STEPS)
    algorithms = [dqn if s == seat else MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
                  for s in range(NUM_SEATS)]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env), dqn, env.agents


def greedy_action(policy: DiscreteQLearningPolicy, obs: np.ndarray, mask: np.ndarray) -> int:
    """The DQN policy's masked greedy action for one observation."""
    with torch.no_grad():
        out = policy(Batch(obs=Batch(obs=obs[None], mask=mask[None]), info=Batch()))
    return int(out.act[0])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--steps", type=int, default=60_000, help="env steps to train on, all five seats counted")
    parser.add_argument("--epochs", type=int, default=4, help="Tianshou epochs the steps are split into")
    parser.add_argument("--envs", type=int, default=8, help="training envs stepped side by side")
    parser.add_argument("--seat", type=int, default=0, help="the learner's seat, 0..4")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="hidden layer sizes of the Q MLP")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--eps-train", type=float, default=0.2, help="epsilon of epsilon-greedy during training")
    parser.add_argument("--buffer", type=int, default=20_000, help="replay buffer size in env steps (all seats)")
    parser.add_argument("--batch", type=int, default=320,
                        help="transitions per gradient step, all seats (the learner's are about a fifth)")
    parser.add_argument("--opponents", default="random", help="agent spec of the four other seats when measuring")
    parser.add_argument("--hands", type=int, default=1000, help="hands of the final measurement")
    parser.add_argument("--seed", type=int, default=0, help="seeds the training and the measured hands")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.epochs < 1 or args.envs < 1 or args.hands < 2 or not 0 <= args.seat < NUM_SEATS:
        parser.error("--steps, --epochs and --envs must be at least 1, --hands at least 2, --seat 0..4")

    # The collector summarises the returns of all five seats as one flat sequence and warns about it at
    # every collect; the trainer's own figures use the learner's column (multi_agent_return_reduction).
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    torch.set_num_threads(1)  # a small MLP: more threads cost more than they give
    np.random.seed(args.seed)  # Tianshou's epsilon-greedy and random players draw from NumPy's global generator
    torch.manual_seed(args.seed)
    algorithm, dqn, agents = build_algorithm(args.seat, args.hidden, args.lr, args.eps_train)
    training_envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    training_envs.seed([args.seed + i for i in range(args.envs)])
    collector = Collector[CollectStats](algorithm, training_envs, VectorReplayBuffer(args.buffer, args.envs),
                                        exploration_noise=True)
    collector.reset()
    collector.collect(n_step=args.batch * args.envs)  # a first fill of the buffer, before any update

    started = time.perf_counter()
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=args.epochs,
        epoch_num_steps=max(1, args.steps // args.epochs),
        collection_step_num_env_steps=10 * args.envs,
        update_step_num_gradient_steps_per_sample=0.05,  # ~2 learner samples drawn per learner decision collected
        batch_size=args.batch,
        multi_agent_return_reduction=lambda returns: returns[:, args.seat],  # the learner's payoff
        show_progress=False,
        verbose=False,
    ))
    seconds = time.perf_counter() - started
    print(f"trained DQN in seat {args.seat} ({agents[args.seat]}) against random x4: "
          f"{result.train_step:,} env steps, {result.update_step:,} updates, {seconds:.0f} s")

    env = SingleSeatEnv(opponents=args.opponents, seat=args.seat, obs_dtype="float32")
    rng = np.random.default_rng(args.seed)
    measured = 10**9 + args.seed  # reset seeds of their own, apart from the training envs' seeds
    trained = mean_payoff(env, lambda obs, mask: greedy_action(dqn.policy, obs, mask), args.hands, measured)
    random = mean_payoff(env, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), args.hands, measured)
    # Against random bidders never bidding already earns far more than random play: this baseline
    # shows how much of the DQN's gain the auction alone explains.
    passing = mean_payoff(env, lambda obs, mask: PASS if mask[PASS] else int(rng.choice(np.flatnonzero(mask))),
                          args.hands, measured)
    print(f"seat {args.seat} against {args.opponents} x4, {args.hands} hands, "
          "mean payoff per hand (95% CI half-width):")
    labels = [f"Tianshou DQN after {result.train_step:,} env steps:", "random legal actions:",
              "pass in every auction, else random legal:"]
    for label, (mean, half_width) in zip(labels, (trained, random, passing)):
        print(f"  {label:{max(map(len, labels))}} {mean:+.3f} (±{half_width:.3f})")


if __name__ == "__main__":
    main()
