"""The PettingZoo AEC environment (briscola_env.pettingzoo_env): PettingZoo's own
API checks (the parallel one on ``parallel_env``), the registry and the env's name,
spaces and masks, observations and payoffs against the batched engine on the same
deals, rewards, seeding and given deals, illegal actions, rendering and configuration."""

from __future__ import annotations

import contextlib
import io
import random
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import briscola_env
from briscola_env import engine, env, parallel_env, raw_env
from briscola_env.actions import CALL_OFFSET, NUM_ACTIONS, PASS, PLAY_OFFSET, rank_bid
from briscola_env.cards import NUM_SEATS, TOTAL_POINTS
from briscola_env.observation import SPEC, encode
from briscola_env.rules import RulesConfig, preset

AGENTS = [f"player_{s}" for s in range(NUM_SEATS)]
PHASES = briscola_env.PHASE_NAMES
# The two warnings api_test gives any env with Dict observations; nothing else is expected.
KNOWN_DICT_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


# --- helpers ------------------------------------------------------------------------------

def choose(mask: np.ndarray, rng: np.random.Generator, pass_prob: float = 0.5) -> int:
    """A random legal action from a mask: pass with ``pass_prob`` when it is legal (so
    that auctions end at every level and some hands are void), else uniform."""
    legal = np.flatnonzero(mask)
    assert legal.size, "no legal action"
    if mask[PASS] and (legal.size == 1 or rng.random() < pass_prob):
        return PASS
    others = legal[legal != PASS]
    return int(rng.choice(others))


def hands_of_deal(deal: np.ndarray) -> list[list[int]]:
    return [np.flatnonzero(deal == s).tolist() for s in range(NUM_SEATS)]


def seeded_deal(seed: int) -> tuple[list[list[int]], int]:
    deals, dealers = engine.deal_from_seeds(np.array([seed]))
    return hands_of_deal(deals[0]), int(dealers[0])


def diff_sections(a: np.ndarray, b: np.ndarray) -> list[str]:
    return [name for name in SPEC.sections if not np.array_equal(a[SPEC[name]], b[SPEC[name]])]


def play_random_hand(e, rng: np.random.Generator, pass_prob: float = 0.5, max_steps: int = 500):
    """Play one hand through ``e`` (reset already) with the agent_iter/last() protocol.

    Returns the actions taken, the sum of the rewards last() gave each agent, and
    the infos last() gave at each step."""
    actions, totals, infos = [], dict.fromkeys(e.possible_agents, 0.0), []
    for steps, agent in enumerate(e.agent_iter()):
        assert steps < max_steps, "the hand does not end"
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        infos.append((agent, terminated or truncated, dict(info)))
        if terminated or truncated:
            e.step(None)
            continue
        action = choose(obs["action_mask"], rng, pass_prob)
        actions.append(action)
        e.step(action)
    return actions, totals, infos


def replay_in_engine(rules: RulesConfig, deals: np.ndarray, dealers: np.ndarray, sequences: list[list[int]]):
    """The engine state after each game ``b`` plays ``sequences[b]`` from its deal."""
    state = engine.init_from_deals(deals, dealers, rules)
    longest = max(map(len, sequences))
    for t in range(longest):
        active = np.array([t < len(seq) for seq in sequences])
        actions = np.array([seq[t] if t < len(seq) else 0 for seq in sequences], dtype=np.int64)
        state = engine.step(state, actions, active)
    return state


# --- 1. PettingZoo's own checks -----------------------------------------------------------

