// The playground: a form and a JSON editor for one scenario, kept in sync;
// the engine runs in a Web Worker (worker.js, engine.wasm) and draws the same
// charts and table the server's pages show. No framework, no build step.

const root = document.getElementById("playground");
const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
};

// ---- the engine, in a worker that can be ended to cancel a run ----------

class Engine {
  constructor() {
    this.start();
  }
  start() {
    this.worker = new Worker(root.dataset.worker);
    this.next = 0;
    this.pending = new Map();
    this.worker.onmessage = (e) => {
      if (e.data.progress !== undefined) {
        status(`Running… ${e.data.progress} of ${e.data.total} simulations (Cancel stops it).`);
        return;
      }
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if (e.data.error !== undefined) p.reject(new Error(e.data.error));
      else p.resolve(e.data.value);
    };
    this.ready = this.send({ op: "init", exec: root.dataset.exec, wasm: root.dataset.wasm });
  }
  send(msg) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...msg });
    });
  }
  async call(op, ...args) {
    await this.ready;
    return JSON.parse(await this.send({ op, args }));
  }
  cancel() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error("cancelled"));
    this.start();
  }
}

// ---- the scenario: JSON is the truth, the form edits paths in it ----------

let scenario = null;
let presets = [];
let lastRunMillis = 0;
let resolution = "100ms";
let lastCharts = {};
const engine = new Engine();
const status = (msg) => ($("status").textContent = msg);

function getPath(obj, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[isIndex(k) ? +k : k]), obj);
}
function setPath(obj, path, value) {
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    const key = isIndex(k) ? +k : k;
    if (o[key] == null) o[key] = {};
    o = o[key];
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete o[last];
  else o[isIndex(last) ? +last : last] = value;
}
const isIndex = (k) => /^\d+$/.test(k);
// engine paths "strategies[1].backoff.base" → form paths "strategies.1.backoff.base"
const formPath = (p) => p.replace(/\[(\d+)\]/g, ".$1");

function writeJSON() {
  $("json").value = JSON.stringify(scenario, null, 2);
}

let loadedFrom = null; // the built-in as loaded, to share it by its slug while unchanged

function load(doc, msg, builtin) {
  const note = msg;
  scenario = doc;
  writeJSON();
  loadedFrom = builtin ? { slug: builtin.slug, json: $("json").value } : null;
  $("pg-title").textContent = builtin ? builtin.title : doc.name || "Your scenario";
  $("pg-summary").textContent = builtin ? builtin.summary : doc.description || "";
  renderForm();
  pendingNote = note || "";
  run();
}
let pendingNote = "";

// edited marks the scenario as the user's own: the picker says so, and the
// address bar carries the scenario so that a reload or a copied address
// keeps the edits.
let addressTimer = null;
function edited() {
  if ($("builtin").value !== "") $("builtin").value = "";
  clearTimeout(addressTimer);
  addressTimer = setTimeout(async () => {
    history.replaceState(null, "", "/#z=" + (await toFragment($("json").value)));
  }, 500);
}

// ---- the form ------------------------------------------------------------

const fields = {
  workload: [
    ["clients", "Clients", "number"],
    ["arrival", "Arrivals", ["poisson", "uniform", "closed", "burst"]],
    ["rate", "Rate (operations/s in total)", "number"],
    ["duration", "Duration", "text"],
  ],
  dependency: [
    ["workers", "Workers", "number"],
    ["service_time.kind", "Service time", ["constant", "exponential", "lognormal"]],
    ["service_time.mean", "Mean service time", "text"],
    ["service_time.p50", "Service time p50 (lognormal)", "text"],
    ["service_time.p99", "Service time p99 (lognormal)", "text"],
    ["queue_capacity", "Queue capacity", "number"],
    ["error_rate", "Random error rate (0–1)", "number"],
  ],
  strategy: [
    ["name", "Name", "text"],
    ["preset", "Preset", "preset"],
    ["max_attempts", "Max attempts", "number"],
    ["attempt_timeout", "Attempt timeout", "text"],
    ["deadline", "Deadline", "text"],
    ["backoff.kind", "Backoff", ["none", "constant", "linear", "exponential"]],
    ["backoff.base", "Backoff base", "text"],
    ["backoff.max", "Backoff max", "text"],
    ["jitter.kind", "Jitter", ["none", "full", "equal", "decorrelated", "proportional", "additive"]],
    ["budget.kind", "Retry budget", ["token_bucket", "ratio"]],
    ["budget.ratio", "Budget ratio (ratio budget)", "number"],
    ["budget.max_tokens", "Budget tokens (token bucket)", "number"],
    ["budget.token_ratio", "Tokens back per success", "number"],
  ],
};

