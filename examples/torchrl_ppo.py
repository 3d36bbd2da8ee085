"""PPO with TorchRL's own PettingZooWrapper: one policy for all five seats, trained in self-play, then measured.

    python examples/torchrl_ppo.py                               # 20,000 frames of self-play, 1,000 measured hands
    python examples/torchrl_ppo.py --frames 8000 --opponents random

TorchRL's ``PettingZooWrapper`` wraps ``raw_env(obs_dtype="float32")`` as it is (no adapter) with
``use_mask=True`` and the five seats in one group, ``"agents"``: every frame is one decision of the
AEC game; ``("agents", "mask")`` marks the seat to act and ``("agents", "action_mask")`` its legal
actions, copied by the wrapper from the env's observation (the other seats' rows are all True).
One network per role is shared by the seats: the actor samples from a ``MaskedCategorical`` on the
legal actions, the critic values each seat's own view. ``ClipPPOLoss`` counts only the seat that
acted (``loss_mask_key = ("agents", "mask")``); GAE runs along every frame of each seat's hand,
the other seats' turns included, with the payoff as the reward at the end (gamma 1).

At the end the trained policy (its most likely legal action) and a uniformly random legal policy
each hold one seat of :class:`agents.SingleSeatEnv` against the same fixed opponents on the
same seeded hands; the script prints both mean payoffs per hand with a 95% interval, and the
illegal actions chosen during training, counted against the masks the env gave (``raw_env`` would
also raise a ``ValueError`` on one).
Needs ``pip install torchrl`` (with tensordict; CPU is enough).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import ExplorationType, MarlGroupMapType, set_exploration_type
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators

from agents import SingleSeatEnv
from agents.single_seat import mean_payoff
from briscola_env import raw_env

GROUP = "agents"  # the name TorchRL gives the single group of MarlGroupMapType.ALL_IN_ONE_GROUP
# The env's observation is a Dict(observation=..., action_mask=...): the wrapper moves the mask out
# and keeps the rest under its own "observation" entry, hence the doubled name.
OBSERVATION = (GROUP, "observation", "observation")
ACTION, ACTION_MASK, ACTING = (GROUP, "action"), (GROUP, "action_mask"), (GROUP, "mask")
LOGITS, LOG_PROB, VALUE = (GROUP, "logits"), (GROUP, "action_log_prob"), (GROUP, "state_value")


def make_env(seed: int) -> PettingZooWrapper:
    """The AEC env as TorchRL wraps it: one group of five seats, categorical actions, seeded."""
    with warnings.catch_warnings():
        # TorchRL warns that it is tested on PettingZoo 1.24.3 only; the project's tests are the check here.
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        return PettingZooWrapper(env=raw_env(obs_dtype="float32"), use_mask=True, categorical_actions=True,
                                 group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed)


def make_actor(env: PettingZooWrapper, hidden: int) -> ProbabilisticActor:
    """A shared MLP from each seat's view to logits, sampled only among the seat's legal actions."""
    observation_size = env.observation_spec[OBSERVATION].shape[-1]
    actions = env.full_action_spec[ACTION].space.n
    logits = TensorDictModule(MLP(in_features=observation_size, out_features=actions, num_cells=[hidden, hidden]),
                              in_keys=[OBSERVATION], out_keys=[LOGITS])
    return ProbabilisticActor(logits, in_keys={"logits": LOGITS, "mask": ACTION_MASK}, out_keys=[ACTION],
                              spec=env.full_action_spec[ACTION], distribution_class=MaskedCategorical,
                              return_log_prob=True, log_prob_key=LOG_PROB)


def make_critic(env: PettingZooWrapper, hidden: int) -> ValueOperator:
    """A shared MLP from each seat's own view (never the hidden hands) to its expected payoff."""
    observation_size = env.observation_spec[OBSERVATION].shape[-1]
    return ValueOperator(MLP(in_features=observation_size, out_features=1, num_cells=[hidden, hidden]),
                         in_keys=[OBSERVATION], out_keys=[VALUE])


def illegal_choices(batch) -> tuple[int, int]:
    """(illegal, decisions) in a collected batch: the acting seat's action checked against the
    legal actions the env gave that seat at that frame."""
    acting = batch[ACTING]
    if not bool((acting.sum(-1) == 1).all()):
        raise AssertionError("every frame of an AEC hand should have exactly one seat to act")
    seat = acting.float().argmax(-1)
    frames = torch.arange(len(seat))
    chosen = batch[ACTION][frames, seat]
    legal = batch[ACTION_MASK][frames, seat, chosen]
    return int((~legal).sum()), len(seat)