@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_api_test_passes_with_only_the_known_dict_observation_warnings(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            api_test(make(), num_cycles=1000)
    assert "Passed API test" in out.getvalue()
    messages = [str(w.message) for w in caught]
    assert KNOWN_DICT_WARNINGS <= set(messages), messages  # the filter below is not vacuous
    unexpected = [m for m in messages if m not in KNOWN_DICT_WARNINGS]
    assert unexpected == [], unexpected


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_seed_test_passes(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seed_test(make, num_cycles=500)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_render_test_passes_for_human_and_ansi(make):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        render_test(make, custom_tests={"ansi": lambda text: text.startswith("Briscola Chiamata")})
    assert "Briscola Chiamata" in out.getvalue()  # human mode printed the table


@pytest.mark.parametrize("rules", ["standard", "monte", "four_players", "al_buio"])
def test_parallel_api_test_passes_without_a_warning(rules):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            parallel_api_test(parallel_env(rules=rules), num_cycles=1000)
    assert "Passed Parallel API test" in out.getvalue()
    assert [str(w.message) for w in caught] == []


def test_parallel_env_is_the_wrapped_env_under_the_turn_based_parallel_api():
    par = parallel_env(rules="four_players", illegal_reward=-3.0)
    assert isinstance(par, pettingzoo.ParallelEnv)
    assert par.metadata is par.unwrapped.metadata and par.metadata["is_parallelizable"] is False
    assert par.possible_agents == [f"player_{s}" for s in range(4)]
    observations, _ = par.reset(seed=2)
    acting = next(a for a, o in observations.items() if o["action_mask"].any())
    illegal = int(np.flatnonzero(observations[acting]["action_mask"] == 0)[0])
    _, rewards, terminations, _, _ = par.step({acting: illegal})  # env()'s wrappers: the hand ends, a penalty
    assert rewards[acting] == -3.0 and all(terminations.values())


def test_turn_based_parallel_wrapper_plays_whole_hands():
    rng = np.random.default_rng(11)
    par = parallel_env()
    for seed in range(20):
        observations, infos = par.reset(seed=seed)
        assert set(observations) == set(AGENTS) and set(infos) == set(AGENTS)
        totals = dict.fromkeys(AGENTS, 0.0)
        for steps in range(500):
            if not par.agents:
                break
            # Exactly one agent has a non-zero mask: the one to act (the wrapper's
            # "active_agent" info only appears after the first step).
            acting = [a for a, o in observations.items() if o["action_mask"].any()]
            assert len(acting) == 1, acting
            if steps:
                assert all(info["active_agent"] == acting[0] for info in infos.values())
            action = choose(observations[acting[0]]["action_mask"], rng)
            observations, rewards, terminations, truncations, infos = par.step({acting[0]: action})
            for agent, reward in rewards.items():
                totals[agent] += reward
        else:
            raise AssertionError(f"seed {seed}: the parallel hand does not end")
        assert par.agents == []
        assert all(terminations.values()) and not any(truncations.values())
        game = par.unwrapped.game
        assert game.terminated
        assert [totals[a] for a in AGENTS] == pytest.approx(game.payoffs)


# --- 2. The registry ----------------------------------------------------------------------

def test_the_id_is_the_namespace_and_the_metadata_name_as_in_pettingzoo():
    # PettingZoo's classic games: metadata["name"] "connect_four_v3", registry id "classic/connect_four_v3".
    assert briscola_env.ENV_NAME == "briscola_chiamata_v0" == raw_env.metadata["name"] == env().metadata["name"]
    assert briscola_env.ENV_ID == "briscola/briscola_chiamata_v0"
    assert re.fullmatch(r"[a-z]+/[a-z_]+_v\d+", briscola_env.ENV_ID)


@pytest.mark.skipif(not hasattr(pettingzoo, "aec_registry"), reason="PettingZoo < 1.27 has no registry")
def test_pettingzoo_make_builds_a_working_env_with_a_versioned_id():
    for kind in ("aec", "parallel"):
        spec = pettingzoo.spec(kind, briscola_env.ENV_ID)
        assert (spec.namespace, spec.name, spec.version) == ("briscola", "briscola_chiamata", 0)
    # PettingZoo files name_v0 as name-v0 and finds the env by either, or by its name alone (the latest version).
    filed, unversioned = briscola_env.ENV_ID.replace("_v0", "-v0"), briscola_env.ENV_ID.removesuffix("_v0")
    for spelling in (filed, unversioned):
        assert pettingzoo.spec("aec", spelling) is pettingzoo.spec("aec", briscola_env.ENV_ID)
    e = pettingzoo.make("aec", briscola_env.ENV_ID)
    assert isinstance(e, pettingzoo.AECEnv)
    assert isinstance(e.unwrapped, raw_env)
    e.reset(seed=4)
    actions, totals, _ = play_random_hand(e, np.random.default_rng(4))
    assert actions and e.agents == []
    # Keyword arguments reach the env.
    assert pettingzoo.make("aec", briscola_env.ENV_ID, rules="seven").unwrapped.rules.ten_card == "seven"
    par = pettingzoo.make("parallel", briscola_env.ENV_ID, rules="four_players", reward="points")
    assert isinstance(par, pettingzoo.ParallelEnv) and par.unwrapped.rules.players == 4
    assert par.unwrapped.reward_mode == "points" and len(par.reset(seed=1)[0]) == 4


@pytest.mark.skipif(not hasattr(pettingzoo, "aec_registry"), reason="PettingZoo < 1.27 has no registry")
def test_registering_again_keeps_the_registered_specs_without_a_warning():
    specs = pettingzoo.spec("aec", briscola_env.ENV_ID), pettingzoo.spec("parallel", briscola_env.ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        briscola_env._register()  # as a reloaded module does
    assert (pettingzoo.spec("aec", briscola_env.ENV_ID), pettingzoo.spec("parallel", briscola_env.ENV_ID)) == specs


# --- 3. Spaces and metadata ---------------------------------------------------------------

@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_spaces_are_shared_typed_and_contain_the_observations(make):
    e = make()
    assert e.possible_agents == AGENTS
    e.reset(seed=0)
    assert e.agents == AGENTS
    obs_space, act_space = e.observation_space("player_0"), e.action_space("player_0")
    for a in AGENTS:
        assert e.observation_space(a) is obs_space
        assert e.action_space(a) is act_space
    assert act_space.n == NUM_ACTIONS
    box, mask_space = obs_space["observation"], obs_space["action_mask"]
    assert box.shape == SPEC.shape and box.dtype == SPEC.dtype == np.uint8
    assert mask_space.shape == (NUM_ACTIONS,) and mask_space.dtype == np.int8
    assert np.array_equal(box.high, SPEC.high) and (box.low == 0).all()

    meta = e.metadata
    assert meta["name"] == briscola_env.ENV_NAME
    assert meta["render_modes"] == ["human", "ansi"]
    assert meta["is_parallelizable"] is False

    rng = np.random.default_rng(3)
    for steps in range(500):
        for a in AGENTS:
            o = e.observe(a)
            assert set(o) == {"observation", "action_mask"}
            assert o["observation"].dtype == box.dtype and o["action_mask"].dtype == mask_space.dtype
            assert o["observation"].shape == box.shape and o["action_mask"].shape == mask_space.shape
            assert obs_space.contains(o), (a, steps)
        if all(e.terminations.values()):
            break
        e.step(choose(e.observe(e.agent_selection)["action_mask"], rng))
    assert all(e.terminations.values())


# --- 4. Masks and observations against the batched engine -----------------------------------

@pytest.mark.parametrize("rules_name", ["standard", "follow_suit_endgame", "lenient", "al_buio"])
def test_masks_and_observations_match_the_batched_engine_in_lock_step(rules_name):
    rules = preset(rules_name)
    n_games = 200
    rng = np.random.default_rng(1234 + len(rules_name))
    envs, deals, dealers = [], [], []
    for b in range(n_games):
        e = raw_env(rules=rules_name)
        seed = 7919 * b + len(rules_name)
        if b % 2:  # half the games by seed (the env's own deal), half by a given deal
            e.reset(seed=seed)
            hands, dealer = [sorted(h) for h in e.game.hands], e.game.dealer
        else:
            hands, dealer = seeded_deal(seed)
            e.reset(options={"hands": hands, "dealer": dealer})
        envs.append(e)
        deals.append(engine.hands_to_deal(hands))
        dealers.append(dealer)
    state = engine.init_from_deals(np.stack(deals), np.array(dealers), rules)
    assert np.array_equal(state.dealer, dealers)
    pass_prob = np.where(np.arange(n_games) % 3 == 0, 0.8, 0.35)  # short and long auctions

    finished = np.zeros(n_games, dtype=bool)
    checked_steps = 0
    while not finished.all():
        views = [encode(state, np.full(n_games, s)) for s in range(NUM_SEATS)]
        mask = state.legal_action_mask
        actions = np.zeros(n_games, dtype=np.int64)
        for b, e in enumerate(envs):
            if finished[b]:
                continue
            where = f"{rules_name} game {b}, step {len(e.game.auction) + len(sum(e.game.tricks, []))}"
            assert e.game.terminated == bool(state.terminated[b]), where
            assert all(e.terminations[a] == bool(state.terminated[b]) for a in AGENTS), where
            assert e.game.phase == state.phase[b], where
            for s, a in enumerate(AGENTS):
                o = e.observe(a)
                if not state.terminated[b] and s == state.current_player[b]:
                    assert e.agent_selection == a, where
                    assert np.array_equal(o["action_mask"], mask[b].astype(np.int8)), where
                    assert np.flatnonzero(o["action_mask"]).tolist() == e.game.legal_actions(), where
                else:
                    assert not o["action_mask"].any(), f"{where}: {a} is not to act but has a mask"
                if not np.array_equal(o["observation"], views[s][b]):
                    raise AssertionError(f"{where}, seat {s} ({PHASES[e.game.phase]}): sections "
                                         f"{diff_sections(o['observation'], views[s][b])} differ from encode()")
            checked_steps += 1
            if state.terminated[b]:
                finished[b] = True  # the final observations were checked once
                continue
            actions[b] = choose(e.observe(e.agent_selection)["action_mask"], rng, pass_prob[b])
            e.step(int(actions[b]))
        live = ~state.terminated
        if live.any():
            state = engine.step(state, actions, live)
    assert checked_steps > 20 * n_games
    voids = {e.game.void for e in envs}
    # "lenient" forces the last player to bid: no void hands there.
    assert voids == ({False} if rules.all_pass == "last_forced" else {True, False}), voids


# --- 5. Whole hands: payoffs, rewards, terminations, infos -----------------------------------

@pytest.mark.parametrize("rules_name", ["standard", "points_only", "equal_partner", "al_buio"])
def test_random_hands_pay_as_the_batched_engine(rules_name):
    rules = preset(rules_name)
    n_games = 150
    rng = np.random.default_rng(99 + len(rules_name))
    seeds = np.arange(n_games) * 31 + 5 + len(rules_name)
    deals, dealers = engine.deal_from_seeds(seeds)
    sequences, results = [], []
    e = env(rules=rules)
    for b in range(n_games):
        e.reset(options={"hands": hands_of_deal(deals[b]), "dealer": int(dealers[b])})
        assert e.agent_selection == AGENTS[(int(dealers[b]) + 1) % NUM_SEATS]
        raw = e.unwrapped
        actions, totals = [], dict.fromkeys(AGENTS, 0.0)
        cumulative_at_end = None
        for steps, agent in enumerate(e.agent_iter()):
            assert steps < 500
            obs, reward, terminated, truncated, info = e.last()
            assert info["phase"] == raw.game.phase and PHASES[info["phase"]] in ("auction", "call", "play", "done")
            assert all(e.infos[a]["phase"] == raw.game.phase for a in e.agents)
            totals[agent] += reward
            if terminated or truncated:
                assert terminated and not truncated
                if cumulative_at_end is None:
                    cumulative_at_end = dict(raw._cumulative_rewards)
                    assert len(cumulative_at_end) == NUM_SEATS
                    assert all(e.terminations.values()) and not any(e.truncations.values())
                    assert all(e.infos[a]["phase"] == engine.Phase.DONE for a in AGENTS)
                    results.append({a: dict(e.infos[a]) for a in AGENTS})
                e.step(None)
                continue
            assert info["caller"] == -1 and not info["payoffs"].any()  # no outcome before the end
            action = choose(obs["action_mask"], rng, 0.35 if b % 2 else 0.7)
            actions.append(action)
            e.step(action)
        assert e.agents == []
        sequences.append(actions)
        results[-1]["totals"] = totals
        results[-1]["cumulative"] = cumulative_at_end

    state = replay_in_engine(rules, deals, dealers, sequences)
    assert state.terminated.all()
    voids = 0
    for b, res in enumerate(results):
        payoffs = state.rewards[b].tolist()
        assert [res["totals"][a] for a in AGENTS] == pytest.approx(payoffs), b
        assert [res["cumulative"][a] for a in AGENTS] == pytest.approx(payoffs), b
        outcome = res["player_0"]
        for a in AGENTS:
            assert res[a]["payoffs"] is not outcome["payoffs"] or a == "player_0"
            assert {k: v for k, v in res[a].items() if k != "payoffs"} == \
                {k: v for k, v in outcome.items() if k != "payoffs"}
            assert res[a]["payoffs"].tolist() == pytest.approx(payoffs)
        assert outcome["void"] == (state.caller[b] < 0)
        if outcome["void"]:
            voids += 1
            assert payoffs == [0.0] * NUM_SEATS
            assert (outcome["caller"], outcome["partner"], outcome["team_points"], outcome["made"],
                    outcome["multiplier"]) == (-1, -1, -1, False, 0)
            continue
        assert outcome["caller"] == state.caller[b]
        assert outcome["partner"] == state.hidden.partner[b]
        assert outcome["team_points"] == state.team_points[b]
        assert outcome["made"] == bool(state.contract_made[b])
        assert outcome["multiplier"] == state.multiplier[b]
        for key in ("caller", "partner", "team_points", "multiplier"):
            assert type(outcome[key]) is int, (key, type(outcome[key]))
        assert type(outcome["made"]) is bool
    assert 0 < voids < n_games // 2, voids  # void and played hands both occur


def test_a_deliberate_all_pass_hand_is_void():
    e = env()  # standard rules: all pass voids the hand
    hands, dealer = seeded_deal(17)
    e.reset(options={"hands": hands, "dealer": dealer})
    for i in range(NUM_SEATS):
        agent = e.agent_selection
        assert agent == AGENTS[(dealer + 1 + i) % NUM_SEATS]
        assert e.last()[0]["action_mask"][PASS] == 1
        e.step(PASS)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.unwrapped.game.void
    for a in AGENTS:
        assert e.infos[a]["phase"] == engine.Phase.DONE
        assert e.infos[a]["void"] and e.infos[a]["caller"] == -1
        assert e.unwrapped._cumulative_rewards[a] == 0
        assert not e.observe(a)["action_mask"].any()
    seen = []
    for agent in e.agent_iter():
        _, reward, terminated, _, info = e.last()
        assert terminated and reward == 0 and info["void"]
        seen.append(agent)
        e.step(None)
    assert sorted(seen) == AGENTS and e.agents == []


# --- 6. Reward options ----------------------------------------------------------------------

def test_reward_modes_points_and_win_loss():
    rng = np.random.default_rng(6)
    checked = {"played": 0, "void": 0, "made": 0, "failed": 0}
    for g in range(60):
        hands, dealer = seeded_deal(500 + g)
        envs = {mode: raw_env(reward=mode) for mode in ("payoff", "points", "win_loss")}
        for e in envs.values():
            e.reset(options={"hands": hands, "dealer": dealer})
        base = envs["payoff"]
        while not base.game.terminated:
            action = choose(base.observe(base.agent_selection)["action_mask"], rng, 0.3 if g % 4 else 0.9)
            for e in envs.values():
                e.step(action)
        game = base.game
        got = {mode: [e._cumulative_rewards[a] for a in AGENTS] for mode, e in envs.items()}
        assert got["payoff"] == pytest.approx(game.payoffs)
        if game.void:
            checked["void"] += 1
            assert got["points"] == [0.0] * NUM_SEATS and got["win_loss"] == [0.0] * NUM_SEATS
            continue
        checked["played"] += 1
        checked["made" if game.made else "failed"] += 1
        side = {game.caller, game.partner}
        side_points = sum(game.captured_points[s] for s in side)
        defender_points = sum(game.captured_points[s] for s in range(NUM_SEATS) if s not in side)
        assert side_points + defender_points == TOTAL_POINTS
        sign = 1.0 if game.made else -1.0
        for s in range(NUM_SEATS):
            mine = side_points if s in side else defender_points
            assert got["points"][s] == pytest.approx(mine / TOTAL_POINTS), (g, s)
            assert got["win_loss"][s] == (sign if s in side else -sign), (g, s)
    assert checked["played"] and checked["void"] and checked["made"] and checked["failed"], checked


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_unknown_reward_mode_raises(make):
    with pytest.raises(ValueError, match="elo"):
        make(reward="elo")


# --- 7. Seeding, given deals, global random state --------------------------------------------

def trajectory(e, seed: int, policy_seed: int) -> list:
    e.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    hands = [sorted(h) for h in e.unwrapped.game.hands]
    record = [hands, e.unwrapped.game.dealer]
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        record.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward,
                       terminated, truncated, repr(info)))
        action = None if terminated or truncated else choose(obs["action_mask"], rng)
        record.append(action)
        e.step(action)
    return record


def test_same_seed_same_game_different_seeds_different_deals():
    first = trajectory(env(), seed=123, policy_seed=9)
    e = env()
    e.reset(seed=5)  # history before the seeded reset must not matter
    assert trajectory(e, seed=123, policy_seed=9) == first
    assert len(first) > 20

    deals = set()
    for seed in range(12):
        e.reset(seed=seed)
        deals.add((tuple(tuple(sorted(h)) for h in e.unwrapped.game.hands), e.unwrapped.game.dealer))
    assert len(deals) == 12
    # Unseeded resets go on from the seeded generator: reproducible too, and new deals.
    a, b = raw_env(), raw_env()
    a.reset(seed=77)
    b.reset(seed=77)
    for _ in range(3):
        a.reset()
        b.reset()
        assert a.game.hands == b.game.hands and a.game.dealer == b.game.dealer
    a.reset(seed=77)
    b.reset()
    assert a.game.hands != b.game.hands


def test_reset_and_play_leave_the_global_random_state_alone():
    np.random.seed(2024)
    random.seed(2024)
    np_before, py_before = np.random.get_state(), random.getstate()
    e = env()
    e.reset(seed=1)
    e.reset()
    play_random_hand(e, np.random.default_rng(0))
    e.reset(seed=2)
    hands, dealer = seeded_deal(3)
    e.reset(options={"hands": hands, "dealer": dealer})
    np_after, py_after = np.random.get_state(), random.getstate()
    assert py_after == py_before
    assert np_after[0] == np_before[0] and np.array_equal(np_after[1], np_before[1])
    assert np_after[2:] == np_before[2:]


def test_rules_are_kept_across_resets():
    e = env(call_rule="at_least")
    rules = e.unwrapped.rules
    assert rules.call_rule == "at_least"
    hands, dealer = seeded_deal(8)
    for kwargs in ({"seed": 1}, {}, {"options": {"hands": hands, "dealer": dealer}}, {"seed": 2}, {}):
        e.reset(**kwargs)
        assert e.unwrapped.rules is rules
        assert e.unwrapped.game.rules.call_rule == "at_least"
        play_random_hand(e, np.random.default_rng(len(kwargs)))
    assert e.unwrapped.rules == RulesConfig(call_rule="at_least")


def test_options_hands_play_exactly_that_deal():
    for dealer in range(NUM_SEATS):
        hands, _ = seeded_deal(40 + dealer)
        e = env()
        e.reset(seed=3, options={"hands": hands, "dealer": dealer})  # a given deal wins over the seed
        game = e.unwrapped.game
        assert game.hands == [set(h) for h in hands]
        assert game.dealer == dealer
        assert e.agent_selection == AGENTS[(dealer + 1) % NUM_SEATS]
        own = e.observe(AGENTS[2])["observation"]
        assert np.flatnonzero(own[SPEC["hand"]]).tolist() == sorted(hands[2])
    # Other option keys are ignored, as Gymnasium's reset does; numpy ints are accepted.
    hands, _ = seeded_deal(50)
    e = raw_env()
    e.reset(options={"hands": [np.array(h) for h in hands], "dealer": np.int64(4), "other": 1})
    assert e.game.hands == [set(h) for h in hands] and e.agent_selection == "player_0"


def _bad_deals():
    hands, _ = seeded_deal(60)
    duplicated = [h[:] for h in hands]
    duplicated[1][0] = hands[0][0]  # a card twice, another nowhere
    seven = [h[:] for h in hands]
    seven[4] = seven[4][:7]  # a hand of 7, a card dealt to nobody
    nine = [h[:] for h in hands]
    nine[0] = nine[0] + [nine[1].pop()]  # 9 and 7 cards: a partition, but not 8 each
    four = [h[:] for h in hands[:4]]
    out_of_range = [h[:] for h in hands]
    out_of_range[2][0] = 40
    return {
        "duplicated": (duplicated, 0, r"dealt twice"),
        "hand_of_7": (seven, 0, r"dealt to nobody"),
        "nine_and_seven": (nine, 0, r"each needs 8"),
        "four_hands": (four, 0, r"five hands"),
        "not_a_card": (out_of_range, 0, r"not a card id"),
        "dealer_5": (hands, 5, r"dealer.*must be a seat 0..4; got 5"),
        "dealer_-1": (hands, -1, r"dealer.*must be a seat 0..4; got -1"),
    }


@pytest.mark.parametrize("case", list(_bad_deals()))
def test_bad_given_deal_or_dealer_raises_value_error(case):
    hands, dealer, message = _bad_deals()[case]
    e = raw_env()
    with pytest.raises(ValueError, match=message):
        e.reset(options={"hands": hands, "dealer": dealer})


@pytest.mark.parametrize("case", ["render_view", "dealer"])
def test_a_bool_is_not_accepted_as_a_seat(case):
    hands, _ = seeded_deal(62)
    with pytest.raises(ValueError):
        if case == "render_view":
            raw_env(render_view=True)
        else:
            raw_env().reset(options={"hands": hands, "dealer": True})


def test_given_hands_without_a_dealer_raise_value_error():
    hands, _ = seeded_deal(61)
    with pytest.raises(ValueError, match="dealer"):
        raw_env().reset(options={"hands": hands})


# --- 8. Illegal actions -----------------------------------------------------------------------

def test_raw_env_illegal_action_raises_naming_it_and_the_legal_ones():
    e = raw_env()
    hands, _ = seeded_deal(70)
    e.reset(options={"hands": hands, "dealer": 4})
    agent = e.agent_selection
    assert agent == "player_0"
    with pytest.raises(ValueError) as info:
        e.step(PLAY_OFFSET + 10)  # play the Asso di Denari during the auction
    text = str(info.value)
    assert "play A♦" in text and "player_0" in text and "auction" in text
    assert "legal actions: pass, bid A, bid 3" in text and "bid 2" in text
    assert e.agent_selection == agent and e.game.auction == []  # nothing happened
    for bad in (None, "pass", 1.0, True, NUM_ACTIONS, -1):
        with pytest.raises(ValueError, match="illegal action"):
            e.step(bad)
    e.step(np.int64(rank_bid(1)))  # numpy ints are fine
    assert e.game.high_bid == rank_bid(1)
    with pytest.raises(ValueError, match=r"illegal action 1 \('bid A'\).*legal actions: pass, bid 3"):
        e.step(rank_bid(1))  # a bid must be weaker than the standing one


@pytest.mark.parametrize("illegal_reward", [None, -5.0])
def test_env_illegal_action_ends_the_hand_with_a_penalty(illegal_reward):
    kwargs = {} if illegal_reward is None else {"illegal_reward": illegal_reward}
    penalty = -1.0 if illegal_reward is None else illegal_reward
    e = env(**kwargs)
    hands, _ = seeded_deal(71)
    e.reset(options={"hands": hands, "dealer": 1})
    e.step(PASS)  # player_2 passes
    offender = e.agent_selection
    assert offender == "player_3"
    e.step(CALL_OFFSET + 5)  # a call during the auction
    assert all(e.terminations[a] or e.truncations[a] for a in AGENTS)
    expected = {a: (penalty if a == offender else 0.0) for a in AGENTS}
    assert e.unwrapped._cumulative_rewards == expected
    seen = {}
    for agent in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        assert terminated or truncated
        seen[agent] = reward
        e.step(None)
    assert seen == expected and e.agents == []


# --- 9. Rendering ----------------------------------------------------------------------------

# A scripted hand: dealer 4, so player_0 speaks first, bids the Asso and calls the
# Asso di Coppe (card 0), which player_3 holds; the others pass.
SCRIPT_HANDS = [
    [10, 11, 12, 13, 14, 15, 16, 17],   # player_0: A♦ .. F♦
    [1, 2, 3, 4, 5, 6, 7, 8],           # player_1
    [18, 19, 20, 21, 22, 23, 24, 25],   # player_2
    [0, 9, 26, 27, 28, 29, 30, 31],     # player_3: holds A♥, the Asso di Coppe
    [32, 33, 34, 35, 36, 37, 38, 39],   # player_4
]


def scripted(e):
    e.reset(options={"hands": SCRIPT_HANDS, "dealer": 4})
    e.step(rank_bid(1))
    for _ in range(4):
        e.step(PASS)
    e.step(CALL_OFFSET + 0)
    return e


def play_until(e, done):
    """Play the lowest legal card until ``done(game)``."""
    while not done(e.unwrapped.game):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))