function input(path, label, type) {
  const id = "f-" + path.replace(/\W/g, "-");
  const value = getPath(scenario, path);
  let control;
  if (Array.isArray(type) || type === "preset") {
    const options = type === "preset" ? ["", ...presets.map((p) => p.name)] : ["", ...type];
    control = el("select", { id, "data-path": path });
    for (const o of options) control.append(el("option", { value: o, text: o || "—", selected: (value ?? "") === o }));
  } else {
    control = el("input", { id, "data-path": path, type: type === "number" ? "number" : "text", value: value ?? "", step: type === "number" ? "any" : null });
  }
  control.dataset.kind = type === "number" ? "number" : "text";
  return el("div", { class: "field" }, el("label", { for: id, text: label }), control, el("span", { class: "field-error", id: id + "-error" }));
}

function renderForm() {
  const form = $("form");
  form.replaceChildren();
  if (!scenario || typeof scenario !== "object") return;
  const group = (title, ...kids) => el("fieldset", {}, el("legend", { text: title }), ...kids);
  form.append(group("Workload", ...fields.workload.map(([p, l, t]) => input("workload." + p, l, t))));
  const phases = (scenario.dependency?.phases || []).map((ph) => el("li", { text: `${ph.kind} ${ph.from}–${ph.to}${ph.label ? " (" + ph.label + ")" : ""}` }));
  form.append(group("Dependency", ...fields.dependency.map(([p, l, t]) => input("dependency." + p, l, t)),
    phases.length ? el("div", { class: "muted" }, "Timeline (edit in the JSON):", el("ul", {}, ...phases)) : null));
  (scenario.strategies || []).forEach((st, i) => {
    const box = group(`Strategy ${i + 1}`, ...fields.strategy.map(([p, l, t]) => input(`strategies.${i}.${p}`, l, t)));
    box.append(el("div", { class: "row" },
      el("button", { type: "button", "data-action": "duplicate", "data-index": i, text: "Duplicate", "aria-label": `Duplicate strategy ${st.name || i + 1}` }),
      el("button", { type: "button", "data-action": "remove", "data-index": i, text: "Remove", "aria-label": `Remove strategy ${st.name || i + 1}` })));
    form.append(box);
  });
  form.append(el("button", { type: "button", "data-action": "add", text: "Add a strategy" }));
}

$("form").addEventListener("input", (e) => {
  const path = e.target.dataset.path;
  if (!path) return;
  let v = e.target.value;
  if (v === "") v = undefined;
  else if (e.target.dataset.kind === "number") v = Number(v);
  setPath(scenario, path, v);
  writeJSON();
  edited();
  scheduleRun();
});

$("form").addEventListener("click", (e) => {
  const action = e.target.dataset.action;
  if (!action) return;
  const list = scenario.strategies || (scenario.strategies = []);
  const i = Number(e.target.dataset.index);
  if (action === "remove") list.splice(i, 1);
  if (action === "duplicate") {
    const copy = structuredClone(list[i]);
    copy.name = copy.name + "-copy";
    list.splice(i + 1, 0, copy);
  }
  if (action === "add") list.push({ name: "s" + (list.length + 1), max_attempts: 3, attempt_timeout: "2s", backoff: { kind: "exponential", base: "100ms" }, jitter: { kind: "full" } });
  writeJSON();
  renderForm();
  edited();
  scheduleRun();
});

$("json").addEventListener("input", () => {
  edited();
  try {
    scenario = JSON.parse($("json").value);
  } catch (err) {
    showErrors([{ message: "The JSON does not parse: " + err.message }]);
    stale("The JSON does not parse (" + err.message + "): the results are from the last valid version.");
    return;
  }
  renderForm();
  scheduleRun();
});

// ---- running ------------------------------------------------------------

let timer = null;
function scheduleRun() {
  clearTimeout(timer);
  if (lastRunMillis > 400) {
    stale("Changed: press Run (Ctrl+Enter) to see the new results; the last run took " + Math.round(lastRunMillis) + " ms.");
    return;
  }
  timer = setTimeout(run, 250);
}

// stale dims the results that no longer match the scenario, and says why.
function stale(msg) {
  document.querySelector(".results").classList.add("stale");
  status(msg);
}

