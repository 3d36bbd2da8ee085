// The Briscola Chiamata table: draws the views the server sends and sends the clicks back.
// The server holds the game and decides every rule; this page only shows what it is told,
// always as text (never as HTML: names in a record file may hold anything).
"use strict";

const SEATS = 5;
const TRICK_PAUSE_MS = 2500;  // how long the trick you completed stays on the felt, unless you go on sooner
const TURN_WORDS = {auction: "to bid", call: "to call", play: "to play"};
const $ = (selector) => document.querySelector(selector);
const state = {mode: "play", view: null, config: null, running: false, upload: null, pending: 0, heldTrick: null};

// body[data-busy] is "1" while any request (or a mode being entered) is under way, and body[data-answers]
// counts the answers drawn: the tests wait on them.
function busy(change) {
  state.pending += change;
  document.body.dataset.busy = state.pending > 0 ? "1" : "0";
  if (change < 0) document.body.dataset.answers = Number(document.body.dataset.answers || 0) + 1;
}

// --- talking to the server ---------------------------------------------------------------

async function api(method, path, body) {
  busy(+1);
  try {
    const options = {method, headers: {}};
    if (method === "POST") {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body || {});
    }
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
    return {ok: response.ok, status: response.status, data};
  } catch (error) {
    return {ok: false, status: 0, data: {error: `cannot reach the server: ${error.message}`}};
  } finally {
    busy(-1);
  }
}

// Send a request whose answer is a view of the current mode: draw it, or show the refusal.
async function send(path, body) {
  const answer = await api("POST", path, body);
  if (answer.ok) {
    clearMessage();
    show(answer.data);
  } else {
    showMessage(answer.data.error || `refused (${answer.status})`);
  }
  return answer;
}

function showMessage(text) {
  const box = $("#message");
  box.textContent = text;
  box.hidden = false;
}

function clearMessage() {
  $("#message").hidden = true;
  $("#message").textContent = "";
}

// --- drawing -----------------------------------------------------------------------------

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function cardNode(card, options = {}) {
  const node = element(options.move ? "button" : "div", `card${card.red ? " red" : ""}${options.size ? " " + options.size : ""}`);
  node.dataset.card = card.text;
  node.title = `${card.name}${card.points ? `, ${card.points} points` : ""}`;
  if (options.move) {
    node.type = "button";
    node.dataset.move = options.move;
    node.classList.add(options.legal ? "legal" : "illegal");
    node.setAttribute("aria-label", `${options.move}${options.legal ? "" : " (not allowed now)"}`);
    node.addEventListener("click", () => act({move: options.move}));
  }
  node.append(element("span", "corner", `${card.face}${card.suit}`), element("span", "pip", card.suit),
              element("span", "corner bottom", `${card.face}${card.suit}`));
  return node;
}

function cardBack(size) {
  return element("div", `card back ${size || ""}`);
}

function signed(value) {
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "");
  return value > 0 ? `+${text}` : text;
}

function seatLabel(view, seat) {
  const s = view.seats[seat];
  return view.viewer === seat ? "You" : s.name;
}

function seatWithAgent(view, seat) {
  return view.viewer === seat ? "You" : `${view.seats[seat].name} (${view.seats[seat].agent})`;
}

// The seat drawn at the bottom: yours in play, seat 0 otherwise; play goes round to the right.
function placeOf(view, seat) {
  const bottom = view.viewer === null || view.viewer === undefined ? 0 : view.viewer;
  return (seat - bottom + SEATS) % SEATS;
}

function drawSeats(view) {
  for (const s of view.seats) {
    const box = $(`#felt .seat[data-place="${placeOf(view, s.seat)}"]`);
    box.replaceChildren();
    box.dataset.seat = s.seat;
    box.classList.toggle("to-act", view.to_act === s.seat);
    box.classList.toggle("caller-side", s.caller_side);
    const head = element("div", "seat-head");
    head.append(element("span", "seat-name", seatLabel(view, s.seat)), element("span", "seat-agent", s.agent));
    const badges = element("div", "badges");
    for (const role of s.roles) badges.append(element("span", `badge ${role}`, role));
    if (view.to_act === s.seat) badges.append(element("span", "badge turn", TURN_WORDS[view.phase]));
    const hand = element("div", "mini-hand");
    const mine = view.viewer === s.seat && state.mode === "play";
    if (!mine && view.phase !== "done") {
      if (s.hand) s.hand.forEach((card) => hand.append(cardNode(card, {size: "mini"})));
      else for (let i = 0; i < s.cards_left; i++) hand.append(cardBack("mini"));
    }
    const tally = element("div", "tally", `${s.points} pts · ${s.tricks} ${s.tricks === 1 ? "trick" : "tricks"}`);
    box.append(head, badges, hand, tally);
  }
}