def test_ansi_render_shows_auction_call_tricks_and_points():
    e = scripted(raw_env(render_mode="ansi"))
    text = e.render()
    assert isinstance(text, str)
    assert "Auction: player_0 bid A, player_1 pass, player_2 pass, player_3 pass, player_4 pass" in text
    assert "Call: player_0 calls A♥ (Asso di Coppe); trump Coppe; partner player_3" in text
    hand_lines = [line for line in text.splitlines() if line.startswith("  player_")]
    assert len(hand_lines) == NUM_SEATS  # omniscient: every hand shown
    assert "A♦" in hand_lines[0] and "A♥" in hand_lines[3] and "cards)" not in text
    play_until(e, lambda g: len(g.trick_winners) >= 2)
    text = e.render()
    assert re.search(r"^Trick 1: player_\d .*-> player_\d takes \d+$", text, re.M), text
    assert re.search(r"^Trick 2: ", text, re.M)
    assert re.search(r"^Points: player_0 \d+ \| player_1 \d+", text, re.M)
    play_until(e, lambda g: g.terminated)
    assert "Result: contract" in e.render()

    english = scripted(raw_env(render_mode="ansi", lang="en")).render()
    assert "(Ace of Hearts); trump Hearts" in english and "Asso di Coppe" not in english