let running = 0;
async function run() {
  const mine = ++running;
  $("cancel").hidden = false;
  status("Running…");
  const t0 = performance.now();
  try {
    const out = await engine.call("run", $("json").value, 200e6, "auto");
    if (mine !== running) return;
    lastRunMillis = performance.now() - t0;
    if (out.errors && out.errors.length) {
      showErrors(out.errors);
      stale(`The scenario has ${out.errors.length === 1 ? "a problem" : out.errors.length + " problems"}, marked beside the fields and listed under the JSON; the results are from the last valid version.`);
      return;
    }
    document.querySelector(".results").classList.remove("stale");
    showErrors([]);
    showResult(out);
    window.retrylabLast = JSON.stringify(out.result); // for tests and the curious
    window.retrylabFirstResultMs ??= performance.now(); // since navigation began
    status(`Ran in ${out.millis.toFixed(1)} ms (${out.result.events.toLocaleString()} events, in your browser).` + (pendingNote ? " " + pendingNote : ""));
    pendingNote = "";
    root.dataset.ran = String(Number(root.dataset.ran || 0) + 1);
  } catch (err) {
    if (mine === running) status(err.message === "cancelled" ? "Cancelled." : "The run failed: " + err.message);
  } finally {
    if (mine === running) $("cancel").hidden = true;
  }
}

$("run").addEventListener("click", run);
$("cancel").addEventListener("click", () => {
  running++;
  engine.cancel();
  $("cancel").hidden = true;
  status("Cancelled.");
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});

function showErrors(errors) {
  document.querySelectorAll(".field-error").forEach((s) => (s.textContent = ""));
  document.querySelectorAll("[aria-invalid]").forEach((c) => c.removeAttribute("aria-invalid"));
  const list = $("errors");
  list.replaceChildren();
  for (const e of errors) {
    const text = (e.path ? e.path + ": " : "") + (e.value ? e.value + " " : "") + e.message;
    const control = e.path && document.querySelector(`[data-path="${CSS.escape(formPath(e.path))}"]`);
    if (control) {
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", control.id + "-error");
      $(control.id + "-error").textContent = (e.value ? e.value + " " : "") + e.message;
    }
    list.append(el("li", { text, "data-path": e.path || "" }));
  }
}

function showResult(out) {
  lastCharts = out.charts;
  const warnings = $("warnings");
  warnings.replaceChildren();
  const ws = out.result.warnings || [];
  if (ws.length) {
    warnings.append(el("details", { class: "warnings" },
      el("summary", { text: `${ws.length} policy ${ws.length === 1 ? "warning" : "warnings"}` }),
      el("ul", {}, ...ws.map((w) => el("li", { text: w })))));
  }
  const switcher = $("resolutions");
  switcher.replaceChildren();
  if (out.charts["attempts_100ms"]) {
    switcher.append("Resolution: ");
    for (const r of ["10ms", "100ms", "1s"]) {
      switcher.append(el("button", { type: "button", "data-res": r, "aria-pressed": String(r === resolution), text: r }), " ");
    }
  }
  drawCharts();
  const table = $("results");
  table.replaceChildren();
  if (out.sweep_table) {
    const strategies = out.result.sweep[0].strategies.map((s) => s.name);
    table.append(el("caption", { text: "Sweep of " + out.result.sweep_path }));
    table.append(el("thead", {}, el("tr", {}, el("th", { text: "value" }),
      ...strategies.flatMap((n) => [el("th", { text: n + " success" }), el("th", { text: n + " attempts" })]))));
    table.append(el("tbody", {}, ...out.sweep_table.map((row) => el("tr", {}, el("td", { text: row.metric }), ...row.cells.map((c) => el("td", { text: c.value }))))));
  }
  if (out.table) {
    const strategies = out.result.strategies.map((s) => s.name);
    table.append(el("thead", {}, el("tr", {}, el("th", { text: "metric" }), ...strategies.map((n) => el("th", { text: n })))));
    const body = el("tbody");
    for (const row of out.table) {
      body.append(el("tr", { "data-metric": row.metric }, el("td", { text: row.metric }),
        ...row.cells.map((c) => el("td", { class: c.class || null }, c.value, c.spread ? el("br") : null, c.spread ? el("span", { class: "spread", text: c.spread }) : null))));
    }
    table.append(body);
  }
}

// chartURLs holds an object URL per chart name, with the SVG it is for: a
// resolution switch reuses them, and a new run revokes the ones it replaces.
const chartURLs = new Map();

function chartURL(name) {
  const svg = lastCharts[name];
  const have = chartURLs.get(name);
  if (have && have.svg === svg) return have.url;
  if (have) URL.revokeObjectURL(have.url);
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  chartURLs.set(name, { svg, url });
  return url;
}

