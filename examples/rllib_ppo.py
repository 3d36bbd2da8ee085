"""Train RLlib's PPO on the PettingZoo env: all five seats play one shared policy, with action masking.

    python examples/rllib_ppo.py                                    # 20 iterations of 4,000 env steps
    python examples/rllib_ppo.py --iterations 1 --train-batch-size 256 --minibatch-size 64 --epochs 1

RLlib's ``PettingZooEnv`` wraps :class:`briscola_env.raw_env` (float32 observations: RLlib's default
model takes floats only); the policy ``"shared"`` acts for player_0 .. player_4 (self-play with
parameter sharing). Legal actions come from RLlib's own action-masking module,
``ActionMaskingTorchRLModule`` (from ``ray.rllib.examples``), which puts -inf on the logits of the
illegal ones. The env is ``raw_env``, not ``env()``: an illegal action raises a ``ValueError`` there,
which stops ``algo.train()`` with an error instead of ending a hand with a penalty.

After each ``algo.train()`` the script prints what RLlib measured: env steps sampled (one step = one
seat's decision), hands finished, then over RLlib's window of the last 100 hands the mean hand length
and the mean return of each seat (a hand's payoff, in session points; the five add up to zero, as in
any self-play of this game), and the policy's entropy. At the end the
shared policy (its most likely legal action) and a uniformly random legal policy each play seat
player_0 of the same seeded hands against four random legal seats, and the script prints both mean
payoffs per hand with a 95% interval.

Needs ``ray[rllib]`` and ``torch`` in an environment of their own, since ray pins its own Gymnasium
version: ``.ci/rllib`` builds one and runs this script's test in it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import ray
import torch
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from briscola_env import raw_env

ENV_NAME = "briscola_chiamata"
POLICY = "shared"
MEASURED_SEAT = "player_0"
SMOOTHING = 100  # RLlib's episode figures are means over a window of this many hands (its default, set here)


class ObservationsKey(BaseWrapper):
    """Renames the observation Dict's ``"observation"`` entry ``"observations"``, the key RLlib's module reads.

    PettingZoo's classic games (and so ``briscola_env``) call it ``"observation"``;
    ``ActionMaskingTorchRLModule`` takes the model's input from ``"observations"`` and the mask from
    ``"action_mask"``, and raises without them. Nothing else changes.
    """

    def __init__(self, env):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict({"observations": inner["observation"], "action_mask": inner["action_mask"]})

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        observed = self.env.observe(agent)
        return {"observations": observed["observation"], "action_mask": observed["action_mask"]}


def make_env(env_config: dict) -> PettingZooEnv:
    """RLlib's env creator: ``raw_env`` (an illegal action raises) with float32 observations."""
    return PettingZooEnv(ObservationsKey(raw_env(obs_dtype="float32", **env_config)))


def build_config(args: argparse.Namespace) -> PPOConfig:
    hidden = [args.hidden] * 2
    return (
        PPOConfig()
        # RLlib's env check steps the env with actions drawn from the whole action space, masks unread:
        # raw_env rightly raises on the first illegal one, so the check cannot pass on a masked game.
        .environment(ENV_NAME, disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY: RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                 model_config={"fcnet_hiddens": hidden, "head_fcnet_hiddens": hidden}),
        }))
        # Sampling in this process: no env-runner actors to start, which matters on a small machine.
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=args.train_batch_size, minibatch_size=args.minibatch_size,
                  num_epochs=args.epochs, lr=args.lr)
        .reporting(metrics_num_episodes_for_smoothing=SMOOTHING)
        .debugging(seed=args.seed)
    )