function drawCenter(view) {
  const contract = $("#contract");
  contract.replaceChildren();
  if (view.call) {
    const c = view.call;
    const partner = c.solo ? "alone (called his own card)" : c.partner === null ? "secret" : seatLabel(view, c.partner);
    const called = element("div", "called");
    called.append(element("span", "", `${seatLabel(view, c.caller)} called`), cardNode(c.card, {size: "small"}));
    contract.append(called, element("span", "trump", `trump ${c.trump} ${c.trump_name}`),
                    element("span", "", `partner: ${partner}`));
  } else if (view.phase !== "done") {
    const title = view.phase === "auction" ? "Auction" : view.phase === "call" ? "Auction won, the call next"
      : "First trick without trump, the call after it";
    contract.append(element("span", "", title), element("span", "trump", view.high_bid
      ? `${seatLabel(view, view.high_bidder)}: ${view.high_bid}` : "no bid yet"));
  }
  drawTrick(view);
}

// The trick on the felt: the one you just completed while it is held (state.heldTrick), else the one
// being played, else the last one taken. Each card is laid apart from the others, its seat named under it.
function drawTrick(view) {
  const held = state.heldTrick ? view.tricks[state.heldTrick.number - 1] : null;
  let shown = held || view.trick;
  if (!shown && view.tricks.length) shown = view.tricks[view.tricks.length - 1];
  const taken = Boolean(shown && shown.winner !== null);
  const trick = $("#trick");
  trick.replaceChildren();
  trick.classList.toggle("taken", taken);
  trick.dataset.held = held ? String(held.number) : "";
  for (const played of shown ? shown.cards : []) {
    const spot = element("div", "played");
    spot.dataset.place = placeOf(view, played.seat);
    const node = cardNode(played.card);
    node.dataset.seat = played.seat;
    if (shown.winner === played.seat) node.classList.add("winner");
    spot.append(node, element("span", "seat-tag", seatLabel(view, played.seat)));
    trick.append(spot);
  }
  $("#trick-caption").textContent = !shown ? "" : taken
    ? `Trick ${shown.number}: ${seatLabel(view, shown.winner)} took ${shown.points} points`
    : `Trick ${shown.number} of 8`;
  $("#go-on").hidden = !held;
}

// In play the agents answer your card at once, finishing the trick and leading the next: the trick you
// completed is held on the felt, so you see who played what, until you go on (the button, a click on the
// felt, your next move) or TRICK_PAUSE_MS pass.
function holdCompletedTrick(previous, view) {
  letGoOfTrick();
  const completed = previous && view.phase !== "done" && view.tricks.length > previous.tricks.length;
  if (state.mode !== "play" || !completed) return;
  state.heldTrick = {number: view.tricks[view.tricks.length - 1].number, timer: setTimeout(goOn, TRICK_PAUSE_MS)};
}

function letGoOfTrick() {
  if (state.heldTrick) clearTimeout(state.heldTrick.timer);
  state.heldTrick = null;
}

function goOn() {
  if (!state.heldTrick) return;
  letGoOfTrick();
  if (state.view) drawTrick(state.view);
}

function drawSide(view) {
  const score = $("#score tbody");
  score.replaceChildren();
  for (const s of view.seats) {
    const row = element("tr");
    if (view.to_act === s.seat) row.className = "to-act";
    const total = view.session ? signed(view.session.totals[s.seat]) : "";
    row.append(element("td", "", seatWithAgent(view, s.seat)), element("td", "num", s.points),
               element("td", "num", s.tricks), element("td", "num session", total));
    score.append(row);
  }
  const auction = $("#auction");
  auction.replaceChildren();
  for (const bid of view.auction) {
    auction.append(element("li", bid.bid === "pass" ? "passed" : "", `${seatLabel(view, bid.seat)}: ${bid.bid}`));
  }
  $("#standing").textContent = view.high_bid ? `standing bid: ${view.high_bid} (${seatLabel(view, view.high_bidder)})`
    : view.auction.length ? "" : "no bids yet";
  const tricks = $("#tricks");
  tricks.replaceChildren();
  for (const t of view.tricks) {
    const item = element("li");
    item.dataset.trick = t.number;
    const cards = element("span", "trick-cards");
    for (const played of t.cards) {
      const node = cardNode(played.card, {size: "mini"});
      if (played.seat === t.winner) node.classList.add("winner");
      cards.append(node);
    }
    item.append(cards, element("span", "trick-winner", `${seatLabel(view, t.winner)} +${t.points}`));
    tricks.append(item);
  }
  const log = $("#log");
  log.replaceChildren();
  const shownFrom = Math.max(0, view.log.length - 10);  // the latest ten, numbered from the hand's start
  log.start = shownFrom + 1;
  for (const move of view.log.slice(shownFrom)) log.append(element("li", "", `${seatLabel(view, move.seat)}: ${move.text}`));
}

