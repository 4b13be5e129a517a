// The cronoq dashboard: polls the gateway's JSON API and redraws. No build step; one library, uPlot
// (served by the gateway at /vendor/uplot/), draws the last hour's charts.
'use strict';

const REFRESH_MS = 1000;
// The recent-task list scans every task the scheduler holds (there is no time index): refresh it less often.
const RECENT_EVERY = 5;
// The history changes once a minute per bucket; five seconds keeps the current minute fresh enough.
const HISTORY_EVERY = 5;
let selectedTask = null;
let round = 0;
// What the charts plot, by pool: the last /v1/history answer (read by the browser test too).
window.cronoqHistory = {};
// What the backlog charts plot, by pool: the last /v1/pools/{pool}/forecast answer (read by the browser test too).
window.cronoqForecast = {};
const plots = new Map();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null) continue;
    if (name === 'class') node.className = value;
    else if (name === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function labels(map) {
  const pairs = Object.entries(map || {}).map(([k, v]) => k + '=' + v);
  return pairs.length ? pairs.join(',') : '(none)';
}

function age(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
  return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
}

function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : '—';
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = await response.json();
  if (!response.ok) {
    const error = body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + response.status;
    throw new Error(path + ' — ' + error);
  }
  return body;
}

function figure(cls, label, value) {
  return el('span', null, label + ' ', el('b', { class: cls }, value));
}

function bar(busy, capacity) {
  const share = capacity > 0 ? Math.min(1, busy / capacity) : 0;
  const fill = el('div', { class: 'fill' + (capacity > 0 && busy >= capacity ? ' full' : '') });
  fill.style.width = (share * 100).toFixed(1) + '%';
  return el('div', { class: 'bar', title: busy + ' of ' + capacity + ' slots busy' }, fill);
}

// A share or weight: whole numbers as they are, others to two decimals.
function amount(x) {
  if (x === null || x === undefined) return '—';
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

function quota(q) {
  return el('div', { class: 'quota', 'data-scope': q.scope },
    q.scope + ': ' + q.inUse + ' in use · ' + q.guaranteed + ' guaranteed · '
      + (q.max === null || q.max === undefined ? 'no max' : 'max ' + q.max));
}

// The pool's tenants: what each holds against its fair share, its quotas per scope, what waits.
function tenantsPanel(pool) {
  const tenants = pool.tenants || [];
  const panel = el('div', { class: 'tenants', 'data-tenants': pool.pool }, el('h4', null, 'Tenants'));
  if (!tenants.length) {
    panel.append(el('p', { class: 'empty' }, 'No tenant holds a slot, waits or has a policy.'));
    return panel;
  }
  panel.append(el('table', null,
    el('thead', null, el('tr', null, ...['tenant', 'weight', 'in use', 'fair share', 'quotas', 'waiting',
      'oldest wait'].map(h => el('th', null, h)))),
    el('tbody', null, ...tenants.map(t => el('tr', { 'data-tenant': t.tenant },
      el('td', { class: 'tenant-name' }, t.tenant),
      el('td', { class: 'tenant-weight' }, amount(t.weight)),
      el('td', { class: 'tenant-in-use', title: 'slots its attempts hold' },
        t.slotsInUse + (t.gpusInUse ? ' · ' + t.gpusInUse + ' GPU' : '')),
      el('td', { class: 'tenant-fair-share', title: 'slots its weight entitles it to' }, amount(t.fairShare)),
      el('td', { class: 'tenant-quotas' }, ...(t.quotas.length ? t.quotas.map(quota) : ['—'])),
      el('td', { class: 'tenant-waiting' }, t.waiting),
      el('td', { class: 'tenant-oldest' }, age(t.oldestWaitingMs)))))));
  return panel;
}

// A rate: whole numbers as they are, others to three significant digits (0.001, 2.5).
function rateAmount(x) {
  if (x === null || x === undefined) return '—';
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(3)));
}

// How many keys each pool lists on the dashboard: the busiest (most held back, then most running).
const DASHBOARD_KEYS = 10;

