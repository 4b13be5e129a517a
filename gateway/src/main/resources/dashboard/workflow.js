// The workflow view of the dashboard: a workflow's tasks as a graph (boxes coloured by state, arrows from each
// parent to its children, the critical path marked) and its attempts over time (a Gantt chart). Opened from a
// task's detail, or by the address #workflow=<pool>/<id>. Uses el() and api() from app.js.
'use strict';

// The most tasks drawn: a fan-out of thousands is listed by `cronoq workflows show`, not drawn.
const WORKFLOW_DRAWN = 400;
const SVG = 'http://www.w3.org/2000/svg';
let selectedWorkflow = null;
// What the view drew (read by the browser test): the tasks, the edges and the critical path, by task id.
window.cronoqWorkflow = null;

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== undefined && child !== null) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function showWorkflow(pool, id) {
  selectedWorkflow = { pool, id };
  history.replaceState(null, '', '#workflow=' + encodeURIComponent(pool) + '/' + encodeURIComponent(id));
  return renderWorkflow();
}

function workflowFromAddress() {
  const match = /^#workflow=([^/]+)\/(.+)$/.exec(location.hash);
  if (match) selectedWorkflow = { pool: decodeURIComponent(match[1]), id: decodeURIComponent(match[2]) };
}

// Each task's parents inside the workflow (ids), and its depth: 0 without one, else one more than its deepest.
function layers(tasks) {
  const byId = new Map(tasks.map(t => [t.id, t]));
  const parents = new Map(tasks.map(t => [t.id, (t.after || []).filter(p => byId.has(p.task)).map(p => p.task)]));
  const depth = new Map();
  for (const t of tasks) { // parents first, as the gateway lists them
    depth.set(t.id, Math.max(-1, ...parents.get(t.id).map(p => depth.get(p) ?? 0)) + 1);
  }
  return { parents, depth };
}

function millis(iso) {
  return iso ? new Date(iso).getTime() : null;
}

// How long a task ran (its attempts, first assignment to last end, or to now while it runs), in ms.
function duration(task, now) {
  const attempts = task.attempts || [];
  if (!attempts.length) return 0;
  const from = millis(attempts[0].assignedAt);
  const last = attempts[attempts.length - 1];
  return Math.max(0, (millis(last.finishedAt) ?? now) - from);
}

// The critical path: the chain of parents and children whose run times add up the most, as a set of ids.
function criticalPath(tasks, parents, now) {
  const total = new Map();
  const via = new Map();
  for (const t of tasks) {
    let best = null;
    for (const p of parents.get(t.id)) {
      if (best === null || total.get(p) > total.get(best)) best = p;
    }
    total.set(t.id, duration(t, now) + (best === null ? 0 : total.get(best)));
    via.set(t.id, best);
  }
  // The last of the longest: a child that has not run yet ends the path its parents made.
  let end = null;
  for (const t of tasks) {
    if (end === null || total.get(t.id) >= total.get(end)) end = t.id;
  }
  const path = new Set();
  for (let at = end; at !== null && at !== undefined; at = via.get(at)) path.add(at);
  return path;
}

function taskName(workflow, taskId) {
  return taskId.startsWith(workflow.id + ':') ? taskId.slice(workflow.id.length + 1) : taskId;
}

function drawGraph(workflow, tasks, parents, depth, critical) {
  const boxW = 130, boxH = 30, gapX = 50, gapY = 12;
  const rows = new Map();
  const place = new Map();
  for (const t of tasks) {
    const d = depth.get(t.id);
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    place.set(t.id, { x: 10 + d * (boxW + gapX), y: 10 + row * (boxH + gapY) });
  }
  const width = 20 + (Math.max(0, ...depth.values()) + 1) * (boxW + gapX);
  const height = 20 + Math.max(1, ...rows.values()) * (boxH + gapY);
  const graph = svg('svg', { id: 'workflow-graph', width, height, viewBox: '0 0 ' + width + ' ' + height },
    svg('defs', null, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7',
      markerHeight: '7', orient: 'auto-start-reverse' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }))));
  const edges = [];
  for (const t of tasks) {
    for (const p of parents.get(t.id)) {
      const from = place.get(p), to = place.get(t.id);
      const onPath = critical.has(p) && critical.has(t.id);
      edges.push([p, t.id]);
      graph.append(svg('line', { class: 'wf-edge' + (onPath ? ' critical' : ''), 'data-from': p, 'data-to': t.id,
        x1: from.x + boxW, y1: from.y + boxH / 2, x2: to.x - 2, y2: to.y + boxH / 2, 'marker-end': 'url(#arrow)' }));
    }
  }
  for (const t of tasks) {
    const at = place.get(t.id);
    const box = svg('g', { class: 'wf-task state-' + t.state + (critical.has(t.id) ? ' critical' : ''),
      'data-task': t.id, 'data-state': t.state, transform: 'translate(' + at.x + ',' + at.y + ')' },
      svg('title', null, t.id + ': ' + t.state + (t.waiting && t.waiting.reason ? ' — ' + t.waiting.reason : '')),
      svg('rect', { width: boxW, height: boxH, rx: 4 }),
      svg('text', { x: 6, y: 19 }, taskName(workflow, t.id).slice(0, 17)));
    box.addEventListener('click', () => showTask(t.id, t.pool));
    graph.append(box);
  }
  return { graph, edges };
}