function drawResult(view) {
  const panel = $("#result");
  const outcome = view.outcome;
  panel.hidden = !outcome;
  if (!outcome) return;
  $("#result-title").textContent = view.your_result || outcome.summary;
  $("#result-summary").textContent = view.your_result ? outcome.summary : "";
  const body = $("#result-table tbody");
  body.replaceChildren();
  for (const s of view.seats) {
    const row = element("tr");
    row.dataset.resultSeat = s.seat;
    const side = outcome.void ? "" : s.seat === outcome.callers[0] && outcome.callers.length === 1 ? "caller, alone"
      : view.call && s.seat === view.call.caller ? "caller" : outcome.callers.includes(s.seat) ? "partner" : "defender";
    const hand = element("td");
    const cards = element("div", "dealt");
    if (outcome.hands[s.seat]) outcome.hands[s.seat].forEach((card) => cards.append(cardNode(card, {size: "mini"})));
    else cards.textContent = "(not shown)";
    hand.append(cards);
    const payoff = element("td", "num payoff", signed(outcome.payoffs[s.seat]));
    payoff.dataset.payoffSeat = s.seat;
    payoff.dataset.payoff = outcome.payoffs[s.seat];
    payoff.classList.add(outcome.payoffs[s.seat] > 0 ? "plus" : outcome.payoffs[s.seat] < 0 ? "minus" : "zero");
    const total = element("td", "num", view.session ? signed(view.session.totals[s.seat]) : "");
    total.dataset.totalSeat = s.seat;
    row.append(element("td", "", seatWithAgent(view, s.seat)), element("td", "", side), hand,
               element("td", "num", s.points), payoff, total);
    body.append(row);
  }
  const session = view.session;
  $("#session-total").textContent = session
    ? `After ${session.hands} hand${session.hands === 1 ? "" : "s"}` +
      (view.viewer !== null && view.viewer !== undefined ? `: your total ${signed(session.totals[view.viewer])}` : "")
    : "";
  $("#next-hand").hidden = !session || state.mode === "replay";
  $("#next-hand").textContent = session ? `Next hand (${seatLabel(view, session.next_dealer)} deals)` : "Next hand";
}

function drawMyHand(view) {
  const area = $("#my-hand");
  area.replaceChildren();
  if (state.mode !== "play" || view.viewer === null || view.phase === "done") return;
  const mine = view.seats[view.viewer].hand || [];
  const playable = new Set(view.moves ? view.moves.plays.map((card) => card.text) : []);
  area.append(element("span", "label", "Your hand"));
  const cards = element("div", "hand-cards");
  for (const card of mine) cards.append(cardNode(card, {move: `play ${card.text}`, legal: playable.has(card.text)}));
  area.append(cards);
}

function drawPlayControls(view) {
  const moves = view.moves;
  const bidding = Boolean(moves && view.phase === "auction");
  $("#bidbar").hidden = !bidding;
  $("#callbar").hidden = !(moves && view.phase === "call");
  $("#turn-hint").textContent = view.phase === "done" ? "" : moves ? turnHint(view.phase, moves)
    : `Waiting for ${view.to_act === null ? "the end" : seatLabel(view, view.to_act)}…`;
  if (bidding) {
    $("#pass").disabled = !moves.pass;
    const ranks = $("#ranks");
    ranks.replaceChildren();
    for (const rank of moves.ranks) {
      const button = element("button", "bid rank", rank.face);
      button.type = "button";
      button.dataset.move = rank.move;
      button.disabled = !rank.legal;
      button.title = rank.legal ? rank.move : `${rank.move}: not above the standing bid`;
      button.addEventListener("click", () => act({move: rank.move}));
      ranks.append(button);
    }
    const points = moves.points;
    $("#points").hidden = !points;
    if (points) {
      const input = $("#points-input");
      input.min = points.lowest;
      input.max = points.highest;
      input.value = points.lowest;
    }
  }
  if (moves && view.phase === "call") {
    const calls = $("#calls");
    calls.replaceChildren();
    // Many callable cards (any card, after points): one row a suit.
    const rows = new Map();
    for (const card of moves.calls) {
      const key = moves.calls.length > 10 ? card.suit : "all";
      if (!rows.has(key)) rows.set(key, element("div", "call-row"));
      rows.get(key).append(cardNode(card, {move: card.move, legal: true, size: "small"}));
    }
    calls.append(...rows.values());
  }
}

