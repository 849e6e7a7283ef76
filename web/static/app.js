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

// ---- the engine, in workers that can be ended to cancel a run ------------

// EngineWorker is one worker with the engine. The module, compiled once by
// the page, is handed to it: it instantiates it without fetching or
// compiling it again. onProgress hears the progress the engine posts.
class EngineWorker {
  constructor(module, wasm = root.dataset.wasm, onProgress = progress) {
    this.worker = new Worker(root.dataset.worker);
    this.next = 0;
    this.pending = new Map();
    this.worker.onmessage = (e) => {
      if (e.data.progress !== undefined) {
        onProgress(e.data.progress, e.data.total);
        return;
      }
      if (e.data.batch !== undefined) {
        // A search or a probe here hands off simulations (see relay).
        if (this.onBatch) this.onBatch(e.data.batchId, e.data.batch);
        else this.call("batchAnswer", e.data.batchId, "", "no one runs the batches of this worker").catch(() => {});
        return;
      }
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if (e.data.error !== undefined) p.reject(new Error(e.data.error));
      else p.resolve(e.data.value);
    };
    this.ready = module.then((m) => this.send({ op: "init", exec: root.dataset.exec, wasm, module: m }));
    this.onBatch = null; // (batchId, batch) when a search or a probe here may hand off simulations
  }
  send(msg) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...msg });
    });
  }
  // call answers the engine's JSON, as text.
  async call(op, ...args) {
    await this.ready;
    return this.send({ op, args });
  }
  end() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error("cancelled"));
  }
}

// relay runs the batch of simulations (the engine's Batch, as JSON) that
// the search or the probe on worker from handed off, as its batchId
// names it, over workers (from among them: it answers while its search
// waits, on the simulations its search compiled), in parts that shrink
// as the batch nears its end, and answers from with each part as it
// comes, then the end, or the error that ended it. Once live() is false
// (a newer run, a cancel, a stopped probe), it hands out nothing more
// and answers "cancelled".
async function relay(from, workers, json, id, batch, live) {
  const b = JSON.parse(batch);
  const ks = b.simulations, n = ks.length;
  root.dataset.batches = String(Number(root.dataset.batches || 0) + 1); // for tests: batches relayed
  let next = 0, failed = false;
  const answer = (part, error) => from.call("batchAnswer", id, part, error);
  const work = async (w) => {
    while (next < n && !failed && live()) {
      const lo = next, hi = Math.min(n, lo + Math.ceil((n - lo) / (2 * workers.length)));
      next = hi;
      const part = await w.call("runBatch", json, JSON.stringify({ ...b, simulations: ks.slice(lo, hi) }), w === from ? id : 0);
      if (!failed && live()) await answer(part, "");
    }
  };
  try {
    await Promise.all(workers.map(work));
    await answer("", live() ? "" : "cancelled");
  } catch (err) {
    failed = true;
    answer("", String((err && err.message) || err) || "a batch failed").catch(() => {});
  }
}

// poolSize is how many workers share a run of several simulations
// (strategies × seeds × sweep values): one a core but one, left to the page
// (it merges and draws the result), at most four, unless the playground's
// data-workers says otherwise (?workers=N sets it: tests and benchmarks
// compare 1, 2 and 4). On two cores that is one worker: there a second one
// made warm runs slower, not faster (docs/performance.md), and its start-up
// delayed the first result.
const poolSize = () => Math.min(Math.floor(Number(root.dataset.workers)) || Math.max(1, Math.min((navigator.hardwareConcurrency || 1) - 1, 4)), 16);
if (new URLSearchParams(location.search).has("workers")) root.dataset.workers = new URLSearchParams(location.search).get("workers");
// Results shown before a run ends are refreshed at most this often, and
// shown only while the run is expected to last this much longer, unless
// the playground's data-early is "always" (?early=always sets it: tests
// must not depend on how fast the machine runs).
const EARLY_MS = 200;
if (new URLSearchParams(location.search).has("early")) root.dataset.early = new URLSearchParams(location.search).get("early");

// Engine is the pool: the first worker answers every call, and runs share
// all of them. Workers beyond the first start when a run needs them.
class Engine {
  constructor() {
    this.module = WebAssembly.compileStreaming(fetch(root.dataset.wasm)).catch(() => null); // null: each worker loads it
    this.generation = 0; // a newer run or a cancel stops handing out a run's simulations
    this.start();
  }
  start() {
    this.workers = [new EngineWorker(this.module)];
    this.ready = this.workers[0].ready;
  }
  async call(op, ...args) {
    const out = JSON.parse(await this.workers[0].call(op, ...args));
    if (op === "validate") this.checked = { json: args[0], out };
    return out;
  }
  cancel() {
    this.generation++;
    for (const w of this.workers) w.end();
    this.start();
  }
  // run runs a scenario, answering what the engine's run does. With several
  // workers, each runs parts of it (runPart), handed out seed after seed,
  // and one merges them; as the first seeds end, early(out, seeds, of) hears
  // the result of those seeds alone (what a run of them gives).
  async run(json, maxEvents, theme, width, early) {
    const pool = poolSize();
    const whole = () => this.call("run", json, maxEvents, theme, width);
    if (pool === 1) return whole();
    const started = performance.now();
    const check = this.checked?.json === json ? this.checked.out : await this.call("validate", json);
    if (check.errors && check.errors.length) return { errors: check.errors };
    // A search's rounds depend on each other's results: one worker runs
    // it, and hands each round's simulations (its candidates on the seeds
    // the round adds) to the page, which runs them over the pool, that
    // worker too (relay). Its progress comes from that worker.
    if (check.search) return this.search(json, maxEvents, theme, width, pool);
    const n = check.simulations, perSeed = check.per_seed, seeds = n / perSeed;
    const size = Math.min(pool, n);
    if (size <= 1) return whole();
    while (this.workers.length < size) this.workers.push(new EngineWorker(this.module));
    const gen = ++this.generation;
    const workers = this.workers.slice(0, size);
    const parts = new Map(); // by first simulation: {to, part}
    let next = 0, done = 0, ready = 0; // simulations handed out, done, and done from 0 without a gap
    let merging = null, shownSeeds = 0, shownAt = 0;
    // chunk is the size of the next part: smaller as the run nears its end,
    // spread over the workers for the first seed, and within one seed.
    const chunk = () => {
      let k = Math.ceil((n - next) / (2 * size));
      if (next < perSeed) k = Math.min(k, Math.ceil(perSeed / size));
      if (seeds > 1) k = Math.min(k, perSeed - (next % perSeed));
      return k;
    };
    const partsBelow = (end) => {
      const list = [];
      for (let k = 0; k < end; k = parts.get(k).to) list.push(parts.get(k).part);
      return "[" + list.join(",") + "]";
    };
    // An early result is worth merging once a new seed is complete, while
    // the run is not about to end (at the pace so far), and not too often:
    // a merge draws the whole view, and takes a worker from the run.
    let mergeMs = 0;
    const wantEarly = () => {
      if (merging || next >= n || Math.floor(ready / perSeed) <= shownSeeds) return false;
      const now = performance.now();
      if (shownSeeds > 0 && now - shownAt < Math.max(EARLY_MS, 5 * mergeMs)) return false;
      return root.dataset.early === "always" || (n - done) * (now - started) / done >= EARLY_MS;
    };
    const showEarly = async (w) => {
      const j = shownSeeds === 0 ? 1 : Math.floor(ready / perSeed); // the first seed first, whatever else is done
      const t0 = performance.now();
      const out = JSON.parse(await w.call("merge", json, partsBelow(j * perSeed), theme, width, j));
      shownSeeds = j;
      shownAt = performance.now();
      mergeMs = shownAt - t0;
      if (gen === this.generation) early(out, j, seeds); // always before the final result, which waits for this
    };
    const work = async (w) => {
      while (gen === this.generation) {
        if (wantEarly()) {
          merging = showEarly(w);
          await merging;
          merging = null;
          continue;
        }
        if (next >= n) return;
        const from = next, to = from + chunk();
        next = to;
        const part = await w.call("runPart", json, Array.from({ length: to - from }, (_, i) => from + i), maxEvents);
        parts.set(from, { to, part });
        done += to - from;
        while (parts.has(ready)) ready = parts.get(ready).to;
        if (gen === this.generation) progress(done, n);
      }
    };
    try {
      await Promise.all(workers.map(work));
      if (merging) await merging;
    } catch (err) {
      // One part failed: the others stop with it, as a run does.
      if (gen === this.generation) this.cancel();
      throw err;
    }
    if (gen !== this.generation) throw new Error("cancelled");
    const out = JSON.parse(await workers[0].call("merge", json, partsBelow(n), theme, width));
    if (out.result) {
      out.millis = performance.now() - started;
      out.workers = size;
    }
    return out;
  }
  // search runs a scenario with a search on the first worker, its rounds'
  // simulations over pool workers: the same result, byte for byte, as on
  // one.
  async search(json, maxEvents, theme, width, pool) {
    while (this.workers.length < pool) this.workers.push(new EngineWorker(this.module));
    const gen = ++this.generation;
    const workers = this.workers.slice(0, pool), w = workers[0];
    w.onBatch = (id, batch) => relay(w, workers, json, id, batch, () => gen === this.generation);
    try {
      const out = JSON.parse(await w.call("run", json, maxEvents, theme, width, true));
      if (out.result) out.workers = pool;
      return out;
    } finally {
      if (w.onBatch && gen === this.generation) w.onBatch = null;
    }
  }
}

// ---- the scenario: JSON is the truth, the form edits paths in it ----------

// state is everything the page remembers between events.
const state = {
  scenario: null, // the scenario being edited: the JSON text is its truth
  presets: [], // the engine's policy presets
  kinds: {}, // the engine's vocabulary: the lists of kinds the form offers
  form: null, // the form's fields and kind rules (view.Form)
  folds: new Set(), // the paths of the objects whose "more settings" are open (folded)
  editing: null, // the form's edits under way, one after the other (editScenario)
  window: undefined, // the affected window the scenario's runs judge, as the engine's validate answers it (null: not valid)
  windowFor: null, // the JSON that window is of
  loadedFrom: null, // the built-in as loaded, to share it by its slug while unchanged
  pendingNote: "", // a note for the status line after the next run
  pendingLink: null, // a link after it: {text, href}
  addressTimer: null, // the pending update of the address bar
  timer: null, // the pending check-and-run after an edit
  pending: null, // its promise, for Share to wait on
  running: 0, // the number of the latest run; older runs' answers are dropped
  early: "", // the seeds of the results shown before the run ends ("1 of 10 seeds"), or ""
  shown: null, // the JSON whose results are on screen
  first: null, // the built-in whose result the server drew is on screen (its slug), until the engine's run
  chartURLs: new Map(), // an object URL per SVG on screen
  probe: null, // the metastability probe under way: {worker, workers, json, name, timer}
  probeChecks: 0, // the number of the latest check of which strategies a probe can run
  shipping: "", // the strategy whose one-click search is running, or ""
  shipForms: 0, // the number of the latest form asked of the engine
  shipForm: null, // the form shown (view.SearchForm)
  shipOnLoad: "", // the strategy whose search form the link asks for (?ship=NAME)
};
const engine = new Engine();

