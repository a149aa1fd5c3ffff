'use strict';
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

// A value left out: a row's `unset` word; for a rectangle or a list of numbers, `null`
// (which takes the key out of the scene, so an undo back to nothing is a change the server takes).
function text(row, v) {
  if (v === null || v === undefined) return row.unset || (['rectangle', 'array'].includes(row.kind) ? 'null' : '');
  if (typeof v === 'object') return JSON.stringify(v);   // a point, a range, a list or a block, as JSON
  return String(v);
}

// Shows the error the server gave for KEY (the command line's text), or clears it.
function showError(key, message) {
  const box = errorBoxFor(key);
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
  const id = ++seq;
  pending.set(id, started);
  trace('input', id);
  return new Promise((resolve) => {
    if (!next) next = { changes: new Map(), before: new Map(), ids: [], record: false, separate: false, gesture, resolvers: [] };
    for (const c of changes) {
      if (!next.before.has(c.key)) next.before.set(c.key, values.get(c.key));
      next.changes.set(c.key, c.value);
    }
    next.ids.push(id);
    next.record = next.record || record;
    next.separate = next.separate || separate;
    next.resolvers.push(resolve);
    pump();
  });
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
      for (const c of changes) { values.set(c.key, c.value); patchLocal(c.key, c.value); showError(c.key, ''); }
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
    showError(json.key || changes[0].key, json.error || ('HTTP ' + code));
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
}

// Undo and redo put back a state the server took: every control then shows a valid
// value, so an error left from a refused value goes.
function clearErrors() {
  document.querySelectorAll('.error[data-error-for]').forEach((box) => showError(box.dataset.errorFor, ''));
}

function undo() {
  const step = history.pop(); if (!step) return;
  future.push(step);
  const back = step.before.filter((c) => c.value !== undefined);
  send(back, false).then((code) => { if (code === 200) clearErrors(); return refresh(); });
}

function redo() {
  const step = future.pop(); if (!step) return;
  history.push(step);
  send(step.after, false).then((code) => { if (code === 200) clearErrors(); return refresh(); });
}

function makeRow(row) {
  const div = document.createElement('div');
  div.className = 'row';
  div.dataset.key = row.key;
  div.title = row.help || '';
  const label = document.createElement('label');
  label.textContent = row.name;
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
      if (document.activeElement !== field) field.value = v;
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
    select.addEventListener('change', () => put(select.value));
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
      field.value = v;
      const opaque = /^#[0-9a-f]{6}$/i.test(v);
      if (opaque) picker.value = v;
      swatch.classList.toggle('none', !opaque);
    });
    picker.addEventListener('input', (event) => {
      field.value = picker.value;
      swatch.classList.remove('none');
      put(picker.value, event.timeStamp || performance.now());
    });
    field.addEventListener('change', () => put(field.value.trim()));
  } else if (kind === 'text' && /(^|\.)text$/.test(row.key)) {
    // The title's text: lines of it.
    const area = document.createElement('textarea');
    area.className = 'wide'; area.name = row.key;
    div.append(area);
    controls.set(row.key, (v) => { if (document.activeElement !== area) area.value = v; });
    area.addEventListener('input', () => put(area.value || (row.unset || '')));
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
      pair.forEach((f, k) => { if (document.activeElement !== f) f.value = Array.isArray(p) ? String(p[k]) : ''; });
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
      if (document.activeElement !== field) field.value = named ? '' : v;
      if (document.activeElement !== select) select.value = named ? v : '';
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
    controls.set(row.key, (v) => { if (document.activeElement !== field) field.value = v; });
    // The fallback for a value the page has no control for (a track's keyframes, fallback fonts): its JSON.
    if (!['path', 'timing', 'margin', 'text'].includes(row.kind)) field.classList.add('json');
    field.addEventListener('change', () => put(field.value.trim() || (row.unset || '')));
  }
  // A key the editor cannot change (a track's keyframes, a sequence): shown, not edited.
  // The animation's and dynamics' keys are set in the scene as the file holds it.
  if (row.editable === false && !inDocument(row.key)) div.querySelectorAll('input, select, textarea').forEach((e) => { e.disabled = true; });
  // A ◆ for any number or colour a track can move (not a layer's own gap, nor in/out's keys).
  if ((kind === 'number' || kind === 'integer' || kind === 'color') && !row.put && !/^(in|out)[.[(]/.test(row.key)
      && !(/^layers\[/.test(row.key) && 'editable' in row)) {
    const key = document.createElement('button');
    key.type = 'button'; key.className = 'key'; key.textContent = '◆';
    key.title = 'Keyframe this value at the playhead (Alt+click: delete the keyframe there)';
    key.addEventListener('click', (e) => keyframe(row.key, e.altKey));
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
    fields.forEach((f, k) => { if (document.activeElement !== f) f.value = Array.isArray(r) && k < r.length ? String(r[k]) : ''; });
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
        if (document.activeElement !== f) f.value = String(names.length === 1 ? element : element[k]);
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
  div.append(label, select, error);
  controls.set('material', (v) => { select.value = v; });
  select.addEventListener('change', () => send([{ key: 'material', value: select.value }]).then(() => refresh()));
  return div;
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
          if (list === 'layers' && !('editable' in r) && r.schema in element && r.schema !== 'text') {
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
        const t = text(r, value !== undefined ? value : 'editable' in r ? r.default : r.value);
        values.set(r.key, t);
        const show = controls.get(r.key); if (show) show(t);
      }
    });
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
  const table = rows.filter((r) => !('editable' in r));
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
      const t = text(r, value !== undefined ? value : 'editable' in r ? r.default : r.value);
      values.set(r.key, t);
      values.set(r.errorKey, t);     // what undo puts back under the key the change is sent by
      const show = controls.get(r.key); if (show) show(t);
    }
  } });
  return box;
}

