'use strict';
// The page's first script (editor-scene.js follows it): the state, changes and undo, the
// controls and the lists.
const token = new URLSearchParams(location.search).get('token') || '';
const me = Math.random().toString(36).slice(2, 10);
let seq = 0;
const pending = new Map();          // seq of a change of ours → performance.now() at its input event
window.__latencies = [];            // input event → the preview showing it, in ms
window.__shown = null;              // the frame on screen
window.__pending = () => pending.size;  // changes of ours not on screen yet
window.__trace = [];                // [what, id, performance.now()], for finding where time goes
const trace = (what, id) => { if (window.__trace.length < 5000) window.__trace.push([what, id, performance.now()]); };
let rows = [];                      // the parameter table, with the current values
let editor = {};
let revision = -1;
const values = new Map();           // key → value as --set takes it
const controls = new Map();         // key → function that shows a value
const history = [], future = [];
const $ = (id) => document.getElementById(id);

function status(text, bad) { const s = $('status'); s.textContent = text; s.style.color = bad ? '#f88' : '#9c9'; }

async function api(path, body) {
  const options = { method: body ? 'POST' : 'GET', headers: { 'X-Mercurial-Token': token } };
  if (body) { options.headers['Content-Type'] = 'application/json'; options.body = JSON.stringify(body); }
  const response = await fetch(path, options);
  let json = {};
  try { json = await response.json(); } catch (e) { }
  return { status: response.status, json };
}

// A value left out: a row's `unset` word; for a rectangle, a list of numbers or points, features or axes, `null`
// (which takes the key out of the scene, so an undo back to nothing is a change the server takes).
function text(row, v) {
  if (v === null || v === undefined) return row.unset || (['rectangle', 'array', 'points', 'features', 'variations'].includes(row.kind) ? 'null' : '');
  if (typeof v === 'object') return JSON.stringify(v);   // a point, a range, a list or a block, as JSON
  return String(v);
}

// Shows the error the server gave for KEY (the command line's text), or clears it.
// One message at a time: a refusal shown takes the others' away, and their fields go back to
// the values the scene has (what they held was refused, so it is not what is drawn).
function showError(key, message) {
  const box = errorBoxFor(key);
  if (message) {
    document.querySelectorAll('.error[data-error-for]:not([hidden])').forEach((other) => {
      if (other === box) return;
      other.hidden = true; other.textContent = '';
      const row = other.closest('.row');
      if (!row) return;
      row.querySelectorAll('input.invalid').forEach((i) => i.classList.remove('invalid'));
      row.querySelectorAll('[data-typing]').forEach((i) => { delete i.dataset.typing; });
      const k = row.dataset.key, v = values.has(k) ? values.get(k) : values.get(other.dataset.errorFor);
      if (controls.has(k) && v !== undefined) controls.get(k)(v);
    });
  }
  if (!box) { if (message) status(message, true); return; }
  box.textContent = message || '';
  box.hidden = !message;
  const row = box.closest('.row');
  if (row) row.querySelectorAll('input[type=text]').forEach((i) => i.classList.toggle('invalid', !!message));
}

// The box for KEY's errors: its own, or else the nearest block's it is in (layers[1].gap → layers).
function errorBoxFor(key) {
  for (let k = key; k;) {
    const box = document.querySelector(`.error[data-error-for="${CSS.escape(k)}"]`);
    if (box) return box;
    const shorter = k.replace(/(\.[^.]*|\[\d*\]|\([^)]*\))$/, '');
    k = shorter === k ? '' : shorter;
  }
  return null;
}

