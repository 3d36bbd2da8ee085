"""The observation: its documented layout, what it shows, and that it shows
nothing a player could not know (the information-hiding tests)."""

import numpy as np
import pytest

import briscola_env.observation as observation
from briscola_env import engine
from briscola_env.cards import NUM_CARDS, NUM_SEATS
from briscola_env.engine import Phase
from briscola_env.engine.bits import CARD_BIT
from briscola_env.observation import PRIVILEGED_SPEC, SPEC, encode, encode_privileged
from briscola_env.rules import RulesConfig, preset
from support import random_actions

CONFIGS = {"standard": RulesConfig(), "follow_suit_endgame": preset("follow_suit_endgame"),
           "no_self_call": preset("no_self_call"), "points_only": preset("points_only"), "al_buio": preset("al_buio"),
           "monte": preset("monte")}


def snapshots(rules, n_games: int, seed: int):
    """Random games stopped after a random number of steps: states at every phase."""
    rng = np.random.default_rng(seed)
    state = engine.init(np.arange(n_games) + 1000 * seed, rules)
    stop = rng.integers(0, 60, n_games)
    for t in range(60):
        active = (t < stop) & ~state.terminated
        if not active.any():
            break
        actions = random_actions(state.legal_action_mask, rng, pass_prob=0.6)
        state = engine.step(state, np.where(active, actions, -1), active)
    return state


def hands_of(state, b):
    return [[c for c in range(NUM_CARDS) if state.hidden.hand_bits[b, s] >> np.uint64(c) & np.uint64(1)]
            for s in range(NUM_SEATS)]


def set_hands(state, b, hands):
    for s, hand in enumerate(hands):
        state.hidden.hand_bits[b, s] = sum((CARD_BIT[c] for c in hand), np.uint64(0))
    holder = [s for s in range(NUM_SEATS) if state.called_card[b] in hands[s]]
    if state.called_card[b] >= 0 and holder:  # not played yet: the partner is who holds it now
        state.hidden.partner[b] = holder[0]


def face_down_pile(state, b, observer) -> int:
    """The face-down cards (a card set) ``observer`` does not see in game ``b``: with a monte, the monte
    until the auction is won, then the caller's discards, to all but the caller until the end."""
    if state.hidden.monte is None or state.phase[b] == Phase.DONE or state.caller[b] == observer:
        return 0
    return int(state.hidden.monte[b] if state.caller[b] < 0 else state.hidden.discards[b])


def put_face_down(state, b, pile):
    """Make ``pile`` (card ids) the face-down cards of game ``b`` that :func:`face_down_pile` names."""
    bits = np.uint64(sum(1 << int(c) for c in pile))
    if state.caller[b] < 0:
        state.hidden.monte[b] = bits
        return
    state.hidden.discards[b] = bits
    if state.called_card[b] >= 0 and int(bits) >> int(state.called_card[b]) & 1:
        state.hidden.partner[b] = state.caller[b]  # a discarded card called: his own, a solo


def test_layout_table_is_the_module_docstring():
    assert SPEC.table() in observation.__doc__
    assert SPEC.size == sum(s.size for s in SPEC.sections.values()) == SPEC.shape[0]
    assert observation.HISTORY.stop == SPEC.size


def test_scale_brings_every_entry_into_unit_range():
    state = snapshots(RulesConfig(), 500, seed=1)
    obs = encode(state, np.zeros(500, dtype=np.int64))
    assert obs.dtype == np.uint8 and (obs <= SPEC.high).all()
    scaled = obs * SPEC.scale
    assert scaled.max() <= 1 and scaled.min() >= 0 and SPEC.scale[SPEC["captured_points"]][0] == 1 / 120


@pytest.mark.parametrize("name", list(CONFIGS))
def test_observation_is_unchanged_when_unseen_cards_are_redealt(name):
    """Re-deal every card the observer cannot see among the other seats (the
    called card too, while unplayed: the partner moves with it) and, with a
    monte, the face-down cards he does not see (the monte before the auction
    ends, the caller's discards after, to all but the caller until the end).
    His view must stay byte-identical, at every phase."""
    rules = CONFIGS[name]
    rng = np.random.default_rng(7)
    state = snapshots(rules, 600, seed=2)
    phases = set(state.phase.tolist())
    assert {Phase.AUCTION, Phase.CALL, Phase.PLAY, Phase.DONE} <= phases, f"want states at every phase, got {phases}"
    changed = 0
    for observer in range(NUM_SEATS):
        seats = np.full(state.batch_size, observer)
        redealt = state.copy()
        for b in range(state.batch_size):
            hands = hands_of(state, b)
            others = [s for s in range(NUM_SEATS) if s != observer]
            pile = face_down_pile(state, b, observer)
            pool = [c for s in others for c in hands[s]] + [c for c in range(NUM_CARDS) if pile >> c & 1]
            rng.shuffle(pool)
            for s in others:
                hands[s], pool = pool[:len(hands[s])], pool[len(hands[s]):]
            set_hands(redealt, b, hands)
            if pile:
                put_face_down(redealt, b, pool)
        changed += int((redealt.hidden.hand_bits != state.hidden.hand_bits).any(axis=1).sum())
        assert np.array_equal(encode(state, seats), encode(redealt, seats))
        acting = state.current_player == observer
        assert np.array_equal(state.legal_action_mask[acting], redealt.legal_action_mask[acting])
    assert changed > 2000, "the re-deals must actually move cards"


