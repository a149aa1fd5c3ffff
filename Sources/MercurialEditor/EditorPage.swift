/// The editor's page: plain HTML, CSS and JavaScript shipped inside the binary (no
/// build step, nothing fetched from elsewhere, so it works offline). The controls
/// are made from the parameter table the server sends (`/api/state`, the JSON of
/// `mercurial params --json` with the current values, its nested keys included, each
/// control's `data-key` their path): nothing here lists parameters.
enum EditorPage {
    static let html = ##"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>MercurialText editor</title>
    <link rel="stylesheet" href="/editor.css">
    <script src="/editor.js" defer></script>
    </head>
    <body>
    <header>
      <h1>MercurialText</h1>
      <button id="undo" title="Undo (Ctrl+Z)">Undo</button>
      <button id="redo" title="Redo (Ctrl+Shift+Z)">Redo</button>
      <button id="save" title="Write the scene file">Save scene</button>
      <button id="export" title="Write the full-size PNG beside the scene and download it">Export PNG</button>
      <span id="status" role="status"></span>
      <span id="conflict" hidden>
        <button id="reload" title="Take the scene file as it is on disk now">Reload from disk</button>
        <button id="overwrite" title="Replace the file on disk with the editor's scene">Overwrite</button>
      </span>
    </header>
    <main>
      <section id="stage"><canvas id="preview" width="1" height="1" role="img" aria-label="the title"></canvas></section>
      <aside>
        <div id="sphere-box" title="Drag a light">
          <img id="sphere" alt="the shading sphere">
        </div>
        <div id="render-error" class="error" hidden></div>
        <form id="controls" autocomplete="off"></form>
      </aside>
    </main>
    <footer id="info"></footer>
    </body>
    </html>
    """##

    static let style = ##"""
    * { box-sizing: border-box; }
    body { margin: 0; font: 13px/1.35 system-ui, sans-serif; background: #1d1d21; color: #ddd; height: 100vh;
           display: grid; grid-template-rows: auto 1fr auto; }
    header { display: flex; gap: 8px; align-items: center; padding: 6px 12px; background: #26262b; }
    header h1 { font-size: 15px; margin: 0 12px 0 0; font-weight: 600; }
    button { background: #3a3a42; color: #eee; border: 1px solid #555; border-radius: 4px; padding: 4px 10px; cursor: pointer; }
    button:hover { background: #4a4a55; }
    #status { margin-left: 12px; color: #9c9; }
    main { display: grid; grid-template-columns: minmax(0, 1fr) 380px; min-height: 0; }
    #stage { display: flex; align-items: center; justify-content: center; overflow: auto; padding: 12px; min-width: 0; min-height: 0;
             background-color: #bbb; background-image: linear-gradient(45deg, #888 25%, transparent 25%),
             linear-gradient(-45deg, #888 25%, transparent 25%), linear-gradient(45deg, transparent 75%, #888 75%),
             linear-gradient(-45deg, transparent 75%, #888 75%);
             background-size: 24px 24px; background-position: 0 0, 0 12px, 12px -12px, -12px 0; }
    #preview { max-width: 100%; max-height: 100%; object-fit: contain; }
    aside { overflow-y: auto; padding: 10px; background: #222227; border-left: 1px solid #333; }
    #sphere-box { position: relative; width: 256px; height: 256px; margin: 0 auto 10px; touch-action: none; }
    #sphere { width: 256px; height: 256px; display: block; border-radius: 50%; }
    .dot { position: absolute; width: 16px; height: 16px; margin: -8px 0 0 -8px; border-radius: 50%;
           border: 2px solid #fff; box-shadow: 0 0 3px #000; cursor: grab; }
    fieldset { border: 1px solid #3a3a42; border-radius: 4px; margin: 0 0 8px; padding: 4px 8px 6px; }
    legend { color: #aaa; padding: 0 4px; }
    .row { display: grid; grid-template-columns: 96px 1fr 70px; gap: 4px 6px; align-items: center; margin: 3px 0; }
    .row label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .row .wide { grid-column: 2 / 4; }
    .row input[type=text], .row select, .row textarea { width: 100%; background: #15151a; color: #eee;
           border: 1px solid #444; border-radius: 3px; padding: 2px 4px; font: inherit; }
    .row textarea { height: 52px; resize: vertical; }
    .row input[type=range] { width: 100%; }
    .row input[type=color] { width: 100%; height: 22px; padding: 0; border: none; background: none; }
    .row input.invalid { border-color: #e55; }
    .error { color: #f88; grid-column: 1 / 4; font-size: 12px; }
    footer { padding: 4px 12px; color: #999; background: #26262b; font-size: 12px; }
    """##

    static let script = ##"""
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

    function text(row, v) {
      if (v === null || v === undefined) return row.unset || '';
      if (typeof v === 'object') return JSON.stringify(v);   // a point, a range, a list or a block, as JSON
      return String(v);
    }

    // Shows the error the server gave for KEY (the command line's text), or clears it.
    function showError(key, message) {
      const box = document.querySelector(`.error[data-error-for="${CSS.escape(key)}"]`);
      if (!box) { if (message) status(message, true); return; }
      box.textContent = message || '';
      box.hidden = !message;
      const row = box.closest('.row');
      if (row) row.querySelectorAll('input[type=text]').forEach((i) => i.classList.toggle('invalid', !!message));
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
    function send(changes, record = true, started = performance.now()) {
      const id = ++seq;
      pending.set(id, started);
      trace('input', id);
      return new Promise((resolve) => {
        if (!next) next = { changes: new Map(), before: new Map(), ids: [], record: false, resolvers: [] };
        for (const c of changes) {
          if (!next.before.has(c.key)) next.before.set(c.key, values.get(c.key));
          next.changes.set(c.key, c.value);
        }
        next.ids.push(id);
        next.record = next.record || record;
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
          for (const c of changes) { values.set(c.key, c.value); showError(c.key, ''); }
          if (!json.changed) batch.ids.forEach((id) => pending.delete(id));   // no frame will come
          if (batch.record) remember([...batch.before].map(([key, value]) => ({ key, value })), changes);
          status('');
          whenShown(last, 250).then(() => finish(code));
          return;
        }
        batch.ids.forEach((id) => pending.delete(id));
        showError(json.key || changes[0].key, json.error || ('HTTP ' + code));
        finish(code);
      }, () => { batch.ids.forEach((id) => pending.delete(id)); status('the editor is not answering', true); finish(0); });
    }

    // One undo step per gesture: changes to the same keys within 800 ms merge.
    function remember(before, after) {
      const now = performance.now();
      const keys = after.map((c) => c.key).join();
      const last = history[history.length - 1];
      if (last && last.keys === keys && now - last.time < 800) { last.after = after; last.time = now; }
      else history.push({ keys, before, after, time: now });
      future.length = 0;
    }

    function undo() {
      const step = history.pop(); if (!step) return;
      future.push(step);
      const back = step.before.filter((c) => c.value !== undefined);
      send(back, false).then(() => refresh());
    }

    function redo() {
      const step = future.pop(); if (!step) return;
      history.push(step);
      send(step.after, false).then(() => refresh());
    }

    function makeRow(row) {
      const div = document.createElement('div');
      div.className = 'row';
      div.dataset.key = row.key;
      div.title = row.help || '';
      const label = document.createElement('label');
      label.textContent = row.name;
      div.append(label);
      const error = document.createElement('div');
      error.className = 'error';
      error.dataset.errorFor = row.key;
      error.hidden = true;
      const kind = row.kind;
      if (kind === 'number' || kind === 'integer') {
        const [min, max] = row.range;
        const slider = document.createElement('input');
        slider.type = 'range'; slider.min = min; slider.max = max;
        slider.step = kind === 'integer' ? 1 : (max - min) / 1000;
        slider.name = row.key;
        const field = document.createElement('input');
        field.type = 'text'; field.name = row.key + '-text';
        div.append(slider, field);
        controls.set(row.key, (v) => {
          field.value = v;
          const n = Number(v);
          if (v !== '' && !isNaN(n)) slider.value = n;
        });
        slider.addEventListener('input', (event) => {
          const v = slider.value;
          field.value = v;
          send([{ key: row.key, value: v }], true, event.timeStamp || performance.now());
        });
        field.addEventListener('change', () => send([{ key: row.key, value: field.value.trim() }]));
        const reset = () => {
          const v = text(row, row.default);
          controls.get(row.key)(v);
          send([{ key: row.key, value: v }]);
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
        select.addEventListener('change', () => send([{ key: row.key, value: select.value }]));
      } else if (kind === 'color') {
        const picker = document.createElement('input');
        picker.type = 'color'; picker.name = row.key;
        const field = document.createElement('input');
        field.type = 'text'; field.name = row.key + '-text';
        div.append(picker, field);
        controls.set(row.key, (v) => { field.value = v; if (/^#[0-9a-f]{6}$/i.test(v)) picker.value = v; });
        picker.addEventListener('input', (event) => {
          field.value = picker.value;
          send([{ key: row.key, value: picker.value }], true, event.timeStamp || performance.now());
        });
        field.addEventListener('change', () => send([{ key: row.key, value: field.value.trim() }]));
      } else if (kind === 'text') {
        const area = document.createElement('textarea');
        area.className = 'wide'; area.name = row.key;
        div.append(area);
        controls.set(row.key, (v) => { if (document.activeElement !== area) area.value = v; });
        area.addEventListener('input', () => send([{ key: row.key, value: area.value || (row.unset || '') }]));
      } else if (kind === 'bool') {
        const box = document.createElement('input');
        box.type = 'checkbox'; box.name = row.key;
        controls.set(row.key, (v) => { box.checked = v === 'true'; });
        div.append(box);
        box.addEventListener('change', () => send([{ key: row.key, value: box.checked ? 'true' : 'false' }]));
      } else {
        const field = document.createElement('input');
        field.type = 'text'; field.className = 'wide'; field.name = row.key;
        div.append(field);
        field.placeholder = row.kind === 'path' ? 'a file in the scene\'s folder, or ' + (row.unset || 'none') : (row.rangeText || '');
        controls.set(row.key, (v) => { if (document.activeElement !== field) field.value = v; });
        field.addEventListener('change', () => send([{ key: row.key, value: field.value.trim() || (row.unset || '') }]));
      }
      // A key the editor cannot change (the animation, dynamics, a sequence): shown, not edited.
      if (row.editable === false) div.querySelectorAll('input, select, textarea').forEach((e) => { e.disabled = true; });
      div.append(error);
      return div;
    }

    function makeMaterialRow() {
      const div = document.createElement('div');
      div.className = 'row'; div.dataset.key = 'material';
      div.title = 'a material preset; the sliders then edit from it';
      const label = document.createElement('label'); label.textContent = 'Preset';
      const select = document.createElement('select'); select.className = 'wide'; select.name = 'material';
      for (const m of editor.materials) { const o = document.createElement('option'); o.value = o.textContent = m; select.append(o); }
      const error = document.createElement('div'); error.className = 'error'; error.dataset.errorFor = 'material'; error.hidden = true;
      div.append(label, select, error);
      controls.set('material', (v) => { select.value = v; });
      select.addEventListener('change', () => send([{ key: 'material', value: select.value }]).then(() => refresh()));
      return div;
    }

    function build() {
      const form = $('controls');
      form.replaceChildren();
      let fieldset = null, group = null;
      for (const row of rows) {
        if (row.group !== group) {
          group = row.group;
          fieldset = document.createElement('fieldset');
          const legend = document.createElement('legend'); legend.textContent = group;
          fieldset.append(legend);
          if (group === 'Material') fieldset.append(makeMaterialRow());
          form.append(fieldset);
        }
        fieldset.append(makeRow(row));
      }
      form.addEventListener('submit', (e) => e.preventDefault());
    }

    function showValues() {
      for (const row of rows) {
        const v = text(row, row.value);
        values.set(row.key, v);
        controls.get(row.key)(v);
      }
      values.set('material', editor.material);
      controls.get('material')(editor.material);
      placeDots();
    }

    async function refresh() {
      const { status: code, json } = await api('/api/state');
      if (code !== 200) { status(json.error || ('HTTP ' + code), true); return; }
      rows = json.parameters.concat(json.nested || []); editor = json.editor;
      revision = Math.max(revision, editor.revision);
      if (!controls.size) build();
      showValues();
    }

    // The lights as dots on the sphere: x and y in -50…50 across the box, coloured by hue.
    function placeDots() {
      const box = $('sphere-box');
      for (let i = 1; i <= 4; i++) {
        let dot = box.querySelector(`.dot[data-light="${i}"]`);
        if (!dot) {
          dot = document.createElement('div'); dot.className = 'dot'; dot.dataset.light = i; dot.title = 'light ' + i;
          box.append(dot); dragDot(dot, i);
        }
        const x = Number(values.get(`light${i}.x`)), y = Number(values.get(`light${i}.y`));
        const hue = Number(values.get(`light${i}.hue`)), brightness = Number(values.get(`light${i}.brightness`));
        dot.style.left = ((x + 50) / 100 * 256) + 'px';
        dot.style.top = ((50 - y) / 100 * 256) + 'px';
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
      events.addEventListener('render-error', (e) => {
        const box = $('render-error');
        box.textContent = JSON.parse(e.data).message;
        box.hidden = false;
      });
    }

    document.addEventListener('keydown', (e) => {
      const typing = e.target.matches && e.target.matches('textarea, input[type=text]');
      if (!(e.ctrlKey || e.metaKey) || typing) return;
      if (e.key.toLowerCase() === 'z') { e.preventDefault(); if (e.shiftKey) redo(); else undo(); }
      else if (e.key.toLowerCase() === 'y') { e.preventDefault(); redo(); }
    });

    window.addEventListener('DOMContentLoaded', async () => {
      $('undo').addEventListener('click', undo);
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
    """##
}
