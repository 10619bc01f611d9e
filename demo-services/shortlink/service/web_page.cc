#include "service/web_page.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <string>

namespace ferry::shortlink {

namespace {

constexpr std::string_view kPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Short links</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
  input { font: inherit; padding: .3rem; }
  input[type=url], #key { width: 100%; box-sizing: border-box; }
  button { font: inherit; padding: .3rem .8rem; }
  section { margin: 1.5rem 0; }
  #error { color: #b00020; }
  table { border-collapse: collapse; }
  td, th { padding: .15rem .6rem; text-align: right; border-bottom: 1px solid #ddd; }
  .pv { fill: #3367d6; } .uv { fill: #f4b400; }
</style>
</head>
<body>
<h1>Short links</h1>
<section>
  <label>API key <input id="key" type="password" autocomplete="off" placeholder="slk_..."></label>
</section>
<section>
  <form id="shorten">
    <label>Long URL <input id="url" type="url" required placeholder="https://example.com/..."></label>
    <p><button id="create" type="submit">Shorten</button></p>
  </form>
  <p id="result"></p>
</section>
<section>
  <form id="lookup">
    <label>Code <input id="code" required></label>
    <button id="show" type="submit">Show clicks</button>
  </form>
  <p id="totals"></p>
  <div id="chart"></div>
  <table id="days"></table>
</section>
<p id="error" role="alert"></p>
<script>
"use strict";
const api = "/ferry.shortlink.ShortLinkService/";
const $ = (id) => document.getElementById(id);
const keyMatch = location.hash.match(/key=([^&]+)/);
if (keyMatch) localStorage.setItem("shortlinkKey", decodeURIComponent(keyMatch[1]));
$("key").value = localStorage.getItem("shortlinkKey") || "";
$("key").addEventListener("change", () => localStorage.setItem("shortlinkKey", $("key").value));

async function call(method, body) {
  const answer = await fetch(api + method, {
    method: "POST",
    headers: {"Content-Type": "application/json", "Authorization": "Bearer " + $("key").value},
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(method + ": " + answer.status + " " + text);
  return JSON.parse(text || "{}");
}

function requestId() {
  return crypto.randomUUID ? crypto.randomUUID()
                           : Date.now() + "-" + Math.random().toString(36).slice(2);
}

const svgNs = "http://www.w3.org/2000/svg";
function svg(name, attributes, text) {
  const element = document.createElementNS(svgNs, name);
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, v);
  if (text !== undefined) element.textContent = text;
  return element;
}

// One group per day: a PV bar and a UV bar, scaled to the busiest day.
function drawChart(days) {
  const width = 640, height = 200, top = 16, bottom = 36;
  const chart = svg("svg", {width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
                            "aria-label": "clicks per day"});
  const max = Math.max(1, ...days.map((d) => d.pv));
  const slot = width / Math.max(days.length, 1);
  const bar = Math.max(2, Math.min(24, slot / 3));
  days.forEach((d, i) => {
    const x = i * slot + slot / 2;
    const scale = (v) => (height - top - bottom) * v / max;
    const g = svg("g", {"data-day": d.day, "data-pv": d.pv, "data-uv": d.uv});
    g.append(svg("rect", {class: "pv", x: x - bar, y: height - bottom - scale(d.pv), width: bar,
                          height: scale(d.pv)}, undefined));
    g.append(svg("rect", {class: "uv", x, y: height - bottom - scale(d.uv), width: bar,
                          height: scale(d.uv)}, undefined));
    g.append(svg("text", {x, y: height - bottom + 14, "text-anchor": "middle", "font-size": 11},
                 d.day.slice(5)));
    g.append(svg("title", {}, `${d.day}: PV ${d.pv}, UV ${d.uv}`));
    chart.append(g);
  });
  chart.append(svg("text", {x: 4, y: 12, "font-size": 11}, "PV (blue), UV (yellow)"));
  $("chart").replaceChildren(chart);
}

async function showStats(code) {
  const now = Date.now();
  const stats = await call("Stats", {code, fromMs: String(now - 29 * 86400000), toMs: String(now)});
  const days = (stats.days || []).map((d) => ({day: d.day, pv: Number(d.pv || 0),
                                               uv: Number(d.uv || 0)}));
  $("totals").textContent = `PV ${Number(stats.pv || 0)} · UV ${Number(stats.uv || 0)} · ` +
                            `bots ${Number(stats.botVisits || 0)}`;
  drawChart(days);
  const rows = [["day", "PV", "UV"], ...days.map((d) => [d.day, d.pv, d.uv])];
  $("days").replaceChildren(...rows.map((cells, r) => {
    const tr = document.createElement("tr");
    for (const c of cells) {
      const cell = document.createElement(r === 0 ? "th" : "td");
      cell.textContent = c;
      tr.append(cell);
    }
    return tr;
  }));
}

function guard(work) {
  return async (event) => {
    event.preventDefault();
    $("error").textContent = "";
    try { await work(); } catch (e) { $("error").textContent = e.message; }
  };
}

$("shorten").addEventListener("submit", guard(async () => {
  const link = await call("CreateLink", {requestId: requestId(), longUrl: $("url").value});
  const a = document.createElement("a");
  a.href = link.shortUrl;
  a.textContent = link.shortUrl;
  a.id = "short";
  $("result").replaceChildren(a);
  $("code").value = link.code;
  await showStats(link.code);
}));
$("lookup").addEventListener("submit", guard(() => showStats($("code").value.trim())));
const codeMatch = location.hash.match(/code=([^&]+)/);
if (codeMatch) {
  $("code").value = decodeURIComponent(codeMatch[1]);
  guard(() => showStats($("code").value))({preventDefault() {}});
}
</script>
</body>
</html>
)html";

// "'sha256-<base64>'" of the text between the page's `open` tag and the `close` after it.
std::string HashSource(std::string_view open, std::string_view close) {
  const size_t start = kPage.find(open) + open.size();
  const std::string_view body = kPage.substr(start, kPage.find(close, start) - start);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  unsigned char base64[4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1];
  EVP_EncodeBlock(base64, digest, SHA256_DIGEST_LENGTH);
  return "'sha256-" + std::string(reinterpret_cast<const char*>(base64)) + "'";
}

}  // namespace

std::string_view WebPageHtml() { return kPage; }

void SetWebPageHeaders(HttpResponse* response) {
  static const std::string policy =
      "default-src 'none'; script-src " + HashSource("<script>", "</script>") + "; style-src " +
      HashSource("<style>", "</style>") +
      "; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; "
      "frame-ancestors 'none'";
  response->Set("Content-Security-Policy", policy);
  response->Set("X-Frame-Options", "DENY");
  response->Set("X-Content-Type-Options", "nosniff");
  response->Set("Referrer-Policy", "no-referrer");
}

}  // namespace ferry::shortlink