function turnHint(phase, moves) {
  if (phase === "call") return "You won the auction: call a card.";
  if (phase === "play") return "Your turn: click a card to play it.";
  if (moves.points && !moves.ranks.length) {
    return `Your turn to bid: more points than the standing bid (${moves.points.lowest} to ${moves.points.highest}), ` +
      "or pass.";
  }
  const order = moves.ranks.map((rank) => rank.face).join(" ");
  return `Your turn to bid: a rank, each bid weaker than the last (${order}); once the weakest is passed, points. ` +
    "Or pass.";
}

function drawStatus(view) {
  const parts = [{play: "Playing", watch: "Watching", replay: "Replay"}[state.mode]];
  if (state.config) parts.push(`rules: ${state.config.rules}`);
  if (view && view.session) parts.push(`hand ${view.session.hands + (view.phase === "done" ? 0 : 1)}`);
  if (view && view.replay) parts.push(`${view.replay.source}, game ${view.replay.game}`);
  $("#status").textContent = parts.join(" · ");
}

// A hand that could not be written to the record folder: said until a later hand is written.
function drawRecordWarning(view) {
  const problem = state.mode === "play" ? view.record_error : null;
  $("#record-warning").hidden = !problem;
  $("#record-warning").textContent = problem ? `${problem[0].toUpperCase()}${problem.slice(1)}. The game goes ` +
    "on; the next hands are recorded once the record folder can be written again." : "";
}

function show(view) {
  const previous = state.view;
  state.view = view;
  holdCompletedTrick(previous, view);
  document.body.dataset.phase = view.phase;
  drawRecordWarning(view);
  drawSeats(view);
  drawCenter(view);
  drawSide(view);
  drawResult(view);
  drawMyHand(view);
  if (state.mode === "play") drawPlayControls(view);
  if (state.mode === "watch") {
    $("#watch-face-up").checked = view.face_up;
    $("#watch-step").disabled = $("#watch-run").disabled = view.phase === "done";
    $("#watch-next").disabled = view.phase !== "done";
  }
  if (state.mode === "replay" && view.replay) {
    const r = view.replay;
    $("#replay-position").textContent = `action ${r.position} of ${r.length}`;
    $("#replay-next-action").textContent = r.next ? `next: ${seatLabel(view, view.to_act)} ${r.next}`
      : "end of the hand";
    $("#replay-prev").disabled = $("#replay-first").disabled = r.position === 0;
    $("#replay-next").disabled = $("#replay-last").disabled = r.position === r.length;
  }
  drawStatus(view);
}

function clearTable() {
  letGoOfTrick();
  state.view = null;
  document.body.dataset.phase = "";
  for (const box of document.querySelectorAll("#felt .seat")) box.replaceChildren();
  for (const id of ["#contract", "#trick", "#my-hand", "#score tbody", "#auction", "#tricks", "#log"]) {
    $(id).replaceChildren();
  }
  $("#trick-caption").textContent = $("#standing").textContent = "";
  $("#go-on").hidden = true;
  $("#result").hidden = true;
  $("#record-warning").hidden = true;
}

// --- the modes ---------------------------------------------------------------------------

async function act(body) {
  await send("/api/play/act", body);
}

async function enterMode(mode) {
  busy(+1);
  try {
    await switchTo(mode);
  } finally {
    busy(-1);
  }
}

async function switchTo(mode) {
  stopRunning();
  state.mode = mode;
  document.body.dataset.mode = mode;
  for (const button of document.querySelectorAll("#modes button")) {
    button.classList.toggle("active", button.dataset.mode === mode);
  }
  clearMessage();
  clearTable();
  // Only what the session holds is asked for: a request refused (a 409 for a game not yet started) is an
  // error in the browser's console and in the server's log, on every first visit.
  if (mode === "replay") {
    const open = await loadRecordFiles();
    const answer = open ? await api("GET", "/api/replay/state") : null;
    if (answer && answer.ok) show(answer.data);
    else drawStatus(null);
    if (answer && !answer.ok) showMessage(answer.data.error);
    return;
  }
  await send(`/api/${mode}/join`, mode === "watch" ? {face_up: false} : {});
}

