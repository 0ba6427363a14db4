// The site's root URL, from Material's <script id="__config"> ("base" is relative to the page that
// loaded the scripts). Resolved once, when this module is first evaluated: instant navigation later
// changes location but not the config, exactly as Material itself does it.
const config = document.getElementById("__config");
const base = config ? JSON.parse(config.textContent).base : ".";

export const SITE_ROOT = new URL(base.endsWith("/") ? base : `${base}/`, location.href).href;
