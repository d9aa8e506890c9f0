// Loaded between RequireJS and the widgets' HTML manager on a page with saved widget state
// (coursekit/app/site/assets.py). The manager's modules are named after their npm packages, and it finds its
// icon fonts beside the module's URL: without these paths it looks for them in a folder named
// "@jupyter-widgets" next to the page; with them, in _static/html-manager, where the build copies them.
require.config({
  paths: {
    "@jupyter-widgets/html-manager/dist": new URL("html-manager", document.currentScript.src).href,
    "@jupyter-widgets": new URL("html-manager", document.currentScript.src).href,
  },
});