function stopRunning() {
  state.running = false;
  $("#watch-run").textContent = "Run ▶";
}

async function runWatch() {
  if (state.running) return stopRunning();
  state.running = true;
  $("#watch-run").textContent = "Pause";
  while (state.running && state.view && state.view.phase !== "done") {
    const answer = await send("/api/watch/step", {});
    if (!answer.ok) break;
    await new Promise((resolve) => setTimeout(resolve, Number($("#watch-speed").value)));
  }
  stopRunning();
}

// Lists the record folder's files; whether this session has a record open.
async function loadRecordFiles() {
  const answer = await api("GET", "/api/replay/files");
  const select = $("#replay-file");
  select.replaceChildren();
  const files = answer.ok ? answer.data.files : [];
  if (!files.length) {
    const none = element("option", "", answer.ok && answer.data.recording ? "(no records yet)" : "(no --record folder)");
    none.value = "";
    select.append(none);
  }
  for (const file of files) {
    const option = element("option", "", `${file.name} (${file.records} game${file.records === 1 ? "" : "s"})`);
    option.value = file.name;
    select.append(option);
  }
  return answer.ok && answer.data.open;
}

async function openRecord() {
  const game = Number($("#replay-game").value);
  if (state.upload) {
    await send("/api/replay/open", {text: state.upload.text, name: state.upload.name, game});
  } else {
    await send("/api/replay/open", {file: $("#replay-file").value, game});
  }
}

async function seek(position) {
  await send("/api/replay/seek", {position});
}

function wire() {
  for (const button of document.querySelectorAll("#modes button")) {
    button.addEventListener("click", () => enterMode(button.dataset.mode));
  }
  $("#pass").addEventListener("click", () => act({move: "pass"}));
  const input = $("#points-input");
  $("#points-down").addEventListener("click", () => { input.value = Math.max(Number(input.min), Number(input.value) - 1); });
  $("#points-up").addEventListener("click", () => { input.value = Math.min(Number(input.max), Number(input.value) + 1); });
  $("#points-bid").addEventListener("click", () => act({move: `bid ${input.value.trim()}`}));
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") $("#points-bid").click(); });
  $("#next-hand").addEventListener("click", () => send(`/api/${state.mode}/next`, {}));
  $("#go-on").addEventListener("click", goOn);
  $("#felt").addEventListener("click", goOn);
  $("#watch-step").addEventListener("click", () => send("/api/watch/step", {}));
  $("#watch-run").addEventListener("click", runWatch);
  $("#watch-next").addEventListener("click", () => send("/api/watch/next", {}));
  $("#watch-new").addEventListener("click", () => { stopRunning(); send("/api/watch/new", {face_up: $("#watch-face-up").checked}); });
  $("#watch-face-up").addEventListener("change", (event) => send("/api/watch/view", {face_up: event.target.checked}));
  $("#replay-open").addEventListener("click", openRecord);
  $("#replay-file").addEventListener("change", () => { state.upload = null; $("#replay-upload").value = ""; });
  $("#replay-upload").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    state.upload = file ? {name: file.name, text: await file.text()} : null;
  });
  $("#replay-first").addEventListener("click", () => seek(0));
  $("#replay-prev").addEventListener("click", () => seek(state.view.replay.position - 1));
  $("#replay-next").addEventListener("click", () => seek(state.view.replay.position + 1));
  $("#replay-last").addEventListener("click", () => seek(state.view.replay.length));
  document.addEventListener("keydown", (event) => {
    if (state.mode !== "replay" || !state.view || !state.view.replay || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowRight" && !$("#replay-next").disabled) $("#replay-next").click();
    if (event.key === "ArrowLeft" && !$("#replay-prev").disabled) $("#replay-prev").click();
  });
}

async function start() {
  busy(+1);
  try {
    wire();
    const answer = await api("GET", "/api/config");
    if (answer.ok) state.config = answer.data;
    else return showMessage(answer.data.error);
    $("#legend-faces").textContent = `Faces: ${state.config.faces}.`;
    $("#legend-suits").textContent = `Suits: ${state.config.suits}.`;
    $("#legend-points").textContent = `Points: ${state.config.card_points}, the others 0.`;
    await enterMode("play");
  } finally {
    busy(-1);
  }
}

start();
