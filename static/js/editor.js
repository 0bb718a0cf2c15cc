// The Markdown editor: EasyMDE (static/vendor/easymde) over the form's textarea.
// The textarea stays the form field and the Markdown stays the stored text: the
// editor edits the raw characters and writes them back on every change
// (forceSync), so a page opened and saved without a keystroke posts what it got.
// Nothing transforms the text on its own: no spell checker (it would fetch
// dictionaries from a CDN), no local autosave (a stale copy could come back
// over a colleague's newer revision), Tab leaves the editor as it leaves a
// textarea. Without this script the plain textarea and the Preview button work.
(function () {
  "use strict";
  var body = document.getElementById("id_body");
  var config = document.getElementById("editor-config");
  if (!body || !config || !window.EasyMDE || !window.fetch || !window.FormData) return;
  var texts = config.dataset;
  // attachments.js leaves the file field to this script once the editor runs.
  body.dataset.richEditor = "on";

  var status = document.querySelector(".js-attachment-status") || config;
  var fileInput = document.querySelector(".js-attachment-input");
  var uploadUrl = texts.uploadUrl || "";
  var form = body.form;

  function csrfToken() {
    var field = form && form.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function say(message, isError) {
    status.textContent = message;
    status.classList.toggle("field-errors", Boolean(isError));
  }

  // --- Preview: the server's own Markdown and sanitiser (POST /preview/) ----------------
  var previewUrl = texts.previewUrl;
  var shown = { text: null, html: "" };
  var wanted = { seq: 0, timer: 0, pane: null, text: null };

  function fetchPreview(text) {
    var seq = ++wanted.seq;
    var data = new FormData();
    data.append("body", text);
    fetch(previewUrl, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.text();
      })
      .then(function (fragment) {
        if (seq !== wanted.seq) return; // a newer text was sent since
        // The answer is the preview fragment; its content was sanitised on the server (nh3).
        var parsed = new DOMParser().parseFromString(fragment, "text/html").getElementById("preview");
        shown.text = text;
        shown.html = parsed ? parsed.innerHTML : "";
        if (wanted.pane) wanted.pane.innerHTML = shown.html;
      })
      .catch(function (error) {
        if (seq !== wanted.seq) return;
        wanted.text = null; // the same text may be asked for again
        say(texts.previewFailed + " " + String(error.message || error), true);
      });
  }

  function previewRender(text, pane) {
    // EasyMDE asks on every redraw (scrolling too): only a changed text goes to the server.
    wanted.pane = pane;
    if (text !== shown.text && text !== wanted.text) {
      wanted.text = text;
      window.clearTimeout(wanted.timer);
      wanted.timer = window.setTimeout(function () { fetchPreview(text); }, shown.text === null ? 0 : 300);
    }
    return shown.html;
  }

  // --- Uploads: paste, drop or the toolbar's button send files to the page's attachments
  // (before a new page's first save, to its draft: they become the page's when it is saved) --
  var cursorPlaced = false;

  function insertMarkdown(markdown) {
    var cm = editor.codemirror;
    // A file added before the cursor was ever placed goes to the end, not above the page's heading.
    if (!cursorPlaced) cm.setCursor(cm.lastLine(), cm.getLine(cm.lastLine()).length);
    var cursor = cm.getCursor("from");
    var before = cm.getRange({ line: 0, ch: 0 }, cursor);
    var prefix = before && !/\n\n$/.test(before) ? (/\n$/.test(before) ? "\n" : "\n\n") : "";
    cm.replaceSelection(prefix + markdown + "\n");
    cursorPlaced = true; // the next file goes after this one
  }

  function upload(files) {
    if (!files || !files.length) return;
    if (!uploadUrl) {
      say(texts.saveFirst, true);
      return;
    }
    var names = Array.prototype.map.call(files, function (file) { return file.name; }).join(", ");
    var data = new FormData();
    Array.prototype.forEach.call(files, function (file) { data.append("file", file); });
    // On New page the files wait for the page under the form's draft token.
    var draft = form && form.querySelector("input[name=draft_token]");
    if (draft) data.append("draft_token", draft.value);
    // XMLHttpRequest, not fetch: it reports how much of the file has gone up.
    var request = new XMLHttpRequest();
    request.open("POST", uploadUrl);
    request.setRequestHeader("X-CSRFToken", csrfToken());
    request.setRequestHeader("Accept", "application/json");
    say(texts.uploading + " " + names);
    request.upload.onprogress = function (event) {
      if (event.lengthComputable) {
        say(texts.uploading + " " + names + " " + Math.round((100 * event.loaded) / event.total) + " %");
      }
    };
    request.onload = function () {
      var result;
      try {
        result = JSON.parse(request.responseText);
      } catch (error) {
        result = { attachments: [], errors: [request.status + " " + request.statusText] };
      }
      var stored = result.attachments || [];
      stored.forEach(function (item) { insertMarkdown(item.markdown); });
      var errors = result.errors || (result.error ? [result.error] : []);
      var done = stored.map(function (item) { return texts.uploaded.replace("%(name)s", item.name); });
      say(done.concat(errors).join(" "), errors.length > 0);
    };
    request.onerror = function () { say(texts.uploadFailed, true); };
    request.send(data);
  }

  // --- The toolbar: text labels (no icon font from a CDN), translated names ------------
  function button(name, action, label, title) {
    return { name: name, action: action, text: label, title: title };
  }
  var toolbar = [
    button("bold", EasyMDE.toggleBold, "B", texts.bold),
    button("italic", EasyMDE.toggleItalic, "I", texts.italic),
    button("heading", EasyMDE.toggleHeadingSmaller, "H", texts.heading),
    "|",
    button("quote", EasyMDE.toggleBlockquote, "❝", texts.quote),
    button("unordered-list", EasyMDE.toggleUnorderedList, "•", texts.bulletList),
    button("ordered-list", EasyMDE.toggleOrderedList, "1.", texts.numberedList),
    button("code", EasyMDE.toggleCodeBlock, "</>", texts.code),
    "|",
    button("link", EasyMDE.drawLink, texts.linkLabel, texts.link),
    button("table", EasyMDE.drawTable, texts.tableLabel, texts.table),
  ];
  if (uploadUrl) toolbar.push(button("upload-image", function () { fileInput && fileInput.click(); }, texts.fileLabel, texts.file));
  toolbar.push(
    "|",
    button("preview", EasyMDE.togglePreview, texts.previewLabel, texts.preview),
    button("side-by-side", EasyMDE.toggleSideBySide, texts.sideBySideLabel, texts.sideBySide),
    button("fullscreen", EasyMDE.toggleFullScreen, texts.fullscreenLabel, texts.fullscreen),
    "|",
    button("undo", EasyMDE.undo, "↶", texts.undo),
    button("redo", EasyMDE.redo, "↷", texts.redo)
  );

  var editor = new EasyMDE({
    element: body,
    forceSync: true,
    spellChecker: false,
    nativeSpellcheck: true,
    autoDownloadFontAwesome: false,
    autosave: { enabled: false },
    promptURLs: false,
    toolbar: toolbar,
    status: false,
    // The page already shows the server's preview beside the editor; this one is inside it.
    sideBySideFullscreen: true,
    previewRender: previewRender,
    previewClass: ["editor-preview", "prose"],
    // Screen readers follow a contenteditable far better than CodeMirror's hidden textarea.
    inputStyle: "contenteditable",
    minHeight: "24rem",
    tabSize: 4,
    // The editor's own uploader (paste and drop); its default would insert its own Markdown.
    uploadImage: Boolean(uploadUrl),
    imageUploadFunction: function (file) { upload([file]); },
    insertTexts: {
      table: ["", "\n\n| " + texts.column + " | " + texts.column + " |\n| --- | --- |\n| " + texts.cell + " | " + texts.cell + " |\n\n"],
    },
  });
  body.insertMarkdown = insertMarkdown;
  var cm = editor.codemirror;
  cm.setOption("screenReaderLabel", texts.label);
  // Announced as the multi-line text field it replaces, not as an "application" or as nothing.
  var input = cm.getInputField();
  input.setAttribute("role", "textbox");
  input.setAttribute("aria-multiline", "true");
  editor.codemirror.getWrapperElement().parentNode.removeAttribute("role");
  // Tab and Shift-Tab move the focus on, as in any form field: no keyboard trap.
  var keys = Object.assign({}, cm.getOption("extraKeys"), { Tab: false, "Shift-Tab": false });
  cm.setOption("extraKeys", keys);
  cm.on("focus", function () { cursorPlaced = true; });
  // The live preview beside the editor listens (htmx) for input on the textarea.
  cm.on("change", function () { body.dispatchEvent(new Event("input", { bubbles: true })); });
  if (!uploadUrl) {
    // On a page not saved yet: no attachments endpoint, and a dropped file must not land as text.
    cm.on("drop", function (instance, event) {
      if (event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files.length) {
        event.preventDefault();
        say(texts.saveFirst, true);
      }
    });
    cm.on("paste", function (instance, event) {
      if (event.clipboardData && event.clipboardData.files && event.clipboardData.files.length) say(texts.saveFirst, true);
    });
  }
  var label = document.querySelector("label[for=id_body]");
  if (label) label.addEventListener("click", function () { cm.focus(); });

  // The file field sends its files here too, so every upload inserts at the editor's cursor.
  if (fileInput && uploadUrl) {
    fileInput.addEventListener("change", function () {
      upload(fileInput.files);
      fileInput.value = ""; // sent already: the form's own submit must not send it again
    });
  }

  // One tab stop for the toolbar, arrow keys within it (the ARIA toolbar pattern).
  var bar = editor.toolbar_div;
  var buttons = Array.prototype.slice.call(bar.querySelectorAll("button"));
  bar.setAttribute("aria-label", texts.toolbar);
  buttons.forEach(function (item, index) {
    item.tabIndex = index === 0 ? 0 : -1;
    // A button that shows a word is named by that word (what a voice user says); its title says more.
    if (/\w\w/.test(item.textContent)) item.setAttribute("aria-label", item.textContent);
  });
  bar.addEventListener("keydown", function (event) {
    var at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    var next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    next = (next + buttons.length) % buttons.length;
    buttons[at].tabIndex = -1;
    buttons[next].tabIndex = 0;
    buttons[next].focus();
  });
  document.documentElement.classList.add("has-rich-editor");
})();
