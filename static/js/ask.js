// Ask: stream the answer when the browser can.
//
// The placeholder is a plain htmx element (hx-post, hx-trigger="load"); the
// question travels in the hidden input its hx-include names (not in hx-vals:
// no user text in hx-* attributes).
// Asking is logged and rate limited, so it is a POST with the CSRF token, and
// the stream is read with fetch() (EventSource can only GET). When fetch can
// stream we cancel htmx's request and stream instead: text deltas are appended
// with textContent (model output is never parsed as HTML), then the server's
// final, escaped fragment with checked citations replaces them. Without a
// streaming fetch, or if the stream breaks before its end, the htmx POST does
// the job.
(function () {
  "use strict";

  function parse(data) {
    try { return JSON.parse(data); } catch (e) { return {}; }
  }

  function csrfToken() {
    // The token htmx sends travels on <body hx-headers='{"x-csrftoken": "…"}'>.
    return parse(document.body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || "";
  }

  function canStream() {
    return typeof window.fetch === "function" && typeof window.ReadableStream === "function" &&
      typeof window.TextDecoder === "function" && typeof window.AbortController === "function";
  }

  function fallback(el) {
    el.removeAttribute("data-stream-url");
    if (window.htmx) {
      window.htmx.ajax("POST", el.getAttribute("hx-post"), { source: el, target: el, swap: "innerHTML" });
    }
  }

  function stream(el, url) {
    var settled = false;
    var text = document.createElement("p");
    text.className = "answer-text answer-text--streaming";
    var controller = new AbortController();

    function gone() {
      // A newer search replaced the panel: stop reading.
      if (!document.body.contains(el)) { controller.abort(); return true; }
      return false;
    }

    var verified = null;  // an editor's verified answer, shown above the text while it streams

    var handlers = {
      "verified": function (data) {
        verified = document.createElement("div");
        verified.innerHTML = data.html || "";  // server-rendered, auto-escaped template
        el.replaceChildren(verified);
      },
      "delta": function (data) {
        if (!text.parentNode) {
          if (verified) { el.replaceChildren(verified, text); } else { el.replaceChildren(text); }
        }
        text.textContent += data.text || "";
      },
      "done": function (data) {
        settled = true;
        el.innerHTML = data.html || "";  // server-rendered, auto-escaped template
        Array.prototype.forEach.call(el.children, function (child) {
          if (window.htmx) window.htmx.process(child);
        });
      },
      "ask-error": function (data) {
        settled = true;
        var message = document.createElement("p");
        message.className = "notice notice--error";
        message.setAttribute("role", "alert");
        message.textContent = data.message || "";
        el.replaceChildren(message);
      }
    };

    function dispatch(block) {
      // One server-sent event: "event: name" and "data: json" lines.
      var name = "message", data = "";
      block.split("\n").forEach(function (line) {
        if (line.indexOf("event: ") === 0) { name = line.slice(7); }
        else if (line.indexOf("data: ") === 0) { data += line.slice(6); }
      });
      if (settled || gone() || !Object.prototype.hasOwnProperty.call(handlers, name)) return;
      handlers[name](parse(data));
    }

    var body = new URLSearchParams();
    // What htmx's own request would send: the included inputs, then hx-vals.
    var include = el.getAttribute("hx-include");
    Array.prototype.forEach.call(include ? document.querySelectorAll(include) : [], function (input) {
      if (input.name) body.append(input.name, input.value);
    });
    var vals = parse(el.getAttribute("hx-vals") || "{}");
    Object.keys(vals).forEach(function (name) { body.set(name, vals[name]); });
    fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "Accept": "text/event-stream" },
      signal: controller.signal
    }).then(function (response) {
      if (!response.ok || !response.body) throw new Error("ask stream: HTTP " + response.status);
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) {
            buffer += decoder.decode();
            if (buffer.trim()) dispatch(buffer);
            if (!settled) throw new Error("ask stream ended without an answer");
            return;
          }
          buffer += decoder.decode(chunk.value, { stream: true });
          var blocks = buffer.split("\n\n");
          buffer = blocks.pop();
          blocks.forEach(dispatch);
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      if (!settled && !gone()) fallback(el);
    });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail.elt;
    var url = el && el.getAttribute && el.getAttribute("data-stream-url");
    if (!url || !canStream()) return;
    event.preventDefault();
    stream(el, url);
  });
})();