// LIMITS are the limits decided in Go (view.Playground, the engine's
// limits). Edits re-run the scenario at once when its estimated cost (the
// engine's Estimate, in events: a generous upper bound, often ten times the
// events a run takes) is at most auto_run_events; costlier ones wait for
// Run, and what Run refuses (above run_events) is said at once. The rule
// depends on the scenario only, never on how fast the last run was. A
// probe is refused, as on the server by default, when every simulation
// its bisection can make is estimated above probe_events. runs and seed
// are the ranges of the links' parameters.
let LIMITS = { auto_run_events: 0, run_events: 0, probe_events: 0, runs: [1, 1], seed: [0, 0] };
// chartWidth is the width charts are drawn at for the width the results
// show them at (0: the default, 760), as shared/chart's ShownWidths decide
// (the page carries them: the first result is laid out before the engine
// loads), so that phones, tablets and the two-column layout's narrower
// results get charts laid out for them.
const shownWidths = JSON.parse(root.dataset.chartWidths || "[]");
const chartWidth = () => {
  const shown = $("charts").clientWidth || window.innerWidth;
  return shownWidths.find((d) => shown >= d.from)?.width ?? 0;
};
// status says msg in the status line, with a link ({text, href, after})
// after it, and the link's text after.
const status = (msg, link) => {
  $("status").textContent = msg;
  if (link) $("status").append(" ", el("a", { href: link.href, "data-testid": "status-link", text: link.text }), "." + (link.after ? " " + link.after : ""));
};

// Paths are the engine's, as its errors name them: "strategies[1].backoff.base".
const keysOf = (path) => path.match(/[^.[\]]+/g).map((k) => (/^\d+$/.test(k) ? Number(k) : k));
function getPath(obj, path) {
  return keysOf(path).reduce((o, k) => (o == null ? undefined : o[k]), obj);
}
function writeJSON() {
  $("json").value = JSON.stringify(state.scenario, null, 2);
}


function load(doc, msg, builtin, link) {
  const note = msg;
  scenarioChanged();
  closeShip();
  state.folds.clear();
  state.scenario = doc;
  writeJSON();
  state.loadedFrom = builtin ? { slug: builtin.slug, title: builtin.title, json: $("json").value } : null;
  $("pg-title").textContent = builtin ? builtin.title : doc.name || "Your scenario";
  $("pg-summary").textContent = builtin ? builtin.summary : doc.description || "";
  state.window = undefined;
  renderForm();
  refreshWindow();
  state.pendingNote = note || "";
  state.pendingLink = link || null;
  run();
  const ship = state.shipOnLoad;
  state.shipOnLoad = "";
  if (ship && (state.scenario?.strategies || []).some((st) => st?.name === ship)) openShip(ship);
}

// nameTitle makes the page's title the scenario's name as it now is,
// however it was edited (form or JSON), when it has one.
function nameTitle() {
  if (typeof state.scenario?.name === "string" && state.scenario.name.trim()) $("pg-title").textContent = state.scenario.name;
}

// edited marks the scenario as the user's own: the picker says so, an
// edited built-in is renamed (view.Edit's "own": its shared page must not
// pass for the published experiment), and the address bar carries the
// scenario so that a reload or a copied address keeps the edits. Not while
// the JSON is being typed in (rename false): rewriting it would move the
// caret.
function edited(rename = true) {
  scenarioChanged();
  nameTitle();
  if ($("builtin").value !== "") {
    $("builtin").value = "";
    if (rename && state.scenario && typeof state.scenario === "object" && state.loadedFrom) {
      // The run that follows waits for it (editsMade).
      editScenario({ action: "own", builtin: state.loadedFrom.title }, () => {
        nameTitle();
        $("pg-summary").textContent = "Your edit of a published experiment: share it to get its own link.";
      });
    }
  }
  clearTimeout(state.addressTimer);
  state.addressTimer = setTimeout(async () => {
    history.replaceState(null, "", "/#z=" + (await toFragment($("json").value)));
  }, 500);
}

// ---- the edits: made in Go (view.Edit), on a worker of their own --------

// The editor is the worker that makes the form's edits (view.Edit). It
// runs no simulations, so an edit never waits behind a run; it starts at
// the first edit. Edits are made one after the other, each on the JSON as
// the previous one left it (state.editing).
let editor = null;
state.editing = Promise.resolve();

// editsMade waits for the edits under way, those made meanwhile too.
async function editsMade() {
  for (let p = null; p !== state.editing; ) await (p = state.editing);
}

// editScenario makes the edit (a view.FormEdit) on the scenario as it is
// when its turn comes (the last JSON that parsed), then shows the scenario
// it gives and calls then. A scenario changed meanwhile (typed in the
// JSON, an import) is edited again, so that the answer never undoes it. root.dataset.editing counts the edits under
// way (tests wait for 0).
function editScenario(edit, then) {
  scenarioChanged(); // a probe of the scenario before the edit stops at once
  root.dataset.editing = String(Number(root.dataset.editing || 0) + 1);
  state.editing = state.editing.then(async () => {
    editor ||= new EngineWorker(engine.module);
    let json, out;
    do {
      json = JSON.stringify(state.scenario);
      out = await editor.call("edit", json, JSON.stringify(edit));
    } while (json !== JSON.stringify(state.scenario));
    state.scenario = JSON.parse(out);
    writeJSON();
    then();
  }).catch((err) => {
    status("The form could not make that edit: " + ((err && err.message) || err));
  }).finally(() => {
    root.dataset.editing = String(Number(root.dataset.editing) - 1);
  });
}

// ---- the form ------------------------------------------------------------

// applies reports whether the form shows the field at path: a field of an
// object with a kind (the view's kind rules, state.form.kinds) only when
// its kind takes it, or when it holds a value (which its errors may be
// about). A rule "above" reads the kind from the object's owner.
function applies(path) {
  const keys = keysOf(path), field = keys[keys.length - 1];
  const name = typeof keys[keys.length - 2] === "number" ? keys[keys.length - 3] : keys[keys.length - 2];
  const rule = (state.form?.kinds || []).find((r) => r.object === name);
  if (!rule || (field === rule.key && !rule.above) || getPath(state.scenario, path) !== undefined) return true;
  const object = path.slice(0, path.lastIndexOf("."));
  const kind = getPath(state.scenario, (rule.above ? object.slice(0, object.lastIndexOf(".")) : object) + "." + rule.key);
  return !!kind && ((rule.common || []).includes(field) || (rule.fields[kind] || []).includes(field));
}

// inputs are the controls of a part of the form (view.Form: fields with
// paths relative to the part's object), at the object's path at.
const inputs = (part, at) => (state.form?.[part] || []).map((f) => input(at + f.path, f.label, f.type));

// folded are the controls of the parts of one object at the path at, the
// fields the view folds (view.Form's folding) that hold no value last,
// behind a "more settings" of their own, which stays open across renders
// once opened (state.folds), by the user or by an error beside a field in
// it (showErrors).
function folded(parts, at) {
  const open = [], more = [];
  for (const part of parts) {
    const folds = state.form?.folding?.[part] || [];
    for (const f of state.form?.[part] || []) {
      const control = input(at + f.path, f.label, f.type);
      if (control) (folds.includes(f.path) && getPath(state.scenario, at + f.path) === undefined ? more : open).push(control);
    }
  }
  if (!more.length) return open;
  const key = at;
  const fold = el("details", { class: "more", "data-fold": key, "data-testid": "more-settings", open: state.folds.has(key) },
    el("summary", { text: `${more.length} more settings, none set` }), ...more);
  fold.addEventListener("toggle", () => (fold.open ? state.folds.add(key) : state.folds.delete(key)));
  return [...open, fold];
}

function input(path, label, type) {
  if (!applies(path)) return "";
  const id = "f-" + path.replace(/\W/g, "-");
  const value = getPath(state.scenario, path);
  let control;
  if (type === "checkbox") {
    control = el("input", { id, "data-path": path, type: "checkbox", checked: value === true });
  } else if (type !== "number" && type !== "text" && type !== "numbers") {
    const options = type === "preset" ? ["", ...state.presets.map((p) => p.name)]
      : type === "dependencies" ? ["", ...depNames()] : type === "calls" ? ["", ...callNames()]
      : ["", ...(state.kinds[type] || [])];
    control = el("select", { id, "data-path": path });
    for (const o of options) control.append(el("option", { value: o, text: o || "—", selected: (value ?? "") === o }));
  } else {
    control = el("input", { id, "data-path": path, type: type === "number" ? "number" : "text", value: value ?? "", step: type === "number" ? "any" : null });
  }
  control.dataset.kind = type === "number" || type === "checkbox" ? type : "text";
  return el("div", { class: "field" }, el("label", { for: id, text: label }), control, el("span", { class: "field-error", id: id + "-error" }));
}

const button = (action, text, data = {}, label) => el("button", { type: "button", "data-action": action, text, "aria-label": label, ...data });

// deps lists the scenario's dependencies as [path, dependency]: the one
// "dependency", or each of "dependencies".
function deps() {
  const sc = state.scenario;
  if (Array.isArray(sc.dependencies)) return sc.dependencies.map((d, k) => [`dependencies[${k}]`, d || {}]);
  return [["dependency", sc.dependency || {}]];
}
const callNames = () => (state.scenario?.workload?.plan || []).flatMap((st) => (st?.calls || []).map((c) => c?.name || c?.dependency)).filter(Boolean);
const depNames = () => (Array.isArray(state.scenario?.dependencies) ? state.scenario.dependencies.map((d) => d?.name).filter(Boolean) : []);

// requirementsBox edits report.thresholds as the view's requirements form
// says (view.RequirementsForm): a metric, a comparison and a bound shown
// in the metric's unit (a rate as a percentage), each control carrying
// its path so that the engine's errors land beside it.
function requirementsBox() {
  const f = state.requirements;
  if (!f) return "";
  const list = state.scenario.report?.thresholds || [];
  const rows = list.map((th, i) => {
    const at = `report.thresholds[${i}]`;
    const id = (part) => "f-" + (at + "." + part).replace(/\W/g, "-");
    const m = f.metrics.find((x) => x.key === th?.metric);
    const data = (part) => ({ id: id(part), "data-path": at + "." + part, "data-requirement": i, "data-part": part });
    const metric = el("select", data("metric"), ...f.metrics.map((x) =>
      el("option", { value: x.key, text: x.label + (x.unit ? ` (${x.unit})` : ""), selected: x.key === th?.metric })));
    const op = el("select", { ...data("op"), "aria-label": `Requirement ${i + 1}: comparison` }, ...f.ops.map((o) =>
      el("option", { value: o.value, text: o.label, selected: o.value === th?.op })));
    const shown = typeof th?.value === "number" ? String(Number((th.value * (m?.scale || 1)).toPrecision(12))) : "";
    const value = el("input", { ...data("value"), type: "number", step: "any", value: shown, "aria-label": `Requirement ${i + 1}: bound${m?.unit ? " in " + m.unit : ""}` });
    return el("div", { class: "field" }, el("label", { for: id("metric"), text: `Requirement ${i + 1}` }),
      el("span", { class: "ship-constraint" }, metric, op, value),
      ...["metric", "op", "value"].map((p) => el("span", { class: "field-error", id: id(p) + "-error" })),
      el("div", { class: "row" }, button("requirement-remove", "Remove", { "data-index": i }, `Remove requirement ${i + 1}`)));
  });
  const group = el("fieldset", {}, el("legend", { text: "Requirements" }), el("p", { class: "muted", text: f.intro }), ...rows);
  if (list.length < f.max) group.append(el("div", { class: "row" }, button("requirement-add", "Add a requirement")));
  return group;
}