// The pool's rate limits and its busiest concurrency keys: what each holds, allows and holds back.
function limitsPanel(pool) {
  const limits = pool.limits || { keys: [], rates: [], keysTotal: 0 };
  if (!limits.keys.length && !limits.rates.length && !pool.heldByLimits) return null;
  const panel = el('div', { class: 'limits', 'data-limits': pool.pool },
    el('h4', null, 'Limits', el('span', { class: 'hint' }, (pool.heldByLimits || 0) + ' tasks held back')));
  if (limits.rates.length) {
    panel.append(el('table', { class: 'rates' },
      el('thead', null, el('tr', null, ...['rate limit', 'available / burst', 'refill', 'held back']
        .map(h => el('th', null, h)))),
      el('tbody', null, ...limits.rates.map(r => el('tr', { 'data-rate': r.name },
        el('td', { class: 'rate-name' }, r.name),
        el('td', { class: 'rate-available', title: 'whole units in the bucket now' },
          r.defined ? Math.floor(r.available) + ' / ' + r.burst : 'not defined'),
        el('td', { class: 'rate-per-second' }, r.defined ? rateAmount(r.perSecond) + '/s' : '—'),
        el('td', { class: 'rate-held-back' }, r.heldBack))))));
  }
  if (limits.keys.length) {
    panel.append(el('table', { class: 'keys' },
      el('thead', null, el('tr', null, ...['concurrency key', 'running', 'limit', 'held back']
        .map(h => el('th', null, h)))),
      el('tbody', null, ...limits.keys.map(k => el('tr', { 'data-key': k.key, class: k.atLimit ? 'at-limit' : null },
        el('td', { class: 'key-name' }, k.key),
        el('td', { class: 'key-running' }, k.running),
        el('td', { class: 'key-limit', title: 'the admin\'s limit; in force: the smallest a running task allows' },
          (k.limit === null || k.limit === undefined ? '—' : k.limit)
            + (k.inForce !== null && k.inForce !== undefined && k.inForce !== k.limit ? ' (in force ' + k.inForce + ')' : '')),
        el('td', { class: 'key-held-back' }, k.heldBack))))));
    if (limits.keysTotal > limits.keys.length) {
      panel.append(el('p', { class: 'empty keys-more' }, (limits.keysTotal - limits.keys.length) + ' more keys ('
        + limits.keysInUse + ' in use, ' + limits.keysAtLimit + ' at their limit): GET /v1/limits?pool='
        + pool.pool));
    }
  }
  return panel;
}

function renderPools(snapshot) {
  const root = document.getElementById('pools');
  root.replaceChildren();
  if (!snapshot.pools.length) {
    root.append(el('p', { class: 'empty' }, 'No pools yet: register a worker or submit a task.'));
  }
  for (const pool of snapshot.pools) {
    const groups = pool.groups.map(g => el('div', { class: 'group', 'data-group': g.key },
      el('span', { class: 'name', title: labels(g.labels) }, g.key === '' ? '(no labels)' : g.key),
      bar(g.busy, g.capacity),
      el('span', null,
        el('b', { class: 'group-busy' }, g.busy), ' / ', el('b', { class: 'group-capacity' }, g.capacity),
        ' busy · ', el('b', { class: 'group-waiting' }, g.waiting), ' waiting · ',
        el('b', { class: 'group-workers' }, g.workers), ' workers')));
    root.append(el('div', { class: 'pool', 'data-pool': pool.pool },
      el('h3', null, pool.pool),
      el('div', { class: 'figures' },
        figure('pool-capacity', 'capacity', pool.capacity),
        figure('pool-busy', 'busy', pool.busy),
        figure('pool-waiting', 'waiting', pool.waiting),
        figure('pool-blocked', 'blocked', pool.blocked ?? 0),
        figure('pool-oldest', 'oldest wait', age(pool.oldestWaitingMs)),
        figure('pool-demand', 'demand', pool.demand),
        pool.drainingBusy ? figure('pool-draining', 'draining', pool.drainingBusy) : null,
        pool.heldByLimits ? figure('pool-held', 'held by limits', pool.heldByLimits) : null),
      ...(groups.length ? groups : [el('p', { class: 'empty' }, 'no live workers')]),
      tenantsPanel(pool),
      limitsPanel(pool)));
  }
}

function taskRow(task, cells) {
  return el('tr', { 'data-task': task.id, 'data-pool': task.pool, onclick: () => showTask(task.id, task.pool) },
    ...cells.map(c => el('td', null, c)));
}

function renderWaiting(page) {
  const body = document.querySelector('#waiting tbody');
  body.replaceChildren(...page.tasks.map(t => taskRow(t, [t.id, t.pool, labels(t.labels),
    age(t.waiting && t.waiting.waitingMs), (t.waiting && t.waiting.reason) || '—'])));
  if (!page.tasks.length) body.append(el('tr', null, el('td', { colspan: 5, class: 'empty' }, 'Nothing waits.')));
}

