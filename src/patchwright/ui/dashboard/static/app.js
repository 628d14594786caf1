// The review dashboard: renders /api/state, follows /api/events, answers the checkpoint.
// Everything from the server is shown as text (textContent), never parsed as HTML.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
let current = null;

const $ = (id) => document.getElementById(id);

function setText(id, text) {
  $(id).textContent = text == null ? "" : String(text);
}

function fillList(id, items, render, empty) {
  const list = $(id);
  list.replaceChildren();
  if (!items.length && empty) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = empty;
    list.append(li);
  }
  for (const item of items) list.append(render(item));
}

function li(text, cls) {
  const el = document.createElement("li");
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

function renderDiff(diff) {
  const pre = $("diff");
  pre.replaceChildren();
  for (const line of (diff || "").split("\n")) {
    const span = document.createElement("span");
    if (line.startsWith("+") && !line.startsWith("+++")) span.className = "add";
    else if (line.startsWith("-") && !line.startsWith("---")) span.className = "del";
    else if (line.startsWith("@@")) span.className = "hunk";
    span.textContent = line + "\n";
    pre.append(span);
  }
}

function renderGates(gates) {
  const body = $("gates").tBodies[0];
  body.replaceChildren();
  for (const g of gates) {
    const row = body.insertRow();
    row.className = g.status;
    row.insertCell().textContent = g.gate;
    row.insertCell().textContent = (g.status || "").replace(/_/g, " ");
    row.insertCell().textContent = g.new_problems ? `${g.new_problems} new` : "";
    row.insertCell().textContent = g.seconds != null ? `${g.seconds}s` : "";
  }
}

let shownCheckpoint = null;

function renderCheckpoint(cp) {
  const box = $("checkpoint");
  box.hidden = !cp;
  if (!cp) return;
  if (cp.id !== shownCheckpoint) {
    shownCheckpoint = cp.id;
    setText("checkpoint-result", "");
  }
  setText("checkpoint-what", `${cp.proposal} proposal for ${cp.target}: ${cp.rationale || ""}`);
  $("approve").disabled = !cp.can_apply;
  $("approve").dataset.id = cp.id;
  $("skip").dataset.id = cp.id;
  tickDeadline();
}

function tickDeadline() {
  const cp = current && current.checkpoint;
  if (!cp || !cp.deadline) return setText("checkpoint-deadline", "");
  const left = Math.max(0, Math.round(cp.deadline - Date.now() / 1000));
  setText("checkpoint-deadline", `${left}s left`);
}

function render(state) {
  current = state;
  setText("status", state.running ? "running" : `ended: ${(state.summary || {}).outcome || ""}`);
  $("status").className = "pill " + (state.running ? "running" : "ended");
  setText("iteration", state.iteration);
  setText("limit", state.limit ? ` / ${state.limit}` : "");
  setText("phase", state.phase);
  setText("model", state.model);
  const u = state.usage || {};
  const tokens = (u.prompt_tokens || 0) + (u.completion_tokens || 0);
  setText("usage", `${tokens} tokens · ${u.calls || 0} calls` + (u.cost ? ` · $${u.cost.toFixed(4)}` : ""));

  const t = state.target;
  setText("target", t ? t.path : "—");
  fillList("reasons", t ? t.reasons || [] : [], (r) => li(r));
  fillList("queue", state.queue || [], (p) => li(p), "empty");
  const f = state.findings || {};
  setText("findings", `${f.total || 0} findings · ${f.failing_tests || 0} failing tests`);

  renderGates(state.gates || []);
  fillList("outcomes", state.outcomes || [], (o) =>
    li(`#${o.iteration} ${o.status} (${o.proposal}) ${o.target}` + (o.commit ? ` → ${o.commit.slice(0, 12)}` : ""), o.status));

  const p = state.proposal || (state.checkpoint ? state.checkpoint : null);
  setText("proposal-kind", p ? `${p.proposal} · ${p.target}` : "");
  setText("proposal-rationale", p ? p.rationale || "(no rationale given)" : "No proposal yet.");
  renderDiff(p ? p.diff : "");
  renderCheckpoint(state.checkpoint);

  setText("memory", state.memory || "(empty)");
  setText("history", state.history || "(empty)");
  fillList("log", (state.log || []).slice(-25).reverse(), (e) => li(describeEvent(e)));
}

function describeEvent(e) {
  const time = new Date(e.ts * 1000).toLocaleTimeString();
  const detail = ["phase", "gate", "status", "path", "target", "decision", "by"]
    .filter((key) => e[key] !== undefined && e[key] !== "")
    .map((key) => e[key]);
  return `${time}  ${e.event}  ${detail.join(" ")}`;
}

async function answer(decision, button) {
  const result = $("checkpoint-result");
  result.textContent = "sending…";
  try {
    const response = await fetch("/api/checkpoint", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Patchwright-Token": token },
      body: JSON.stringify({ decision, id: button.dataset.id }),
    });
    const body = await response.json();
    result.textContent = body.ok ? `${decision === "apply" ? "approved" : "skipped"}` : body.error;
    result.className = body.ok ? "ok" : "refused";
  } catch (err) {
    result.textContent = `could not reach the dashboard: ${err}`;
    result.className = "refused";
  }
}

function connect() {
  const events = new EventSource("/api/events");
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
  events.onopen = () => $("status").classList.add("live");
  events.onerror = () => {
    if (current && !current.running) events.close();
  };
}

document.addEventListener("DOMContentLoaded", () => {
  $("approve").addEventListener("click", (e) => answer("apply", e.currentTarget));
  $("skip").addEventListener("click", (e) => answer("skip", e.currentTarget));
  fetch("/api/state").then((r) => r.json()).then(render).catch(() => setText("status", "offline"));
  connect();
  setInterval(tickDeadline, 1000);
});