function drawGantt(workflow, tasks, critical, now) {
  const rowH = 18, labelW = 140, width = 900;
  const bars = [];
  for (const t of tasks) {
    for (const a of t.attempts || []) {
      bars.push({ task: t.id, attempt: a.attempt, from: millis(a.startedAt) ?? millis(a.assignedAt),
        to: millis(a.finishedAt) ?? now, outcome: a.outcome || 'RUNNING' });
    }
  }
  const start = Math.min(now, ...bars.map(b => b.from));
  const end = Math.max(start + 1, ...bars.map(b => b.to));
  const scale = (width - labelW - 10) / (end - start);
  const gantt = svg('svg', { id: 'workflow-gantt', width, height: 24 + tasks.length * rowH });
  gantt.append(svg('text', { x: labelW, y: 12, class: 'wf-axis' }, new Date(start).toLocaleTimeString()),
    svg('text', { x: width - 10, y: 12, class: 'wf-axis', 'text-anchor': 'end' },
      new Date(end).toLocaleTimeString() + ' (' + Math.round((end - start) / 1000) + ' s)'));
  tasks.forEach((t, i) => {
    const y = 18 + i * rowH;
    gantt.append(svg('text', { x: 4, y: y + 12, class: 'wf-label' + (critical.has(t.id) ? ' critical' : '') },
      taskName(workflow, t.id).slice(0, 20)));
  });
  const row = new Map(tasks.map((t, i) => [t.id, i]));
  for (const b of bars) {
    const y = 18 + row.get(b.task) * rowH + 2;
    gantt.append(svg('rect', { class: 'wf-bar outcome-' + b.outcome, 'data-task': b.task, 'data-attempt': b.attempt,
      x: labelW + (b.from - start) * scale, y, width: Math.max(2, (b.to - b.from) * scale), height: rowH - 5 },
      svg('title', null, b.task + ' #' + b.attempt + ': ' + b.outcome)));
  }
  return { gantt, bars };
}

async function renderWorkflow() {
  const section = document.getElementById('workflow');
  if (!selectedWorkflow) {
    section.hidden = true;
    return;
  }
  const workflow = await api('/v1/workflows/' + encodeURIComponent(selectedWorkflow.id) + '?pool='
    + encodeURIComponent(selectedWorkflow.pool));
  const now = Date.now();
  const tasks = workflow.tasks.slice(0, WORKFLOW_DRAWN);
  const { parents, depth } = layers(tasks);
  const critical = criticalPath(tasks, parents, now);
  const { graph, edges } = drawGraph(workflow, tasks, parents, depth, critical);
  const { gantt, bars } = drawGantt(workflow, tasks, critical, now);
  section.hidden = false;
  document.getElementById('workflow-id').textContent = workflow.id + ' in ' + workflow.pool;
  const state = document.getElementById('workflow-state');
  state.textContent = workflow.state + ' · ' + Object.entries(workflow.counts).map(([s, n]) => n + ' ' + s).join(', ');
  state.dataset.state = workflow.state;
  document.getElementById('workflow-more').textContent = workflow.tasks.length > WORKFLOW_DRAWN
    ? 'the first ' + WORKFLOW_DRAWN + ' of ' + workflow.tasks.length + ' tasks are drawn; '
      + '`cronoq workflows show` lists them all' : '';
  document.getElementById('workflow-graph-host').replaceChildren(graph);
  document.getElementById('workflow-gantt-host').replaceChildren(gantt);
  window.cronoqWorkflow = { id: workflow.id, state: workflow.state, tasks: tasks.map(t => t.id), edges,
    critical: [...critical], bars: bars.length };
}

document.getElementById('workflow-close').addEventListener('click', () => {
  selectedWorkflow = null;
  history.replaceState(null, '', location.pathname);
  document.getElementById('workflow').hidden = true;
});
workflowFromAddress();
// A link to another workflow on the same page changes only the address's fragment.
window.addEventListener('hashchange', () => {
  workflowFromAddress();
  renderWorkflow().catch(e => console.error(e));
});