// editRequirement writes a requirement's control into report.thresholds:
// a bound in the metric's unit goes in as the scenario holds it.
function editRequirement(t) {
  const f = state.requirements, i = Number(t.dataset.requirement);
  const th = state.scenario.report.thresholds[i];
  const m = f.metrics.find((x) => x.key === th.metric);
  switch (t.dataset.part) {
    case "metric": {
      // The bound keeps what it says in the form: 95 stays 95%.
      const next = f.metrics.find((x) => x.key === t.value);
      if (typeof th.value === "number" && m && next) th.value = th.value * m.scale / next.scale;
      th.metric = t.value;
      break;
    }
    case "op":
      th.op = t.value;
      break;
    default:
      if (t.value.trim() === "") delete th.value;
      else th.value = Number(t.value) / (m?.scale || 1);
  }
}

// loadFields edits the workload's load phases, each with its kind's own
// fields (the engine says which); they change Poisson arrivals only.
function loadFields() {
  const w = state.scenario.workload || {};
  if ((w.arrival || "poisson") !== "poisson") return [];
  const phases = (w.load || []).map((_, i) => {
    const pat = `workload.load[${i}].`;
    return el("fieldset", { class: "sub" }, el("legend", { text: `Load change ${i + 1}` }), ...inputs("load", pat),
      el("div", { class: "row" }, button("load-remove", "Remove", { "data-index": i }, `Remove load change ${i + 1}`)));
  });
  return [el("h2", { class: "form-sub", text: "Load over time" }), ...phases,
    el("div", { class: "row" }, button("load-add", "Add a load change"))];
}

// fleetFields edits the workload's other fleets: each with its clients,
// its rate and its own policy, which no compared strategy changes.
function fleetFields() {
  const w = state.scenario.workload || {};
  if ((w.arrival || "poisson") !== "poisson") return [];
  const fleets = (w.fleets || []).map((f, i) => {
    const pat = `workload.fleets[${i}].`;
    return el("fieldset", { class: "sub" }, el("legend", { text: `Fleet ${f.name || i + 1}` }),
      ...folded(["fleet", "policy"], pat),
      el("div", { class: "row" }, button("fleet-remove", "Remove", { "data-index": i }, `Remove fleet ${f.name || i + 1}`)));
  });
  return [el("h2", { class: "form-sub", text: "Other fleets" }),
    ...(fleets.length ? inputs("fleet_of", "workload.") : []), ...fleets,
    el("div", { class: "row" }, button("fleet-add", "Add a fleet"))];
}

function renderForm() {
  const form = $("form");
  // The field with the focus keeps it: a choice that changes the form
  // (another kind) leaves the keyboard where it was.
  const focused = form.contains(document.activeElement) ? document.activeElement.dataset.path : undefined;
  form.replaceChildren();
  if (!state.scenario || typeof state.scenario !== "object") return;
  const several = Array.isArray(state.scenario.dependencies);
  const group = (title, ...kids) => el("fieldset", {}, el("legend", { text: title }), ...kids);
  form.append(group("Workload", ...inputs("workload", "workload."), ...loadFields(), ...fleetFields(), ...(several ? planFields() : [])));
  for (const [at, dep] of deps()) {
    // The timeline: each phase with its kind's own fields (the engine says
    // which), moved by its times or its place in the list.
    const phases = (dep.phases || []).map((_, i) => {
      const pat = `${at}.phases[${i}].`;
      return el("fieldset", { class: "sub" }, el("legend", { text: `Phase ${i + 1}` }), ...inputs("phase", pat),
        el("div", { class: "row" },
          button("phase-remove", "Remove", { "data-index": i, "data-dep": at }, `Remove phase ${i + 1}${several ? " of " + (dep.name || at) : ""}`)));
    });
    const title = several ? `Dependency ${dep.name || ""}`.trim() : "Dependency";
    form.append(group(title, ...folded(several ? ["named", "dependency"] : ["dependency"], at + "."),
      el("h2", { class: "form-sub", text: several ? `Timeline of ${dep.name || "this dependency"}` : "Timeline" }), ...phases,
      el("div", { class: "row" },
        button("phase-add", "Add a phase", { "data-dep": at }, several ? `Add a phase to ${dep.name || at}` : null),
        ...(several && deps().length > 1 ? [button("dep-remove", "Remove dependency", { "data-dep": at }, `Remove dependency ${dep.name || at}`)] : []))));
  }
  form.append(button("dep-add", "Add a dependency"));
  // The affected window: it follows the phases until From or To pins it;
  // the engine says which it is (showWindow).
  form.append(group("Affected window",
    el("p", { id: "window-note", class: "muted window-note", "data-testid": "window-note", "aria-live": "polite" }),
    ...inputs("window", "report."),
    el("div", { class: "row" }, button("window-follow", "Follow the phases", { "data-testid": "window-follow" }, "Follow the phases: unpin the affected window"))));
  form.append(requirementsBox());
  (state.scenario.strategies || []).forEach((st, i) => {
    const at = `strategies[${i}].`;
    const policy = (at, ...more) => folded(["policy", ...(several ? ["scoped", ...more] : [])], at);
    const layers = (st.layers || []).map((_, j) =>
      el("fieldset", { class: "sub" }, el("legend", { text: `Layer ${j + 1} below ${st.name || "it"}` }),
        ...policy(`${at}layers[${j}].`),
        el("div", { class: "row" }, button("layer-remove", "Remove layer", { "data-index": i, "data-layer": j }, `Remove layer ${j + 1} of strategy ${st.name || i + 1}`))));
    const name = st.name || i + 1;
    const limits = several ? [
      ...(st.bulkheads || []).map((_, j) => el("fieldset", { class: "sub" }, el("legend", { text: `Bulkhead ${j + 1}` }),
        ...inputs("bulkhead", `${at}bulkheads[${j}].`),
        el("div", { class: "row" }, button("bulkhead-remove", "Remove bulkhead", { "data-index": i, "data-item": j }, `Remove bulkhead ${j + 1} of strategy ${name}`)))),
      ...(st.fallbacks || []).map((_, j) => el("fieldset", { class: "sub" }, el("legend", { text: `Fallback ${j + 1}` }),
        ...inputs("fallback", `${at}fallbacks[${j}].`),
        el("div", { class: "row" }, button("fallback-remove", "Remove fallback", { "data-index": i, "data-item": j }, `Remove fallback ${j + 1} of strategy ${name}`)))),
    ] : [];
    // The legend names the strategy, and says which are the user's own
    // (report.yours: an import marks them), found among the others.
    const yours = st.name && (state.scenario.report?.yours || []).includes(st.name);
    const box = group(`Strategy ${i + 1}${st.name ? ": " + st.name : ""}${yours ? " (yours)" : ""}`, ...inputs("head", at), ...policy(at, "strategy"), ...limits, ...layers);
    box.append(el("div", { class: "row" },
      button("duplicate", "Duplicate", { "data-index": i }, `Duplicate strategy ${name}`),
      button("remove", "Remove", { "data-index": i }, `Remove strategy ${name}`),
      button("export", "Export", { "data-index": i }, `Export strategy ${name}`),
      button("ship", "What should I ship?", { "data-index": i, "data-testid": "ship" }, `What should I ship? Search the settings of strategy ${name}`),
      button("layer-add", "Add a layer below", { "data-index": i }, `Add a layer below strategy ${name}`),
      ...(several ? [button("bulkhead-add", "Add a bulkhead", { "data-index": i }, `Add a bulkhead to strategy ${name}`),
        button("fallback-add", "Add a fallback", { "data-index": i }, `Add a fallback to strategy ${name}`)] : [])));
    form.append(box);
  });
  form.append(button("add", "Add a strategy"));
  if (state.scenario.search && typeof state.scenario.search === "object") {
    form.append(group("Search", el("p", { class: "muted", text: `The scenario searches the settings of ${state.scenario.search.strategy || "a strategy"}; what it found is under the results.` }),
      el("div", { class: "row" }, button("search-remove", "Remove the search", { "data-testid": "search-remove" }, "Remove the search from the scenario"))));
  }
  showWindow();
  exportChoices();
  if (focused) form.querySelector(`[data-path="${CSS.escape(focused)}"]`)?.focus();
}

// pinned reports whether the scenario sets the affected window itself
// (report.affected_from or affected_to).
const pinned = () => getPath(state.scenario, "report.affected_from") !== undefined || getPath(state.scenario, "report.affected_to") !== undefined;

// showWindow shows in the form the affected window w, which the engine
// answered for the scenario JSON json (without them: the last one): the
// engine's words, the phases' bounds as the fields' placeholders while it
// follows them, and Follow the phases while it is pinned. Until the engine
// has answered for the JSON as it is now, the note is dimmed and busy.
function showWindow(w, json) {
  if (json !== undefined) {
    state.window = w || null;
    state.windowFor = json;
  }
  w = state.window;
  const note = $("window-note");
  if (!note) return;
  const pending = state.windowFor !== $("json").value;
  note.classList.toggle("pending", pending);
  if (pending) note.setAttribute("aria-busy", "true");
  else note.removeAttribute("aria-busy");
  // The note and the placeholders say the engine's last answer, even
  // while a newer edit waits for its own; Follow shows while the JSON pins.
  const pin = pinned();
  const says = w ? w.says[0].toUpperCase() + w.says.slice(1) + "." : "";
  note.textContent = w === undefined ? "Checking the affected window…"
    : !w ? "The affected window shows once the scenario is valid."
    : w.varies ? says + "."
    : w.pinned ? says + " Follow the phases unpins it."
    : w.whole ? says + " From and To set one."
    : says + " It follows the phases; typing From or To pins it.";
  for (const end of ["from", "to"]) {
    const field = document.querySelector(`[data-path="report.affected_${end}"]`);
    if (w && !w.pinned && !w.whole && !w.varies && !pin) field.placeholder = w[end];
    else field.removeAttribute("placeholder");
  }
  document.querySelector('[data-action="window-follow"]').hidden = !pin;
}

// refreshWindow asks the engine for the affected window of the scenario
// as it is now (checkAndRun's validate answers it after an edit).
async function refreshWindow() {
  const json = $("json").value;
  try {
    const check = await engine.call("validate", json);
    if (json === $("json").value) showWindow(check.window, json);
  } catch {
    // The run that follows says what failed.
  }
}

// planFields edits the operation's plan: steps in sequence, each with the
// calls it makes in parallel.
function planFields() {
  const plan = state.scenario.workload?.plan || [];
  const out = [el("h2", { class: "form-sub", text: "What an operation calls" })];
  plan.forEach((step, s) => {
    const calls = (step?.calls || []).map((_, c) => el("fieldset", { class: "sub" }, el("legend", { text: `Step ${s + 1}, call ${c + 1}` }),
      ...inputs("call", `workload.plan[${s}].calls[${c}].`),
      el("div", { class: "row" }, button("call-remove", "Remove call", { "data-step": s, "data-item": c }, `Remove call ${c + 1} of step ${s + 1}`))));
    out.push(...calls, el("div", { class: "row" },
      button("call-add", "Add a call in parallel", { "data-step": s }, `Add a call in parallel to step ${s + 1}`)));
  });
  out.push(button("step-add", "Add a step after these"));
  return out;
}

$("form").addEventListener("input", (e) => {
  if (e.target.dataset.requirement !== undefined) {
    editRequirement(e.target);
    writeJSON();
    edited();
    scheduleRun();
    return;
  }
  const t = e.target, path = t.dataset.path;
  if (!path) return;
  const value = t.dataset.kind === "checkbox" ? (t.checked || undefined)
    : t.value === "" ? undefined : t.dataset.kind === "number" ? Number(t.value) : t.value;
  // Typing one end of the window the form shows while it follows the
  // phases pins it (view.Edit keeps the other end's bound).
  const w = state.window, follows = w && !w.whole && !w.varies && state.windowFor === $("json").value;
  editScenario({ action: "set", path, value, window: follows ? { from: w.from, to: w.to } : undefined }, () => {
    showWindow(); // pending until the engine answers for the edit
    // A choice may change which fields show (another kind, arrivals that
    // take load changes); a typed value changes only the values shown.
    if (t.tagName === "SELECT") renderForm();
    else showValues(t);
    edited();
    scheduleRun();
  });
});