function drawCharts() {
  const box = $("charts");
  box.replaceChildren();
  const order = lastCharts["attempts_100ms"]
    ? ["attempts_" + resolution, "outcomes", "queue", "compare", "latency"]
    : ["sweep_success_rate", "sweep_attempts", "sweep_amplification"];
  const alts = {
    attempts_10ms: "Calls reaching the dependency per 10 ms", attempts_100ms: "Calls reaching the dependency per 100 ms",
    attempts_1s: "Calls reaching the dependency per second", outcomes: "Outcomes over time, per strategy",
    queue: "Queue length and operations in flight", compare: "Success rate by strategy", latency: "Latency percentiles by strategy",
    sweep_success_rate: "Success rate across the sweep", sweep_attempts: "Attempts across the sweep", sweep_amplification: "Amplification across the sweep",
  };
  for (const name of order) {
    if (!lastCharts[name]) continue;
    // The SVG comes from the engine's own chart package, which escapes every
    // text it draws; an <img> keeps it inert all the same.
    box.append(el("figure", { class: "chart" }, el("img", { src: chartURL(name), alt: alts[name] || name, "data-chart": name })));
  }
}

$("resolutions").addEventListener("click", (e) => {
  if (!e.target.dataset.res) return;
  resolution = e.target.dataset.res;
  document.querySelectorAll("[data-res]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.res === resolution)));
  drawCharts();
});

// ---- sharing ------------------------------------------------------------

async function toFragment(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function fromFragment(z) {
  const bin = atob(z.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

$("share").addEventListener("click", async () => {
  let url;
  if (loadedFrom && loadedFrom.json === $("json").value) {
    // An unchanged built-in has its own page.
    $("shared").hidden = false;
    $("share-url").value = location.origin + "/s/" + loadedFrom.slug;
    $("share-url").select();
    status("This is a built-in scenario: its page is shared as it is.");
    return;
  }
  try {
    const res = await fetch("/api/scenarios", { method: "POST", headers: { "Content-Type": "application/json" }, body: $("json").value });
    const body = await res.json();
    if (res.status === 201) url = body.url;
    else if (body.errors) {
      showErrors(body.errors);
      status("The server did not take the scenario: " + body.error);
      return;
    } else throw new Error(body.error || res.statusText);
  } catch (err) {
    // No server (the playground served as static files): the link carries
    // the scenario itself, compressed.
    url = location.origin + location.pathname + "#z=" + (await toFragment($("json").value));
  }
  $("shared").hidden = false;
  $("share-url").value = url;
  $("share-url").select();
  status("Shared: copy the link.");
});

// ---- start ----------------------------------------------------------------

async function start() {
  root.hidden = false; // without JavaScript it stays hidden, and the form below serves
  try {
    await engine.ready;
  } catch (err) {
    status("The engine did not load: " + err.message);
    return;
  }
  const [builtins, presetList] = await Promise.all([engine.call("builtins"), engine.call("presets")]);
  presets = presetList;
  const picker = $("builtin");
  picker.append(el("option", { value: "", text: "Your scenario" }));
  for (const b of builtins) picker.append(el("option", { value: b.slug, text: b.title }));
  picker.addEventListener("change", () => {
    const b = builtins.find((x) => x.slug === picker.value);
    if (b) {
      history.replaceState(null, "", "/?s=" + b.slug);
      load(b.scenario, "", b);
    }
  });
  const params = new URLSearchParams(location.search);
  if (location.hash.startsWith("#z=")) {
    try {
      load(JSON.parse(await fromFragment(location.hash.slice(3))), "Loaded the scenario from the link.");
      return;
    } catch (err) {
      status("The link's scenario could not be read: " + err.message);
    }
  }
  const id = params.get("s");
  const builtin = builtins.find((b) => b.slug === id);
  if (builtin) {
    picker.value = builtin.slug;
    load(builtin.scenario, "", builtin);
    return;
  }
  if (id) {
    try {
      const res = await fetch("/api/scenarios/" + encodeURIComponent(id));
      if (!res.ok) throw new Error(res.status === 404 ? "there is no scenario with that ID" : res.statusText);
      load(await res.json(), "Loaded shared scenario " + id + ".");
      return;
    } catch (err) {
      picker.value = builtins[0].slug;
      load(builtins[0].scenario, "", builtins[0]);
      status("Could not open " + id + ": " + err.message + ". Showing " + builtins[0].title + " instead.");
      return;
    }
  }
  picker.value = builtins[0].slug;
  load(builtins[0].scenario, "", builtins[0]);
}

start();
