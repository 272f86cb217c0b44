// git snap view: the viewer's only script, served from the binary.
// It reads the page and never writes text into it as HTML.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));

  function typing(e) {
    const t = e.target;
    if (!t) return false;
    if (t.tagName === "INPUT") return !/^(checkbox|radio|button|submit|reset)$/.test(t.type);
    return t.isContentEditable || /^(TEXTAREA|SELECT)$/.test(t.tagName);
  }

  // Keys: / to find sessions, j and k (or the arrows, with no field focused)
  // to the next and previous turn.
  let current = -1;
  function turns() {
    return $$("#timeline [id^='turn-']").filter((el) => el.offsetParent !== null);
  }
  function step(by) {
    const list = turns();
    if (list.length === 0) return;
    const at = list.findIndex((el) => el.classList.contains("current"));
    current = Math.max(0, Math.min(list.length - 1, (at < 0 ? -1 : at) + by));
    list.forEach((el) => el.classList.remove("current"));
    list[current].classList.add("current");
    list[current].scrollIntoView({ block: "start" });
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
    if (e.key === "/") {
      const find = $("#find");
      if (find) {
        e.preventDefault();
        find.focus();
        find.select();
      }
    } else if (e.key === "j" || e.key === "ArrowDown" && document.body.dataset.page === "timeline") {
      if (e.key === "ArrowDown" && turns().length === 0) return;
      e.preventDefault();
      step(1);
    } else if (e.key === "k" || e.key === "ArrowUp" && document.body.dataset.page === "timeline") {
      if (e.key === "ArrowUp" && turns().length === 0) return;
      e.preventDefault();
      step(-1);
    }
  });

  // The rail: hide the kinds of entries unticked, or all but failed
  // tool calls. The timeline is package report's: its classes say what
  // each element is.
  const kinds = {
    prompt: "blockquote.prompt",
    answer: ".turn > div.text, .turn > div.markdown, details.subagent > div.text, details.subagent > div.markdown",
    thinking: "details.thinking",
    tool: "details.tool-call, details.tool-result",
    context: "details.context",
    files: "section.files",
  };
  function applyRail() {
    const rail = $("#rail");
    const timeline = $("#timeline");
    if (!rail || !timeline) return;
    $$(".filtered", timeline).forEach((el) => el.classList.remove("filtered"));
    $$("input[data-kind]", rail).filter((i) => !i.checked).forEach((i) => {
      $$(kinds[i.dataset.kind] || "-", timeline).forEach((el) => el.classList.add("filtered"));
    });
    const hiddenTools = new Set($$("input[data-tool]", rail).filter((i) => !i.checked).map((i) => i.dataset.tool));
    $$("[data-tool]", timeline).forEach((el) => {
      if (hiddenTools.has(el.dataset.tool)) el.classList.add("filtered");
    });
    if ($("#only-failed") && $("#only-failed").checked) {
      $$("section.turn", timeline).forEach((turn) => {
        if (!$("details.failed", turn)) {
          turn.classList.add("filtered");
          return;
        }
        $$(":scope > *:not(h2)", turn).forEach((el) => {
          if (!el.matches("details.failed")) el.classList.add("filtered");
        });
      });
    }
  }
  document.addEventListener("change", (e) => {
    if (e.target.closest && e.target.closest("#rail")) applyRail();
  });

  // A link to a message (#msg-N) lands on the element
  // that shows it, or the nearest one before it: a prompt or a record
  // the timeline does not show has no element of its own.
  function landOnMessage() {
    const m = /^#msg-(\d+)$/.exec(window.location.hash);
    if (!m) return;
    const exact = document.getElementById("msg-" + m[1]);
    if (exact && exact.offsetParent !== null) return;
    const want = Number(m[1]);
    let best = null;
    let bestAt = -1;
    $$("#timeline [id^='msg-'], #timeline [id^='tool-']").forEach((el) => {
      const at = Number(el.id.split("-")[1]);
      if (at <= want && at > bestAt) {
        best = el;
        bestAt = at;
      }
    });
    if (best) {
      $$("#timeline .current").forEach((el) => el.classList.remove("current"));
      best.classList.add("current");
      if (best.tagName === "DETAILS") best.open = true;
      // A subagent's entry is folded in its thread: unfold the way to it.
      for (let d = best.parentElement.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
      best.scrollIntoView({ block: "start" });
    }
  }

  // "copy as Markdown": the export, fetched from this viewer, onto the
  // clipboard; without a clipboard the link opens it.
  document.addEventListener("click", (e) => {
    const a = e.target.closest && e.target.closest("a[data-copy]");
    if (!a || !navigator.clipboard) return;
    e.preventDefault();
    fetch(a.dataset.copy)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(r.statusText))))
      .then((text) => navigator.clipboard.writeText(text))
      .then(() => { a.dataset.done = "copied"; a.textContent = "copied as Markdown"; })
      .catch(() => { window.location.href = a.href; });
  });

  // follow takes in a running session's new snapshots: the page is read
  // again from this viewer and its head, turns and timeline replace
  // these (nodes the browser parsed, never text written as HTML); the
  // rail keeps what is ticked, and a reader at the end stays at the end.
  let following = false;
  let again = false;
  function follow() {
    if (following) {
      again = true;
      return;
    }
    following = true;
    const note = $("#live");
    const atEnd = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
    fetch(window.location.href, { headers: { Accept: "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(r.statusText))))
      .then((html) => {
        const doc = new DOMParser().parseFromString(html, "text/html");
        ["#session-head", "#turns", "#timeline"].forEach((sel) => {
          const now = $(sel);
          const next = $(sel, doc);
          if (now && next) now.replaceWith(document.importNode(next, true));
        });
        applyRail();
        note.textContent = "updated";
        note.hidden = false;
        if (atEnd) window.scrollTo(0, document.documentElement.scrollHeight);
      })
      .catch(() => {
        note.textContent = "new snapshot: reload";
        note.hidden = false;
        note.onclick = () => window.location.reload();
      })
      .finally(() => {
        following = false;
        if (again) {
          again = false;
          follow();
        }
      });
  }

  // Live: the sessions page follows the repository; a timeline of a
  // session's newest snapshot follows the session (follow), one of an
  // older snapshot says when there is a newer one.
  function live() {
    if (!window.EventSource) return;
    const page = document.body.dataset.page;
    const head = $("#session-head");
    const state = $("#live-state");
    const es = new EventSource("/events" + (state ? "?tips=" + encodeURIComponent(state.dataset.tips) : ""));
    es.addEventListener("refs", (ev) => {
      let moved = [];
      try { moved = JSON.parse(ev.data).sessions || []; } catch (err) { return; }
      const note = $("#live");
      if (head) {
        if (!moved.includes(head.dataset.session)) return;
        if ($("#session-head").dataset.follow) {
          follow();
          return;
        }
        note.textContent = "new snapshot: reload";
        note.hidden = false;
        note.onclick = () => window.location.reload();
      } else if (page === "sessions" && !$("form.filters input[name=q]:focus")) {
        window.location.reload();
      }
    });
    window.addEventListener("pagehide", () => es.close());
  }

  document.addEventListener("DOMContentLoaded", () => {
    applyRail();
    landOnMessage();
    live();
  });
  // Land again once the page is whole (a long timeline arrives in parts,
  // and what loads late can move it) and when the link is followed
  // within the page.
  window.addEventListener("load", landOnMessage);
  window.addEventListener("hashchange", landOnMessage);
})();
