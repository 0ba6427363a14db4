// Every script of a page starts loading once the browser has painted the page's first text, not
// while it is still working towards it. docs/hooks/page_assets.py puts this file, as it is, at the
// end of each page's <body>, with the page's scripts in two attributes: data-theme (the theme's
// bundle) and data-scripts (the site's own, [{src, module}], in order).
//
// Why: nothing a script does is needed to read the page. The formulas are typeset at build time, the
// palette is set by an inline script in the header, code and tabs read without script. Loaded by tags
// of their own, the scripts were fetched alongside the page and ran as soon as it was parsed, often
// before its first paint, which then waited for them; and Lighthouse counts every script that has
// arrived before the first paint as needed for it, so a late paint on a busy machine cost a page
// the time of all of them.
//
// The theme's bundle starts only on DOMContentLoaded, which has usually fired by the time the bundle
// arrives: the event is then sent again, once, for the bundle (the site's own scripts look at
// document.readyState instead).
(() => {
  const me = document.currentScript;
  const theme = me.dataset.theme;
  const scripts = JSON.parse(me.dataset.scripts);
  let parsed = false; // has the browser's own DOMContentLoaded been sent?
  document.addEventListener("DOMContentLoaded", () => (parsed = true), { once: true });

  const add = (src, module) => {
    const script = document.createElement("script");
    script.src = src;
    if (module) script.type = "module";
    else script.async = false; // classic scripts run in the order they are added, the theme's first
    document.body.append(script);
    return script;
  };

  function load() {
    const bundle = add(theme, false);
    // in a task of its own, after the one that ran the bundle: the bundle's start-up (it mounts every
    // component of the page) then does not make that task longer, and the browser can paint or
    // answer the reader between the two
    const replay = () => document.dispatchEvent(new Event("DOMContentLoaded", { bubbles: true }));
    bundle.addEventListener("load", () => parsed && setTimeout(replay));
    for (const { src, module } of scripts) add(src, module);
  }

  // A browser that does not report paints loads them at once. A page opened in a background tab is
  // painted, and so gets its scripts, when it is first shown.
  if (!window.PerformanceObserver?.supportedEntryTypes?.includes("paint")) return load();
  const painted = new PerformanceObserver((list) => {
    if (!list.getEntries().some((entry) => entry.name === "first-contentful-paint")) return;
    painted.disconnect();
    load();
  });
  painted.observe({ type: "paint", buffered: true });
})();
