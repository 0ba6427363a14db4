// The site's root URL: this module is served from <root>/javascripts/run/root.js, so the root is two
// folders up from its own URL, whichever page loaded it (instant navigation changes location, not this).
export const SITE_ROOT = new URL("../../", import.meta.url).href;