// showValues shows in the form's fields what the scenario holds, but in
// the field typed in (typed) and in the one with the focus: what an edit
// changed elsewhere (a pinned window's other end, a renamed dependency).
function showValues(typed) {
  for (const f of $("form").querySelectorAll("[data-path]")) {
    if (f === typed || f === document.activeElement || f.dataset.requirement !== undefined) continue;
    const v = getPath(state.scenario, f.dataset.path);
    if (f.dataset.kind === "checkbox") f.checked = v === true;
    else if (f.value !== String(v ?? "")) f.value = v ?? "";
  }
}

$("form").addEventListener("change", (e) => {
  // A renamed dependency's lists, a renamed strategy's legend, and a
  // requirement's unit, follow, once the edits under way are made.
  if (/^(dependencies|strategies)\[\d+\]\.name$/.test(e.target.dataset.path || "") || e.target.dataset.part === "metric") state.editing.then(renderForm);
});

$("form").addEventListener("click", (e) => {
  const action = e.target.dataset.action;
  if (!action) return;
  if (action === "export") {
    openExport(Number(e.target.dataset.index)); // changes nothing in the scenario
    return;
  }
  if (action === "ship") {
    openShip(state.scenario.strategies?.[Number(e.target.dataset.index)]?.name); // changes nothing until the search runs
    return;
  }
  const d = e.target.dataset, n = (v) => (v === undefined ? undefined : Number(v));
  editScenario({ action, index: n(d.index), item: n(d.layer ?? d.item), step: n(d.step), dep: d.dep }, () => {
    renderForm();
    edited();
    scheduleRun();
  });
});

$("json").addEventListener("input", () => {
  edited(false);
  try {
    state.scenario = JSON.parse($("json").value);
  } catch (err) {
    clearTimeout(state.timer);
    const json = $("json").value;
    showWindow(null, json);
    showErrors([{ message: "The JSON does not parse: " + err.message }]);
    stale("The JSON does not parse: the results are from the last valid version.");
    notJSON(json);
    return;
  }
  nameTitle();
  renderForm();
  scheduleRun();
});

// notJSON says what is wrong with a scenario that does not parse as the
// engine says it (its line and column), and offers Import when it looks
// like a retry configuration (offerImport).
async function notJSON(json) {
  try {
    const check = await engine.call("validate", json);
    if (json !== $("json").value || !check.errors?.length) return;
    showErrors(check.errors);
  } catch {} // the browser's message stays
  offerImport(json);
}

// offerImport asks the converters (convert.Detect, convert.ImportHint)
// whether the scenario box holds a retry configuration rather than a
// scenario, and if so says so under the errors, with a button that moves
// it into the Import panel in its format. It is asked only of text that
// is no scenario: it does not parse, or its top level has fields a
// scenario has not.
async function offerImport(json) {
  $("import-offer")?.remove();
  let d;
  try {
    d = await convert("detect", json);
  } catch {
    return; // no converters: the errors say what is wrong
  }
  if (!d.format || json !== $("json").value) return;
  const b = el("button", { type: "button", "data-testid": "import-offer-go", text: `Import it (${formatLabels[d.format] || d.format})` });
  b.addEventListener("click", async () => {
    // The scenario box gets back the scenario the results are of; the
    // configuration goes to the Import panel, whose import adds to it.
    if (state.shown) {
      $("json").value = state.shown;
      state.scenario = JSON.parse(state.shown);
      renderForm();
      showErrors([]);
      document.querySelector(".results").classList.remove("stale");
      status("The configuration is in the Import panel: Import adds its policies to this scenario.");
    }
    const f = await converter().formats.catch(() => null);
    if (f) formatOptions($("import-format"), f.import, f.labels); // keeps the value the panel's opening sets again
    $("import-format").value = d.format;
    $("import-box").open = true;
    $("import-text").value = json;
    $("import-offer")?.remove();
    $("import-box").scrollIntoView({ block: "nearest" });
    $("import-go").focus();
  });
  $("errors").after(el("div", { id: "import-offer", class: "errors", role: "status", "data-testid": "import-offer" }, el("p", { text: d.hint }), b));
}

// ---- running ------------------------------------------------------------

function scheduleRun() {
  clearTimeout(state.timer);
  state.pending = new Promise((resolve) => {
    state.timer = setTimeout(() => checkAndRun().finally(resolve), 250);
  });
}

// checkAndRun validates the scenario and runs it when it is cheap enough.
async function checkAndRun() {
  await editsMade();
  const json = $("json").value;
  let check;
  try {
    check = await engine.call("validate", json, LIMITS.run_events);
  } catch (err) {
    status("The engine failed: " + err.message);
    return;
  }
  if (json !== $("json").value) return; // edited again meanwhile
  showWindow(check.window, json);
  if (check.errors && check.errors.length) {
    invalid(check.errors);
    // Fields a scenario has not at its top level, or no version: maybe a
    // retry configuration pasted here.
    if (check.errors.some((e) => (e.path && !/[.[]/.test(e.path) && / is not a known field/.test(" " + e.message)) || (e.path === "version" && /is missing/.test(e.message)))) offerImport(json);
    return;
  }
  $("import-offer")?.remove();
  // Run and the edits agree: what Run would refuse is said now, with why.
  if (check.refused) {
    stale(`Too costly to run in the browser: ${check.refused}`);
    return;
  }
  if (check.estimate > LIMITS.auto_run_events) {
    stale(`Changed: press Run (Ctrl+Enter) to see the new results; this scenario is estimated at ${check.estimate.toLocaleString()} events, too many to re-run on every edit.`);
    return;
  }
  await run();
}

function invalid(errors) {
  showErrors(errors);
  stale(`The scenario has ${errors.length === 1 ? "a problem" : errors.length + " problems"}, marked beside the fields and listed under the JSON; the results are from the last valid version.`);
}

// stale dims the results that no longer match the scenario, and says why.
function stale(msg) {
  document.querySelector(".results").classList.add("stale");
  status(msg);
}

// progress says how many simulations are done, and how many seeds the
// results shown meanwhile have.
function progress(done, total) {
  status(`${state.early ? state.early + " — refining…" : "Running…"} ${done} of ${total} simulations (Cancel stops it).`);
  if (state.shipping) $("ship-status").textContent = `Searching from ${state.shipping}: ${done} of ${total} simulations (Cancel stops it).`;
}

async function run() {
  const mine = ++state.running;
  status("Running…");
  await editsMade(); // a run is of the scenario as the edits under way leave it
  const json = $("json").value;
  $("cancel").hidden = false;
  state.early = "";
  try {
    const first = state.first !== null && state.loadedFrom?.slug === state.first && state.loadedFrom.json === json;
    state.first = null;
    const out = await engine.run(json, LIMITS.run_events, "auto", chartWidth(), (early, seeds, of) => {
      if (mine !== state.running || first) return; // the full result is on screen already
      document.querySelector(".results").classList.remove("stale");
      showErrors([]);
      showView(early.view);
      window.retrylabFirstResultMs ??= performance.now();
      state.early = `${seeds} of ${of} seeds`;
      status(`${state.early} — refining… (Cancel stops it).`);
    });
    if (mine !== state.running) return;
    if (out.errors && out.errors.length) {
      invalid(out.errors);
      return;
    }
    document.querySelector(".results").classList.remove("stale");
    showErrors([]);
    showView(out.view);
    state.shown = json;
    probeChoices(json, out.view);
    window.retrylabLast = JSON.stringify(out.result); // for tests and the curious
    window.retrylabView = out.view;
    window.retrylabFirstResultMs ??= performance.now(); // since navigation began
    window.retrylabFirstRunMs ??= performance.now(); // the engine's own first run
    const where = out.workers > 1 ? `in your browser, on ${out.workers} workers` : "in your browser";
    status(`Ran in ${out.millis.toFixed(1)} ms (${out.result.events.toLocaleString()} events, ${where}).` + (state.pendingNote ? " " + state.pendingNote : ""), state.pendingLink);
    state.pendingNote = "";
    state.pendingLink = null;
    root.dataset.ran = String(Number(root.dataset.ran || 0) + 1);
  } catch (err) {
    if (mine === state.running) status(err.message === "cancelled" ? "Cancelled." : "The run failed: " + err.message);
  } finally {
    if (mine === state.running) $("cancel").hidden = true;
  }
}

$("run").addEventListener("click", () => {
  inView($("status"));
  run();
});

// inView keeps the progress element p of the work the user just started
// (a run, a search, a probe: each says it politely, role=status) in
// view, beside the button they pressed, scrolling as little as it takes.
function inView(p) {
  p.scrollIntoView({ block: "nearest" });
}
$("cancel").addEventListener("click", () => {
  state.running++;
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

// errorText writes a problem as the engine does: "path: value message".
const errorText = (e) => (e.path ? e.path + ": " : "") + (e.value ? e.value + " " : "") + e.message;

function showErrors(errors) {
  document.querySelectorAll(".field-error").forEach((s) => (s.textContent = ""));
  document.querySelectorAll("[aria-invalid]").forEach((c) => c.removeAttribute("aria-invalid"));
  const list = $("errors");
  list.replaceChildren();
  for (const e of errors) {
    const text = errorText(e);
    const control = e.path && document.querySelector(`[data-path="${CSS.escape(e.path)}"]`);
    if (control) {
      const fold = control.closest("details.more");
      if (fold) fold.open = true; // and it stays open (folded)
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", control.id + "-error");
      $(control.id + "-error").textContent = (e.value ? e.value + " " : "") + e.message;
    }
    list.append(el("li", { text, "data-path": e.path || "" }));
  }
}

// showView renders the view the engine decided (shared/view): this file
// keeps no list of charts, metrics or labels of its own.
function showView(v) {
  // The user's own policies first, with the next steps from them.
  const yours = (state.scenario?.report?.yours || []).filter((n) => state.scenario.strategies?.some((st) => st?.name === n));
  $("yours").replaceChildren(...(v.yours || []).map((t) => el("p", { text: t })));
  if (v.yours?.length) {
    $("yours").append(el("p", { class: "next" },
      ...yours.map((n) => button("yours-ship", `What should I ship instead of ${n}?`, { "data-name": n })),
      button("yours-share", "Share and embed")));
  }
  $("verdict").replaceChildren(el("strong", { text: "Verdict: " }), v.verdict);
  $("strategy-legend").replaceChildren(...v.strategies.map((s) =>
    el("li", {}, el("strong", { text: s.name }), s.description ? " — " + s.description : "")));
  const warnings = $("warnings");
  warnings.replaceChildren();
  if (v.warnings.length) {
    warnings.append(el("details", { class: "warnings" },
      el("summary", { text: `${v.warnings.length} policy ${v.warnings.length === 1 ? "warning" : "warnings"}` }),
      el("ul", {}, ...v.warnings.map((w) => el("li", { text: w })))));
  }
  $("legend").textContent = v.legend || "";
  $("means").textContent = v.means || "";
  $("window").textContent = v.window || "";
  drawFigures(v.figures, v.search?.figure?.svg ? [v.search.figure.svg] : []);
  const table = $("results");
  table.replaceChildren();
  const cell = (c) => el("td", { class: c.mark || null }, el("span", { class: "v", text: c.value }), c.spread ? el("br") : null, c.spread ? el("span", { class: "spread", text: c.spread }) : null);
  if (v.groups) {
    const n = v.strategies.length + 1;
    table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "metric" }), ...v.strategies.map((s) => el("th", { scope: "col", text: s.name })))));
    for (const g of v.groups) {
      const body = el("tbody", {}, el("tr", { class: "group" }, el("th", { scope: "colgroup", colspan: n, text: g.name })));
      for (const r of g.rows) {
        const label = el("details", {}, el("summary", {}, r.label, r.unit_shown ? el("span", { class: "unit", text: ` (${r.unit_shown})` }) : null),
          el("span", { class: "explain" }, r.explain + " ", el("code", { text: r.key })));
        body.append(el("tr", { "data-metric": r.key }, el("th", { scope: "row", class: "metric" }, label), ...r.cells.map(cell)));
      }
      table.append(body);
    }
  }
  if (v.sweep) {
    table.append(el("caption", { text: "Sweep of " + v.sweep.path }));
    table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "value" }), ...v.sweep.columns.map((c) => el("th", { scope: "col", text: c })))));
    table.append(el("tbody", {}, ...v.sweep.rows.map((r) => el("tr", {}, el("th", { scope: "row", text: r.label }), ...r.cells.map(cell)))));
  }
  showTail(v);
  const folded = $("folded");
  folded.replaceChildren();
  if (v.folded && v.folded.length) {
    folded.append(el("details", { class: "folded muted" }, el("summary", { text: `${v.folded.length} metrics are zero for every strategy` }), el("p", { text: v.folded.join(", ") + "." })));
  }
  showSearch(v.search);
}