// Sends changes [{key, value}]; on success records them for undo (unless `record`
// is false). One batch is in flight at a time, from its input until its frame is
// on screen (or 250 ms, for a change that renders nothing); changes made meanwhile
// wait in one batch, the newest value of each key winning, so a fast drag never
// builds a queue (the server's RenderPipeline does the same with renders). Waiting
// for the frame, not just the answer, keeps the server's render and the page's
// drawing from fighting over the cores: on two cores a drag's frames came 2–3 times
// slower when the next render started while the page was still drawing.
let inFlight = false, next = null;
const frameWaiters = [];            // [id, resume]: a batch waiting for its frame
function whenShown(id, ms) {
  return new Promise((resume) => {
    if (!pending.has(id)) { resume(); return; }
    const waiter = [id, resume];
    frameWaiters.push(waiter);
    setTimeout(() => { const k = frameWaiters.indexOf(waiter); if (k >= 0) { frameWaiters.splice(k, 1); resume(); } }, ms);
  });
}
// A pointer gesture (a drag of a slider, a dot, a point): from pointerdown to pointerup,
// its changes are ONE undo step however long its frames take.
let gesture = null, gestures = 0;
document.addEventListener('pointerdown', () => { gesture = ++gestures; }, true);
for (const end of ['pointerup', 'pointercancel']) document.addEventListener(end, () => { gesture = null; }, true);
function send(changes, record = true, started = performance.now(), separate = false) {
  changes = changes.map(routed);
  const id = ++seq;
  pending.set(id, started);
  trace('input', id);
  return new Promise((resolve) => {
    if (!next) next = { changes: new Map(), before: new Map(), ids: [], record: false, separate: false, gesture, resolvers: [] };
    for (const c of changes) {
      if (!next.before.has(c.key)) next.before.set(c.key, c.shown === undefined ? beforeValue(c.key)
        // A layer's own in or out (a move, or a list of them) goes back to what the layer's file holds.
        : /^(in|out)([.(]|$)/.test(c.shown) ? JSON.stringify(documentValue(c.key) ?? null)
        // A key the layer did not give goes back to not given (the scene's value shows through again).
        : (editor.overridden || []).includes(c.shown) ? routedValue(c.key, values.get(c.shown)) : 'null');
      next.changes.set(c.key, c.value);
    }
    next.ids.push(id);
    next.record = next.record || record;
    next.separate = next.separate || separate;
    next.resolvers.push(resolve);
    pump();
  });
}

// What a key goes back to on undo: its value; an optional block the scene did not give (a drop
// shadow, a plate turned on by its box), none.
function beforeValue(key) {
  const v = values.get(key);
  if (v !== undefined && v !== '') return v;
  const row = rows.find((r) => r.key === key);
  return row && row.kind === 'object' && row.default === null ? (row.unset || 'null') : v;
}

// The layer the panel edits (null: the scene). Its controls show the layer as it is drawn, and
// their changes go to `layers[N].KEY`; those of the keys only the scene gives (the animation,
// in and out, the layers themselves) and the page's own (@frame) go where they are.
let selectedLayer = null;
function routed(change) {
  const key = change.key;
  if (selectedLayer === null || key.startsWith('@') || /^layers([.[]|$)/.test(key)
      || (editor.sceneWide || []).includes(topOf(key))) return change;
  const to = `layers[${selectedLayer}].${key}`;
  return { key: to, value: routedValue(to, change.value), shown: key };
}
// A value as a layer's key takes it: the file's JSON (a text or a name as a string, even "2024").
function routedValue(key, value) {
  if (value === undefined || value === null || !/^layers\[\d+\]\./.test(key)) return value;
  const row = rows.find((r) => r.key === key.replace(/^layers\[\d+\]\./, ''));
  if (row && ['text', 'font', 'path', 'enum', 'color'].includes(row.kind) && value !== 'null') return JSON.stringify(value);
  try { JSON.parse(value); return value; } catch (e) { return JSON.stringify(value); }
}
function unroutedValue(value) {
  try { const v = JSON.parse(value); return typeof v === 'string' ? v : value; } catch (e) { return value; }
}
// The key of the control showing KEY: a selected layer's key is shown by the panel's own control.
function shownKey(key) {
  const prefix = selectedLayer === null ? null : `layers[${selectedLayer}].`;
  if (!prefix || !key || !key.startsWith(prefix)) return key;
  const rest = key.slice(prefix.length);
  return document.querySelector(`#controls > details.group:not([data-group="layers"]) .row[data-key="${CSS.escape(rest)}"]`) || controls.has(rest) ? rest : key;
}

function pump() {
  if (inFlight || !next) return;
  const batch = next;
  next = null;
  inFlight = true;
  const last = batch.ids[batch.ids.length - 1];
  const changes = [...batch.changes].map(([key, value]) => ({ key, value }));
  const finish = (code) => {
    inFlight = false;
    batch.resolvers.forEach((resolve) => resolve(code));
    pump();
  };
  trace('sent', last);
  setChanges({ changes, tag: me + ':' + last }).then(({ status: code, json }) => {
    trace('answer', last);
    if (code === 200) {
      for (const c of changes) {
        values.set(c.key, c.value); patchLocal(c.key, c.value);
        const shown = shownKey(c.key);
        if (shown !== c.key) values.set(shown, unroutedValue(c.value));
        showError(shown, '');
      }
      // A text path's handles follow its type and points, however they were set.
      if (changes.some((c) => topOf(c.key) === 'textPath')) placePointDots();
      // Plain text turned into styled runs or back (or undone): the box shows the text in its new form.
      if (changes.some((c) => c.key === '@textRuns')) refresh();
      // An axis's slider moved: the axes' field shows it too.
      for (const c of changes.filter((c) => /^variations\.[^.]+$/.test(c.key) && controls.has('variations'))) {
        const all = parsed(values.get('variations') || 'null');
        const next = Object.assign(all && typeof all === 'object' && !Array.isArray(all) ? all : {}, { [c.key.slice(11)]: Number(c.value) });
        values.set('variations', JSON.stringify(next));
        controls.get('variations')(JSON.stringify(next));
      }
      if (!json.changed) batch.ids.forEach((id) => pending.delete(id));   // no frame will come
      // A keyframe the edit added at the playhead: its undo takes it out (not back to the value before).
      const added = json.addedKeyframes || {};
      const before = [...batch.before].map(([key, value]) => key in added
        ? { key: '@keyframe:' + key, value: JSON.stringify({ key, t: added[key], remove: true }) } : { key, value });
      if (batch.record) remember(before, changes, batch.separate, batch.gesture);
      status('');
      whenShown(last, 250).then(() => finish(code));
      return;
    }
    batch.ids.forEach((id) => pending.delete(id));
    showError(shownKey(json.key || changes[0].key), json.error || ('HTTP ' + code));
    finish(code);
  }, () => { batch.ids.forEach((id) => pending.delete(id)); status('the editor is not answering', true); finish(0); });
}

// One undo step per gesture: the changes of one pointer GESTURE (a drag) merge, and
// without one (typing, keys) changes to the same keys within 800 ms; never when SEPARATE
// (a click that adds, moves or takes out an element: each is its own step).
function remember(before, after, separate, gesture = null) {
  const now = performance.now();
  const keys = after.map((c) => c.key).join();
  const last = history[history.length - 1];
  const same = last && !last.separate && !separate && last.keys === keys
    && (gesture !== null ? last.gesture === gesture : last.gesture == null && now - last.time < 800);
  if (same) { last.after = after; last.time = now; }
  else history.push({ keys, before, after, time: now, separate, gesture });
  future.length = 0;
  keepHistory();
}

// Undo and redo outlive a reload of the page: kept in this tab's session storage, for this
// scene (the newest 500 steps each way).
const historyKey = () => 'mercurial-history:' + editor.scene;
// Written once the changes pause (a drag's many steps are one write), and as the page goes.
let keepTimer = null;
function keepHistory() {
  clearTimeout(keepTimer);
  keepTimer = setTimeout(writeHistory, 300);
}
function writeHistory() {
  clearTimeout(keepTimer);
  const steps = (list) => list.slice(-500).map(({ keys, before, after }) => ({ keys, before, after, separate: true }));
  try { sessionStorage.setItem(historyKey(), JSON.stringify({ history: steps(history), future: steps(future) })); } catch (e) { }
}
window.addEventListener('pagehide', writeHistory);
function restoreHistory() {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(historyKey()) || 'null'); } catch (e) { }
  if (!kept || history.length || future.length) return;
  history.push(...(kept.history || []));
  future.push(...(kept.future || []));
}

// Edits not saved yet: a dot in the tab's title and a mark in the header, and a warning on leaving.
let pageTitle = null;
function showUnsaved(unsaved) {
  if (pageTitle === null) pageTitle = document.title;
  $('unsaved').hidden = !unsaved;
  document.title = (unsaved ? '● ' : '') + pageTitle;
}
window.addEventListener('beforeunload', (e) => {
  if ($('unsaved').hidden) return;
  e.preventDefault();
  e.returnValue = '';
});

// Undo and redo put back a state the server took: every control then shows a valid
// value, so an error left from a refused value goes.
function clearErrors() {
  document.querySelectorAll('.error[data-error-for]').forEach((box) => showError(box.dataset.errorFor, ''));
}

function undo() {
  const step = history.pop(); if (!step) return;
  future.push(step);
  keepHistory();
  const back = step.before.filter((c) => c.value !== undefined);
  send(back, false).then((code) => { if (code === 200) clearErrors(); return refresh(); });
}

function redo() {
  const step = future.pop(); if (!step) return;
  history.push(step);
  keepHistory();
  send(step.after, false).then((code) => { if (code === 200) clearErrors(); return refresh(); });
}

// A field shows the scene's value unless the user has typed in it since it last sent (that
// text is theirs, to be sent on Enter or on leaving); a focused field not typed in takes
// another tab's edit, its caret kept, so its next keystroke does not send stale text.
function showInField(field, v) {
  v = String(v);
  if (field.value === v || (document.activeElement === field && field.dataset.typing)) return;
  const focused = document.activeElement === field, [a, b] = [field.selectionStart, field.selectionEnd];
  field.value = v;
  if (focused && typeof a === 'number' && field.setSelectionRange) field.setSelectionRange(Math.min(a, v.length), Math.min(b, v.length));
}
document.addEventListener('input', (e) => { if (e.target.matches('input[type=text], textarea')) e.target.dataset.typing = '1'; }, true);
document.addEventListener('change', (e) => { delete e.target.dataset.typing; }, true);

