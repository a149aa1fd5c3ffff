'use strict';
// The page's second script (after editor.js, whose state and functions it shares: a classic
// script's top-level names are the page's): the lists' elements and typed blocks, building the
// controls, the state from the server, the lights on the sphere, the frames and the socket,
// the timeline, and the start.

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
  const table = rows.filter((r) => !r.nested);
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
  for (const r of rows.filter((r) => !r.nested && !(r.key in scene) && !(prefix.startsWith('sequence') && ['path', 'font'].includes(r.kind)))) {
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
      showInField(field, String(s.location));
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
    // A list of moves that run together has no one type: shown as such, its fields hidden; a
    // type chosen here replaces it (undo brings the list back).
    const listed = document.createElement('option'); listed.disabled = true; listed.hidden = true;
    select.append(listed);
    lists.set(key, { show() {
      // The selected layer's own (its edits go there), else the scene's.
      const raw = documentValue(selectedLayer === null ? key : `layers[${selectedLayer}].${key}`);
      const list = Array.isArray(raw) && raw.length > 0;
      const v = list ? null : raw;
      values.set(key, JSON.stringify(raw ?? null));
      listed.hidden = !list;
      listed.value = 'list';
      listed.textContent = list ? raw.map((m) => m && m.type).join(' + ') + ' (a list: edit in the scene file)' : '';
      const type = list ? 'list' : v && v.type || 'none';
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
      fieldset.open = !row.nested;
      // Two groups of one name (the point lights' level, then their list): the second says it is the list.
      const human = humanName(group), taken = [...form.querySelectorAll(':scope > details.group > summary')].some((s) => s.textContent === human);
      const summary = document.createElement('summary'); summary.textContent = taken ? human + ' (list)' : human;
      summary.title = (rows.find((r) => r.key === group) || row).help || '';
      fieldset.append(summary);
      form.append(fieldset);
    }
    if (!special) { fieldset.append(makeRow(row)); continue; }
    made.add(special[0]);
    if (special[0] !== group) {
      const title = document.createElement('div'); title.className = 'list-title'; title.textContent = humanName(special[0]);
      fieldset.append(title);
    }
    fieldset.append(special[2]());
  }
  form.prepend(top);
  for (const block of ['animation', 'dynamics']) {
    const group = form.querySelector(`details.group[data-group="${block}"]`);
    if (group) group.querySelector(':scope > summary').after(blockSwitch(block, group));
  }
  // In a scene with layers, the layers' own keys (name, below, gap, preset…) come first.
  const layersGroup = (currentValue('layers') || []).length && form.querySelector('.list[data-key="layers"]');
  if (layersGroup) form.prepend(layersGroup.closest('details.group'));
  form.addEventListener('submit', (e) => e.preventDefault());
}

// A block the scene may leave out (the animation, dynamics): a box turns it on, with its
// defaults (dynamics needs an animation: 3 s at 30 frames a second, when there is none), or
// off; off, its rows are hidden rather than shown as empty fields.
function blockSwitch(block, group) {
  const div = document.createElement('div');
  div.className = 'row'; div.dataset.key = block;
  const label = document.createElement('label'); label.textContent = 'on';
  const box = document.createElement('input'); box.type = 'checkbox'; box.name = block;
  box.title = block === 'dynamics' ? 'the letters fall, bounce and swing (needs an animation)' : 'the scene moves: a duration, a rate and tracks';
  div.append(label, box, errorBox(block));
  controls.set(block, () => {
    const on = documentValue(block) !== undefined;
    box.checked = on;
    group.querySelectorAll(':scope > .row:not([data-key="' + block + '"]), :scope > .list, :scope > .list-title').forEach((r) => { r.hidden = !on; });
  });
  box.addEventListener('change', () => {
    const animation = documentValue('animation') === undefined ? [{ key: 'animation.duration', value: '3' }, { key: 'animation.fps', value: '30' }] : [];
    const changes = !box.checked ? [{ key: block, value: 'null' }]
      : block === 'animation' ? animation : animation.concat([{ key: 'dynamics.bodies', value: 'glyphs' }]);
    send(changes, true, performance.now(), true).then(() => refresh());
  });
  return div;
}

// A schema key as a group's name: dropShadow → Drop shadow, in|out → In and out.
function humanName(key) {
  const words = key.split('.').pop().replace(/\|/g, ' and ').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/\((\w+)\)/, ': $1').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
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
  for (const block of ['animation', 'dynamics']) if (controls.has(block)) controls.get(block)();
  values.set('material', editor.material);
  controls.get('material')(editor.material);
  // Styled runs: the text box holds their markup (runs it cannot write are edited in the file).
  const runsBox = document.querySelector('input[name=text-runs]');
  if (runsBox) {
    const runs = editor.textRuns !== null && editor.textRuns !== undefined;
    runsBox.checked = runs || !!editor.textRunsFixed;
    runsBox.disabled = !!editor.textRunsFixed || selectedLayer !== null;
    values.set('@textRuns', runsBox.checked ? 'on' : 'off');
    if (runs) { values.set('text', editor.textRuns); controls.get('text')(editor.textRuns); }
    const area = document.querySelector('textarea[name=text]');
    if (area) {
      area.disabled = !!editor.textRunsFixed;
      area.title = editor.textRunsFixed ? 'these runs set lights or a reflection, which markup cannot write: edit them in the scene file' : '';
    }
  }
  // The keys the scene sets over its preset (a preset switch keeps them).
  const own = new Set(editor.overridden || []);
  // In a scene with layers, a track moves one layer's key: the top level's rows have no ◆.
  const layered = (currentValue('layers') || []).length > 0;
  // The scene's keys no layer takes (every layer sets its own): marked, with the server's warning.
  const unused = new Map((editor.unused || []).map((u) => [u.key, u.message]));
  document.querySelectorAll('#controls .row[data-key]').forEach((div) => {
    div.classList.toggle('layered', layered && selectedLayer === null && !/^layers\[/.test(div.dataset.key));
    const top = div.dataset.key.split(/[.[]/)[0];
    const note = /^layers\[/.test(div.dataset.key) ? undefined : unused.get(div.dataset.key) ?? unused.get(top);
    // On a layer, the keys only the scene gives: their edits reach the whole scene.
    div.classList.toggle('scene-wide', selectedLayer !== null && top !== 'layers' && (editor.sceneWide || []).includes(top));
    const label = div.querySelector(':scope > label');
    if (label) label.dataset.note = selectedLayer === null ? 'no layer takes it' : 'not used by this layer';
    if (div.dataset.help === undefined) div.dataset.help = div.title || '';
    div.classList.toggle('unused', note !== undefined);
    div.title = note !== undefined ? note : div.dataset.help;
    div.classList.toggle('own', (selectedLayer === null || !/^layers\[/.test(div.dataset.key)) && own.has(div.dataset.key) || (top !== div.dataset.key && own.has(top))
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
  const { status: code, json } = await api('/api/state' + (selectedLayer === null ? '' : '?layer=' + selectedLayer));
  if (code !== 200) { status(json.error || ('HTTP ' + code), true); return; }
  rows = json.parameters.concat(json.nested || []); editor = json.editor;
  // The layer asked for is gone (taken out, here or on disk): the panel edits the scene.
  if (selectedLayer !== null && editor.layer === null) { selectedLayer = null; return refreshNow(); }
  revision = Math.max(revision, editor.revision);
  if (!controls.size) { build(); restoreHistory(); }
  showUnsaved(editor.unsaved);
  showStale(editor.error);
  // The file on disk changed under unsaved edits (or a save found it changed): both are kept until the page chooses.
  $('conflict').hidden = !editor.conflict;
  if (editor.conflict) status(editor.conflict, true);
  showValues();
  showTimeline(editor.timeline);
  placePointDots();
  showLayers();
}

// Layers first: the scene's layers listed at the top of the panel, each selected by a click
// here or on its ink in the preview; the panel then shows and edits that layer (see `routed`).
function showLayers() {
  const box = $('layers'), layers = editor.layers || [];
  box.hidden = !layers.length;
  document.body.classList.toggle('on-layer', selectedLayer !== null);
  const items = [{ name: 'Scene', text: 'every layer: the keys no layer gives itself' }].concat(layers);
  if (box.children.length !== items.length) {
    box.replaceChildren(...items.map((_, k) => {
      const item = document.createElement('button');
      item.type = 'button'; item.className = 'layer-item';
      item.dataset.layer = k === 0 ? 'scene' : String(k - 1);
      item.addEventListener('click', () => selectLayer(k === 0 ? null : k - 1));
      return item;
    }));
  }
  items.forEach((layer, k) => {
    const item = box.children[k], n = k === 0 ? null : k - 1;
    item.textContent = '';
    const name = document.createElement('b'); name.textContent = layer.name;
    const text = document.createElement('span'); text.textContent = String(layer.text || '').split('\n')[0];
    item.append(name, text);
    item.title = n === null ? 'Edit the scene: its keys reach every layer that does not give its own'
      : `Edit layer ${n + 1} (“${layer.name}”): the panel shows it as it is drawn, and your edits go to it`;
    item.classList.toggle('selected', n === selectedLayer);
  });
  document.querySelectorAll('.list[data-key="layers"] details.item').forEach((d) => {
    const mine = d.dataset.key === `layers[${selectedLayer}]`;
    d.classList.toggle('selected', mine);
    if (mine && !d.dataset.opened) { d.open = true; d.dataset.opened = '1'; }
    if (!mine) delete d.dataset.opened;
  });
  placeLayerOutline();
}
function selectLayer(n) {
  if (n === selectedLayer) return;
  selectedLayer = n;
  $('sphere').src = '/sphere?token=' + encodeURIComponent(token) + (n === null ? '' : '&layer=' + n) + '&n=' + Date.now();
  refresh();
}
window.__selectLayer = selectLayer;
// The preview's zoom: 'fit' (the whole canvas in the stage, enlarged as well as shrunk) or a
// scale (1: pixel for pixel); enlarged twice or more, pixels show as squares.
// It opens on 'auto': a canvas larger than the stage shrunk to fit, a smaller one pixel for pixel.
let zoom = 'auto';
function applyZoom() {
  const canvas = $('preview'), stage = $('stage');
  const room = [stage.clientWidth - 24, stage.clientHeight - 24];
  const fit = Math.max(0.01, Math.min(room[0] / canvas.width, room[1] / canvas.height, 16));
  const scale = zoom === 'fit' ? fit : zoom === 'auto' ? Math.min(1, fit) : zoom;
  canvas.style.width = Math.round(canvas.width * scale) + 'px';
  canvas.style.height = Math.round(canvas.height * scale) + 'px';
  canvas.classList.toggle('pixelated', scale >= 2);
  $('zoom-level').textContent = Math.round(scale * 100) + ' %';
  placePointDots();
}
function zoomBy(factor) {
  const canvas = $('preview'), now = parseFloat(canvas.style.width) / canvas.width || 1;
  zoom = Math.max(0.05, Math.min(16, now * factor));
  applyZoom();
}
// The canvas's title-safe and action-safe areas (EBU R 95: 5 % and 3.5 % in from each edge), drawn when asked.
function placeGuides() {
  const box = $('guides'), canvas = $('preview');
  box.hidden = !$('safe-guides').checked || canvas.width <= 1;
  if (box.hidden) return;
  const [left, top] = stagePoint(0, 0), [right, bottom] = stagePoint(canvas.width, canvas.height);
  Object.assign(box.style, { left: left + 'px', top: top + 'px', width: (right - left) + 'px', height: (bottom - top) + 'px' });
}

// The selected layer's ink, outlined over the preview.
function placeLayerOutline() {
  const layer = selectedLayer === null ? null : (editor.layers || [])[selectedLayer];
  let outline = document.querySelector('#light-dots .layer-outline');
  if (!layer || !layer.box) { if (outline) outline.remove(); return; }
  if (!outline) { outline = document.createElement('div'); outline.className = 'layer-outline'; $('light-dots').append(outline); }
  const [x, y, w, h] = layer.box, [left, top] = stagePoint(x, y), [right, bottom] = stagePoint(x + w, y + h);
  Object.assign(outline.style, { left: left + 'px', top: top + 'px', width: (right - left) + 'px', height: (bottom - top) + 'px' });
  outline.title = `layer ${selectedLayer + 1}: ${layer.name}`;
}
// A click on the preview selects the layer whose ink is there (the topmost: the last painted);
// elsewhere, the scene.
function pickLayer(e) {
  const layers = editor.layers || [];
  if (!layers.length) return;
  const canvas = $('preview'), c = canvas.getBoundingClientRect();
  const x = (e.clientX - c.left) / c.width * canvas.width, y = (e.clientY - c.top) / c.height * canvas.height;
  let hit = null;
  layers.forEach((layer, i) => {
    const b = layer.box;
    if (b && x >= b[0] && x < b[0] + b[2] && y >= b[1] && y < b[1] + b[3]) hit = i;
  });
  selectLayer(hit);
}
window.addEventListener('resize', () => placeLayerOutline());

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
    // On the sphere: a point dragged outside it goes to the rim, towards the pointer.
    let px = (e.clientX - rect.left) / 256 * 100 - 50, py = 50 - (e.clientY - rect.top) / 256 * 100;
    const r = Math.hypot(px, py);
    const round = r > 50 ? Math.trunc : Math.round;   // on the rim: rounded towards the centre, to stay on it
    if (r > 50) { px *= 50 / r; py *= 50 / r; }
    const x = round(px * 10) / 10, y = round(py * 10) / 10;
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
    handles: () => {
      // On the timeline, where the frame on screen has the lights; else their base values.
      const inFrame = (window.__shown && window.__shown.pointLights) || [];
      return pointLights().map((light, i) => {
        // What undo puts back after a drag.
        values.set(`pointLights[${i}].x`, String(light.x)); values.set(`pointLights[${i}].y`, String(light.y));
        const [x, y] = inFrame[i] || [light.x, light.y];
        return { key: `pointLights[${i}]`, x, y, color: light.color || '#fff', selected: selectedLight === i,
                 name: `point light ${i + 1}`, title: `point light ${i + 1}: drag to move, click for its colour, intensity, range and Remove` };
      });
    },
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
  { name: 'path',
    handles: () => pathPoints().map(([x, y], i) => ({ key: `${pathKey}[${i}]`, x, y, color: '#c8a', title: `text path point ${i + 1}: drag to move` })),
    // As a route's: the whole list one change, a drag one undo step.
    moved(i, x, y, started) {
      pathShown[i] = [x, y];
      const v = JSON.stringify(pathShown);
      controls.get(pathKey)(v);
      send([{ key: pathKey, value: v }], true, started);
    } },
];
// Canvas pixel (x, y) → its place in #stage's scrolled box, where the handles are.
function stagePoint(x, y) {
  const canvas = $('preview'), stage = $('stage');
  const c = canvas.getBoundingClientRect(), st = stage.getBoundingClientRect();
  return [c.left - st.left + stage.scrollLeft + x * c.width / canvas.width, c.top - st.top + stage.scrollTop + y * c.height / canvas.height];
}
// Where a handle for canvas pixel (x, y) goes in #stage's box: there, or for a point off the
// canvas, at the canvas's edge (a handle's radius in), TOWARD it being the way to the point in degrees.
function handlePlace(x, y) {
  const canvas = $('preview'), width = canvas.width, height = canvas.height;
  const off = x < 0 || y < 0 || x > width || y > height;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  if (!off) { const [left, top] = stagePoint(x, y); return { left, top, toward: null }; }
  const [x0, y0] = stagePoint(0, 0), [x1, y1] = stagePoint(width, height);
  const edge = stagePoint(clamp(x, 0, width), clamp(y, 0, height)), r = 9;
  const inside = (v, lo, hi) => hi - lo > 2 * r ? clamp(v, lo + r, hi - r) : (lo + hi) / 2;
  return { left: inside(edge[0], x0, x1), top: inside(edge[1], y0, y1),
           toward: Math.round(Math.atan2(y - clamp(y, 0, height), x - clamp(x, 0, width)) * 180 / Math.PI) };
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
      dot.dataset.key = handle.key;
      const { left, top, toward } = handlePlace(handle.x, handle.y);
      dot.classList.toggle('offcanvas', toward !== null);
      dot.title = toward === null ? handle.title : `${handle.name || handle.key} is off the canvas, at (${+handle.x.toFixed(1)}, ${+handle.y.toFixed(1)}) `
        + `on a ${$('preview').width}×${$('preview').height} canvas: the arrow points to it; drag the handle to bring it back`;
      if (toward !== null) dot.style.setProperty('--toward', toward + 'deg');
      // A handle being dragged stays under the pointer, wherever the frames say it was.
      if (!dot.classList.contains('dragging')) { dot.style.left = left + 'px'; dot.style.top = top + 'px'; }
      dot.style.background = handle.color;
      dot.classList.toggle('selected', !!handle.selected);
    });
  }
  showPointLight();
  placeGuides();
  placeLayerOutline();
}
function dragHandle(dot, source, i) {
  let start = null, scheduled = null;
  dot.addEventListener('pointerdown', (e) => { start = [e.clientX, e.clientY]; dot.setPointerCapture(e.pointerId); e.preventDefault(); });
  dot.addEventListener('pointerup', (e) => {
    dot.classList.remove('dragging');
    if (start && source.clicked && Math.hypot(e.clientX - start[0], e.clientY - start[1]) < 3) source.clicked(i);
    start = null;
  });
  dot.addEventListener('pointermove', (e) => {
    if (!start) return;
    dot.classList.add('dragging');
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
    applyZoom();
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
  // A new size, or the frame's lights elsewhere (a track moves them while scrubbing or playing): the handles follow.
  const moved = !window.__shown || window.__shown.width !== frame.width || window.__shown.height !== frame.height
    || JSON.stringify(window.__shown.pointLights) !== JSON.stringify(frame.pointLights);
  window.__shown = frame;
  if (moved) placePointDots();
  clearTimeout(sphereTimer);
  sphereTimer = setTimeout(() => {
    $('sphere').src = '/sphere?token=' + encodeURIComponent(token) + (selectedLayer === null ? '' : '&layer=' + selectedLayer) + '&n=' + frame.n;
  }, 150);
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
    if (s.unsaved !== undefined) showUnsaved(s.unsaved);
    if (s.revision > revision) {
      revision = s.revision;
      if (!ours) refresh();     // another tab, or the files on disk
    }
  });
  events.addEventListener('frame', (e) => {
    $('render-error').hidden = true;
    showStale(null);
    const frame = JSON.parse(e.data);
    trace('event', frame.tag);
  });
  events.addEventListener('export', (e) => exportProgress(JSON.parse(e.data)));
  events.addEventListener('render-error', (e) => {
    const box = $('render-error');
    box.textContent = JSON.parse(e.data).message;
    box.hidden = false;
    showStale(box.textContent);
  });
}
// The preview no longer shows the scene (it cannot be drawn as it is): dimmed, and said so over it.
function showStale(message) {
  $('stage').classList.toggle('stale', !!message);
  $('stale').hidden = !message;
  $('stale').textContent = message ? 'Not up to date: ' + message : '';
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
  // The input's thumb centre travels over its width less one thumb: that span is the last
  // frame's share of the lanes, so frame f stands at place(f / fps) as the markers do.
  bar.style.width = `calc(${100 * (timeline.frames - 1) / (timeline.fps * timeline.duration)}% + var(--thumb))`;
  if (timeline.playhead !== null && !playing) bar.value = timeline.playhead;
  onBase = timeline.playhead === null && !playing;
  showTime();
  // A sequence is always on its timeline: there is no base scene to edit alone.
  $('edit-base').hidden = !!timeline.sequence;
  showRuler();
  showInOut();
  showSpans();
  showMarkers();
  showKeyframe();
  const tracked = new Set(Object.keys(timeline.tracks || {}));
  document.querySelectorAll('#controls .row[data-key]').forEach((div) => {
    const has = tracked.has(routed({ key: div.dataset.key }).key);
    div.classList.toggle('tracked', has);
    const key = div.querySelector('.key');
    if (key) key.title = has
      ? 'This key has a track: on the timeline, an edit sets (or adds) its keyframe at the playhead; in Edit base, its base value (Alt+click: delete the keyframe at the playhead)'
      : 'Keyframe this value at the playhead (Alt+click: delete the keyframe there)';
    // A tracked key's edit may add a keyframe: its marker is shown once the change is taken.
    if (has && !div.dataset.markers) { div.dataset.markers = '1'; div.addEventListener('change', () => afterChanges(refresh)); }
  });
}
// The timeline's one scale: time T at its share of the duration across #lanes (the ruler,
// spans, markers and playhead alike).
const place = (t) => (100 * Math.max(0, Math.min(1, t / timeline.duration))) + '%';
// The ruler: seconds labelled as often as their labels have room for, and frame ticks as
// dense as stay apart (a tick a frame at 30 frames/s over a few seconds, fewer on a long one).
let rulerDrawn = '', rulerWatched = false;
function showRuler() {
  const marks = $('ruler-marks'), width = marks.clientWidth, { duration, fps } = timeline;
  if (!rulerWatched) { rulerWatched = true; new ResizeObserver(() => { if (timeline) showRuler(); }).observe(marks); }
  const drawn = [duration, fps, width].join();
  if (!width || drawn === rulerDrawn) return;
  rulerDrawn = drawn;
  const perSecond = width / duration;
  const step = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => s * perSecond >= 90) || 1200;
  const every = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((n) => n / fps * perSecond >= 5) || 1200;
  const parts = [];
  const mark = (className, t, text) => {
    const m = document.createElement(text === undefined ? 'div' : 'span');
    m.className = className; m.style.left = place(t);
    if (text !== undefined) { m.textContent = text; m.title = `${text} · frame ${Math.round(t * fps)}`; }
    parts.push(m);
  };
  for (let k = 0; k * every / fps <= duration + 1e-9; k++) {
    const t = k * every / fps;
    if (Math.abs(t / step - Math.round(t / step)) > 1e-6) mark('tick', t);
  }
  for (let k = 0; k * step <= duration + 1e-9; k++) {
    const t = k * step;
    mark('tick second', t);
    // A label too near the end to fit after its tick goes before it.
    mark((duration - t) * perSecond < 36 && k > 0 ? 'second-label end' : 'second-label', t, `${+t.toFixed(2)} s`);
  }
  marks.replaceChildren(...parts);
  $('ruler-name').textContent = `seconds · a tick: ${every === 1 ? 'a frame' : every + ' frames'}`;
  $('ruler-name').title = `${fps} frames a second, ${timeline.frames} frames`;
}
// A time as a file gives it: seconds, frames ("15f") or timecode ("00:00:01:05", ';' drop-frame read as ':').
function seconds(value, fallback) {
  if (value === undefined || value === null) return fallback;
  const text = String(value).trim(), fps = timeline.fps;
  if (/^\d+(\.\d+)?f$/.test(text)) return parseFloat(text) / fps;
  const code = text.match(/^(\d+):(\d+):(\d+)[:;](\d+)$/);
  if (code) return ((+code[1] * 60 + +code[2]) * 60 + +code[3]) + +code[4] / Math.round(fps);
  const n = Number(text);
  return Number.isFinite(n) ? n : fallback;
}
// An in or out (one move, or a list of moves that run together) as one span where the renderer
// plays it, labelled by its moves: in from its first delay, out ending its delay before the last frame.
function moveSpan(key, block) {
  const moves = Array.isArray(block) ? block.filter((m) => m && m.type) : (block && typeof block === 'object' && block.type ? [block] : []);
  if (!moves.length) return null;
  const last = (timeline.frames - 1) / timeline.fps;
  let start = Infinity, end = -Infinity;
  for (const m of moves) {
    const fallback = (field) => (rows.find((r) => r.key === `${key}(${m.type}).${field}`) || {}).default;
    const length = seconds(m.duration, Number(fallback('duration') ?? 0.5)), delay = seconds(m.delay, Number(fallback('delay') ?? 0));
    const s = key === 'in' ? delay : last - delay - length;
    start = Math.min(start, s); end = Math.max(end, s + length);
  }
  const label = `${key}: ${moves.map((m) => m.type).join(' + ')}`;
  const div = document.createElement('div');
  div.className = 'span'; div.dataset.span = key;
  div.style.left = place(start);
  div.style.width = `calc(${place(end)} - ${place(start)})`;
  div.textContent = label;
  div.title = `${label}, ${start.toFixed(2)}–${end.toFixed(2)} s` + (moves.some((m) => m.type === 'reveal') ? ' (and the letters\' stagger)' : '');
  div.addEventListener('click', () => { playing = false; scrub(Math.min(timeline.frames - 1, Math.max(0, Math.round(start * timeline.fps)))); });
  return div;
}
// The scene's in and out as labelled bars, and below them a lane for each layer with moves of its own.
function showInOut() {
  const box = $('in-out');
  box.querySelectorAll('.span').forEach((s) => s.remove());
  const spans = ['in', 'out'].map((key) => moveSpan(key, (editor.document || {})[key])).filter((s) => s);
  box.append(...spans);
  box.hidden = spans.length === 0;
  const layers = Array.isArray((editor.document || {}).layers) ? editor.document.layers : [];
  $('layer-moves').replaceChildren(...layers.flatMap((layer, index) => {
    const own = ['in', 'out'].map((key) => moveSpan(key, layer && layer[key])).filter((s) => s);
    if (!own.length) return [];
    const lane = document.createElement('div');
    lane.className = 'lane'; lane.dataset.layerMoves = index;
    const name = document.createElement('span');
    name.className = 'lane-name'; name.textContent = (layer.name || `layer ${index + 1}`) + ' · in · out';
    lane.append(name, ...own);
    return [lane];
  }));
}
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
// A row a track, named by its key (a click on the name shows its control), its keyframes
// as ◆ markers; drag one to move it, click it to select it.
function showMarkers() {
  const box = $('keyframes');
  box.replaceChildren(...Object.entries(timeline.tracks || {}).map(([key, times]) => {
    const row = document.createElement('div');
    row.className = 'track'; row.dataset.track = key;
    const name = document.createElement('span');
    name.className = 'lane-name'; name.textContent = key;
    const param = rows.find((r) => r.key === key || r.key === key.replace(/\[\d+\]/g, '[]'));
    name.title = `${key}${param && param.help ? ': ' + param.help : ''} (click: its control)`;
    name.addEventListener('click', () => {
      const control = document.querySelector(`#controls .row[data-key="${CSS.escape(key)}"]`);
      if (!control) return;
      for (let d = control.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
      control.scrollIntoView({ block: 'center' });
    });
    row.append(name);
    for (const t of times) {
      const marker = document.createElement('span');
      marker.className = 'marker'; marker.textContent = '◆';
      marker.dataset.key = key; marker.dataset.t = t;
      marker.style.left = place(t);
      marker.title = `${key} at ${t.toFixed(2)} s: drag to move it, click to select it`;
      dragMarker(marker, key, t);
      row.append(marker);
    }
    return row;
  }));
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
// One visible mode: on a frame of the animation (the time and frame shown), or on the base
// scene without its animation (said so, the playhead dimmed); a sequence is always on a frame.
let onBase = false;
function showTime() {
  const f = Number($('timeline').value);
  document.body.classList.toggle('base', onBase);
  $('playhead').style.left = place(f / timeline.fps);
  $('edit-base').disabled = onBase;
  $('time').textContent = onBase ? `base scene, no animation applied · ${timeline.duration.toFixed(2)} s, scrub or play to see a frame`
    : `${(f / timeline.fps).toFixed(2)} s / ${timeline.duration.toFixed(2)} s · frame ${f}`;
}
function scrub(frame, started) {
  $('timeline').value = frame;
  onBase = false;
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
  // A still scene: the server gives it an animation (3 s at 30 frames a second) with the keyframe, at 0 s.
  if (!timeline && remove) return;
  const t = timeline ? Number($('timeline').value) / timeline.fps : 0;
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
  document.querySelectorAll('#keyframes .track').forEach((r) => r.classList.toggle('selected', !!frame && r.dataset.track === k.key));
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

// The timeline's keys, anywhere but in a field, a menu or a button (where Space is theirs):
// Space plays and pauses, ← and → step a frame, Home and End go to the first and last.
document.addEventListener('keydown', (e) => {
  if (!timeline || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.matches && e.target.matches('textarea, select, button, input:not([type=range])')) return;
  const last = timeline.frames - 1, at = Number($('timeline').value);
  const to = { ArrowLeft: Math.max(0, at - 1), ArrowRight: Math.min(last, at + 1), Home: 0, End: last }[e.key];
  if (e.key === ' ') { e.preventDefault(); play(); }
  else if (to !== undefined) { e.preventDefault(); playing = false; scrub(to).then(() => afterChanges(refresh)); }
});
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
  $('edit-base').addEventListener('click', () => {
    playing = false; onBase = true; showTime();
    send([{ key: '@frame', value: 'none' }], false).then(refresh);
  });
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
  $('zoom-fit').addEventListener('click', () => { zoom = 'fit'; applyZoom(); });
  $('zoom-100').addEventListener('click', () => { zoom = 1; applyZoom(); });
  $('zoom-in').addEventListener('click', () => zoomBy(1.25));
  $('zoom-out').addEventListener('click', () => zoomBy(1 / 1.25));
  $('safe-guides').addEventListener('change', placeGuides);
  window.addEventListener('resize', () => { if (typeof zoom === 'string') applyZoom(); });
  $('preview').addEventListener('click', pickLayer);
  $('redo').addEventListener('click', redo);
  // A file changed on disk since the editor read it is not overwritten unless asked:
  // the two ways out are offered beside the message.
  async function save(body) {
    const { status: code, json } = await api('/api/save', body);
    $('conflict').hidden = code !== 409;
    if (code === 200) showUnsaved(false);
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