// showTail renders each strategy's worst seed for the focus metric
// (view.worst), each linked to the playground running that seed alone, and
// the threshold sentences (view.thresholds).
function showTail(v) {
  const worst = $("worst-seed");
  worst.replaceChildren();
  worst.hidden = !v.worst;
  if (v.worst) {
    // The scenario this page opened with (s=), on the seed alone.
    const s = new URLSearchParams(location.search).get("s");
    worst.append(v.worst.text + " ");
    v.worst.seeds.forEach((w, i) => {
      if (i > 0) worst.append("; ");
      const href = "/?" + (s ? "s=" + encodeURIComponent(s) + "&" : "") + w.query + (s ? "" : location.hash);
      worst.append(w.strategy + " on ", el("a", { href, "data-seed": String(w.seed), text: "seed " + w.seed }), ` (${w.value})`);
    });
    worst.append(".");
  }
  const th = $("thresholds");
  th.replaceChildren(...(v.thresholds || []).map((t) => el("li", { text: t })));
  th.hidden = !(v.thresholds && v.thresholds.length);
}

// showSearch renders what the scenario's search found (view.search): how
// it went, the recommendation or why there is none, the frontier picture,
// and the frontier as a table whose rows each add their candidate as a
// strategy.
function showSearch(sv) {
  const box = $("search-result");
  box.replaceChildren();
  if (!sv) return;
  box.append(el("h2", { id: "search", text: "Search" }), el("p", { "data-testid": "search-summary", text: sv.summary }));
  if (sv.limits) box.append(el("p", { "data-testid": "search-limits", text: sv.limits }));
  // The lead in one sentence, its detail folded, as the server's page.
  if (sv.lead) {
    box.append(el("p", { class: "verdict", "data-testid": "search-recommendation" }, el("strong", { text: "Recommendation: " }), sv.lead),
      el("details", { "data-testid": "search-detail" }, el("summary", { text: "Why, and how sure" }), el("p", { text: sv.recommendation })));
  } else if (sv.recommendation) box.append(el("p", { class: "verdict", "data-testid": "search-recommendation" }, el("strong", { text: "Recommendation: " }), sv.recommendation));
  if (sv.note) box.append(el("p", { class: "errors", "data-testid": "search-note", text: sv.note }));
  if (sv.figure && sv.figure.svg) {
    box.append(el("figure", { class: "chart" }, el("img", { src: state.chartURLs.get(sv.figure.svg), alt: sv.figure.alt, "data-chart": "frontier" })));
  }
  if (!sv.points.length) return;
  const head = el("tr", {}, el("th", { scope: "col", text: "point" }),
    ...sv.settings.map((p) => el("th", { scope: "col" }, el("code", { text: p }))),
    ...sv.metrics.map((m) => el("th", { scope: "col", text: m.label + (m.unit && m.unit !== "%" && m.unit !== "calls" ? ` (${m.unit})` : "") })),
    el("th", { scope: "col", text: "strategy" }));
  const add = (p, i) => {
    const b = el("button", { type: "button", "data-action": "add-candidate", "aria-label": `Add as strategy: point ${i + 1}, named ${p.name}`, text: "Add as strategy" });
    b.addEventListener("click", () => addCandidate(p));
    return b;
  };
  // The view's groups decide the rows: of each run of points with the same
  // figures, those it lists, then a row counting the others, which lists
  // them folded, each with its own Add as strategy.
  const rows = [];
  for (const g of sv.groups) {
    for (const i of g.shown) {
      const p = sv.points[i];
      rows.push(el("tr", { "data-point": i + 1, class: p.recommended ? "recommended" : null },
        el("th", { scope: "row" }, String(i + 1), p.recommended ? el("br") : null, p.recommended ? el("strong", { text: "recommended" }) : null),
        ...p.settings.map((x) => el("td", {}, el("code", { text: x }))),
        ...p.cells.map((c) => el("td", {}, el("span", { class: "v", text: c.value }), c.spread ? el("br") : null, c.spread ? el("span", { class: "spread", text: c.spread }) : null)),
        el("td", {}, add(p, i))));
    }
    if (!g.more) continue;
    const list = el("ul", { class: "hidden-points" }, ...g.hidden.map((i) => el("li", { "data-point": i + 1 },
      `${i + 1}: `, el("code", { text: sv.points[i].words }), add(sv.points[i], i))));
    rows.push(el("tr", { class: "more", "data-testid": "search-more" },
      el("td", { colspan: 2 + sv.settings.length + sv.metrics.length }, el("details", {}, el("summary", { text: g.more }), list))));
  }
  box.append(el("p", { class: "muted", text: "The frontier: the candidates of the last round that meet the constraints and that no other beats on every objective. Means over the seeds, with their lowest and highest under each." }),
    el("div", { class: "tablewrap", tabindex: "0", role: "region", "aria-label": "Search frontier" },
      el("table", { "data-testid": "search-frontier" }, el("thead", {}, head), el("tbody", {}, ...rows))));
}

// addCandidate adds a frontier point's candidate to the scenario's
// strategies, under a name no strategy has yet, and runs the scenario.
function addCandidate(p) {
  if (!state.scenario || typeof state.scenario !== "object" || !p.strategy) return;
  const st = JSON.parse(JSON.stringify(p.strategy));
  const names = new Set((state.scenario.strategies || []).map((x) => x && x.name));
  let name = p.name;
  for (let k = 2; names.has(name); k++) name = `${p.name} ${k}`;
  st.name = name;
  state.scenario.strategies = [...(state.scenario.strategies || []), st];
  writeJSON();
  renderForm();
  edited();
  clearTimeout(state.timer);
  state.pendingNote = `Added ${name}.`;
  state.pending = run();
}

// chartURLs holds an object URL per SVG shown; a new run revokes those it
// no longer shows. others are SVGs shown elsewhere that need one too.

function drawFigures(figures, others = []) {
  const next = new Map();
  const url = (svg) => {
    const u = state.chartURLs.get(svg) || next.get(svg) || URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    next.set(svg, u);
    return u;
  };
  const box = $("charts");
  box.replaceChildren();
  for (const f of figures) {
    if (!f.svg) continue;
    // The SVG comes from the engine's own chart package, which escapes every
    // text it draws; an <img> keeps it inert all the same.
    const img = el("img", { src: url(f.svg), alt: f.alt, "data-chart": f.name });
    if (f.variants && f.variants.length > 1) {
      const sw = el("p", { class: "switch", "data-testid": "resolutions" }, "Resolution: ");
      for (const v of f.variants) {
        if (!v.svg) continue;
        const b = el("button", { type: "button", "data-res": v.label, "aria-pressed": String(!!v.current), text: v.label });
        b.addEventListener("click", () => {
          img.src = url(v.svg);
          img.alt = v.alt;
          sw.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", String(x === b)));
        });
        sw.append(b, " ");
        url(v.svg);
      }
      box.append(sw);
    }
    box.append(el("figure", { class: "chart" }, img));
  }
  for (const svg of others) url(svg); // drawn elsewhere (the search's frontier)
  for (const [svg, u] of state.chartURLs) if (!next.has(svg)) URL.revokeObjectURL(u);
  state.chartURLs = next;
}

// ---- what ends the storm: the metastability probe --------------------------

// probeSection adds the "What ends the storm?" section under the results:
// a control per strategy whose probe the engine would run, the probe's
// progress, its Cancel, and what it found.
function probeSection() {
  $("search-result").after(el("section", { id: "probes", "data-testid": "probes", "aria-labelledby": "probe", hidden: true },
    el("h2", { id: "probe", text: "What ends the storm?" }),
    el("p", {}, "The smallest load reduction, capacity addition or retry budget that ends a strategy's retry storm, found by bisection: ",
      el("span", { id: "probe-choices", "data-testid": "probe-choices" })),
    el("p", { class: "row" }, el("span", { id: "probe-status", class: "muted", role: "status", "aria-live": "polite", "data-testid": "probe-status" }),
      el("button", { type: "button", id: "probe-cancel", hidden: true, "data-testid": "probe-cancel", text: "Cancel the probe" })),
    el("div", { id: "probe-result", "data-testid": "probe-result" })));
  $("probe-cancel").addEventListener("click", () => stopProbe("Cancelled: the probe was stopped before it found anything."));
}

// probeChoices offers a probe of each strategy of the scenario just run
// (json) that the engine would probe: the same strategies the server's
// page links to. The engine checks each without simulating anything.
async function probeChoices(json, view) {
  const mine = ++state.probeChecks;
  const names = [];
  for (const s of view.strategies) {
    try {
      await engine.call("probe", json, s.name, LIMITS.probe_events, true);
      names.push(s.name);
    } catch {} // refused: a sweep, no judged window, too costly, …
    if (mine !== state.probeChecks) return; // the scenario changed meanwhile
  }
  $("probe-choices").replaceChildren(...names.flatMap((name, i) => {
    const b = el("button", { type: "button", "data-probe": name, "aria-label": `What ends the storm of ${name}?`, text: name });
    b.addEventListener("click", () => {
      runProbe(json, name);
      inView($("probe-status"));
    });
    return i > 0 ? [" · ", b] : [b];
  }));
  $("probes").hidden = names.length === 0 && !state.probe;
}

// scenarioChanged stops a probe under way and takes away what a probe of
// the scenario as it was found: its answer would be stale.
function scenarioChanged() {
  state.probeChecks++;
  if (!$("probes")) return;
  if (state.probe) stopProbe(`Stopped the probe of ${state.probe.name}: the scenario changed. Probe it again once the new results are in.`);
  else $("probe-status").textContent = "";
  $("probe-result").replaceChildren();
  $("probe-choices").replaceChildren();
}

// stopProbe ends the probe under way, saying msg.
function stopProbe(msg) {
  const p = state.probe;
  if (!p) return;
  state.probe = null;
  for (const w of p.workers) w.end();
  clearInterval(p.timer);
  $("probe-cancel").hidden = true;
  delete root.dataset.probing;
  $("probe-status").textContent = msg;
}