function gangLayout(gang) {
  return gang.placement.toLowerCase() + (gang.sameLabel ? ', one ' + gang.sameLabel : '');
}

// A gang waits as one: its member 0 stands for it, with the gang's reason (a reservation says what it holds).
function renderGangs(page) {
  const body = document.querySelector('#gangs tbody');
  const gangs = page.tasks.filter(t => t.gang && t.gang.rank === 0);
  body.replaceChildren(...gangs.map(t => taskRow(t, [t.gang.id, t.pool, t.gang.size, gangLayout(t.gang),
    age(t.waiting && t.waiting.waitingMs), (t.waiting && t.waiting.reason) || '—'])));
  if (!gangs.length) body.append(el('tr', null, el('td', { colspan: 6, class: 'empty' }, 'No gang waits.')));
}

function renderTasks(page) {
  const body = document.querySelector('#tasks tbody');
  body.replaceChildren(...page.tasks.map(t => taskRow(t, [t.id, t.pool, t.state, time(t.submittedAt),
    t.attempts.length])));
}

function renderWorkers(list) {
  const body = document.querySelector('#workers tbody');
  body.replaceChildren(...list.workers.map(w => el('tr', { 'data-worker': w.pool + '/' + w.id },
    el('td', null, w.id), el('td', null, w.pool), el('td', null, labels(w.labels)), el('td', null, w.state),
    el('td', null, w.busy + ' / ' + w.slots), el('td', null, w.generation), el('td', null, time(w.lastHeartbeat)))));
}

async function showTask(id, pool) {
  selectedTask = { id, pool };
  await renderTask();
}

async function renderTask() {
  if (!selectedTask) return;
  const task = await api('/v1/tasks/' + encodeURIComponent(selectedTask.id) + '?pool=' + encodeURIComponent(selectedTask.pool));
  document.getElementById('task-detail').hidden = false;
  document.getElementById('task-detail-id').textContent = task.id;
  const fields = document.getElementById('task-detail-fields');
  const rows = [['pool', task.pool], ['state', task.state], ['requires', labels(task.labels)],
    ['priority', task.priority], ['submitted', task.submittedAt], ['updated', task.updatedAt]];
  if (task.concurrency && task.concurrency.length) rows.push(['concurrency', task.concurrency
    .map(k => k.key + (k.max === null || k.max === undefined ? '' : ' (max ' + k.max + ')')).join(', ')]);
  if (task.rateLimits && task.rateLimits.length) rows.push(['rate limits', task.rateLimits
    .map(r => r.name + ' ×' + r.units).join(', ')]);
  if (task.gang) rows.push(['gang', task.gang.id + ': member ' + task.gang.rank + ' of ' + task.gang.size
    + ' (' + gangLayout(task.gang) + ')']);
  if (task.after && task.after.length) rows.push(['after', task.after.map(p => p.task
    + (p.when === 'succeeded' ? '' : ' (' + p.when + ')')).join(', ')
    + (task.unmetParents !== null && task.unmetParents !== undefined ? ' — ' + task.unmetParents + ' to end' : '')]);
  if (task.waiting) rows.push(['waiting', (task.waiting.reason || '') + ' (' + age(task.waiting.waitingMs) + ')']);
  if (task.waiting && task.waiting.estimatedStart) {
    const s = task.waiting.estimatedStart;
    rows.push(['starts', time(s.p50) + ' (' + time(s.p10) + ' – ' + (s.p90 ? time(s.p90) : 'later') + '), '
      + task.waiting.position + ' ahead']);
  }
  if (task.waiting && task.waiting.estimate) rows.push(['estimate', task.waiting.estimate]);
  fields.replaceChildren(...rows.flatMap(([k, v]) => [el('dt', null, k), el('dd', { 'data-field': k }, v)]));
  if (task.workflow) {
    fields.append(el('dt', null, 'workflow'), el('dd', { 'data-field': 'workflow' },
      el('a', { href: '#', onclick: e => { e.preventDefault(); showWorkflow(task.pool, task.workflow); } },
        task.workflow)));
  }
  document.querySelector('#task-detail-attempts tbody').replaceChildren(...task.attempts.map(a => el('tr', null,
    ...[a.attempt, a.worker, labels(a.group), a.generation, time(a.assignedAt), time(a.startedAt),
      time(a.finishedAt), a.outcome || '—', a.error || ''].map(c => el('td', null, c)))));
}