// A new element: a copy of the last one, or the rows' defaults (a point at the canvas's centre).
function blank(own, elements) {
  if (elements.length) {
    const copy = clone(elements[elements.length - 1]);
    if (typeof copy.x === 'number') copy.x += 40;
    return copy;
  }
  const element = {};
  for (const r of own) {
    const name = r.key.split('[].')[1];
    if (name.includes('.') || r.default === null || r.default === undefined) continue;
    element[name] = r.default;
  }
  if ('x' in element && 'y' in element) { element.x = Math.round($('preview').width / 2); element.y = Math.round($('preview').height / 2); }
  return element;
}
// Layers: the first added to a scene without them is the scene's own title; each next one sits under the last.
function newLayers(layers) {
  const made = layers.length ? [] : [{ name: 'layer1' }];
  const all = layers.concat(made), n = all.length + 1, above = all[all.length - 1];
  const size = Number(values.get('size')) || 100;
  const layer = { name: 'layer' + n, text: 'Layer ' + n, size: Math.max(8, Math.round(size / 2)) };
  if (above && above.name) layer.below = above.name;
  return made.concat([layer]);
}
// A layer's rows: its own keys (the schema's layers[] rows), its preset, its text, and the
// scene keys it sets over the scene's, each from the parameter table.
function layerRows(layer, i, own) {
  const at = (r) => ({ ...r, schema: r.key.replace(/^layers\[\]\./, ''), key: `layers[${i}].${r.key.replace(/^layers\[\]\./, '')}`, group: 'layer' });
  const table = rows.filter((r) => !('editable' in r));
  // In the table's order (the server's JSON gives an object's keys sorted, not in the file's order).
  const keys = ['text'].concat(table.map((r) => r.key).filter((k) => k in layer && k !== 'text' && k !== 'material'));
  return own.map((r) => /\.below$/.test(r.key) ? { ...at(r), make: () => belowSelect(at(r), i) } : at(r))
    .concat([{ key: `layers[${i}].material`, make: () => layerMaterial(i) }],
                            keys.map((k) => at(table.find((r) => r.key === k))));
}
// A layer's `below`: the other layers by name, or none (placed by its own anchor).
function belowSelect(row, i) {
  const div = document.createElement('div');
  div.className = 'row'; div.dataset.key = row.key; div.title = row.help || '';
  const label = document.createElement('label'); label.textContent = row.name; label.title = row.help || '';
  const select = document.createElement('select'); select.className = 'wide'; select.name = row.key;
  const names = (currentValue('layers') || []).map((l) => l && l.name).filter((n, k) => n && k !== i);
  for (const n of [''].concat(names)) { const o = document.createElement('option'); o.value = n; o.textContent = n || '(none: its own anchor)'; select.append(o); }
  controls.set(row.key, (v) => {
    if (v && ![...select.options].some((o) => o.value === v)) { const o = document.createElement('option'); o.value = o.textContent = v; select.append(o); }
    select.value = v || '';
  });
  select.addEventListener('change', () => send([{ key: row.key, value: select.value ? JSON.stringify(select.value) : 'null' }]).then((code) => code === 200 ? refresh() : null));
  div.append(label, select, errorBox(row.key));
  return div;
}
// A preset select for a layer's or a title's scene (KEY): '' leaves it out (NONE names what shows then).
function materialSelect(key, none, choose) {
  const div = document.createElement('div');
  div.className = 'row'; div.dataset.key = key;
  const label = document.createElement('label'); label.textContent = 'Preset'; label.title = 'the material preset this title starts from';
  const select = document.createElement('select'); select.className = 'wide';
  for (const m of [''].concat(editor.materials)) { const o = document.createElement('option'); o.value = m; o.textContent = m || none; select.append(o); }
  controls.set(key, (v) => { select.value = v; });
  select.addEventListener('change', () => choose(select.value));
  div.append(label, select, errorBox(key));
  return div;
}
function layerMaterial(i) {
  return materialSelect(`layers[${i}].material`, '(the scene\'s)', (m) => {
    const layers = clone(currentValue('layers'));
    if (m) layers[i].material = m; else delete layers[i].material;
    setWhole('layers', layers);
  });
}
// A select adding one of the scene's keys to SCENE (a layer, a title's inline scene), sent
// as PREFIX + key with the value it has now.
function addSceneKey(scene, prefix) {
  const div = document.createElement('div');
  div.className = 'row'; div.dataset.action = 'add-key';
  const label = document.createElement('label'); label.textContent = 'set a key';
  const select = document.createElement('select'); select.className = 'wide';
  const none = document.createElement('option'); none.value = ''; none.textContent = 'the scene\'s… (choose one)'; select.append(none);
  for (const r of rows.filter((r) => !('editable' in r) && !(r.key in scene) && !(prefix.startsWith('sequence') && ['path', 'font'].includes(r.kind)))) {
    const o = document.createElement('option'); o.value = r.key; o.textContent = `${r.group}: ${r.name}`; select.append(o);
  }
  select.addEventListener('change', () => {
    const r = rows.find((r) => r.key === select.value);
    if (r) send([{ key: prefix + r.key, value: text(r, r.value) }]).then((code) => code === 200 ? refresh() : null);
  });
  div.append(label, select);
  return div;
}