// runProbe probes a strategy of the scenario json in a worker of its own,
// so that runs go on meanwhile; an edit or Cancel ends the worker.
async function runProbe(json, name) {
  stopProbe("");
  if (json !== $("json").value) return;
  const say = (msg) => ($("probe-status").textContent = msg);
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 1000);
  // The engine's progress (simulations made, of at most the total it
  // may still make: it falls as bisection narrows), refreshed each second.
  let last = null;
  const show = () => say(last
    ? `Probing ${name}: ${last[0]} of at most ${last[1]} simulations, ${seconds()} s…`
    : `Probing ${name}: the strategy without a remedy, then each remedy by bisection, ${seconds()} s so far…`);
  const worker = new EngineWorker(engine.module, root.dataset.wasm, (done, total) => { last = [done, total]; show(); });
  // With a pool, the probe has one of its own, apart from the runs': its
  // worker hands each step's simulations (its seeds) to the page, which
  // runs them over the probe's workers (relay), the same result as on one.
  const pool = poolSize();
  const workers = [worker];
  while (workers.length < pool) workers.push(new EngineWorker(engine.module, root.dataset.wasm, () => {}));
  const p = (state.probe = { worker, workers, json, name });
  if (pool > 1) worker.onBatch = (id, batch) => relay(worker, workers, json, id, batch, () => state.probe === p);
  $("probe-result").replaceChildren();
  $("probe-cancel").hidden = false;
  say(`Probing ${name}: the strategy without a remedy, then each remedy by bisection (tens of runs on each seed)…`);
  p.timer = setInterval(show, 1000);
  try {
    await worker.ready;
    if (state.probe !== p) return;
    root.dataset.probing = name; // for tests: the probe's worker is at work
    const out = JSON.parse(await worker.call("probe", json, name, LIMITS.probe_events, false, pool > 1));
    if (state.probe !== p || json !== $("json").value) return; // stopped meanwhile: never shown
    showProbe(out.view);
    window.retrylabProbeView = out.view; // for tests
    stopProbe(`Probed ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s, in your browser.`);
  } catch (err) {
    if (state.probe === p) stopProbe(`The probe of ${name} failed: ${err.message}`);
  }
}

// showProbe renders what a probe found (view.Probe) as the server's probe
// page does: its fields, in the view's order, the remedies as a table.
// Text fields this page does not place are shown after the baseline.
function showProbe(v) {
  const placed = new Set(["heading", "finding", "summary", "criterion", "baseline", "rows", "cost"]);
  const extra = Object.entries(v).filter(([k, x]) => !placed.has(k) && typeof x === "string" && x)
    .map(([k, x]) => el("p", { "data-testid": "probe-" + k, text: x }));
  const cols = [["remedy", ""], ["finding", "text"], ["change to the scenario", "text"], ["simulations", ""]];
  $("probe-result").replaceChildren(
    el("h3", { "data-testid": "probe-title", text: v.heading }),
    el("p", { class: "verdict", "data-testid": "probe-summary" }, el("strong", { text: "Finding:" }), " " + v.summary),
    el("h4", { text: "Criterion" }),
    el("p", { "data-testid": "probe-criterion", text: v.criterion }),
    el("p", { "data-testid": "probe-baseline", text: v.baseline }),
    ...extra,
    el("h4", { text: "Remedies" }),
    el("p", { class: "muted", text: "Each remedy runs at its strongest first (90% less load, four times the workers, a 1% retry budget), then is bisected between none and that one, to one percentage point or one worker: both ends of each bracket have run on every seed." }),
    el("div", { class: "tablewrap", tabindex: "0", role: "region", "aria-label": "Remedies" },
      el("table", { "data-testid": "probe-remedies" },
        el("thead", {}, el("tr", {}, ...cols.map(([c, cls]) => el("th", { scope: "col", class: cls || null, text: c })))),
        el("tbody", {}, ...(v.rows || []).map((r) => el("tr", { "data-remedy": r.kind },
          el("th", { scope: "row", text: r.remedy }), el("td", { class: "text", text: r.finding }),
          el("td", { class: "text", text: r.change || "" }), el("td", { text: r.simulations })))))),
    el("p", { class: "muted", "data-testid": "probe-cost", text: v.cost }));
}

// ---- what should I ship: a search started from a strategy -----------------

// shipSection adds the "What should I ship?" section under the scenario's
// form (outside it, and outside the results, which dim when stale): the
// form of the default search from a strategy (the engine's
// view.SearchFormOf: its knobs' values as checkboxes, its objectives as
// choices), the search's progress and its Cancel.
function shipSection() {
  $("json-box").before(el("section", { id: "ship", "data-testid": "ship-section", "aria-labelledby": "ship-heading", hidden: true },
    el("h2", { id: "ship-heading", tabindex: "-1", text: "What should I ship?" }),
    el("p", { id: "ship-intro", class: "muted" }),
    el("form", { id: "ship-form", "data-testid": "ship-form", novalidate: true }),
    el("p", { class: "row" }, el("span", { id: "ship-status", class: "muted", role: "status", "aria-live": "polite", "data-testid": "ship-status" }),
      el("button", { type: "button", id: "ship-cancel", hidden: true, "data-testid": "ship-cancel", text: "Cancel the search" }))));
  $("ship-cancel").addEventListener("click", () => $("cancel").click());
  $("ship-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runShip();
  });
  $("ship-form").addEventListener("change", shipCount);
  $("ship-form").addEventListener("input", shipCount);
}

// closeShip takes away the form of a search from a strategy of the
// scenario that is no longer loaded.
function closeShip() {
  if (!$("ship")) return;
  state.shipForms++;
  state.shipping = "";
  state.shipForm = null;
  $("ship").hidden = true;
  $("ship-cancel").hidden = true;
  $("ship-form").replaceChildren();
}

// openShip asks the engine for the form of the default search from the
// strategy name of the scenario as it is, and shows it.
async function openShip(name) {
  if (!name) return;
  const mine = ++state.shipForms;
  const box = $("ship");
  box.hidden = false;
  $("ship-heading").textContent = `What should I ship? Settings for ${name}`;
  $("ship-intro").textContent = "";
  $("ship-form").replaceChildren();
  $("ship-status").textContent = `Asking the engine for the default search from ${name}…`;
  box.scrollIntoView({ block: "start" }); // where the form comes, with what it waits for
  let f;
  try {
    f = await engine.call("searchForm", $("json").value, name);
  } catch (err) {
    if (mine === state.shipForms) $("ship-status").textContent = `No search from ${name}: ${err.message === "cancelled" ? "the engine was stopped; ask again" : err.message}.`;
    return;
  }
  if (mine !== state.shipForms) return;
  showShipForm(f);
  $("ship-heading").focus();
  box.scrollIntoView({ block: "start" });
}

// showShipForm renders the form the engine decided (view.SearchForm):
// this file keeps no knobs, values or objectives of its own.
function showShipForm(f) {
  state.shipForm = f;
  $("ship-heading").textContent = f.heading;
  $("ship-intro").textContent = f.intro;
  const knobs = f.knobs.map((k, i) => el("fieldset", { class: "sub", "data-knob": k.path },
    el("legend", {}, k.label + " ", el("code", { text: k.path })),
    el("div", { class: "ship-values" }, ...k.values.map((v, j) => {
      const id = `ship-${i}-${j}`;
      return el("span", { class: "ship-value" },
        el("input", { type: "checkbox", id, "data-knob": i, "data-value": j, checked: v.checked }),
        el("label", { for: id, text: v.label }));
    }))));
  const objectives = f.objectives.map((o, i) => {
    const id = `ship-objective-${i}`;
    const select = el("select", { id, "data-objective": i });
    if (i > 0) select.append(el("option", { value: "", text: "— none", selected: o.value === "" }));
    for (const c of f.choices) select.append(el("option", { value: c.value, text: c.label, selected: c.value === o.value }));
    return el("div", { class: "field" }, el("label", { for: id, text: o.label }), select);
  });
  // Constraints: a metric (or none), at most or at least, and a bound in
  // the unit the form shows (view.FormMetric's Unit and Scale).
  const constraints = f.constraints.map((c, i) => {
    const metric = el("select", { id: `ship-constraint-${i}-metric`, "data-constraint": i },
      el("option", { value: "", text: "— none", selected: c.metric === "" }),
      ...f.metrics.map((m) => el("option", { value: m.key, text: m.label + (m.unit ? ` (${m.unit})` : ""), selected: m.key === c.metric })));
    const op = el("select", { id: `ship-constraint-${i}-op`, "aria-label": `${c.label}: comparison` },
      ...f.ops.map((o) => el("option", { value: o.value, text: o.label, selected: o.value === c.op })));
    const value = el("input", { id: `ship-constraint-${i}-value`, type: "number", step: "any", value: c.metric ? String(c.value) : "", "aria-label": `${c.label}: bound` });
    return el("div", { class: "field" }, el("label", { for: metric.id, text: c.label }), el("span", { class: "ship-constraint" }, metric, op, value));
  });
  $("ship-form").replaceChildren(...knobs,
    el("fieldset", { class: "sub" }, el("legend", { text: "Objectives" }), ...objectives),
    el("fieldset", { class: "sub" }, el("legend", { text: "Constraints (optional)" }),
      el("p", { class: "muted", text: "A candidate that misses a constraint, on average over the seeds, is not recommended." }), ...constraints),
    el("p", { id: "ship-count", "data-testid": "ship-count", "aria-live": "polite" }),
    el("div", { class: "row" }, el("button", { type: "submit", "data-testid": "ship-run", text: "Run the search" })));
  $("ship-status").textContent = "";
  shipCount();
}

// shipSearch writes the search the form holds: the ticked values of each
// knob (a knob with none ticked left out), the objectives chosen, the
// constraints whose metric and bound are given (a bound in the form's unit,
// divided by the metric's scale), and the library whose limits its values
// keep to (the form's within), if any.
function shipSearch() {
  const f = state.shipForm;
  const knobs = f.knobs.map((k, i) => ({ path: k.path,
    values: k.values.filter((_, j) => $(`ship-${i}-${j}`).checked).map((v) => v.value) })).filter((k) => k.values.length);
  const objectives = f.objectives.map((_, i) => f.choices.find((c) => c.value === $(`ship-objective-${i}`).value))
    .filter(Boolean).map((c) => ({ metric: c.metric, goal: c.goal }));
  const constraints = f.constraints.map((_, i) => {
    const m = f.metrics.find((x) => x.key === $(`ship-constraint-${i}-metric`).value);
    const v = $(`ship-constraint-${i}-value`).value.trim();
    return m && v !== "" && Number.isFinite(Number(v)) ? { metric: m.key, op: $(`ship-constraint-${i}-op`).value, value: Number(v) / m.scale } : null;
  }).filter(Boolean);
  const s = { strategy: f.strategy, knobs, objectives };
  if (constraints.length) s.constraints = constraints;
  if (f.within) s.within = f.within;
  return s;
}

// shipUnbounded names the first constraint with a metric and no bound
// that is a number, or "".
function shipUnbounded() {
  const f = state.shipForm;
  const i = f.constraints.findIndex((_, i) => $(`ship-constraint-${i}-metric`).value !== "" &&
    ($(`ship-constraint-${i}-value`).value.trim() === "" || !Number.isFinite(Number($(`ship-constraint-${i}-value`).value))));
  return i < 0 ? "" : `${f.constraints[i].label} names a metric: give its bound, a number (or choose — none).`;
}