def test_seat_view_hides_the_others_hands_and_the_partner_until_revealed():
    e = scripted(raw_env(render_mode="ansi", render_view=2))
    text = e.render()
    hand_lines = {line.split()[0]: line for line in text.splitlines() if line.startswith("  player_")}
    assert "cards)" not in hand_lines["player_2"] and "A♣" in hand_lines["player_2"]
    for other in ("player_0", "player_1", "player_3", "player_4"):
        assert hand_lines[other].split() == [other, "(8", "cards)"]
    assert "partner secret" in text and "partner player_3" not in text
    # The partner sees himself named.
    assert "partner player_3" in scripted(raw_env(render_mode="ansi", render_view=3)).render()
    # Once the Asso di Coppe is played, everybody sees the partner.
    while 0 in e.game.hands[3]:
        seat = e.game.current_player
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(PLAY_OFFSET + 0 if seat == 3 and PLAY_OFFSET + 0 in legal else int(legal[0]))
    assert e.game.partner_revealed
    assert "partner player_3" in e.render() and "secret" not in e.render()


def test_human_render_prints_the_ansi_text(capsys):
    human = scripted(raw_env(render_mode="human"))
    ansi = scripted(raw_env(render_mode="ansi"))
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out == ansi.render() + "\n"
    # Each step prints the table in human mode.
    action = int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0])
    human.step(action)
    ansi.step(action)
    assert capsys.readouterr().out == ansi.render() + "\n"