const COLORS = { capacity: '#5b6577', busy: '#3b7ddd', waiting: '#d9822b',
  p50: '#2f9e61', p90: '#d9822b', p99: '#c2352b', oldest: '#7d4cc2' };

function slotSeries() {
  return [{},
    { label: 'capacity', stroke: COLORS.capacity, width: 2, dash: [6, 4], points: { show: false } },
    { label: 'busy', stroke: COLORS.busy, width: 2, fill: 'rgba(59,125,221,0.18)', points: { show: false } },
    { label: 'waiting', stroke: COLORS.waiting, width: 2, points: { show: false } }];
}

function waitSeries() {
  return [{},
    // Minutes without placements have no percentiles: points show the lone minutes between gaps.
    { label: 'p50', stroke: COLORS.p50, width: 2, points: { size: 6, fill: COLORS.p50 } },
    { label: 'p90', stroke: COLORS.p90, width: 2, points: { size: 6, fill: COLORS.p90 } },
    { label: 'p99', stroke: COLORS.p99, width: 2, points: { size: 6, fill: COLORS.p99 } },
    { label: 'oldest waiting', stroke: COLORS.oldest, width: 1.5, dash: [3, 3], points: { show: false } }];
}

function seconds(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? Math.round(ms) + ' ms' : age(ms);
}