def report(result: dict, seconds: float) -> str:
    """One line of what RLlib measured in one ``algo.train()``."""
    runners, learner = result["env_runners"], result["learners"][POLICY]
    hands = int(runners.get("num_episodes", 0))
    line = (f"iteration {result['training_iteration']}: {int(runners['num_env_steps_sampled'])} env steps sampled "
            f"({int(result['num_env_steps_sampled_lifetime'])} in all), {hands} hands finished")
    if "agent_episode_returns_mean" in runners:  # absent until a first hand has ended
        returns = runners["agent_episode_returns_mean"]
        seats = " ".join(f"{returns[agent]:+.2f}" for agent in sorted(returns))
        line += (f"; over the last {SMOOTHING} hands at most: {runners['episode_len_mean']:.1f} steps per hand, "
                 f"mean return by seat {seats}")
    return line + f", policy entropy {learner['entropy']:.3f}, {seconds:.1f} s"


def mean_payoff(choose, hands: int, seed: int) -> tuple[float, float]:
    """Mean payoff per hand (and its 95% half-width) of ``choose(obs)`` in seat player_0 among random legal seats."""
    env = raw_env(obs_dtype="float32")
    opponents = np.random.default_rng(seed)
    payoffs = []
    for hand in range(hands):
        env.reset(seed=seed + hand)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == MEASURED_SEAT:
                    payoffs.append(reward)
                action = None
            elif agent == MEASURED_SEAT:
                action = choose(obs)
            else:
                action = int(opponents.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    payoffs = np.asarray(payoffs)
    return float(payoffs.mean()), float(1.96 * payoffs.std(ddof=1) / np.sqrt(len(payoffs)))


def greedy(module):
    """The module's most likely action; its masked logits make every illegal action impossible."""
    def choose(obs) -> int:
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs["observation"][None]),
                               "action_mask": torch.from_numpy(obs["action_mask"][None])}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return int(logits.argmax())
    return choose


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20, help="algo.train() calls")
    parser.add_argument("--train-batch-size", type=int, default=4000, help="env steps sampled per iteration")
    parser.add_argument("--minibatch-size", type=int, default=500, help="PPO's minibatch, in env steps")
    parser.add_argument("--epochs", type=int, default=10, help="passes over each train batch")
    parser.add_argument("--hidden", type=int, default=256, help="width of each of the two hidden layers")
    parser.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    parser.add_argument("--hands", type=int, default=1000, help="hands of the final measurement")
    parser.add_argument("--seed", type=int, default=0, help="seeds RLlib (the env and the models) and the measurement")
    args = parser.parse_args(argv)
    if min(args.iterations, args.train_batch_size, args.minibatch_size, args.epochs, args.hidden) < 1:
        parser.error("--iterations, --train-batch-size, --minibatch-size, --epochs and --hidden must be >= 1")
    if args.minibatch_size > args.train_batch_size:
        parser.error("--minibatch-size must be at most --train-batch-size")
    if args.hands < 2:
        parser.error("--hands must be at least 2")

    register_env(ENV_NAME, make_env)
    # No dashboard: it is a web server of its own, and nothing here reads it.
    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(args).build_algo()
        try:
            for _ in range(args.iterations):
                started = time.perf_counter()
                result = algo.train()
                print(report(result, time.perf_counter() - started), flush=True)
            module = algo.get_module(POLICY)
        finally:
            algo.stop()
    finally:
        ray.shutdown()

    rng = np.random.default_rng(args.seed)
    measured = 10**9 + args.seed  # seeds of their own, not those RLlib's sampling drew its hands from
    trained = mean_payoff(greedy(module), args.hands, measured)
    random = mean_payoff(lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))), args.hands, measured)
    print(f"{MEASURED_SEAT} against random legal x4, {args.hands} hands, mean payoff per hand (95% CI half-width):")
    policy = f"shared PPO policy after {int(result['num_env_steps_sampled_lifetime']):,} env steps:"
    for label, (mean, half_width) in ((policy, trained), ("random legal actions:", random)):
        print(f"  {label:<{len(policy)}} {mean:+.3f} (±{half_width:.3f})")


if __name__ == "__main__":
    main()