// shipCount says how many candidates the form's search tries.
function shipCount() {
  const unbounded = shipUnbounded();
  if (unbounded) {
    $("ship-count").textContent = unbounded;
    $("ship-count").className = "errors";
    return;
  }
  const s = shipSearch();
  const n = s.knobs.reduce((n, k) => n * k.values.length, s.knobs.length ? 1 : 0);
  const over = n > state.shipForm.budget;
  $("ship-count").textContent = n === 0 ? "Tick at least one value to search."
    : `${n.toLocaleString()} ${n === 1 ? "candidate" : "candidates"}, each on every seed` + (over ? `: more than the ${state.shipForm.budget} a search may try; untick some values.` : ".");
  $("ship-count").className = n === 0 || over ? "errors" : "muted";
}

// runShip puts the form's search into the scenario, in place of any
// search it had, and runs it as every run runs: its progress in the status
// line (and here), Cancel stops it. The scenario then carries the search:
// Share shares it, and its page shows what it found.
async function runShip() {
  const s = shipSearch();
  if (!s.knobs.length || !s.objectives.length || shipUnbounded()) {
    shipCount();
    return;
  }
  state.scenario.search = s;
  writeJSON();
  renderForm();
  edited();
  clearTimeout(state.timer);
  state.shipping = s.strategy;
  state.pendingNote = `Searched from ${s.strategy}: the recommendation is under Search.`;
  $("ship-cancel").hidden = false;
  $("ship-status").textContent = `Searching from ${s.strategy}…`;
  inView($("ship-status"));
  const mine = state.running + 1;
  const done = run();
  state.pending = done;
  await done;
  if (state.shipping !== s.strategy) return;
  state.shipping = "";
  $("ship-cancel").hidden = true;
  const found = mine === state.running && state.shown === $("json").value && $("search-result").firstChild;
  const cancelled = $("status").textContent === "Cancelled.";
  $("ship-status").textContent = found ? `Searched from ${s.strategy}: the recommendation and the frontier are under Search, below.`
    : cancelled ? "Cancelled: the search was stopped. It stays in the scenario: Run runs it again, and Remove the search, at the end of the form, takes it out."
    : mine !== state.running ? "The scenario changed while searching: the search stays in it, and its results come with the scenario's next run."
    : $("status").textContent;
  if (found) $("search").scrollIntoView({ block: "start" });
}

// ---- import and export: the converters, a second module -------------------

// The converters (shared/convert) are convert.wasm, a module of their own
// that is fetched, compiled and started in a worker of its own the first
// time the user opens the Import or Export panel, never on page load: the
// engine that every visitor waits for stays without them. They run in the
// browser, without the server.
let converterWorker = null;
function converter() {
  if (!converterWorker) {
    const module = WebAssembly.compileStreaming(fetch(root.dataset.convert)).catch(() => null); // null: the worker loads it
    converterWorker = new EngineWorker(module, root.dataset.convert);
    converterWorker.formats = converterWorker.call("formats").then(JSON.parse);
    const w = converterWorker;
    w.formats.catch((err) => {
      w.end();
      if (converterWorker === w) converterWorker = null; // the next opening tries again
      status("The converters did not load: " + err.message);
    });
  }
  return converterWorker;
}
const convert = async (op, ...args) => JSON.parse(await converter().call(op, ...args));

// formatLabels name the formats as the server's Export panels do
// (convert.Label): the converters' module gives them when it starts.
let formatLabels = {};

// detectFormat is the Import panel's first choice: the converters detect
// the format from the text (convert.Detect).
const detectFormat = "detect";

// formatOptions fills a select with the formats the converters take,
// labelled as the server's Export panels label them.
function formatOptions(select, formats, labels) {
  const keep = select.value;
  select.replaceChildren(...formats.map((f) => el("option", { value: f, text: labels[f] || f, selected: f === keep })));
}

// notesList shows a conversion's notes as "path: level: message".
function notesList(list, notes) {
  list.replaceChildren(...notes.map((n) => el("li", { class: n.level, text: (n.path ? n.path + ": " : "") + n.level + ": " + n.message })));
}

// panels builds the Import and Export panels under the form. Opening
// either starts the converters.
function panels() {
  const field = (label, control) => el("div", { class: "field" }, el("label", { for: control.id, text: label }), control);
  const imp = el("details", { id: "import-box", class: "convert", "data-testid": "import" },
    el("summary", { text: "Bring your own policy: import your retry configuration" }),
    el("p", { class: "muted" }, "Paste it or drop its file here (gRPC service config, Envoy, Istio, Linkerd, resilience4j, Polly or AWS config): the format is detected, and its policies become strategies, marked as yours. The conversion runs in your browser. ",
      el("a", { href: "/docs/formats", text: "What each format reads" })),
    field("Format", el("select", { id: "import-format", "data-testid": "import-format" })),
    el("div", { class: "exported" }, el("label", { for: "import-text", text: "Configuration" }),
      el("textarea", { id: "import-text", spellcheck: "false", "aria-describedby": "import-errors", "data-testid": "import-text" })),
    field("Or choose a file", el("input", { type: "file", id: "import-file", "data-testid": "import-file" })),
    el("div", { class: "check" }, el("input", { type: "checkbox", id: "import-keep", checked: true, "data-testid": "import-keep" }),
      el("label", { for: "import-keep", text: " Keep the scenario's strategies, to compare yours with them" })),
    el("ul", { id: "import-errors", class: "errors", "data-testid": "import-errors" }),
    el("div", { class: "row" }, el("button", { type: "button", id: "import-go", text: "Import", disabled: true, "data-testid": "import-go" })),
    el("p", { id: "import-done", role: "status", "data-testid": "import-done" }),
    el("ul", { id: "import-notes", class: "notes", "data-testid": "import-notes" }));
  const exp = el("details", { id: "export-box", class: "convert", "data-testid": "export-panel" },
    el("summary", { text: "Export a strategy" }),
    el("p", { class: "muted", text: "Write a strategy's policy in your library's or proxy's format; the notes say what the format cannot express." }),
    field("Strategy", el("select", { id: "export-strategy", "data-testid": "export-strategy" })),
    field("Format", el("select", { id: "export-format", "data-testid": "export-format" })),
    el("div", { class: "row" }, el("button", { type: "button", id: "export-go", text: "Export", disabled: true, "data-testid": "export-go" })),
    el("ul", { id: "export-errors", class: "errors", "data-testid": "export-errors" }),
    el("div", { class: "exported" }, el("label", { for: "export-text", text: "Exported configuration" }),
      el("textarea", { id: "export-text", readonly: true, spellcheck: "false", "data-testid": "export-text" }),
      el("button", { type: "button", "data-copy": "export-text", text: "Copy" })),
    el("ul", { id: "export-notes", class: "notes", "data-testid": "export-notes" }));
  // Import comes first, before the form: bringing one's own policy is where
  // most visits start. Export stays under the JSON, beside the strategies.
  $("form").before(imp);
  $("errors").after(exp);
  const opened = async (box) => {
    if (!box.open) return;
    try {
      const f = await converter().formats;
      formatLabels = f.labels;
      formatOptions($("import-format"), [detectFormat, ...f.import], { [detectFormat]: "Detect from the text", ...f.labels });
      formatOptions($("export-format"), f.export, f.labels);
      $("import-go").disabled = $("export-go").disabled = false;
    } catch {} // converter() said why
  };
  imp.addEventListener("toggle", () => opened(imp));
  exp.addEventListener("toggle", () => opened(exp));
  $("import-go").addEventListener("click", importPolicy);
  // A file dropped on the panel, or chosen, is read and imported at once.
  const fromFile = async (file) => {
    if (!file) return;
    $("import-text").value = await file.text();
    imp.open = true;
    await opened(imp);
    if (!$("import-go").disabled) importPolicy();
  };
  imp.addEventListener("dragover", (e) => e.preventDefault());
  imp.addEventListener("drop", (e) => {
    e.preventDefault();
    fromFile(e.dataTransfer?.files?.[0]);
  });
  $("import-file").addEventListener("change", (e) => fromFile(e.target.files?.[0]));
  $("export-go").addEventListener("click", exportStrategy);
  exportChoices();
}

// exportChoices lists the scenario's strategies in the Export panel,
// keeping the one chosen.
function exportChoices() {
  const select = $("export-strategy");
  if (!select) return;
  const keep = select.value;
  const list = Array.isArray(state.scenario?.strategies) ? state.scenario.strategies : [];
  select.replaceChildren(...list.map((st, i) => el("option", { value: String(i), text: st?.name || `Strategy ${i + 1}`, selected: String(i) === keep })));
}

// openExport opens the Export panel on strategy i.
function openExport(i) {
  exportChoices();
  $("export-strategy").value = String(i);
  $("export-box").open = true;
  $("export-box").scrollIntoView({ block: "nearest" });
  $("export-format").focus();
}

// importPolicy reads the pasted configuration into strategies, beside the
// scenario's (or in their place) under names of their own, marks them as
// the user's (report.yours), and re-runs it.
async function importPolicy() {
  let format = $("import-format").value;
  const errors = $("import-errors");
  errors.replaceChildren();
  $("import-done").textContent = "";
  $("import-text").removeAttribute("aria-invalid");
  let out;
  try {
    if (format === detectFormat) {
      const d = await convert("detect", $("import-text").value);
      if (!d.format) {
        $("import-text").setAttribute("aria-invalid", "true");
        errors.replaceChildren(el("li", { text: "The format could not be detected from the text: choose it under Format." }));
        status("Nothing was imported: the format could not be detected.");
        return;
      }
      format = d.format;
    }
    // The scenario's one dependency, if it has one, for the backends the
    // document may give: the converters share its capacity among them.
    const deps = Array.isArray(state.scenario?.dependencies) ? state.scenario.dependencies : null;
    const dep = deps ? (deps.length === 1 ? deps[0] : null) : state.scenario?.dependency || {};
    out = await convert("import", format, $("import-text").value, ...(dep ? [JSON.stringify(dep)] : []));
  } catch (err) {
    errors.replaceChildren(el("li", { text: "The converters failed: " + err.message }));
    status("Nothing was imported: the converters failed.");
    return;
  }
  notesList($("import-notes"), out.notes || []);
  if (out.errors && out.errors.length) {
    $("import-text").setAttribute("aria-invalid", "true");
    errors.replaceChildren(...out.errors.map((e) => el("li", { text: errorText(e), "data-path": e.path || "" })));
    status(`Nothing was imported: the configuration has ${out.errors.length === 1 ? "a problem" : out.errors.length + " problems"}, listed under it.`);
    return;
  }
  if (!state.scenario || typeof state.scenario !== "object") return;
  const keep = $("import-keep").checked;
  const names = new Set(keep ? (state.scenario.strategies || []).map((st) => st?.name) : []);
  const added = [];
  for (const st of out.strategies) {
    const base = st.name || "imported";
    let name = base;
    for (let k = 2; names.has(name); k++) name = `${base}-${k}`;
    names.add(name);
    st.name = name;
    added.push(name);
  }
  // The engine decides whether the scenario can take them (how many
  // strategies it compares): an import it cannot take changes nothing.
  const before = keep ? state.scenario.strategies || [] : [];
  const report = { ...(state.scenario.report || {}), yours: [...(keep ? state.scenario.report?.yours || [] : []), ...added] };
  const candidate = { ...state.scenario, strategies: [...before, ...out.strategies], report };
  // The document's backends (several hosts, outlier detection) go on the
  // scenario's dependency, when it has one, sharing its capacity (the
  // converters' out.dependency): the retries that avoid hosts tried
  // already need them.
  const deps = Array.isArray(state.scenario.dependencies) ? state.scenario.dependencies : null;
  if (out.dependency && deps && deps.length === 1) candidate.dependencies = [{ ...deps[0], ...out.dependency }];
  else if (out.dependency && !deps) candidate.dependency = { ...(state.scenario.dependency || {}), ...out.dependency };
  const check = await engine.call("validate", JSON.stringify(candidate));
  const refused = (check.errors || []).filter((e) => e.path === "strategies");
  if (refused.length) {
    errors.replaceChildren(...refused.map((e) => el("li", { text: `Importing ${added.length} more: ${errorText(e)}` })));
    status("Nothing was imported: the scenario cannot take that many strategies.");
    return;
  }
  state.scenario.strategies = candidate.strategies;
  state.scenario.report = report;
  if (candidate.dependencies) state.scenario.dependencies = candidate.dependencies;
  if (candidate.dependency) state.scenario.dependency = candidate.dependency;
  writeJSON();
  renderForm();
  edited();
  state.pendingNote = `Imported ${added.join(", ")} from ${formatLabels[format] || format}.`;
  // Said where the reader is, in the panel, as well as in the status line.
  $("import-done").textContent = `Imported ${added.join(", ")} (read as ${formatLabels[format] || format}): ${added.length === 1 ? "a strategy" : added.length + " strategies"} marked as yours, ${keep && before.length ? "compared with the scenario's others" : "in place of the scenario's strategies"}. The results say first how ${added.length === 1 ? "it does" : "they do"}; "What should I ship?" searches ${added.length === 1 ? "its" : "their"} settings.`;
  // On a narrow screen the results are above the panel, far from here.
  $("import-done").append(" ", el("a", { href: "#yours", "data-testid": "import-see", class: "jump-results", text: "See the results ↑" }));
  scheduleRun();
}

