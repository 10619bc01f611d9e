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
<meta name="referrer" content="no-referrer">
<title>Short links</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
  input { font: inherit; padding: .3rem; }
  input[type=url], #key { width: 100%; box-sizing: border-box; }
  button { font: inherit; padding: .3rem .8rem; }
  section { margin: 1.5rem 0; }
  #error { color: #b00020; }
  #key-offer { background: #fff4ce; padding: .6rem; }
  table { border-collapse: collapse; }
  td, th { padding: .15rem .6rem; text-align: left; border-bottom: 1px solid #ddd; }
  td.n { text-align: right; }
  .target { max-width: 20rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .pv { fill: #3367d6; } .uv { fill: #f4b400; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<h1>Short links</h1>
<section>
  <div id="key-offer" role="alertdialog" hidden>
    <p>This address carries an API key. Use it in this browser? It replaces the key stored
      here; only accept a key you were given yourself.</p>
    <button id="key-accept" type="button">Use this key</button>
    <button id="key-reject" type="button">Ignore it</button>
  </div>
  <label>API key <input id="key" type="password" autocomplete="off" placeholder="slk_..."></label>
</section>
<section>
  <form id="shorten">
    <label>Long URL <input id="url" type="url" required placeholder="https://example.com/..."></label>
    <p><label>Title <input id="title" maxlength="200"></label>
       <label>Tags <input id="tags" placeholder="sale, mail"></label>
       <button id="create" type="submit">Shorten</button></p>
  </form>
  <p id="result"></p>
</section>
<section>
  <h2>Your links</h2>
  <form id="find">
    <input id="search" type="search" placeholder="search codes, titles, targets">
    <input id="tag" placeholder="tag">
    <button id="list" type="submit">Find</button>
  </form>
  <table id="links"></table>
  <p><button id="prev" type="button" disabled>Previous</button>
     <button id="next" type="button" disabled>Next</button> <span id="page"></span></p>
</section>
<section>
  <form id="lookup">
    <label>Code <input id="code" required></label>
    <button id="show" type="submit">Show clicks</button>
    <button id="csv" type="button">Download CSV</button>
  </form>
  <p><img id="qr" alt="QR code of the short link" width="164" height="164" hidden></p>
  <p id="totals"></p>
  <div id="chart"></div>
  <table id="days"></table>
</section>
<p id="error" role="alert"></p>
<script>
"use strict";
const api = "/ferry.shortlink.ShortLinkService/";
const pageSize = 20;
const $ = (id) => document.getElementById(id);

// A key in the address (#key=...) is only an offer: someone else's key adopted silently would
// make this browser create links as them. The address forgets it at once either way.
const offered = new URLSearchParams(location.hash.slice(1));
const offeredKey = offered.get("key");
if (offeredKey !== null) {
  offered.delete("key");
  const rest = offered.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  $("key-offer").hidden = false;
}
$("key-accept").addEventListener("click", () => {
  localStorage.setItem("shortlinkKey", offeredKey);
  $("key").value = offeredKey;
  $("key-offer").hidden = true;
  listLinks(null);
});
$("key-reject").addEventListener("click", () => { $("key-offer").hidden = true; });
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

function cell(tag, text, className) {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

// The listing's pages: the token of each page shown so far, for Previous.
let tokens = [""];
let pageIndex = 0;
let selected = {code: "", domain: ""};

async function listLinks(direction) {
  if (direction === null) { tokens = [""]; pageIndex = 0; }
  if (direction === "next") pageIndex += 1;
  if (direction === "prev") pageIndex = Math.max(0, pageIndex - 1);
  const request = {pageSize, pageToken: tokens[pageIndex], search: $("search").value.trim(),
                   tag: $("tag").value.trim()};
  const answer = await call("ListLinks", request);
  const links = answer.links || [];
  tokens[pageIndex + 1] = answer.nextPageToken || "";
  const header = document.createElement("tr");
  for (const name of ["short link", "title", "target", "tags", "visits", ""]) {
    header.append(cell("th", name));
  }
  $("links").replaceChildren(header, ...links.map((link) => {
    const tr = document.createElement("tr");
    tr.dataset.code = link.code;
    const a = cell("a", link.shortUrl);
    a.href = link.shortUrl;
    const first = document.createElement("td");
    first.append(a);
    const show = cell("button", "Stats", "stats");
    show.type = "button";
    show.addEventListener("click", guard(() => select(link.code, link.domain || "")));
    const last = document.createElement("td");
    last.append(show);
    tr.append(first, cell("td", link.title || ""), cell("td", link.longUrl || "", "target"),
              cell("td", (link.tags || []).join(", ")), cell("td", Number(link.visits || 0), "n"),
              last);
    return tr;
  }));
  $("prev").disabled = pageIndex === 0;
  $("next").disabled = !answer.nextPageToken;
  $("page").textContent = `page ${pageIndex + 1}`;
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

function statsRequest() {
  const now = Date.now();
  return {code: selected.code, domain: selected.domain, fromMs: String(now - 29 * 86400000),
          toMs: String(now)};
}

async function select(code, domain) {
  selected = {code, domain};
  $("code").value = code;
  const query = domain ? "?domain=" + encodeURIComponent(domain) : "";
  $("qr").src = "/" + encodeURIComponent(code) + "/qr" + query;
  $("qr").hidden = false;
  await showStats();
}

async function showStats() {
  const stats = await call("Stats", statsRequest());
  const days = (stats.days || []).map((d) => ({day: d.day, pv: Number(d.pv || 0),
                                               uv: Number(d.uv || 0)}));
  $("totals").textContent = `PV ${Number(stats.pv || 0)} · UV ${Number(stats.uv || 0)} · ` +
                            `bots ${Number(stats.botVisits || 0)}`;
  drawChart(days);
  const rows = [["day", "PV", "UV"], ...days.map((d) => [d.day, d.pv, d.uv])];
  $("days").replaceChildren(...rows.map((cells, r) => {
    const tr = document.createElement("tr");
    for (const c of cells) tr.append(cell(r === 0 ? "th" : "td", c));
    return tr;
  }));
}

async function downloadCsv() {
  const exported = await call("ExportStats", statsRequest());
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([exported.csv || ""], {type: "text/csv"}));
  a.download = exported.filename || "stats.csv";
  a.id = "csv-file";
  document.body.append(a);
  a.click();
}

function guard(work) {
  return async (event) => {
    if (event) event.preventDefault();
    $("error").textContent = "";
    try { await work(); } catch (e) { $("error").textContent = e.message; }
  };
}

$("shorten").addEventListener("submit", guard(async () => {
  const tags = $("tags").value.split(",").map((t) => t.trim()).filter((t) => t);
  const link = await call("CreateLink", {requestId: requestId(), longUrl: $("url").value,
                                         title: $("title").value, tags});
  const a = document.createElement("a");
  a.href = link.shortUrl;
  a.textContent = link.shortUrl;
  a.id = "short";
  $("result").replaceChildren(a);
  await select(link.code, link.domain || "");
  await listLinks(null);
}));
$("find").addEventListener("submit", guard(() => listLinks(null)));
$("next").addEventListener("click", guard(() => listLinks("next")));
$("prev").addEventListener("click", guard(() => listLinks("prev")));
$("lookup").addEventListener("submit", guard(() => select($("code").value.trim(), "")));
$("csv").addEventListener("click", guard(downloadCsv));
const shownCode = offered.get("code");
if (shownCode) guard(() => select(shownCode, ""))();
if ($("key").value) guard(() => listLinks(null))();
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
