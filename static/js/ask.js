// Ask: stream the answer with server-sent events when the browser can.
//
// The placeholder is a plain htmx element (hx-get + hx-trigger="load"). When
// EventSource exists we cancel that request and stream instead: text deltas
// are appended with textContent (model output is never parsed as HTML), then
// the server's final, escaped fragment with checked citations replaces them.
// Without EventSource, or if the stream breaks, the htmx GET does the job.
(function () {
  "use strict";

  function parse(event) {
    try { return JSON.parse(event.data); } catch (e) { return {}; }
  }

  function fallback(el) {
    el.removeAttribute("data-stream-url");
    if (window.htmx) {
      window.htmx.ajax("GET", el.getAttribute("hx-get"), { target: el, swap: "innerHTML" });
    }
  }

  function stream(el, url) {
    var settled = false;
    var text = document.createElement("p");
    text.className = "answer-text answer-text--streaming";
    var source = new EventSource(url);

    function gone() {
      // A newer search replaced the panel: stop listening.
      if (!document.body.contains(el)) { source.close(); return true; }
      return false;
    }

    source.addEventListener("delta", function (event) {
      if (gone()) return;
      if (!text.parentNode) { el.replaceChildren(text); }
      text.textContent += parse(event).text || "";
    });
    source.addEventListener("done", function (event) {
      settled = true;
      source.close();
      if (gone()) return;
      el.innerHTML = parse(event).html || "";  // server-rendered, auto-escaped template
      Array.prototype.forEach.call(el.children, function (child) {
        if (window.htmx) window.htmx.process(child);
      });
    });
    source.addEventListener("ask-error", function (event) {
      settled = true;
      source.close();
      if (gone()) return;
      var message = document.createElement("p");
      message.className = "notice notice--error";
      message.setAttribute("role", "alert");
      message.textContent = parse(event).message || "";
      el.replaceChildren(message);
    });
    source.onerror = function () {
      source.close();
      if (!settled && !gone()) fallback(el);
    };
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail.elt;
    var url = el && el.getAttribute && el.getAttribute("data-stream-url");
    if (!url || typeof window.EventSource !== "function") return;
    event.preventDefault();
    stream(el, url);
  });
})();
