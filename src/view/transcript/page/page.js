// The transcript page's only script: filters, the timeline's links into the calls, and
// opening every call for printing. It reads the page and writes only text and attributes
// (never HTML), and the page works without it.
(function () {
  "use strict";
  var root = document.documentElement;
  window.addEventListener("error", function (e) {
    root.setAttribute("data-script-error", String(e.message));
  });
  var calls = Array.prototype.slice.call(document.querySelectorAll("li.call"));
  var bars = Array.prototype.slice.call(document.querySelectorAll("a.bar"));
  var form = document.getElementById("filters");
  var toolSelect = document.getElementById("f-tool");
  var statusSelect = document.getElementById("f-status");
  var count = document.getElementById("f-count");

  var tools = {};
  calls.forEach(function (c) {
    var t = c.getAttribute("data-tool");
    tools[t] = (tools[t] || 0) + 1;
  });
  Object.keys(tools).sort().forEach(function (t) {
    var option = document.createElement("option");
    option.value = t;
    option.textContent = t + " (" + tools[t] + ")";
    toolSelect.appendChild(option);
  });

  function matches(el) {
    var tool = toolSelect.value;
    var status = statusSelect.value;
    var cls = el.getAttribute("data-class");
    var toolOk = !tool || el.getAttribute("data-tool") === tool;
    var statusOk = !status || (status === "not-ok" ? cls !== "ok" : cls === status);
    return toolOk && statusOk;
  }

  function apply() {
    var shown = 0;
    calls.forEach(function (c) {
      var m = matches(c);
      c.hidden = !m;
      if (m) shown += 1;
    });
    bars.forEach(function (b) {
      b.classList.toggle("dim", !matches(b));
    });
    var filtered = toolSelect.value || statusSelect.value;
    count.textContent = filtered
      ? shown + " of " + calls.length + " tool calls"
      : calls.length + " tool calls";
  }
  toolSelect.addEventListener("change", apply);
  statusSelect.addEventListener("change", apply);

  // A bar links to its call: open it and move the focus there.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === "DETAILS") {
      el.open = true;
      var summary = el.querySelector("summary");
      if (summary) summary.focus();
    }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();

  var openedForPrint = [];
  window.addEventListener("beforeprint", function () {
    openedForPrint = [];
    document.querySelectorAll("details:not([open])").forEach(function (d) {
      d.open = true;
      openedForPrint.push(d);
    });
  });
  window.addEventListener("afterprint", function () {
    openedForPrint.forEach(function (d) {
      d.open = false;
    });
  });

  if (calls.length > 0) form.hidden = false;
  apply();
  root.setAttribute("data-ready", "1");
})();