def test_partner_seat_is_invisible_to_defenders_and_caller_before_the_called_card_is_played():
    rng = np.random.default_rng(3)
    state = snapshots(RulesConfig(), 2000, seed=3)
    held = state.hidden.hand_bits.copy()
    hidden_partner = [b for b in range(state.batch_size)
                      if state.phase[b] == Phase.PLAY and not state.partner_revealed[b]
                      and state.hidden.partner[b] != state.caller[b]]
    assert len(hidden_partner) > 300
    checked = 0
    for observer in range(NUM_SEATS):
        moved = state.copy()
        games = []
        for b in hidden_partner:
            partner = state.hidden.partner[b]
            if observer == partner:
                continue  # the partner knows: it is his own card
            hands = hands_of(state, b)
            q = rng.choice([s for s in range(NUM_SEATS) if s not in (observer, partner) and hands[s]])
            swap = hands[q][rng.integers(len(hands[q]))]
            called = state.called_card[b]
            hands[partner] = [swap if c == called else c for c in hands[partner]]
            hands[q] = [called if c == swap else c for c in hands[q]]
            set_hands(moved, b, hands)
            assert moved.hidden.partner[b] == q
            games.append(b)
        games = np.array(games)
        seats = np.full(len(games), observer)
        assert np.array_equal(encode(state.take(games), seats), encode(moved.take(games), seats))
        checked += len(games)
    assert checked > 1000 and (state.hidden.hand_bits == held).all()


def test_sections_show_what_the_player_knows():
    state = snapshots(RulesConfig(), 800, seed=4)
    rng = np.random.default_rng(4)
    me = rng.integers(0, NUM_SEATS, state.batch_size)
    obs = encode(state, me)
    view = lambda name: SPEC.view(obs, name)  # noqa: E731
    hands = state.hidden.hands
    rows = np.arange(state.batch_size)
    rel = lambda seat: (seat - me) % NUM_SEATS  # noqa: E731
    assert np.array_equal(view("hand"), hands[rows, me])
    others = hands.any(axis=1) & ~hands[rows, me]
    assert np.array_equal(view("unseen"), others)
    assert np.array_equal(view("phase").argmax(1), state.phase)
    assert np.array_equal(view("dealer").argmax(1), rel(state.dealer))
    live = state.current_player >= 0
    assert np.array_equal(view("to_act")[live].argmax(1), rel(state.current_player)[live])
    assert not view("to_act")[~live].any()
    called = state.called_card >= 0
    assert np.array_equal(view("caller")[called].argmax(1), rel(state.caller)[called])
    assert not view("caller")[~called].any()
    assert np.array_equal(view("called_card")[called].argmax(1), state.called_card[called])
    played = state.trick_cards.reshape(state.batch_size, -1)
    n_played = (played >= 0).sum(1)
    assert np.array_equal(view("played_by").sum((1, 2)), n_played)
    assert np.array_equal(view("played_in_trick").sum((1, 2)), n_played)
    revealed = state.partner_revealed
    assert np.array_equal(view("partner_revealed")[:, 0], revealed)
    assert np.array_equal(view("partner")[revealed].argmax(1), rel(state.hidden.partner)[revealed])
    assert not view("partner")[~revealed].any()
    assert np.array_equal(view("captured_points").sum(1), state.captured_points.sum(1))
    assert np.array_equal(view("auction_bids").sum((1, 2)) + view("auction_passes").sum((1, 2)),
                          state.auction_length)


def test_privileged_view_holds_every_hand_and_the_partner():
    state = snapshots(RulesConfig(), 300, seed=5)
    me = np.full(state.batch_size, 2)
    priv = encode_privileged(state, me)
    hands = PRIVILEGED_SPEC.view(priv, "hands")
    assert np.array_equal(hands[:, 0], state.hidden.hands[:, 2])
    assert np.array_equal(hands[:, 1], state.hidden.hands[:, 3])
    known = state.hidden.partner >= 0
    assert np.array_equal(PRIVILEGED_SPEC.view(priv, "partner")[known].argmax(1),
                          (state.hidden.partner[known] - 2) % NUM_SEATS)
    assert PRIVILEGED_SPEC.size < SPEC.size and "hands" not in SPEC.sections


def test_encode_rejects_bad_seats_and_buffers():
    state = engine.init(np.arange(4))
    with pytest.raises(ValueError, match="seats"):
        encode(state, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="seats"):
        encode(state, np.array([0, 1, 2, 5]))
    with pytest.raises(ValueError, match="out must be"):
        encode(state, np.zeros(4, dtype=np.int64), out=np.zeros((4, SPEC.size), dtype=np.float32))
    out = np.zeros((4, SPEC.size), dtype=np.uint8)
    assert encode(state, np.zeros(4, dtype=np.int64), out=out) is out
