// The avionics dashboard: polls /api/state once a second and redraws the charts from the member's kept samples.
"use strict";

const COLOURS = { "position": "#7fd4ff", "flight-plan": "#ffd54f", "engine": "#81c784", "record": "#f48fb1" };
const state = { updates: 0, points: 0, timeline: [], view: null, error: null };
window.weftDashboard = state; // read by the browser test

Chart.defaults.color = "#9fb6c8";
Chart.defaults.borderColor = "#1f3a50";
Chart.defaults.animation = false;

function lineChart(id, yTitle, logarithmic) {
  return new Chart(document.getElementById(id), {
    type: "line",
    data: { datasets: [] },
    options: {
      parsing: false, normalized: true, spanGaps: true,
      elements: { point: { radius: 0 }, line: { borderWidth: 1.6 } },
      scales: {
        x: { type: "linear", title: { display: true, text: "seconds" } },
        y: { type: logarithmic ? "logarithmic" : "linear", beginAtZero: !logarithmic,
             title: { display: true, text: yTitle } }
      },
      plugins: { legend: { labels: { boxWidth: 12 } } }
    }
  });
}

const charts = {
  rate: lineChart("rate-chart", "samples/s", false),
  latency: lineChart("latency-chart", "microseconds", true),
  batch: lineChart("batch-chart", "messages", false),
  lag: lineChart("lag-chart", "samples", false),
  view: new Chart(document.getElementById("view-chart"), {
    type: "line",
    data: { datasets: [] },
    options: {
      parsing: false,
      elements: { point: { radius: 4 }, line: { stepped: "before", borderWidth: 2 } },
      scales: { x: { type: "linear", title: { display: true, text: "seconds" } },
                y: { beginAtZero: true, suggestedMax: 5, ticks: { stepSize: 1 },
                     title: { display: true, text: "members" } } },
      plugins: { legend: { display: false },
                 tooltip: { callbacks: { label: c => c.raw.label } } }
    }
  })
};

function series(samples, topic, field, label) {
  return {
    label: label || topic, borderColor: COLOURS[topic], backgroundColor: COLOURS[topic],
    data: samples.filter(s => s.topics[topic] && s.topics[topic][field] !== undefined)
                 .map(s => ({ x: s.seconds, y: s.topics[topic][field] }))
  };
}

function dashed(dataset) {
  dataset.borderDash = [5, 4];
  return dataset;
}

function describe(event) {
  const parts = [];
  if (event.failed.length) parts.push("failed " + event.failed.join(", "));
  if (event.joined.length) parts.push("joined " + event.joined.join(", "));
  if (event.left.length) parts.push("left " + event.left.join(", "));
  const timing = [];
  if (event.silenceMillis !== undefined) timing.push("suspected " + event.silenceMillis + " ms after its last heartbeat");
  if (event.pausedMillis !== undefined) timing.push("multicast paused " + event.pausedMillis + " ms here");
  return "view " + event.id + (parts.length ? ": " + parts.join("; ") : " (initial)") +
    " - members " + event.members.join(", ") + ", leader " + event.leader +
    (timing.length ? " (" + timing.join(", ") + ")" : "");
}

function render(s) {
  const samples = s.samples;
  const topics = samples.length ? Object.keys(samples[samples.length - 1].topics) : [];
  document.getElementById("source").textContent =
    "group " + s.group + ", served by member " + s.member + " (" + s.role + ")";

  if (s.view) {
    document.getElementById("view-id").textContent = "view " + s.view.id;
    const members = document.getElementById("members");
    members.replaceChildren(...s.view.members.map(m => {
      const chip = document.createElement("span");
      chip.textContent = m.id + " " + m.role + (m.id === s.view.leader ? " (leader)" : "");
      if (m.id === s.view.leader) chip.className = "leader";
      return chip;
    }));
  }
  const timeline = document.getElementById("timeline");
  timeline.replaceChildren(...s.timeline.slice().reverse().map(e => {
    const item = document.createElement("li");
    item.textContent = e.seconds.toFixed(1) + " s  " + describe(e);
    item.className = e.failed.length ? "failed" : e.joined.length ? "joined" : e.left.length ? "left" : "";
    return item;
  }));
  charts.view.data.datasets = [{
    borderColor: "#7fd4ff",
    pointBackgroundColor: s.timeline.map(e => e.failed.length ? "#ff8a65" : "#b9f6ca").concat(["#7fd4ff"]),
    pointRadius: s.timeline.map(() => 5).concat([0]),
    data: s.timeline.map(e => ({ x: e.seconds, y: e.members.length, label: describe(e) }))
      .concat(samples.length ? [{ x: samples[samples.length - 1].seconds,
        y: s.timeline.length ? s.timeline[s.timeline.length - 1].members.length : 0, label: "now" }] : [])
  }];

  charts.rate.data.datasets = topics.map(t => series(samples, t, "rate"));
  charts.latency.data.datasets = topics.filter(t => samples[samples.length - 1].topics[t].p50Micros !== undefined)
    .flatMap(t => [series(samples, t, "p50Micros", t + " p50"), dashed(series(samples, t, "p99Micros", t + " p99"))]);
  charts.batch.data.datasets = topics.map(t => series(samples, t, "batch"));
  charts.lag.data.datasets = topics.filter(t => samples[samples.length - 1].topics[t].durabilityLag !== undefined)
    .map(t => series(samples, t, "durabilityLag", t + " durability lag"))
    .concat(topics.map(t => dashed(series(samples, t, "nulls", t + " nulls"))));
  Object.values(charts).forEach(c => c.update("none"));

  const rows = topics.map(t => {
    const v = samples[samples.length - 1].topics[t];
    const row = document.createElement("tr");
    const cells = [t, v.qos, v.delivered, v.rate.toFixed(0),
      v.p50Micros === undefined ? "-" : v.p50Micros.toFixed(0),
      v.p99Micros === undefined ? "-" : v.p99Micros.toFixed(0),
      v.batch.toFixed(1), v.nulls, v.durabilityLag === undefined ? "-" : v.durabilityLag.toFixed(0)];
    row.replaceChildren(...cells.map(c => {
      const cell = document.createElement("td");
      cell.textContent = c;
      return cell;
    }));
    return row;
  });
  document.querySelector("#topics tbody").replaceChildren(...rows);

  state.updates++;
  state.points = samples.length;
  state.timeline = s.timeline;
  state.view = s.view;
}

async function poll() {
  const status = document.getElementById("status");
  try {
    const response = await fetch("/api/state", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    render(await response.json());
    state.error = null;
    status.textContent = "live, updated " + new Date().toLocaleTimeString();
    status.className = "status";
  } catch (e) {
    state.error = String(e);
    status.textContent = "no answer from the member (" + e.message + "); retrying";
    status.className = "status stale";
  }
  setTimeout(poll, 1000);
}
poll();