// A chart kept across refreshes: created once per (pool, name, series count), then given new data.
function plot(host, id, title, series, data, axisValues) {
  const width = Math.max(320, Math.floor(host.clientWidth || 480));
  let entry = plots.get(id);
  if (entry && (entry.series !== series.length || !entry.node.isConnected)) {
    entry.uplot.destroy();
    entry = null;
  }
  if (!entry) {
    const node = el('div', { class: 'chart', 'data-chart': id });
    const opts = { title, width, height: 170, series, cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (u, min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [{}, { values: axisValues, size: 56 }], legend: { live: false } };
    entry = { node, series: series.length, uplot: new uPlot(opts, data, node) };
    plots.set(id, entry);
  } else {
    entry.uplot.setData(data);
    if (entry.uplot.width !== width) entry.uplot.setSize({ width, height: 170 });
  }
  const last = data[0].length - 1;
  // The title says the current minute's figures, so the chart reads without hovering.
  const now = series.slice(1).map((s, i) => s.label + ' ' + (axisValues ? seconds(data[i + 1][last])
    : (data[i + 1][last] ?? '—'))).join(' · ');
  const heading = entry.node.querySelector('.u-title');
  if (heading) heading.textContent = title + ' — ' + now;
  entry.node.dataset.points = String(data[0].length);
  series.slice(1).forEach((s, i) => { entry.node.dataset[s.label.replace(/ (\w)/g, (m, c) => c.toUpperCase())] =
    String(data[i + 1][last] ?? ''); });
  host.append(entry.node);
  return entry;
}

function slotsData(h, s) {
  return [h.start, s.capacity, s.busy, s.waiting];
}

function renderHistory(histories) {
  const root = document.getElementById('history');
  const seen = new Set();
  const cards = histories.map(h => {
    window.cronoqHistory[h.pool] = h;
    const card = el('div', { class: 'history-pool', 'data-pool': h.pool },
      el('h3', null, h.pool, el('span', { class: 'hint' }, ' since ' + time(h.since))));
    const row = el('div', { class: 'charts' });
    card.append(row);
    root.append(card);
    const slots = el('div', { class: 'chart-host' });
    const waits = el('div', { class: 'chart-host' });
    row.append(slots, waits);
    const totalId = h.pool + '/total';
    const waitId = h.pool + '/wait';
    seen.add(totalId).add(waitId);
    plot(slots, totalId, 'pool', slotSeries(), slotsData(h, h.total));
    plot(waits, waitId, 'pool: wait before placement', waitSeries(),
      [h.start, h.total.waitP50Ms, h.total.waitP90Ms, h.total.waitP99Ms, h.total.oldestWaitingMs],
      (u, ticks) => ticks.map(seconds));
    const groups = el('div', { class: 'charts groups' });
    card.append(groups);
    // Every host first, so each chart is sized to its share of the row.
    const hosts = h.groups.map(() => groups.appendChild(el('div', { class: 'chart-host' })));
    h.groups.forEach((g, i) => {
      const id = h.pool + '/group/' + g.key;
      seen.add(id);
      plot(hosts[i], id, 'group ' + (g.key === '' ? '(no labels)' : g.key), slotSeries(), slotsData(h, g.series));
    });
    return card;
  });
  root.replaceChildren(...cards);
  for (const [id, entry] of plots) {
    if (!seen.has(id) && !id.endsWith('/forecast')) {
      entry.uplot.destroy();
      plots.delete(id);
    }
  }
  if (!histories.length) root.append(el('p', { class: 'empty' }, 'No history yet.'));
}

function backlogSeries() {
  return [{},
    { label: 'still waiting', stroke: COLORS.waiting, width: 2, fill: 'rgba(217,130,43,0.15)', points: { show: false } },
    { label: 'starting', stroke: COLORS.busy, width: 2, points: { size: 5, fill: COLORS.busy } }];
}

// One chart per pool with waiting tasks: how many still wait at the end of each span ahead, and how many start in it.
function renderForecasts(forecasts) {
  const root = document.getElementById('forecast');
  const seenCharts = new Set();
  const cards = forecasts.map(f => {
    window.cronoqForecast[f.pool] = f;
    const id = f.pool + '/forecast';
    const card = el('div', { class: 'history-pool', 'data-forecast': f.pool },
      el('h3', null, f.pool, el('span', { class: 'hint' }, ' ' + f.waiting + ' waiting; forecast at ' + time(f.madeAt)
        + (f.unknown ? ', ' + f.unknown + ' with no estimate' : ''))));
    root.append(card);
    if (f.unknown === f.waiting) {
      // Nothing to chart: no waiting task has a start (its own view says why).
      card.append(el('p', { class: 'empty' }, 'No estimate for any waiting task yet; a task\'s view says why.'));
      return card;
    }
    const host = el('div', { class: 'chart-host' });
    card.append(el('div', { class: 'charts' }, host));
    seenCharts.add(id);
    plot(host, id, 'pool: backlog ahead', backlogSeries(),
      [f.backlog.map(b => Date.parse(b.to) / 1000), f.backlog.map(b => b.stillWaiting), f.backlog.map(b => b.starting)]);
    if (f.first.length) {
      card.append(el('p', { class: 'hint' }, 'next: ' + f.first.map(t => t.id + ' at ' + time(t.estimatedStart.p50))
        .join(', ')));
    }
    return card;
  });
  root.replaceChildren(...cards);
  for (const [id, entry] of plots) {
    if (id.endsWith('/forecast') && !seenCharts.has(id)) {
      entry.uplot.destroy();
      plots.delete(id);
    }
  }
  if (!forecasts.length) root.append(el('p', { class: 'empty' }, 'Nothing waits.'));
}

// Only pools with waiting tasks are forecast: a pool's forecast is made while someone asks.
async function refreshForecasts(snapshot) {
  const forecasts = await Promise.all(snapshot.pools.filter(p => p.waiting > 0).map(p =>
    api('/v1/pools/' + encodeURIComponent(p.pool) + '/forecast?limit=5').catch(e => {
      if (/NOT_FOUND|UNAVAILABLE/.test(String(e.message))) return null;
      throw e;
    })));
  renderForecasts(forecasts.filter(f => f));
}

async function refreshHistory(snapshot) {
  const histories = await Promise.all(snapshot.pools.map(p =>
    api('/v1/history?pool=' + encodeURIComponent(p.pool) + '&minutes=60').catch(e => {
      if (String(e.message).includes('NOT_FOUND')) return null;
      throw e;
    })));
  renderHistory(histories.filter(h => h));
}

async function refresh() {
  const banner = document.getElementById('error');
  try {
    const history = round % HISTORY_EVERY === 0;
    const recent = round++ % RECENT_EVERY === 0;
    const [snapshot, waiting, workers, tasks] = await Promise.all([
      api('/v1/snapshot?keys=' + DASHBOARD_KEYS + '&classes=1'), api('/v1/tasks?state=WAITING&limit=100'),
      api('/v1/workers'),
      recent ? api('/v1/tasks?limit=20') : null]);
    renderPools(snapshot);
    renderWaiting(waiting);
    renderGangs(waiting);
    renderWorkers(workers);
    if (tasks) renderTasks(tasks);
    if (history) await refreshHistory(snapshot);
    if (history) await refreshForecasts(snapshot);
    await renderTask();
    await renderWorkflow();
    banner.hidden = true;
    document.getElementById('status').textContent = 'updated ' + time(snapshot.at);
  } catch (e) {
    banner.textContent = String(e.message || e);
    banner.hidden = false;
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

document.getElementById('task-detail-close').addEventListener('click', () => {
  selectedTask = null;
  document.getElementById('task-detail').hidden = true;
});
refresh();