// A colour as the picker takes it (#rrggbb), from any the browser reads (#f80, gold); null for
// none, transparent or one with alpha.
const colourProbe = document.createElement('canvas').getContext('2d');
function hexOf(v) {
  if (!v || /^(none|transparent|null)$/i.test(v)) return null;
  colourProbe.fillStyle = '#010203';
  colourProbe.fillStyle = v;
  const hex = colourProbe.fillStyle;
  return /^#[0-9a-f]{6}$/i.test(hex) && (hex !== '#010203' || /^#010203$/i.test(v)) ? hex : null;
}

function makeRow(row) {
  const div = document.createElement('div');
  div.className = 'row';
  div.dataset.key = row.key;
  div.title = row.help || '';
  const label = document.createElement('label');
  label.textContent = /^[a-z]+([A-Z][a-z]*)+$/.test(row.name) ? humanName(row.name) : row.name;   // stepsPerSecond → Steps per second
  label.title = row.help || '';
  div.append(label);
  const error = document.createElement('div');
  error.className = 'error';
  error.dataset.errorFor = row.errorKey || row.key;
  error.hidden = true;
  const kind = row.kind;
  // An element's or a typed block's row may send its change under another key (see makeTyped).
  // SEPARATE: an undo step of its own (a click), not merged with the edit before (see remember).
  const put = (v, started, separate) => row.put ? row.put(v, started, separate) : send([{ key: row.key, value: v }], true, started, separate);
  if (kind === 'number' || kind === 'integer') {
    const [min, max] = row.range;
    const slider = document.createElement('input');
    slider.type = 'range'; slider.name = row.key;
    // A range of hundreds or more (sizes, radii, widths) slides on a logarithmic scale,
    // so a few pixels are as easy to set as thousands; the field takes any value in range.
    const scale = scaleFor(row);
    slider.min = scale.min; slider.max = scale.max; slider.step = scale.step;
    slider.dataset.scale = scale.name;
    const field = document.createElement('input');
    field.type = 'text'; field.name = row.key + '-text';
    field.title = 'any value in ' + (row.rangeText || `${min}…${max}`);
    div.append(slider, field);
    controls.set(row.key, (v) => {
      // Not under the user's typing: a frame or a refresh arriving meanwhile would replace it.
      // A track's value between keys at 6 significant digits, not 0.9994166666666666.
      showInField(field, v === '' || isNaN(Number(v)) ? v : String(Number(Number(v).toPrecision(6))));
      const n = Number(v);
      if (v !== '' && !isNaN(n)) slider.value = scale.position(n);
    });
    slider.addEventListener('input', (event) => {
      const v = scale.name === 'linear' ? slider.value : String(scale.value(Number(slider.value)));
      field.value = v;
      put(v, event.timeStamp || performance.now());
    });
    field.addEventListener('change', () => put(field.value.trim()));
    const reset = () => {
      const v = text(row, row.default);
      controls.get(row.key)(v);
      put(v);
    };
    slider.addEventListener('dblclick', reset);
    label.addEventListener('dblclick', reset);
  } else if (kind === 'font' && !row.put) {
    makeFontPicker(row, div, put);
  } else if (kind === 'enum' || kind === 'font') {
    const select = document.createElement('select');
    select.className = 'wide'; select.name = row.key;
    div.append(select);
    const add = (parent, v) => { const o = document.createElement('option'); o.value = o.textContent = v; parent.append(o); };
    if (kind === 'enum') row.cases.forEach((c) => add(select, c));
    else {
      const bundled = document.createElement('optgroup'); bundled.label = 'Bundled';
      editor.fonts.forEach((f) => add(bundled, f));
      const installed = document.createElement('optgroup'); installed.label = 'Installed';
      editor.families.forEach((f) => add(installed, f));
      select.append(bundled, installed);
    }
    controls.set(row.key, (v) => {
      if (![...select.options].some((o) => o.value === v)) add(select, v);
      select.value = v;
    });
    select.addEventListener('change', () => {
      // A text path switched to points with none yet: two across the canvas's lower half, as a
      // vine's route gets (the type alone would be refused: points need points).
      const none = !Array.isArray(parsed(values.get('textPath.points') || 'null'));
      if (row.key === 'textPath.type' && select.value === 'points' && none) {
        const w = $('preview').width, h = $('preview').height, y = Math.round(h * 0.6);
        setWhole('textPath', Object.assign(clone(currentValue('textPath') || {}),
          { type: 'points', points: [[Math.round(w * 0.15), y], [Math.round(w * 0.85), y]] }));
        return;
      }
      put(select.value);
    });
  } else if (kind === 'color') {
    const picker = document.createElement('input');
    picker.type = 'color'; picker.name = row.key;
    // No colour ("transparent", "none") shows the checkerboard, not black.
    const swatch = document.createElement('span');
    swatch.className = 'swatch checker';
    swatch.append(picker);
    const field = document.createElement('input');
    field.type = 'text'; field.name = row.key + '-text';
    div.append(swatch, field);
    controls.set(row.key, (v) => {
      showInField(field, v);
      const hex = hexOf(v);
      if (hex) picker.value = hex;
      swatch.classList.toggle('none', !hex);
    });
    picker.addEventListener('input', (event) => {
      field.value = picker.value;
      swatch.classList.remove('none');
      put(picker.value, event.timeStamp || performance.now());
    });
    // Taken, a typed colour (#f80, gold) shows in its swatch.
    field.addEventListener('change', () => {
      const v = field.value.trim();
      Promise.resolve(put(v)).then((code) => { if (code === 200) controls.get(row.key)(v); });
    });
  } else if (kind === 'text' && /(^|\.)text$/.test(row.key)) {
    // The title's text: lines of it.
    const area = document.createElement('textarea');
    area.className = 'wide'; area.name = row.key;
    div.append(area);
    controls.set(row.key, (v) => showInField(area, v));
    area.addEventListener('input', () => {
      const sent = area.value;
      // Sent as typed: once the server has it, the box holds nothing of the user's own.
      Promise.resolve(put(sent || (row.unset || ''))).then(() => { if (area.value === sent) delete area.dataset.typing; });
    });
    if (row.key === 'text') {
      // The title's text as styled runs: the box then holds inline markup, {KEY=VALUE …: TEXT}.
      const label = document.createElement('label');
      label.className = 'runs';
      const box = document.createElement('input');
      box.type = 'checkbox'; box.name = 'text-runs';
      label.title = 'Each {KEY=VALUE …: TEXT} is a run with its own material, font, size, letterSpacing, baselineShift or sphere keys; \\{ \\} \\\\ are the characters';
      label.append(box, ' Styled runs, e.g. Gold {material=chrome size=90: and chrome}');
      div.append(label);
      box.addEventListener('change', () => send([{ key: '@textRuns', value: box.checked ? 'on' : 'off' }], true, performance.now(), true));
    }
  } else if (kind === 'point' || kind === 'range') {
    // Two numbers, [x, y] or [low, high], a field each; both empty: none (for a key that may be left out).
    const pair = [0, 1].map((k) => {
      const f = document.createElement('input');
      f.type = 'text'; f.name = `${row.key}-${k}`; f.title = row.rangeText || '';
      f.placeholder = kind === 'point' ? ['x', 'y'][k] : ['low', 'high'][k];
      return f;
    });
    const both = document.createElement('span'); both.className = 'wide pair'; both.append(...pair);
    div.append(both);
    controls.set(row.key, (v) => {
      let p = null; try { p = JSON.parse(v); } catch (e) { }
      pair.forEach((f, k) => { showInField(f, Array.isArray(p) ? String(p[k]) : ''); });
    });
    pair.forEach((f) => f.addEventListener('change', () => {
      const [a, b] = pair.map((f) => f.value.trim());
      put(a === '' && b === '' ? 'null' : `[${a || 0}, ${b || 0}]`);
    }));
  } else if (kind === 'object' && rows.some((r) => r.key.startsWith((row.schema || row.key) + '.'))) {
    // A block whose keys have rows of their own: on (its keys' defaults) or off; one that is always there, its name.
    if (row.default === null) {
      const box = document.createElement('input');
      box.type = 'checkbox'; box.name = row.key; box.title = 'on: the block, its keys as set below; off: none';
      controls.set(row.key, (v) => {
        box.checked = !!v && v !== 'null' && v !== (row.unset || '');
        // Off, the block's own rows are hidden: only the box shows.
        const rowsOf = div.parentElement ? div.parentElement.querySelectorAll(`.row[data-key^="${CSS.escape(row.key + '.')}"]`) : [];
        rowsOf.forEach((r) => { r.hidden = !box.checked; });
      });
      div.append(box);
      box.addEventListener('change', () => Promise.resolve(put(box.checked ? '{}' : 'null')).then(() => refresh()));
    } else controls.set(row.key, () => {});
  } else if (kind === 'rectangle') {
    makeRectangle(row, div, put);
  } else if (kind === 'array' || kind === 'route') {
    (kind === 'array' ? makeNumbers : makeRoute)(row, div, put);
  } else if (kind === 'points') {
    makePoints(row, div, put);
  } else if (kind === 'features' || kind === 'variations') {
    makeWords(row, div, put);
  } else if (kind === 'timing' && row.cases) {
    // A named timing function, or "cubic Bézier…" and its field: cubicBezier(x1, y1, x2, y2).
    const select = document.createElement('select'); select.name = row.key;
    for (const c of row.cases.concat([''])) {
      const o = document.createElement('option'); o.value = c; o.textContent = c || 'cubic Bézier…'; select.append(o);
    }
    const field = document.createElement('input');
    field.type = 'text'; field.name = row.key + '-bezier'; field.placeholder = 'cubicBezier(0.25, 0.1, 0.25, 1)';
    const both = document.createElement('span'); both.className = 'wide pair'; both.append(select, field);
    div.append(both);
    controls.set(row.key, (v) => {
      const named = row.cases.includes(v);
      showInField(field, named ? '' : v);
      showInField(select, named ? v : '');
      field.hidden = named && select.value !== '';
      both.style.gridTemplateColumns = field.hidden ? '1fr' : '';
    });
    select.addEventListener('change', () => {
      if (select.value) { field.hidden = true; both.style.gridTemplateColumns = '1fr'; put(select.value); return; }
      field.hidden = false; both.style.gridTemplateColumns = ''; field.focus();
    });
    field.addEventListener('change', () => { if (field.value.trim()) put(field.value.trim()); });
  } else if (kind === 'bool') {
    const box = document.createElement('input');
    box.type = 'checkbox'; box.name = row.key;
    controls.set(row.key, (v) => { box.checked = v === 'true'; });
    div.append(box);
    box.addEventListener('change', () => put(box.checked ? 'true' : 'false'));
  } else {
    const field = document.createElement('input');
    field.type = 'text'; field.className = 'wide'; field.name = row.key;
    div.append(field);
    field.placeholder = row.kind === 'path' ? 'a file in the scene\'s folder, or ' + (row.unset || 'none') : (row.rangeText || '');
    controls.set(row.key, (v) => { showInField(field, v); });
    // The fallback for a value the page has no control for (a track's keyframes, fallback fonts): its JSON.
    if (!['path', 'timing', 'margin', 'padding', 'text', 'timecode'].includes(row.kind)) field.classList.add('json');
    field.addEventListener('change', () => put(field.value.trim() || (row.unset || '')));
  }
  // A key the editor cannot change (a track's keyframes, a sequence): shown, not edited.
  // The animation's and dynamics' keys are set in the scene as the file holds it.
  if (row.editable === false && !inDocument(row.key)) div.querySelectorAll('input, select, textarea').forEach((e) => { e.disabled = true; });
  // A ◆ for any number or colour a track can move (not a layer's own gap, nor in/out's or the animation's keys).
  if ((kind === 'number' || kind === 'integer' || kind === 'color') && !row.put && !/^(in|out)[.[(]|^animation\./.test(row.key)
      && !(/^layers\[/.test(row.key) && row.nested)) {
    const key = document.createElement('button');
    key.type = 'button'; key.className = 'key'; key.textContent = '◆';
    key.title = 'Keyframe this value at the playhead; a still scene is given a 3 s animation (Alt+click: delete the keyframe there)';
    key.addEventListener('click', (e) => keyframe(routed({ key: row.key }).key, e.altKey));
    div.append(key);
  }
  div.append(error);
  return div;
}

// A rectangle [x, y, width, height] in canvas pixels: four fields, all empty = left out
// (null). A partly filled one is sent as it is, and the server's error for it shown in
// the row. While a field has focus, the rectangle is drawn over the preview.
function makeRectangle(row, div, put) {
  const names = ['x', 'y', 'width', 'height'];
  const fields = names.map((name, k) => {
    const f = document.createElement('input');
    f.type = 'text'; f.name = `${row.key}-${k}`; f.placeholder = name; f.title = `${name} in canvas pixels`;
    return f;
  });
  const box = document.createElement('span'); box.className = 'wide quad'; box.append(...fields);
  div.append(box);
  controls.set(row.key, (v) => {
    let r = null; try { r = JSON.parse(v); } catch (e) { }
    fields.forEach((f, k) => { showInField(f, Array.isArray(r) && k < r.length ? String(r[k]) : ''); });
  });
  const numbers = () => fields.map((f) => f.value.trim());
  const outline = () => showExtent(focused() ? numbers().map(Number) : null);
  const focused = () => fields.includes(document.activeElement);
  fields.forEach((f) => {
    f.addEventListener('change', () => {
      const filled = numbers().filter((n) => n !== '');
      editStep(row, put, filled.length ? `[${filled.join(', ')}]` : 'null');
    });
    f.addEventListener('input', outline);
    f.addEventListener('focus', outline);
    f.addEventListener('blur', () => setTimeout(outline, 0));
  });
}
// The rectangle [x, y, width, height] being edited, outlined over the preview (null: none).
function showExtent(r) {
  let box = document.querySelector('#light-dots .extent-box');
  if (!r || r.length !== 4 || r.some((n) => !isFinite(n))) { if (box) box.remove(); return; }
  if (!box) { box = document.createElement('div'); box.className = 'extent-box'; $('light-dots').append(box); }
  const [left, top] = stagePoint(r[0], r[1]), [right, bottom] = stagePoint(r[0] + r[2], r[1] + r[3]);
  Object.assign(box.style, { left: left + 'px', top: top + 'px', width: Math.max(0, right - left) + 'px', height: Math.max(0, bottom - top) + 'px' });
}

// A list of numbers (NAMES ['seconds']) or of points [x, y] (NAMES ['x', 'y']): a line an
// element, its fields, ↑ ↓ and ×; Add appends `fresh(list)`. Every edit is ONE change of the
// whole list (`put` of its JSON), which undo takes back whole. Returns { box, show(list) }.
function tupleList(row, names, fresh, put) {
  const box = document.createElement('div'); box.className = 'tuples';
  const items = document.createElement('div');
  let list = [];
  const edit = (v) => editStep(row, put, v);
  const whole = (next) => edit(JSON.stringify(next));
  const add = button('Add', 'add', () => whole(list.concat([fresh(list)])));
  box.append(items, add);
  // The list as its fields hold it, sent as typed: a value that is not a number gets the server's error.
  const typed = () => '[' + [...items.children].map((line) => {
    const parts = [...line.querySelectorAll('input')].map((f) => f.value.trim() || '0');
    return names.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  }).join(', ') + ']';
  function show(next) {
    list = Array.isArray(next) ? next : [];
    if (items.children.length !== list.length) {
      items.replaceChildren();
      list.forEach((_, i) => {
        const line = document.createElement('div'); line.className = 'tuple'; line.dataset.key = `${row.key}[${i}]`;
        for (const name of names) {
          const f = document.createElement('input'); f.type = 'text'; f.placeholder = name; f.title = `element ${i + 1}: ${name}`;
          f.addEventListener('change', () => edit(typed()));
          line.append(f);
        }
        line.append(...elementButtons(i, () => list, whole, '×'));
        items.append(line);
      });
    }
    list.forEach((element, i) => {
      [...items.children[i].querySelectorAll('input')].forEach((f, k) => {
        showInField(f, String(names.length === 1 ? element : element[k]));
      });
    });
  }
  return { box, show };
}
// Sends V by PUT as an undo step of its own (not merged with the one before, as a drag's
// changes are: see remember); once the server took it, ROW's control shows it.
function editStep(row, put, v) {
  return Promise.resolve(put(v, performance.now(), true)).then((code) => { if (code === 200) controls.get(row.key)(v); return code; });
}
const parsed = (v) => { try { return JSON.parse(v); } catch (e) { return v; } };
// A list of numbers (dynamics.delays): Add appends a copy of the last, or 0.
function makeNumbers(row, div, put) {
  const list = tupleList(row, ['seconds'], (l) => l.length ? l[l.length - 1] : 0, put);
  list.box.classList.add('wide');
  div.append(list.box);
  controls.set(row.key, (v) => list.show(parsed(v)));
}
// A curve's points (textPath.points), [x, y] each: Add puts one 40 px right of the last. On a
// canvas of a given size they are its pixels, shown and dragged on the preview as a vine's route.
let pathKey = null, pathShown = null;     // the points row's key, and its points as shown (null: none)
function makePoints(row, div, put) {
  const list = tupleList(row, ['x', 'y'], (l) => l.length ? [l[l.length - 1][0] + 40, l[l.length - 1][1]] : [0, 0], put);
  list.box.classList.add('wide');
  div.append(list.box);
  pathKey = row.key;
  controls.set(row.key, (v) => { list.show(parsed(v)); placePointDots(); });
}
// The text path's points as handles: when its type is points and the canvas has a given size
// (else they are not canvas pixels). A drag changes PATHSHOWN and sends it; otherwise it is
// taken again from the values the page shows.
function pathPoints() {
  const p = parsed(values.get(pathKey) || 'null'), sized = (k) => /^\d+$/.test(values.get(k) || '');
  if (!pathShown || !document.querySelector('.point-dot.path.dragging')) {
    pathShown = Array.isArray(p) && values.get('textPath.type') === 'points' && sized('width') && sized('height') ? clone(p) : null;
  }
  return pathShown || [];
}
// OpenType features typed as words ("smcp -liga tnum"), or a variable font's axes as
// tag and value pairs ("wght 650, slnt -8"); sent as the JSON the scene holds, checked by the server.
function makeWords(row, div, put) {
  const axes = row.kind === 'variations';
  const field = document.createElement('input');
  field.type = 'text'; field.className = 'wide'; field.name = row.key;
  field.placeholder = axes ? 'wght 650, slnt -8' : 'smcp -liga tnum';
  div.append(field);
  // A variable font's axes also get a slider each (with ◆), made again when the font's axes change.
  const sliders = document.createElement('div'); sliders.className = 'wide axes';
  let made = null;
  if (axes) div.append(sliders);
  controls.set(row.key, (v) => {
    const p = parsed(v);
    if (!axes) { showInField(field, Array.isArray(p) ? p.join(' ') : ''); return; }
    const set = p && typeof p === 'object' && !Array.isArray(p) ? p : {};
    showInField(field, Object.entries(set).map(([t, n]) => `${t} ${n}`).join(', '));
    const fontAxes = editor.fontAxes || [];
    if (JSON.stringify(fontAxes) !== made) {
      made = JSON.stringify(fontAxes);
      sliders.replaceChildren(...fontAxes.map((a) => makeRow({ key: `${row.key}.${a.tag}`, name: a.tag, kind: 'number',
        range: [a.minimum, a.maximum], help: `the font's ${a.tag} axis, ${a.minimum}…${a.maximum} (default ${a.defaultValue})` })));
    }
    for (const a of fontAxes) {
      const key = `${row.key}.${a.tag}`, value = String(a.tag in set ? set[a.tag] : a.defaultValue);
      values.set(key, value);
      if (controls.has(key)) controls.get(key)(value);
    }
  });
  field.addEventListener('change', () => {
    const text = field.value.trim();
    // As one undo step; once the server took it the sliders show it too.
    if (!axes) { editStep(row, put, JSON.stringify(text ? text.split(/[\s,]+/) : [])); return; }
    const pairs = text ? text.split(',').map((pair) => pair.trim().split(/\s+/)) : [];
    editStep(row, put, '{' + pairs.map(([tag, value]) => `${JSON.stringify(tag || '')}: ${value === undefined ? '""' : value}`).join(', ') + '}');
  });
}
// A route (vine.path): underline, arc, or canvas points, listed here and dragged on the preview.
let routeKey = null, routeShown = null;   // the route row's key, and its points as shown (null: not points)
function makeRoute(row, div, put) {
  const select = document.createElement('select');
  select.className = 'wide'; select.name = row.key;
  for (const c of ['underline', 'arc', 'points']) { const o = document.createElement('option'); o.value = o.textContent = c; select.append(o); }
  // A new point: 40 px right of the last; the first points run across the canvas's lower part.
  const w = () => $('preview').width, h = () => $('preview').height;
  const list = tupleList(row, ['x', 'y'], (l) => l.length ? [l[l.length - 1][0] + 40, l[l.length - 1][1]] : [Math.round(w() / 2), Math.round(h() * 3 / 4)], put);
  list.box.classList.add('wide');
  div.append(select, list.box);
  let last = null;                  // the points a switch to underline or arc leaves, for a switch back
  routeKey = row.key;
  controls.set(row.key, (v) => {
    const p = parsed(v), points = Array.isArray(p);
    select.value = points ? 'points' : String(p);
    list.box.hidden = !points;
    if (points) { list.show(p); last = p; }
    routeShown = points ? clone(p) : null;
    placePointDots();
  });
  select.addEventListener('change', () => {
    const y = Math.round(h() * 3 / 4);
    editStep(row, put, select.value !== 'points' ? select.value
        : JSON.stringify(last || [[Math.round(w() * 0.15), y], [Math.round(w() * 0.85), y]]));
  });
}

function makeMaterialRow() {
  const div = document.createElement('div');
  div.className = 'row'; div.dataset.key = 'material';
  div.title = 'a material preset; the keys you set (in bold) stay over it when you switch';
  const label = document.createElement('label'); label.textContent = 'Preset';
  const select = document.createElement('select'); select.className = 'wide'; select.name = 'material';
  for (const m of editor.materials) { const o = document.createElement('option'); o.value = o.textContent = m; select.append(o); }
  const error = document.createElement('div'); error.className = 'error'; error.dataset.errorFor = 'material'; error.hidden = true;
  // Each preset as its shading sphere: a click chooses it, as the menu does.
  const balls = document.createElement('div'); balls.className = 'wide presets';
  const choose = (m) => send([{ key: 'material', value: m }]).then(() => refresh());
  for (const m of editor.materials) {
    const b = document.createElement('button'); b.type = 'button'; b.className = 'preset'; b.dataset.preset = m; b.title = m;
    const img = document.createElement('img'); img.alt = m; img.src = `/preset-sphere?name=${encodeURIComponent(m)}&token=${encodeURIComponent(token)}`;
    const name = document.createElement('span'); name.textContent = m;
    b.append(img, name);
    b.addEventListener('click', () => { select.value = m; choose(m); });
    balls.append(b);
  }
  div.append(label, select, balls, error);
  controls.set('material', (v) => {
    select.value = v;
    balls.querySelectorAll('.preset').forEach((b) => b.classList.toggle('selected', b.dataset.preset === v));
  });
  select.addEventListener('change', () => choose(select.value));
  return div;
}

// The font picker: a search over the bundled and installed fonts, each shown in its own face
// (drawn by the server, when it scrolls into view) with the title's first line; a click chooses.
function makeFontPicker(row, div, put) {
  const search = document.createElement('input');
  search.type = 'search'; search.className = 'wide'; search.name = row.key + '-search';
  const all = editor.fonts.map((f) => [f, 'bundled']).concat(editor.families.map((f) => [f, 'installed']));
  search.placeholder = `search ${all.length} fonts`;
  const list = document.createElement('div'); list.className = 'wide font-list'; list.setAttribute('role', 'listbox');
  let current = null, sample = '';
  const preview = (f) => `/font-preview?name=${encodeURIComponent(f)}&text=${encodeURIComponent(sample)}&token=${encodeURIComponent(token)}`;
  for (const [f, where] of all) {
    const item = document.createElement('button'); item.type = 'button'; item.className = 'font-item';
    item.dataset.font = f; item.setAttribute('role', 'option'); item.title = `${f} (${where})`;
    const name = document.createElement('span'); name.textContent = f;
    const img = document.createElement('img'); img.loading = 'lazy'; img.alt = ''; img.dataset.font = f;
    item.append(name, img);
    item.addEventListener('click', () => put(f));
    list.append(item);
  }
  const showSamples = () => list.querySelectorAll('img').forEach((img) => { img.src = preview(img.dataset.font); });
  search.addEventListener('input', () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.querySelectorAll('.font-item').forEach((item) => {
      item.hidden = !words.every((w) => item.dataset.font.toLowerCase().includes(w));
    });
  });
  search.addEventListener('keydown', (e) => {   // Enter takes the first font found
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const first = [...list.querySelectorAll('.font-item')].find((i) => !i.hidden);
    if (first) put(first.dataset.font);
  });
  div.append(search, list);
  controls.set(row.key, (v) => {
    const text = String(values.get('text') || '').split('\n')[0].slice(0, 40);
    if (text !== sample) { sample = text; showSamples(); }
    if (v === current) return;
    current = v;
    list.querySelectorAll('.font-item').forEach((i) => {
      i.classList.toggle('selected', i.dataset.font === v);
      i.setAttribute('aria-selected', String(i.dataset.font === v));
    });
    const chosen = list.querySelector('.font-item.selected');
    if (chosen) list.scrollTop = chosen.offsetTop - list.offsetTop - 40;
  });
}

// The slider's scale for a number row: the value itself over a small range; over
// hundreds or more (sizes, radii, widths), 1000 steps logarithmic in value − min + 1.
function scaleFor(row) {
  const [min, max] = row.range, integer = row.kind === 'integer';
  if (max - min < 500) {
    return { name: 'linear', min, max, step: integer ? 1 : (max - min) / 1000, value: (p) => p, position: (v) => v };
  }
  if (min < 0) {   // a position: a working range of ±8192 pixels slides; the field takes the rest
    const low = Math.max(min, -8192), high = Math.min(max, 8192);
    return { name: 'linear', min: low, max: high, step: integer ? 1 : 1, value: (p) => p, position: (v) => v };
  }
  const steps = 1000, span = Math.log(max - min + 1);
  const clamp = (v) => Math.max(min, Math.min(max, v));
  const round = (v) => integer ? Math.round(v) : Number(v.toPrecision(4));
  return { name: 'log', min: 0, max: steps, step: 1, value: (p) => round(clamp(min + Math.exp(span * p / steps) - 1)),
           position: (v) => Math.round(Math.log(clamp(v) - min + 1) / span * steps) };
}

// Lists, gradient stops and typed blocks, made from the schema's rows: a list is the rows
// `L[].K` (element i's controls are `L[i].K`), a gradient's stops its rows `G.colors` and
// `G.locations`, a typed block (in, out) the rows `in|out(TYPE).K`. An element's row sends
// its own change; adding, removing or moving an element or a stop, or choosing a type, is
// ONE change of the whole value, which undo and redo take back whole.
const lists = new Map();            // a list's or block's key → { show() } drawing it from the scene
const topOf = (key) => key.split(/[.[(]/)[0];
// The value at KEY in the scene: a block the renderer declares as it writes it, the rest as the file holds it.
function currentValue(key) {
  const blocks = editor.blocks || {};
  return valueIn(topOf(key) in blocks ? blocks : editor.document, key);
}
const settable = (row) => row.editable !== false || inDocument(row.key);
const clone = (v) => JSON.parse(JSON.stringify(v));
function setWhole(key, value) {
  return send([{ key, value: JSON.stringify(value === undefined ? null : value) }], true, performance.now(), true)
    .then((code) => code === 200 ? refresh() : null);
}
// Keeps the page's copy of the scene in step with a change the server took, so that the
// next whole-list change starts from it (`[]` sets every element).
function patchLocal(key, text) {
  if (!editor.document || !(/[.[]/.test(key) || lists.has(key))) return;
  let v; try { v = JSON.parse(text); } catch (e) { v = text; }
  const steps = [];
  for (const part of key.split('.')) {
    const m = /^([^[(]+)((\[\d*\])*)$/.exec(part); if (!m) return;
    steps.push(m[1]); for (const i of (m[2].match(/\[\d*\]/g) || [])) steps.push(i === '[]' ? '[]' : Number(i.slice(1, -1)));
  }
  const put = (o, [s, ...rest]) => {
    if (o === null || typeof o !== 'object') return;
    for (const t of s === '[]' ? (Array.isArray(o) ? [...o.keys()] : []) : [s]) {
      if (!rest.length) o[t] = v; else put(o[t], rest);
    }
  };
  put(topOf(key) in (editor.blocks || {}) ? editor.blocks : editor.document, steps);
}
function button(label, action, onClick) {
  const b = document.createElement('button');
  b.type = 'button'; b.textContent = label; b.dataset.action = action; b.className = 'small';
  b.addEventListener('click', onClick);
  return b;
}
// Element I's ↑, ↓ and Remove, putting the whole list. They act on the list as it is when
// clicked (NOW()): a move that keeps the groups' shape does not make them again, so the list
// they were drawn from is stale.
function elementButtons(i, now, put, removeLabel = 'Remove') {
  const move = (to) => {
    const next = clone(now());
    if (to < 0 || to >= next.length) return;
    next.splice(to, 0, next.splice(i, 1)[0]);
    put(next);
  };
  return [button('↑', 'up', () => move(i - 1)), button('↓', 'down', () => move(i + 1)),
          button(removeLabel, 'remove', () => put(now().filter((_, k) => k !== i)))];
}
function itemTools(i, now, put) {
  const tools = document.createElement('div'); tools.className = 'item-tools';
  tools.append(...elementButtons(i, now, put));
  return tools;
}
function errorBox(key) {
  const error = document.createElement('div');
  error.className = 'error'; error.dataset.errorFor = key; error.hidden = true;
  return error;
}
function subgroup(key, title) {
  const d = document.createElement('details');
  d.className = 'group item'; d.dataset.key = key;
  const summary = document.createElement('summary'); summary.textContent = title;
  d.append(summary);
  return d;
}
// Which editor draws ROW, if not a row of its own: [its key, its group, the function making it].
function editorFor(row) {
  if (row.key.startsWith('sequence[]')) return ['sequence', row.group, makeSteps];
  const has = (suffix) => rows.some((r) => r.key === row.key + suffix);
  if (settable(row) && has('.colors') && has('.locations')) return [row.key, row.group, () => makeStops(row.key)];
  if (settable(row) && !row.key.includes('[') && rows.some((r) => r.key.startsWith(row.key + '[].'))) {
    return [row.key, row.group, () => makeList(row.key)];
  }
  let m = /^([^[(]+)\.(colors|locations)$/.exec(row.key);
  if (m && settable(row) && rows.some((r) => r.key === m[1] + '.colors') && rows.some((r) => r.key === m[1] + '.locations')) {
    return [m[1], row.group, () => makeStops(m[1])];
  }
  m = /^(.+?)\[\]\./.exec(row.key);
  if (m && settable(row) && !m[1].includes('[')) return [m[1], row.group, () => makeList(m[1])];
  if (m && !m[1].includes('[')) return [m[1], row.group, () => readOnlyList(m[1])];
  m = /^([\w|]+)\((\w+)\)\./.exec(row.key);
  if (m) return [m[1], m[1], () => makeTyped(m[1])];
  return null;
}

// A list's groups made again when its elements' SHAPE changed (STATE: its items, the shape
// they were made for, the rows they show): the old groups go with their controls. Returns
// the keys of the groups that were open (to open them again), or null when nothing changed.
function regroup(state, shape) {
  if (shape === state.shape) return null;
  state.shape = shape;
  const open = new Set([...state.items.children].filter((d) => d.open).map((d) => d.dataset.key));
  for (const r of state.shown) controls.delete(r.key);
  state.items.replaceChildren();
  state.shown = [];
  return open;
}
// A list of blocks: each element a collapsible group with its rows, moved up or down or
// taken out by its buttons; Add appends a copy of the last element (or the rows' defaults).
function makeList(list) {
  const own = rows.filter((r) => r.key.startsWith(list + '[].'));
  const noun = list.split('.').pop().replace(/s$/, '').replace(/([A-Z])/g, ' $1').toLowerCase();
  const box = document.createElement('div');
  box.className = 'list'; box.dataset.key = list;
  const items = document.createElement('div');
  const elements = () => currentValue(list) || [];
  const add = button('Add ' + noun, 'add', () => setWhole(list, elements().concat(list === 'layers' ? newLayers(elements()) : [blank(own, elements())])));
  box.append(items, add, errorBox(list));
  const state = { items, shape: null, shown: [] };
  const rowsOf = (element, i) => {
    if (list !== 'layers') return own.map((r) => ({ ...r, schema: r.key, key: r.key.replace('[]', `[${i}]`), group: noun }));
    return layerRows(element, i, own);
  };
  lists.set(list, { show() {
    const v = elements();
    values.set(list, JSON.stringify(currentValue(list) ?? null));
    const open = regroup(state, JSON.stringify(v.map((e) => list === 'layers' ? [Object.keys(e).sort(), e.name, e.text] : 0)));
    if (open) {
      v.forEach((element, i) => {
        const label = element && (element.name || element.text);
        const d = subgroup(`${list}[${i}]`, `${noun} ${i + 1}` + (label ? ` · ${String(label).split('\n')[0]}` : ''));
        d.open = open.has(d.dataset.key);
        d.append(itemTools(i, elements, (next) => setWhole(list, next)));
        for (const r of rowsOf(element, i)) {
          const div = r.make ? r.make() : makeRow(r);
          // A scene key a layer sets: × takes it out, and the layer shows the scene's value again.
          if (list === 'layers' && !r.nested && r.schema in element && r.schema !== 'text') {
            div.append(button('×', 'unset', () => {
              const next = clone(elements()); delete next[i][r.schema]; setWhole(list, next);
            }));
          }
          d.append(div); state.shown.push(r);
        }
        if (list === 'layers') d.append(addSceneKey(element, `layers[${i}].`));
        items.append(d);
      });
    }
    v.forEach((element, i) => {
      for (const r of state.shown.filter((r) => r.key.startsWith(`${list}[${i}].`))) {
        const at = editor.timeline && editor.timeline.at && editor.timeline.at[r.key];
        const value = at !== undefined ? JSON.parse(at) : valueIn(element, r.key.slice(`${list}[${i}].`.length));
        // A key with a track shows its value at the playhead; left out, a layer's scene key
        // shows the scene's value, an element's own key its default.
        const t = text(r, value !== undefined ? value : r.nested ? r.default : r.value);
        values.set(r.key, t);
        const show = controls.get(r.key); if (show) show(t);
      }
    });
  } });
  return box;
}
// A list the page does not edit (the fallback fonts, which name files and pin their SHA-256):
// what the scene file gives, one line an element, to change in the file.
function readOnlyList(list) {
  const box = document.createElement('div');
  box.className = 'list readonly'; box.dataset.key = list;
  lists.set(list, { show() {
    const v = currentValue(list) || [];
    box.replaceChildren(...(v.length ? v : [null]).map((element) => {
      const line = document.createElement('div');
      line.textContent = element === null ? 'none; set in the scene file'
        : [element.name, element.file].filter(Boolean).join(' · ') || JSON.stringify(element);
      if (element && element.sha256) line.title = 'pinned by its SHA-256: ' + element.sha256;
      return line;
    }));
  } });
  return box;
}

// A sequence's steps, each a collapsible group: its hold, its inline scene's text, material
// and the scene keys it sets over the sequence's, and the transition to the next title (its
// type from the schema's types, then that type's rows), each sent by its path
// (`sequence[1].hold`, `sequence[0].transition.duration`), which the server checks as the
// file's. Adding, moving or taking out a step is ONE change of the whole list; a new step's
// scene is inline (a page never names a file to read), a step naming a scene file moves whole.
function makeSteps() {
  const box = document.createElement('div');
  box.className = 'list'; box.dataset.key = 'sequence';
  const items = document.createElement('div');
  const stepsNow = () => currentValue('sequence') || [];
  const holdRow = rows.find((r) => r.key === 'sequence[].hold');
  const table = rows.filter((r) => !r.nested);
  const typeRows = rows.filter((r) => r.key.startsWith('sequence[].transition('));
  const types = [...new Set(typeRows.map((r) => /\((\w+)\)/.exec(r.key)[1]))];
  const name = (r) => r.key.split('.').pop();
  const fieldsOf = (type) => typeRows.filter((r) => r.key.startsWith(`sequence[].transition(${type}).`) && name(r) !== 'type');
  const durationOf = (type) => (typeRows.find((r) => r.key === `sequence[].transition(${type}).duration`) || {}).default;
  const add = button('Add title', 'add', () => {
    // A scene without a sequence becomes one: its own title, then a dissolve to the new one.
    const steps = stepsNow().length ? stepsNow()
      : [{ scene: { text: values.get('text') || 'Title 1' }, hold: holdRow ? holdRow.default : 1,
           transition: { type: types.includes('dissolve') ? 'dissolve' : types[0], duration: 0.5 } }];
    const last = steps[steps.length - 1];
    const inline = last && last.scene && typeof last.scene === 'object';
    const step = inline ? clone(last) : { scene: {}, hold: last && typeof last.hold === 'number' ? last.hold : (holdRow ? holdRow.default : 1) };
    step.scene.text = 'Title ' + (steps.length + 1);
    putSteps(steps.concat([step]));
  });
  // The last title has no transition (the file refuses one): a step that comes to be last loses its own.
  const putSteps = (next) => {
    if (next.length && next[next.length - 1]) delete next[next.length - 1].transition;
    return setWhole('sequence', next);
  };
  box.append(items, add, errorBox('sequence'));
  const state = { items, shape: null, shown: [] };
  // A row of step I at PATH within the step (`hold`, `transition.width`), shown as KEY.
  const stepRow = (template, i, path, key) => {
    const change = `sequence[${i}].${path}`;
    const r = { ...template, key: key || change, errorKey: change, group: 'sequence', step: i, path,
                // The spans on the timeline, their lengths and labels, as the server now has them.
                put: (v, started, separate) => send([{ key: change, value: v }], true, started, separate).then((code) => { if (code === 200) refresh(); return code; }) };
    state.shown.push(r);
    return makeRow(r);
  };
  const sceneKeys = (step) => step && step.scene && typeof step.scene === 'object'
    ? table.map((r) => r.key).filter((k) => k in step.scene && k !== 'text' && k !== 'material') : null;
  lists.set('sequence', { show() {
    const steps = stepsNow();
    values.set('sequence', JSON.stringify(steps));
    const open = regroup(state, JSON.stringify(steps.map((s) => [sceneKeys(s), s && s.transition ? s.transition.type : null])));
    if (open) {
      steps.forEach((step, i) => {
        const keys = sceneKeys(step), inline = keys !== null;
        const d = subgroup(`sequence[${i}]`, '');
        d.open = open.has(d.dataset.key);
        d.append(itemTools(i, stepsNow, putSteps));
        if (holdRow) d.append(stepRow(holdRow, i, 'hold'));
        if (inline) {
          d.append(stepRow(table.find((r) => r.key === 'text'), i, 'scene.text'));
          d.append(materialSelect(`sequence[${i}].scene.material`, '(the sequence\'s)', (m) => {
            const next = clone(stepsNow());
            if (m) next[i].scene.material = m; else delete next[i].scene.material;
            setWhole('sequence', next);
          }));
          for (const k of keys) {
            const div = stepRow(table.find((r) => r.key === k), i, `scene.${k}`);
            // × takes the key out: the title shows the sequence's value again.
            div.append(button('×', 'unset', () => { const next = clone(stepsNow()); delete next[i].scene[k]; setWhole('sequence', next); }));
            d.append(div);
          }
          d.append(addSceneKey(step.scene, `sequence[${i}].scene.`));
        }
        const type = step && step.transition && step.transition.type;
        if (i === steps.length - 1) { items.append(d); return; }   // the last title: no transition after it
        const div = document.createElement('div');
        div.className = 'row'; div.dataset.key = `sequence[${i}].transition.type`;
        const labelled = document.createElement('label'); labelled.textContent = 'transition';
        labelled.title = 'to the next title';
        const select = document.createElement('select'); select.className = 'wide';
        for (const t of [''].concat(types)) { const o = document.createElement('option'); o.value = t; o.textContent = t || 'cut (none)'; select.append(o); }
        select.value = type || '';
        select.addEventListener('change', () => {
          const old = (stepsNow()[i] || {}).transition || {};
          if (!select.value) { const next = clone(stepsNow()); delete next[i].transition; setWhole('sequence', next); return; }
          send([{ key: `sequence[${i}].transition`, value: JSON.stringify({ type: select.value, duration: old.duration ?? durationOf(select.value) }) }])
            .then((code) => code === 200 ? refresh() : null);
        });
        div.append(labelled, select, errorBox(`sequence[${i}].transition`));
        d.append(div);
        if (type) for (const r of fieldsOf(type)) d.append(stepRow(r, i, `transition.${name(r)}`, `sequence[${i}].transition(${type}).${name(r)}`));
        items.append(d);
      });
    }
    steps.forEach((step, i) => {
      const label = step && step.scene && typeof step.scene === 'object' ? step.scene.text : step && step.scene;
      const summary = items.children[i] && items.children[i].querySelector('summary');
      if (summary) summary.textContent = `title ${i + 1}` + (label ? ` · ${String(label).split('\n')[0]}` : '');
      const show = controls.get(`sequence[${i}].scene.material`);
      if (show) show(step && step.scene && step.scene.material || '');
    });
    for (const r of state.shown) {
      const value = valueIn(steps[r.step] || {}, r.path);
      // Left out: a title's scene key shows the sequence's value, a step's own key its default.
      const t = text(r, value !== undefined ? value : r.nested ? r.default : r.value);
      values.set(r.key, t);
      values.set(r.errorKey, t);     // what undo puts back under the key the change is sent by
      const show = controls.get(r.key); if (show) show(t);
    }
  } });
  return box;
}