// A gradient's stops, in location order: a colour and a location each, added and taken out
// here, with the gradient drawn above them.
function makeStops(block) {
  const box = document.createElement('div');
  box.className = 'stops'; box.dataset.key = block;
  const bar = document.createElement('div');
  bar.className = 'bar checker'; bar.dataset.key = block + '.locations';
  const fill = document.createElement('div'); bar.append(fill);
  const items = document.createElement('div'); items.dataset.key = block + '.colors';
  const gradient = () => currentValue(block);
  const stopsOf = (g) => g && g.colors ? g.colors.map((color, k) => ({ color,
    location: g.locations ? g.locations[k] : (g.colors.length > 1 ? k / (g.colors.length - 1) : 0) })) : [];
  const put = (stops) => {
    stops.sort((a, b) => a.location - b.location);
    setWhole(block, { ...gradient(), colors: stops.map((s) => s.color), locations: stops.map((s) => s.location) });
  };
  const add = button('Add stop', 'add', () => {
    const stops = stopsOf(gradient());
    if (!stops.length) { put([{ color: '#000000', location: 0 }, { color: '#ffffff', location: 1 }]); return; }
    let k = 0;   // the new stop halves the widest gap, in the colour of the stop before it
    for (let j = 1; j < stops.length - 1; j++) if (stops[j + 1].location - stops[j].location > stops[k + 1].location - stops[k].location) k = j;
    const after = stops[k + 1] || stops[k];
    stops.push({ color: stops[k].color, location: Math.round((stops[k].location + after.location) / 2 * 1000) / 1000 });
    put(stops);
  });
  const remove = button('None', 'none', () => setWhole(block, null));
  box.append(bar, items, add, remove, errorBox(block));
  let count = -1;
  lists.set(block, { show() {
    const g = gradient(), stops = stopsOf(g);
    values.set(block, JSON.stringify(g ?? null));
    remove.hidden = !g;
    add.textContent = g ? 'Add stop' : 'Add a gradient';
    fill.style.background = stops.length ? `linear-gradient(to right, ${stops.map((s) => `${s.color} ${s.location * 100}%`).join(', ')})` : 'none';
    if (stops.length !== count) {
      count = stops.length;
      items.replaceChildren();
      stops.forEach((_, k) => {
        const row = document.createElement('div'); row.className = 'stop';
        const picker = document.createElement('input'); picker.type = 'color'; picker.dataset.key = `${block}.colors[${k}]`;
        const field = document.createElement('input'); field.type = 'text'; field.dataset.key = `${block}.locations[${k}]`;
        field.title = 'where the colour sits, 0…1';
        const take = button('×', 'remove', () => put(stopsOf(gradient()).filter((_, j) => j !== k)));
        picker.addEventListener('change', () => { const s = stopsOf(gradient()); s[k].color = picker.value; put(s); });
        field.addEventListener('change', () => {
          if (field.value.trim() === '') return;   // emptied on the way to a new value
          const s = stopsOf(gradient()); s[k].location = Number(field.value.trim()); put(s);
        });
        row.append(picker, field, take);
        items.append(row);
      });
    }
    stops.forEach((s, k) => {
      const [picker, field] = items.children[k].children;
      if (/^#[0-9a-f]{6}$/i.test(s.color)) picker.value = s.color;
      if (document.activeElement !== field) field.value = String(s.location);
    });
  } });
  return box;
}

// A typed block for each of the keys in PREFIX (`in|out`): its type chosen from the schema's
// types (none takes the block out), then that type's rows, each sending `KEY.FIELD`.
function makeTyped(prefix) {
  const box = document.createElement('div');
  const typeRows = rows.filter((r) => r.key.startsWith(prefix + '('));
  const types = [...new Set(typeRows.map((r) => /\((\w+)\)/.exec(r.key)[1]))];
  const fieldsOf = (type) => typeRows.filter((r) => r.key.startsWith(`${prefix}(${type}).`) && !r.key.endsWith('.type'));
  const name = (r) => r.key.split('.').pop();
  const common = fieldsOf(types[0]).map(name).filter((f) => types.every((t) => fieldsOf(t).some((r) => name(r) === f)));
  for (const key of prefix.split('|')) {
    const group = subgroup(key, key);
    const div = document.createElement('div');
    div.className = 'row'; div.dataset.key = `${key}.type`;
    const label = document.createElement('label'); label.textContent = 'type';
    label.title = (typeRows.find((r) => r.key.endsWith('.type')) || {}).help || '';
    const select = document.createElement('select'); select.className = 'wide';
    for (const t of ['none'].concat(types)) {   // each type's option is its row `KEY(TYPE).type`
      const o = document.createElement('option'); o.value = o.textContent = t;
      if (t !== 'none') o.dataset.key = `${key}(${t}).type`;
      select.append(o);
    }
    select.addEventListener('change', () => {
      if (select.value === 'none') { setWhole(key, null); return; }
      const old = currentValue(key) || {}, next = { type: select.value };
      for (const f of common) if (f in old) next[f] = old[f];
      setWhole(key, next);
    });
    div.append(label, select);
    group.append(div);
    const parts = new Map();
    for (const type of types) {
      const part = document.createElement('div'); part.dataset.type = type; part.hidden = true;
      for (const r of fieldsOf(type)) {
        const change = `${key}.${name(r)}`;
        part.append(makeRow({ ...r, key: `${key}(${type}).${name(r)}`, errorKey: change, group: key,
                              put: (v, started) => send([{ key: change, value: v }], true, started) }));
      }
      parts.set(type, part);
      group.append(part);
    }
    group.append(errorBox(key));
    box.append(group);
    lists.set(key, { show() {
      const v = currentValue(key);
      values.set(key, JSON.stringify(v ?? null));
      const type = v && v.type || 'none';
      select.value = type;
      for (const [t, part] of parts) part.hidden = t !== type;
      for (const r of type === 'none' ? [] : fieldsOf(type)) {
        const f = name(r), t = text(r, f in v ? v[f] : r.default);
        values.set(`${key}.${f}`, t);
        const show = controls.get(`${key}(${type}).${f}`); if (show) show(t);
      }
    } });
  }
  return box;
}

// The title's text, font and preset first; then the groups as the schema orders them.
function build() {
  const form = $('controls');
  form.replaceChildren();
  const top = document.createElement('details');
  top.className = 'group'; top.open = true;
  const topLegend = document.createElement('summary'); topLegend.textContent = 'Title';
  top.append(topLegend);
  form.append(top);
  for (const key of ['text', 'font']) { const row = rows.find((r) => r.key === key); if (row) top.append(makeRow(row)); }
  top.append(makeMaterialRow());
  // Each group collapses; the nested blocks (point lights, gradients, vine, dynamics…) start closed.
  // Lists, gradient stops and in/out have editors of their own (editorFor), placed where their first row is.
  let fieldset = null, group = null;
  const made = new Set();
  for (const row of rows) {
    if (row.key === 'text' || row.key === 'font') continue;
    const special = editorFor(row);
    if (special && made.has(special[0])) continue;
    const name = special ? special[1] : row.group;
    if (name !== group) {
      group = name;
      fieldset = document.createElement('details');
      fieldset.className = 'group'; fieldset.dataset.group = group;
      fieldset.open = !('editable' in row);
      const summary = document.createElement('summary'); summary.textContent = group.replace('|', ' / ');
      fieldset.append(summary);
      form.append(fieldset);
    }
    if (!special) { fieldset.append(makeRow(row)); continue; }
    made.add(special[0]);
    if (special[0] !== group) {
      const title = document.createElement('div'); title.className = 'list-title'; title.textContent = special[0];
      fieldset.append(title);
    }
    fieldset.append(special[2]());
  }
  form.prepend(top);
  form.addEventListener('submit', (e) => e.preventDefault());
}

// The keys the editor sets in the scene as the file holds it (see EditorSession.documentPath).
const inDocument = (key) => /^((animation|dynamics)\.|(in|out|layers)([.[(]|$)|sequence\[)/.test(key) && !/^animation\.tracks/.test(key);
const documentValue = (key) => valueIn(editor.document, key);
// A key of a block the file has (the animation, dynamics) as the file sets it, else its
// default, which is what the scene gets; a block the file has not: nothing (it is off).
function documentOrDefault(row) {
  const v = documentValue(row.key);
  if (v !== undefined || row.key.includes('[')) return v;
  return documentValue(topOf(row.key)) !== undefined ? row.default : v;
}
// The value at a path (a.b[0].c; [] takes the first element) in ROOT.
function valueIn(root, key) {
  let v = root;
  for (const part of key.split('.')) {
    const m = /^([^[]+)((\[\d*\])*)$/.exec(part);
    if (!m || v === null || typeof v !== 'object') return undefined;
    v = v[m[1]];
    for (const index of (m[2].match(/\[\d*\]/g) || [])) {
      if (!Array.isArray(v)) return undefined;
      v = v[index === '[]' ? 0 : Number(index.slice(1, -1))];
    }
  }
  return v;
}
function showValues() {
  for (const row of rows) {
    const v = text(row, inDocument(row.key) && row.value === null ? documentOrDefault(row) : row.value);
    values.set(row.key, v);
    const show = controls.get(row.key);
    if (show) show(v);
  }
  for (const list of lists.values()) list.show();
  values.set('material', editor.material);
  controls.get('material')(editor.material);
  // The keys the scene sets over its preset (a preset switch keeps them).
  const own = new Set(editor.overridden || []);
  // In a scene with layers, a track moves one layer's key: the top level's rows have no ◆.
  const layered = (currentValue('layers') || []).length > 0;
  document.querySelectorAll('#controls .row[data-key]').forEach((div) => {
    div.classList.toggle('layered', layered && !/^layers\[/.test(div.dataset.key));
    const top = div.dataset.key.split(/[.[]/)[0];
    div.classList.toggle('own', own.has(div.dataset.key) || (top !== div.dataset.key && own.has(top))
      || (/^light\d+\./.test(div.dataset.key) && own.has('lights')));
  });
  placeDots();
}

let refreshing = 0;
// For tests: a change, an undo or a refresh still under way.
window.__busy = () => inFlight || !!next || refreshing > 0 || pending.size > 0;
async function refresh() {
  refreshing++;
  try { await refreshNow(); } finally { refreshing--; }
}
async function refreshNow() {
  const { status: code, json } = await api('/api/state');
  if (code !== 200) { status(json.error || ('HTTP ' + code), true); return; }
  rows = json.parameters.concat(json.nested || []); editor = json.editor;
  revision = Math.max(revision, editor.revision);
  if (!controls.size) build();
  showValues();
  showTimeline(editor.timeline);
  placePointDots();
}

// The lights as dots on the sphere: x and y in -50…50 across the box, coloured by hue.
function placeDots() {
  const box = $('sphere-box');
  const taken = new Map();          // a spot → how many dots are there already
  for (let i = 1; i <= 4; i++) {
    let dot = box.querySelector(`.dot[data-light="${i}"]`);
    if (!dot) {
      dot = document.createElement('div'); dot.className = 'dot'; dot.dataset.light = i; dot.title = 'light ' + i;
      box.append(dot); dragDot(dot, i);
    }
    const x = Number(values.get(`light${i}.x`)), y = Number(values.get(`light${i}.y`));
    const hue = Number(values.get(`light${i}.hue`)), brightness = Number(values.get(`light${i}.brightness`));
    // Lights at one spot are fanned out around it, so that each can be grabbed.
    const spot = Math.round(x) + ',' + Math.round(y), k = taken.get(spot) || 0;
    taken.set(spot, k + 1);
    const dx = k ? 12 * Math.cos(k * Math.PI / 2) : 0, dy = k ? 12 * Math.sin(k * Math.PI / 2) : 0;
    dot.style.left = ((x + 50) / 100 * 256 + dx) + 'px';
    dot.style.top = ((50 - y) / 100 * 256 + dy) + 'px';
    dot.style.background = `hsl(${hue * 360}, 100%, ${Math.max(10, brightness * 50)}%)`;
  }
}

function dragDot(dot, i) {
  let dragging = false, scheduled = null;
  dot.addEventListener('pointerdown', (e) => { dragging = true; dot.setPointerCapture(e.pointerId); e.preventDefault(); });
  dot.addEventListener('pointerup', () => { dragging = false; });
  dot.addEventListener('pointermove', (e) => {
    if (!dragging) return;
    const rect = $('sphere-box').getBoundingClientRect();
    const clamp = (v) => Math.max(-50, Math.min(50, v));
    const x = clamp(Math.round(((e.clientX - rect.left) / 256 * 100 - 50) * 10) / 10);
    const y = clamp(Math.round((50 - (e.clientY - rect.top) / 256 * 100) * 10) / 10);
    dot.style.left = ((x + 50) / 100 * 256) + 'px';
    dot.style.top = ((50 - y) / 100 * 256) + 'px';
    const started = e.timeStamp || performance.now();
    if (scheduled) cancelAnimationFrame(scheduled);
    scheduled = requestAnimationFrame(() => {
      scheduled = null;
      controls.get(`light${i}.x`)(String(x)); controls.get(`light${i}.y`)(String(y));
      send([{ key: `light${i}.x`, value: String(x) }, { key: `light${i}.y`, value: String(y) }], true, started);
    });
  });
}

// Handles on the preview at canvas pixels: the scene's point lights (drag one to move the
// light; click one for its colour, intensity and range, rows made from the schema's
// pointLights[] rows) and a vine route's points (drag one to move it). Each source gives
// its handles and what a drag (`moved`, with the handle's new canvas pixel) or a click does.
let selectedLight = null;
function pointLights() { return (editor.blocks && editor.blocks.pointLights) || []; }
const handleSources = [
  { name: 'light',
    handles: () => pointLights().map((light, i) => {
      // What undo puts back after a drag.
      values.set(`pointLights[${i}].x`, String(light.x)); values.set(`pointLights[${i}].y`, String(light.y));
      return { key: `pointLights[${i}]`, x: light.x, y: light.y, color: light.color || '#fff', selected: selectedLight === i,
               title: `point light ${i + 1}: drag to move, click for its colour, intensity, range and Remove` };
    }),
    moved(i, x, y, started) {
      pointLights()[i].x = x; pointLights()[i].y = y;
      send([{ key: `pointLights[${i}].x`, value: String(x) }, { key: `pointLights[${i}].y`, value: String(y) }], true, started);
    },
    clicked(i) { selectedLight = i; placePointDots(); } },
  { name: 'route',
    handles: () => (routeShown || []).map(([x, y], i) => ({ key: `${routeKey}[${i}]`, x, y, color: '#8c6', title: `vine point ${i + 1}: drag to move` })),
    // The whole route is one change, as its list's edits are: a drag is one undo step (see remember).
    moved(i, x, y, started) {
      routeShown[i] = [x, y];
      const v = JSON.stringify(routeShown);
      controls.get(routeKey)(v);
      send([{ key: routeKey, value: v }], true, started);
    } },
];
// Canvas pixel (x, y) → its place in #stage's scrolled box, where the handles are.
function stagePoint(x, y) {
  const canvas = $('preview'), stage = $('stage');
  const c = canvas.getBoundingClientRect(), st = stage.getBoundingClientRect();
  return [c.left - st.left + stage.scrollLeft + x * c.width / canvas.width, c.top - st.top + stage.scrollTop + y * c.height / canvas.height];
}
function placePointDots() {
  const layer = $('light-dots');
  for (const source of handleSources) {
    const handles = source.handles();
    const dots = () => layer.querySelectorAll(`.point-dot[data-source="${source.name}"]`);
    [...dots()].slice(handles.length).forEach((dot) => dot.remove());
    handles.forEach((handle, i) => {
      let dot = dots()[i];
      if (!dot) {
        dot = document.createElement('div'); dot.className = 'point-dot ' + source.name; dot.dataset.source = source.name;
        layer.append(dot); dragHandle(dot, source, i);
      }
      dot.dataset.key = handle.key; dot.title = handle.title;
      const [left, top] = stagePoint(handle.x, handle.y);
      dot.style.left = left + 'px'; dot.style.top = top + 'px';
      dot.style.background = handle.color;
      dot.classList.toggle('selected', !!handle.selected);
    });
  }
  showPointLight();
}
function dragHandle(dot, source, i) {
  let start = null, scheduled = null;
  dot.addEventListener('pointerdown', (e) => { start = [e.clientX, e.clientY]; dot.setPointerCapture(e.pointerId); e.preventDefault(); });
  dot.addEventListener('pointerup', (e) => {
    if (start && source.clicked && Math.hypot(e.clientX - start[0], e.clientY - start[1]) < 3) source.clicked(i);
    start = null;
  });
  dot.addEventListener('pointermove', (e) => {
    if (!start) return;
    const canvas = $('preview'), c = canvas.getBoundingClientRect();
    const x = Math.round((e.clientX - c.left) / c.width * canvas.width);
    const y = Math.round((e.clientY - c.top) / c.height * canvas.height);
    const st = $('stage').getBoundingClientRect();
    dot.style.left = (e.clientX - st.left + $('stage').scrollLeft) + 'px';
    dot.style.top = (e.clientY - st.top + $('stage').scrollTop) + 'px';
    const started = e.timeStamp || performance.now();
    if (scheduled) cancelAnimationFrame(scheduled);
    scheduled = requestAnimationFrame(() => { scheduled = null; source.moved(i, x, y, started); });
  });
}
// A light clicked on the preview: its group in the point lights' list (rows made from the
// schema's pointLights[] rows) opens, with its colour, intensity, range and Remove.
let openedLight = null;
function showPointLight() {
  document.querySelectorAll('.list[data-key="pointLights"] details.item').forEach((d) => {
    d.classList.toggle('selected', d.dataset.key === `pointLights[${selectedLight}]`);
  });
  if (selectedLight === openedLight) return;
  openedLight = selectedLight;
  const item = document.querySelector(`details.item[data-key="pointLights[${selectedLight}]"]`);
  if (!item) return;
  item.open = true;
  const group = item.closest('details.group:not(.item)'); if (group) group.open = true;
  item.scrollIntoView({ block: 'nearest' });
}
window.addEventListener('resize', () => placePointDots());

// Frames come over the page's WebSocket (see EditorSocket.swift), each a delta
// from the frame on screen (`have`): runs of the pixels that changed, straight-alpha
// RGBA as ImageData wants them (see FrameDelta.swift). The page keeps the frame's
// pixels, applies the runs, puts only the rectangle they cover on the canvas and
// says which frame it now has; the server sends the next frame only then, and the
// newest one: no PNG to deflate or inflate, no request per frame, no queue.
let sphereTimer = null;
let pixels = null, pixels32 = null, have = 0;
const MAGIC = 0x3144544D;
function applyDelta(buffer, offset) {
  const words = new Uint32Array(buffer, offset);
  if (words.length < 9 || words[0] !== MAGIC) { have = 0; return false; }
  const [, width, height, number, base, x0, y0, x1, y1] = words;
  const canvas = $('preview');
  if (!pixels || pixels.width !== width || pixels.height !== height) {
    if (base !== 0) { have = 0; return false; }
    pixels = new ImageData(width, height); pixels32 = new Uint32Array(pixels.data.buffer);
    canvas.width = width; canvas.height = height;
  }
  if (base === 0) pixels32.fill(0);
  else if (base !== have) { have = 0; return false; }   // not the frame on screen: ask for a whole one
  for (let i = 9; i + 2 <= words.length;) {
    const start = words[i], count = words[i + 1];
    pixels32.set(words.subarray(i + 2, i + 2 + count), start);
    i += 2 + count;
  }
  if (x1 > x0 && y1 > y0) canvas.getContext('2d').putImageData(pixels, 0, 0, x0, y0, x1 - x0, y1 - y0);
  have = number;
  return true;
}
// What the page does with a frame it has drawn: the latencies of its changes, the
// sphere (once the frames pause for 150 ms: off the path of a drag) and the info line.
function shown(frame) {
  trace('loaded', frame.tag);
  const now = performance.now();
  if (frame.tag && String(frame.tag).startsWith(me + ':')) {
    const upTo = Number(String(frame.tag).slice(me.length + 1));
    for (const [id, t0] of pending) if (id <= upTo) { window.__latencies.push(now - t0); pending.delete(id); }
    for (let k = frameWaiters.length - 1; k >= 0; k--) {
      if (frameWaiters[k][0] <= upTo) frameWaiters.splice(k, 1)[0][1]();
    }
  }
  if (!window.__shown || window.__shown.width !== frame.width || window.__shown.height !== frame.height) {
    window.__shown = frame;
    placePointDots();
  }
  window.__shown = frame;
  clearTimeout(sphereTimer);
  sphereTimer = setTimeout(() => { $('sphere').src = '/sphere?token=' + encodeURIComponent(token) + '&n=' + frame.n; }, 150);
  $('info').textContent = `frame ${frame.n} · ${frame.width}×${frame.height} · rendered in ${frame.ms} ms`;
}

// The socket: frames in, changes out. Closed (the server restarting, a machine
// asleep), it is opened again after a pause; changes go by POST meanwhile.
let socket = null, socketOpen = false, nextAnswer = 0;
const answers = new Map();          // id of a change sent on the socket → its resolve
function connect() {
  const ws = new WebSocket(`ws://${location.host}/api/socket?token=${encodeURIComponent(token)}`);
  ws.binaryType = 'arraybuffer';
  socket = ws;
  ws.onopen = () => { socketOpen = true; have = 0; };   // the server starts with a whole frame
  ws.onmessage = (e) => {
    if (typeof e.data === 'string') {
      const json = JSON.parse(e.data);
      const resolve = answers.get(json.answer);
      if (resolve) { answers.delete(json.answer); resolve({ status: json.status, json }); }
      return;
    }
    const infoLength = new DataView(e.data).getUint32(0, true);
    const info = JSON.parse(new TextDecoder().decode(new Uint8Array(e.data, 4, infoLength)));
    trace('arrived', info.tag);
    const applied = applyDelta(e.data, 4 + infoLength);
    ws.send(JSON.stringify({ have }));
    if (applied) shown(info);
  };
  ws.onclose = () => {
    socketOpen = false; socket = null;
    for (const resolve of answers.values()) resolve({ status: 0, json: { error: 'the editor is not answering' } });
    answers.clear();
    setTimeout(connect, 500);
  };
}
// Changes, on the socket when it is open.
function setChanges(body) {
  if (!socketOpen) return api('/api/set', body);
  const id = ++nextAnswer;
  return new Promise((resolve) => { answers.set(id, resolve); socket.send(JSON.stringify({ ...body, id })); });
}
window.__framePixels = () => pixels32;   // for the browser test: the frame the page holds

function listen() {
  const events = new EventSource('/api/events?token=' + encodeURIComponent(token));
  events.addEventListener('state', (e) => {
    const s = JSON.parse(e.data);
    const ours = s.tag && String(s.tag).startsWith(me + ':');
    if (s.revision > revision) {
      revision = s.revision;
      if (!ours) refresh();     // another tab, or the files on disk
    }
  });
  events.addEventListener('frame', (e) => {
    $('render-error').hidden = true;
    const frame = JSON.parse(e.data);
    trace('event', frame.tag);
  });
  events.addEventListener('export', (e) => exportProgress(JSON.parse(e.data)));
  events.addEventListener('render-error', (e) => {
    const box = $('render-error');
    box.textContent = JSON.parse(e.data).message;
    box.hidden = false;
  });
}

// The timeline: a playhead over the animation's frames. Moving it sends the frame
// to show as a change of the pseudo-key @frame (not saved, not undone), so a scrub
// goes the way of a drag: one in flight, the newest waiting, each shown as soon as
// it is rendered. Playing asks for the frame that is due by the clock, waits for it
// to be on screen, and shows the rate it achieves.
let timeline = null, playing = false;
window.__playRate = null;
function showTimeline(info) {
  timeline = info && info.frames ? info : null;
  $('timeline-bar').hidden = !timeline;
  document.body.classList.toggle('animated', !!timeline);
  // A sequence's titles are keyframed in their own scenes: no ◆ beside the controls.
  document.body.classList.toggle('sequence', !!(timeline && timeline.sequence));
  if (!timeline) return;
  const bar = $('timeline');
  bar.max = timeline.frames - 1;
  if (timeline.playhead !== null && !playing) bar.value = timeline.playhead;
  showTime();
  // A sequence is always on its timeline: there is no base scene to edit alone.
  $('edit-base').hidden = !!timeline.sequence;
  showSpans();
  showMarkers();
  showKeyframe();
  const tracked = new Set(Object.keys(timeline.tracks || {}));
  document.querySelectorAll('#controls .row[data-key]').forEach((div) => {
    const has = tracked.has(div.dataset.key);
    div.classList.toggle('tracked', has);
    const key = div.querySelector('.key');
    if (key) key.title = has
      ? 'This key has a track: on the timeline, an edit sets (or adds) its keyframe at the playhead; in Edit base, its base value (Alt+click: delete the keyframe at the playhead)'
      : 'Keyframe this value at the playhead (Alt+click: delete the keyframe there)';
    // A tracked key's edit may add a keyframe: its marker is shown once the change is taken.
    if (has && !div.dataset.markers) { div.dataset.markers = '1'; div.addEventListener('change', () => afterChanges(refresh)); }
  });
}
const place = (t) => (100 * Math.max(0, Math.min(1, t / timeline.duration))) + '%';
// A sequence's titles and transitions as labelled spans over the bar; a click goes to the span's start.
function showSpans() {
  const box = $('spans');
  box.replaceChildren();
  for (const span of timeline.sequence || []) {
    const div = document.createElement('div');
    div.className = 'span ' + span.kind;
    div.style.left = place(span.start);
    div.style.width = `calc(${place(span.end)} - ${place(span.start)})`;
    div.textContent = span.label;
    div.title = `${span.label}: ${span.start.toFixed(2)}–${span.end.toFixed(2)} s`;
    div.addEventListener('click', () => { playing = false; scrub(Math.min(timeline.frames - 1, Math.round(span.start * timeline.fps))); });
    box.append(div);
  }
}
// Each track's keyframes as ◆ markers under the bar, a row a track; drag one to move it.
function showMarkers() {
  const box = $('keyframes'), tracks = Object.entries(timeline.tracks || {});
  box.replaceChildren();
  box.style.height = (14 * tracks.length) + 'px';
  tracks.forEach(([key, times], row) => {
    for (const t of times) {
      const marker = document.createElement('span');
      marker.className = 'marker'; marker.textContent = '◆';
      marker.dataset.key = key; marker.dataset.t = t;
      marker.style.left = place(t); marker.style.top = (14 * row) + 'px';
      marker.title = `${key} at ${t.toFixed(2)} s: drag to move it`;
      dragMarker(marker, key, t);
      box.append(marker);
    }
  });
}
function dragMarker(marker, key, t) {
  marker.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    marker.setPointerCapture(e.pointerId);
    marker.classList.add('dragging');
    const box = $('keyframes').getBoundingClientRect();
    // On a frame: the playhead can then stand on the keyframe.
    const at = (x) => Math.round(Math.max(0, Math.min(1, (x - box.left) / box.width)) * timeline.duration * timeline.fps) / timeline.fps;
    let to = t;
    const move = (e) => { to = at(e.clientX); marker.style.left = place(to); $('time').textContent = `${key}: ${t.toFixed(2)} s → ${to.toFixed(2)} s`; };
    marker.addEventListener('pointermove', move);
    marker.addEventListener('pointerup', () => {
      marker.removeEventListener('pointermove', move);
      marker.classList.remove('dragging');
      if (to === t) { showTime(); selectKeyframe(key, t); return; }   // a click: the keyframe's easing and Delete
      moveKeyframe(key, t, to);
    }, { once: true });
  });
}
// Moves KEY's keyframe at FROM to TO: one undo step (the move back). A refused move
// (onto another keyframe, outside the animation, a keyframe gone from the file) says why.
async function moveKeyframe(key, from, to) {
  const change = (a, b) => [{ key: '@keyframe', value: JSON.stringify({ key, t: a, to: b }) }];
  const code = await send(change(from, to), false);
  values.delete('@keyframe');        // not a value an undo of another change puts back
  if (code === 200) {
    history.push({ keys: '@keyframe', before: change(to, from), after: change(from, to), time: 0 });
    future.length = 0;
    status(`moved the keyframe of ${key} from ${from.toFixed(2)} s to ${to.toFixed(2)} s`);
  }
  await refresh();                   // the markers where the scene has them
  return code;
}
window.__moveKeyframe = moveKeyframe;
// Runs `then` once the page's changes are all answered (at most 10 s on).
function afterChanges(then) {
  const started = performance.now();
  const wait = () => (!window.__busy() || performance.now() - started > 10000) ? then() : setTimeout(wait, 50);
  setTimeout(wait, 0);
}
function showTime() {
  const f = Number($('timeline').value);
  $('time').textContent = `${(f / timeline.fps).toFixed(2)} s / ${timeline.duration.toFixed(2)} s · frame ${f}`;
}
function scrub(frame, started) {
  $('timeline').value = frame;
  showTime();
  return send([{ key: '@frame', value: String(frame) }], false, started);
}
async function play() {
  if (playing) { playing = false; return; }
  playing = true;
  $('play').textContent = 'Pause';
  let from = Number($('timeline').value), clock = performance.now(), last = -1;
  if (from >= timeline.frames - 1) from = 0;
  const began = performance.now();
  let shownFrames = 0;
  while (playing) {
    let f = from + Math.floor((performance.now() - clock) / 1000 * timeline.fps);
    if (f >= timeline.frames) {
      if (!$('loop').checked) break;
      from = 0; clock = performance.now(); f = 0;
    }
    if (f === last) { await new Promise((r) => setTimeout(r, 2)); continue; }
    last = f;
    await scrub(f);
    shownFrames++;
    const seconds = (performance.now() - began) / 1000;
    if (seconds > 0.25) {
      window.__playRate = shownFrames / seconds;
      $('rate').textContent = `${window.__playRate.toFixed(1)} of ${timeline.fps} frames/s`;
    }
  }
  playing = false;
  $('play').textContent = 'Play';
  afterChanges(refresh);             // the controls show the values at the playhead
}
// Adds (or with `remove`, deletes) the keyframe of KEY at the playhead, with the control's value.
async function keyframe(key, remove) {
  if (!timeline) { showError(key, 'this scene has no "animation"; add one (e.g. "animation": {"duration": 2}) to keyframe its values'); return; }
  const t = Number($('timeline').value) / timeline.fps;
  const had = keyframeAt(key, t);
  if (remove && !had) { showError(key, `${key} has no keyframe at ${t.toFixed(2)} s to delete`); return; }
  // Undo puts back what was there: nothing (take it out), or the keyframe as it was.
  const before = had ? { value: had.value, timing: had.timing ?? null } : { remove: true };
  await changeKeyframe(key, t, remove ? { remove: true } : {}, before);
}
// KEY's keyframe at T as the file has it ({t, value, timing?}), or null.
function keyframeAt(key, t) {
  const frames = ((((editor.document || {}).animation || {}).tracks || {})[key]) || [];
  return frames.find((f) => Math.abs(f.t - t) < 1e-6) || null;
}
// One keyframe change (AFTER, e.g. {timing: 'easeIn'}) as one undo step whose undo is BEFORE.
async function changeKeyframe(key, t, after, before) {
  const change = (body) => [{ key: '@keyframe:' + key, value: JSON.stringify({ key, t, ...body }) }];
  const code = await send(change(after), false);
  if (code === 200) {
    history.push({ keys: '@keyframe', before: change(before), after: change(after), time: 0, separate: true });
    future.length = 0;
  }
  await refresh();
  return code;
}
// The keyframe a click on its ◆ selected: its value, its easing to the next (a select) and Delete.
let selectedKeyframe = null;
function selectKeyframe(key, t) { selectedKeyframe = { key, t }; showKeyframe(); }
function showKeyframe() {
  const k = selectedKeyframe, frame = k && keyframeAt(k.key, k.t);
  $('keyframe').hidden = !frame;
  document.querySelectorAll('#keyframes .marker').forEach((m) => m.classList.toggle('selected',
    !!frame && m.dataset.key === k.key && Math.abs(Number(m.dataset.t) - k.t) < 1e-6));
  if (!frame) { selectedKeyframe = null; return; }
  $('keyframe-name').textContent = `◆ ${k.key} at ${k.t.toFixed(2)} s: ${JSON.stringify(frame.value)}, then`;
  const select = $('keyframe-timing'), timing = frame.timing || 'linear';
  const names = (rows.find((r) => r.kind === 'timing' && r.cases) || { cases: ['linear'] }).cases;
  select.replaceChildren(...names.concat(names.includes(timing) ? [] : [timing]).map((n) => {
    const o = document.createElement('option'); o.value = o.textContent = n; return o;
  }));
  select.value = timing;
}
window.__scrub = scrub;
// Export: the animation rendered beside the scene file, its progress shown; Cancel stops it.
async function exportVideo() {
  const { status: code, json } = await api('/api/export-video', { format: $('export-format').value });
  if (code !== 200) { status(json.error || 'HTTP ' + code, true); return; }
  $('export-progress').hidden = $('export-cancel').hidden = false;
  $('export-video').disabled = true;
}
function exportProgress(p) {
  $('export-progress').value = p.frames ? p.done / p.frames : 0;
  const running = p.state === 'running';
  $('export-progress').hidden = $('export-cancel').hidden = !running;
  $('export-video').disabled = running;
  if (running) status(`exporting ${p.done} of ${p.frames} frames`);
  else if (p.state === 'done') status('exported ' + p.path);
  else status(p.message || p.state, p.state !== 'cancelled');
  window.__export = p;
}

document.addEventListener('keydown', (e) => {
  const typing = e.target.matches && e.target.matches('textarea, input[type=text]');
  if (!(e.ctrlKey || e.metaKey) || typing) return;
  if (e.key.toLowerCase() === 'z') { e.preventDefault(); if (e.shiftKey) redo(); else undo(); }
  else if (e.key.toLowerCase() === 'y') { e.preventDefault(); redo(); }
});

window.addEventListener('DOMContentLoaded', async () => {
  $('undo').addEventListener('click', undo);
  const backdrop = () => {
    const stage = $('stage'), choice = $('backdrop').value;
    stage.classList.toggle('checker', choice === 'checker');
    stage.style.background = choice === 'black' ? '#000' : choice === 'white' ? '#fff'
      : choice === 'colour' ? $('backdrop-colour').value : '';
    $('backdrop-colour').hidden = choice !== 'colour';
  };
  $('backdrop').addEventListener('change', backdrop);
  $('backdrop-colour').addEventListener('input', backdrop);
  backdrop();
  $('timeline').addEventListener('input', (e) => { playing = false; scrub(Number($('timeline').value), e.timeStamp); });
  // Where the playhead comes to rest, a tracked key's control shows its track's value there.
  $('timeline').addEventListener('change', () => afterChanges(refresh));
  $('play').addEventListener('click', play);
  // Off the timeline the controls show the base values again.
  $('edit-base').addEventListener('click', () => { playing = false; send([{ key: '@frame', value: 'none' }], false).then(refresh); });
  $('keyframe-timing').addEventListener('change', () => {
    const k = selectedKeyframe, frame = k && keyframeAt(k.key, k.t); if (!frame) return;
    const to = $('keyframe-timing').value;
    changeKeyframe(k.key, k.t, { timing: to === 'linear' ? null : to }, { timing: frame.timing ?? null })
      .then((code) => { if (code === 200) status(`${k.key} at ${k.t.toFixed(2)} s eases ${to} to the next keyframe`); });
  });
  $('keyframe-delete').addEventListener('click', () => {
    const k = selectedKeyframe, frame = k && keyframeAt(k.key, k.t); if (!frame) return;
    changeKeyframe(k.key, k.t, { remove: true }, { value: frame.value, timing: frame.timing ?? null });
  });
  $('export-video').addEventListener('click', exportVideo);
  $('export-cancel').addEventListener('click', () => api('/api/export-video/cancel', {}));
  $('zoom-fit').addEventListener('click', () => { $('stage').classList.remove('actual'); placePointDots(); });
  $('zoom-100').addEventListener('click', () => { $('stage').classList.add('actual'); placePointDots(); });
  $('redo').addEventListener('click', redo);
  // A file changed on disk since the editor read it is not overwritten unless asked:
  // the two ways out are offered beside the message.
  async function save(body) {
    const { status: code, json } = await api('/api/save', body);
    $('conflict').hidden = code !== 409;
    status(code === 200 ? 'saved ' + json.path : (json.error || 'HTTP ' + code), code !== 200);
  }
  $('save').addEventListener('click', () => save({}));
  $('overwrite').addEventListener('click', () => save({ overwrite: true }));
  $('reload').addEventListener('click', async () => {
    const { status: code, json } = await api('/api/reload', {});
    if (code !== 200) { status(json.error || 'HTTP ' + code, true); return; }
    $('conflict').hidden = true;
    status('reloaded from disk');
    await refresh();
  });
  $('export').addEventListener('click', async () => {
    const { status: code, json } = await api('/api/export', {});
    if (code !== 200) { status(json.error || 'HTTP ' + code, true); return; }
    status('exported ' + json.path);
    const a = document.createElement('a');
    a.href = '/api/export.png?token=' + encodeURIComponent(token);
    a.download = '';
    document.body.append(a); a.click(); a.remove();
  });
  await refresh();
  listen();
  connect();
});