// exportStrategy writes the chosen strategy in the chosen format.
async function exportStrategy() {
  const errors = $("export-errors");
  errors.replaceChildren();
  const presets = JSON.stringify(Object.fromEntries(state.presets.map((p) => [p.name, p.policy])));
  let out;
  try {
    out = await convert("export", $("export-format").value, $("json").value, presets, Number($("export-strategy").value));
  } catch (err) {
    errors.replaceChildren(el("li", { text: "The converters failed: " + err.message }));
    return;
  }
  if (out.errors && out.errors.length) {
    errors.replaceChildren(el("li", { text: "Fix the scenario first:" }), ...out.errors.map((e) => el("li", { text: errorText(e) })));
    $("export-text").value = "";
    notesList($("export-notes"), []);
    return;
  }
  $("export-text").value = out.config;
  notesList($("export-notes"), out.notes);
}

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

$("yours").addEventListener("click", (e) => {
  if (e.target.dataset.action === "yours-ship") openShip(e.target.dataset.name);
  if (e.target.dataset.action === "yours-share") $("share").click();
});

$("share").addEventListener("click", async () => {
  // Share what is on screen: let a scheduled re-run finish first.
  if (state.pending) await state.pending;
  const json = $("json").value;
  const note = state.shown === json ? "" : " (not run here yet: the shared page runs it)";
  if (state.loadedFrom && state.loadedFrom.json === json) {
    // An unchanged built-in has its own page.
    showLink(location.origin + "/s/" + state.loadedFrom.slug, "This is a built-in scenario: its page is shared as it is.");
    return;
  }
  let res;
  try {
    res = await fetch("/api/scenarios", { method: "POST", headers: { "Content-Type": "application/json" }, body: json });
  } catch (err) {
    // No server answered (the playground served as static files): the link
    // carries the scenario itself, compressed.
    showLink(location.origin + location.pathname + "#z=" + (await toFragment(json)), "No server to share through: the link carries the scenario itself" + note + ".");
    return;
  }
  let body = {};
  try {
    body = await res.json();
  } catch {}
  if (res.status === 201 || res.status === 200) {
    showLink(body.url, "Shared: copy the link" + note + ".");
    return;
  }
  if (body.errors) showErrors(body.errors);
  const why = {
    413: "the scenario is larger than the server takes",
    415: "the server wants JSON",
    422: "the server cannot run it",
    429: "too many shares from here just now",
    503: "the server is busy",
  }[res.status] || "the server answered " + res.status;
  const after = res.headers.get("Retry-After");
  status(`Not shared: ${why}${body.error ? " (" + body.error + ")" : ""}.` + (after ? ` Try again in ${after} s.` : ""));
});

function showLink(url, msg) {
  $("shared").hidden = false;
  $("share-url").value = url;
  $("share-url").select();
  $("share-url").scrollLeft = $("share-url").scrollWidth; // the ID, at the end, in view
  status(msg);
}

// ---- start ----------------------------------------------------------------

// showFirst shows the result the server drew of the built-in this page
// opens with (shared/view, exactly as the engine in the page draws it) at
// once, while the engine loads; the engine's first run then replaces it
// with the same, without early partial results in between.
//
// Where the results are narrower than 760 px the page draws its charts
// narrower (chartWidth), and the server's are drawn wide, whose text a
// phone or a tablet would shrink: there the verdict, the table and the
// sentences come first, and the charts with the engine's own run.
function showFirst() {
  const data = document.getElementById("first-result");
  if (!data || location.hash.startsWith("#z=")) return;
  const f = JSON.parse(data.textContent);
  const q = new URLSearchParams(location.search);
  const wanted = q.get("s");
  if ((wanted && wanted !== f.slug) || q.has("seed") || q.has("runs")) return;
  state.first = f.slug;
  $("pg-title").textContent = f.title;
  $("pg-summary").textContent = f.summary;
  const narrow = chartWidth() !== 0;
  showView(narrow ? { ...f.view, figures: [], search: f.view.search && { ...f.view.search, figure: null } } : f.view);
  if (!narrow) window.retrylabFirstView = f.view; // for tests: the engine's run shows the same
  window.retrylabFirstResultMs ??= performance.now(); // since navigation began
  status(narrow ? "These results were drawn by the server; the engine is loading in your browser to draw the charts for this screen and run your edits…"
    : "These results were drawn by the server; the engine is loading in your browser to run your edits…");
}

// The link to the editor on a narrow screen scrolls to it and focuses Run,
// leaving the address alone: its fragment holds the scenario (#z=).
document.querySelector("[data-testid=jump-edit]")?.addEventListener("click", (e) => {
  e.preventDefault();
  $("toolbar").scrollIntoView();
  $("run").focus({ preventScroll: true });
});

async function start() {
  root.hidden = false; // without JavaScript it stays hidden, and the form below serves
  showFirst();
  try {
    await engine.ready;
  } catch (err) {
    status("The engine did not load: " + err.message);
    return;
  }
  const [builtins, presetList, vocabulary, limits, requirements, form] = await Promise.all([engine.call("builtins"), engine.call("presets"),
    engine.call("vocabulary"), engine.call("limits"), engine.call("requirementsForm"), engine.call("form")]);
  LIMITS = limits;
  state.form = form;
  state.requirements = requirements;
  state.presets = presetList;
  state.kinds = vocabulary;
  panels();
  probeSection();
  shipSection();
  const picker = $("builtin");
  picker.append(el("option", { value: "", text: "Your scenario" }));
  for (const b of builtins) picker.append(el("option", { value: b.slug, text: b.title }));
  // Choosing a built-in is a step Back undoes: it pushes the page's
  // address, and Back (popstate) loads the built-in the address names.
  picker.addEventListener("change", () => {
    const b = builtins.find((x) => x.slug === picker.value);
    if (b) {
      history.pushState({ slug: b.slug }, "", "/?s=" + b.slug);
      load(b.scenario, "", b);
    }
  });
  window.addEventListener("popstate", () => {
    const slug = new URLSearchParams(location.search).get("s");
    const b = builtins.find((x) => x.slug === slug) || (location.search === "" && !location.hash ? builtins[0] : null);
    if (!b) {
      location.reload(); // a shared scenario or a #z= link: load it as on arrival
      return;
    }
    picker.value = b.slug;
    load(b.scenario, "", b);
  });
  const params = new URLSearchParams(location.search);
  // ?ship=NAME (a shared page's "What should I ship?" link) opens the
  // search form of that strategy once the scenario is loaded (load).
  state.shipOnLoad = params.get("ship") || "";
  // seed= and runs= run the scenario loaded on those seeds: a worst seed's
  // link opens that run alone. Each is a whole number in the range the
  // command line's --seed and --runs take (the engine's limits); another
  // value is ignored, and the status line says so.
  const asked = {};
  const ignored = [];
  for (const [name, what] of [["seed", "the first seed"], ["runs", "how many seeds to run"]]) {
    if (!params.has(name)) continue;
    const v = params.get(name);
    const [lo, hi] = limits[name];
    if (/^[0-9]+$/.test(v) && Number(v) >= lo && Number(v) <= hi) asked[name] = Number(v);
    else ignored.push(`The link's ${name}=${v} is ${/^[0-9]+$/.test(v) ? "out of range" : "not a whole number in"} ${lo}..${hi} (${what}); it was ignored.`);
  }
  const seeded = (doc) => {
    if (!doc || typeof doc !== "object") return doc;
    const d = JSON.parse(JSON.stringify(doc));
    if (asked.seed !== undefined) {
      d.seed = asked.seed;
      delete d.seeds;
    }
    if (asked.runs !== undefined) {
      if (Array.isArray(d.seeds)) d.seeds = d.seeds.slice(0, asked.runs);
      else d.runs = asked.runs;
    }
    return d;
  };
  // note is what the status line says once the scenario has run: where it
  // came from (from), the seeds the link asked for, with a link back to
  // the scenario's own, and the parameters ignored.
  const all = new URLSearchParams(location.search);
  all.delete("seed");
  all.delete("runs");
  const link = asked.seed === undefined && asked.runs === undefined ? null
    : { text: asked.seed !== undefined ? "Run all seeds" : "Run its own seeds", href: location.pathname + (all.size ? "?" + all : "") + location.hash, after: ignored.join(" ") };
  const note = (from) => {
    const { seed, runs } = asked;
    const which = seed !== undefined && runs === 1 ? `seed ${seed} alone, as the worst-seed link asked;`
      : seed !== undefined && runs !== undefined ? `${runs} seeds from seed ${seed}, as the link asked;`
      : seed !== undefined ? `its seeds counted from seed ${seed}, as the link asked;`
      : runs !== undefined ? `its first ${runs} ${runs === 1 ? "seed" : "seeds"}, as the link asked;` : "";
    const says = which ? (from ? from + ": " + which : which[0].toUpperCase() + which.slice(1)) : from ? from + "." : "";
    return [says, ...(link ? [] : ignored)].filter(Boolean).join(" ");
  };
  if (location.hash.startsWith("#z=")) {
    try {
      load(seeded(JSON.parse(await fromFragment(location.hash.slice(3)))), note("Loaded the scenario from the link"), null, link);
      return;
    } catch (err) {
      status("The link's scenario could not be read: " + err.message);
    }
  }
  const id = params.get("s");
  const builtin = builtins.find((b) => b.slug === id);
  if (builtin) {
    picker.value = builtin.slug;
    load(seeded(builtin.scenario), note(""), builtin, link);
    return;
  }
  if (id) {
    try {
      const res = await fetch("/api/scenarios/" + encodeURIComponent(id));
      if (!res.ok) throw new Error(res.status === 404 ? "there is no scenario with that ID" : res.statusText);
      load(seeded(await res.json()), note("Loaded shared scenario " + id), null, link);
      return;
    } catch (err) {
      picker.value = builtins[0].slug;
      load(builtins[0].scenario, "", builtins[0]);
      status("Could not open " + id + ": " + err.message + ". Showing " + builtins[0].title + " instead.");
      return;
    }
  }
  picker.value = builtins[0].slug;
  load(seeded(builtins[0].scenario), note(""), builtins[0], link);
}

start();