@pytest.mark.parametrize("kwargs, word", [
    ({"render_mode": "rgb_array"}, "render_mode"),
    ({"render_mode": "ANSI"}, "render_mode"),
    ({"render_view": 5}, "render_view"),
    ({"render_view": -1}, "render_view"),
    ({"render_view": "seat 2"}, "render_view"),
    ({"lang": "fr"}, "lang"),
])
def test_bad_render_options_raise_value_error(kwargs, word):
    with pytest.raises(ValueError, match=word):
        raw_env(**kwargs)
    with pytest.raises(ValueError, match=word):
        env(**kwargs)


# --- 10. Configuration -----------------------------------------------------------------------

def test_rules_configuration_keywords():
    assert raw_env(rules="seven").rules == preset("seven")
    assert raw_env(call_rule="at_least").rules == RulesConfig(call_rule="at_least")
    assert raw_env().rules == RulesConfig()
    built = raw_env(rules=RulesConfig(ten_card="seven", follow_suit=True), target=60).rules
    assert built == RulesConfig(ten_card="seven", follow_suit=True, target=60)
    assert raw_env(rules="at_least", target=60).rules == preset("at_least", target=60)
    # Each config plays.
    for e in (env(rules="seven"), env(call_rule="at_least"), env(rules=RulesConfig(first_leader="caller"), target=60)):
        e.reset(seed=1)
        play_random_hand(e, np.random.default_rng(1))
        assert e.agents == []


@pytest.mark.parametrize("kwargs, word", [
    ({"colour": "red"}, "colour"),
    ({"rules": "seven", "trumps": 2}, "trumps"),
    ({"rules": RulesConfig(), "max_cycles": 100}, "max_cycles"),
    ({"rules": "eight"}, "eight"),
    ({"call_rule": "whatever"}, "call_rule"),
])
def test_unknown_or_bad_rules_keywords_raise_value_error_naming_them(kwargs, word):
    with pytest.raises(ValueError, match=word):
        raw_env(**kwargs)
    with pytest.raises(ValueError, match=word):
        env(**kwargs)