def train(args) -> tuple[ProbabilisticActor, int, int, int]:
    """PPO in self-play; returns the actor, the frames collected, the hands finished and the illegal
    actions counted."""
    torch.manual_seed(args.seed)
    env = make_env(args.seed)
    actor, critic = make_actor(env, args.hidden), make_critic(env, args.hidden)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=args.clip, entropy_coeff=args.entropy, normalize_advantage=False)
    loss.set_keys(action=ACTION, sample_log_prob=LOG_PROB, value=VALUE, reward=(GROUP, "reward"),
                  done=(GROUP, "done"), terminated=(GROUP, "terminated"))
    loss.loss_mask_key = ACTING  # a seat's loss counts only at the frames where it acted
    loss.make_value_estimator(ValueEstimators.GAE, gamma=1.0, lmbda=args.lmbda)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.lr)
    # The policy is a plain MLP, not recurrent: it needs no InitTracker, which TorchRL 0.14 would otherwise
    # warn about for every policy.
    collector = Collector(env, actor, frames_per_batch=args.frames_per_batch, total_frames=args.frames,
                          auto_register_policy_transforms=False)

    frames = hands = illegal = 0
    for batch in collector:
        bad, decisions = illegal_choices(batch)
        illegal, frames = illegal + bad, frames + decisions
        hands += int(batch["next", "done"].sum())
        with torch.no_grad():
            loss.value_estimator(batch, params=loss.critic_network_params,
                                 target_params=loss.target_critic_network_params)
        for _ in range(args.epochs):
            for frames_minibatch in torch.randperm(len(batch)).split(args.minibatch):
                terms = loss(batch[frames_minibatch])
                total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), args.max_grad_norm)
                optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()
    return actor, frames, hands, illegal


def greedy_legal(actor: ProbabilisticActor):
    """``choose(obs, mask)``: the trained actor's most likely legal action for one seat's view (the
    mode of its MaskedCategorical), the seat put in a group of its own."""
    def choose(observation: np.ndarray, mask: np.ndarray) -> int:
        step = TensorDict()
        step[OBSERVATION] = torch.as_tensor(observation)[None]
        step[ACTION_MASK] = torch.as_tensor(mask)[None]
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(step)[ACTION][0])
    return choose


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--frames", type=int, default=20_000, help="frames (decisions of any seat) to train on")
    parser.add_argument("--frames-per-batch", type=int, default=2000, help="frames collected per PPO update")
    parser.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    parser.add_argument("--minibatch", type=int, default=500, help="frames per gradient step")
    parser.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--clip", type=float, default=0.2, help="PPO clip epsilon")
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy bonus coefficient")
    parser.add_argument("--lmbda", type=float, default=0.95, help="GAE lambda")
    parser.add_argument("--max-grad-norm", type=float, default=1.0)
    parser.add_argument("--opponents", default="heuristic", help="agent spec of the four seats in the measurement")
    parser.add_argument("--hands", type=int, default=1000, help="hands of the final measurement")
    parser.add_argument("--seed", type=int, default=0, help="seeds the training and the measured hands")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (a decision is a batch of five views: more threads only add overhead)")
    args = parser.parse_args(argv)
    if min(args.frames, args.frames_per_batch, args.minibatch, args.threads) < 1 or args.hands < 2:
        parser.error("--frames, --frames-per-batch, --minibatch and --threads must be at least 1 "
                     "and --hands at least 2")

    threads = torch.get_num_threads()
    torch.set_num_threads(args.threads)
    try:  # restored after, for callers running main() inside their own process (the test does)
        started = time.perf_counter()
        actor, frames, hands, illegal = train(args)
        trained_in = time.perf_counter() - started

        env = SingleSeatEnv(opponents=args.opponents, obs_dtype="float32")
        rng = np.random.default_rng(args.seed)
        measured = 10**9 + args.seed  # reset seeds of their own, not those of the training hands
        trained = mean_payoff(env, greedy_legal(actor), args.hands, measured)
        random = mean_payoff(env, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), args.hands, measured)
    finally:
        torch.set_num_threads(threads)
    print(f"self-play: {frames:,} frames, {hands:,} hands in {trained_in:.0f} s; "
          f"illegal actions: {illegal} of {frames:,}")
    print(f"against {args.opponents} x4, {args.hands} hands, mean payoff per hand (95% CI half-width):")
    print(f"  TorchRL PPO after {frames:,} frames: {trained[0]:+.3f} (±{trained[1]:.3f})")
    print(f"  random legal actions:           {random[0]:+.3f} (±{random[1]:.3f})")


if __name__ == "__main__":
    main()
