// The site's root URL: this module is served bundled into a file of <root>/assets/microgpt/ (as all the site's
// scripts are: tools/mgsite/mgsite/vendor.py), so the root is two folders up from that file's URL, whichever
// page loaded it (instant navigation changes location, not this).
export const SITE_ROOT = new URL("../../", import.meta.url).href;
