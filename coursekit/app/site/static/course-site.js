// The course site's own script (coursekit/app/site/build.py adds it to every page).
//
// Search snippets: Sphinx's search fetches each result's page to quote it. A site opened from a folder
// (file://) may not fetch its own files, so there it lists the pages without snippets instead of
// failing once per result; and the quoted text leaves out the theme's buttons above the article.
document.addEventListener("DOMContentLoaded", () => {
  if (location.protocol === "file:") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  if (typeof Search === "undefined") return;
  const pageText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".bd-header-article, .onlyprint").forEach((el) => el.remove());
    return pageText(doc.documentElement.outerHTML, anchor);
  };
});

// The sidebar shows the current page: the theme restores the previous page's sidebar scroll, which
// leaves a later module's lessons out of sight; scroll only if the current link is not in view.
window.addEventListener("load", () => {
  const link = document.querySelector(".bd-docs-nav a.current");
  const sidebar = link && link.closest(".bd-sidebar-primary");
  if (!sidebar || sidebar.scrollHeight <= sidebar.clientHeight) return;
  const box = sidebar.getBoundingClientRect(), at = link.getBoundingClientRect();
  if (at.top >= box.top && at.bottom <= box.bottom) return;
  sidebar.scrollTop += at.top - box.top - sidebar.clientHeight / 3;
});
