// The server's HTML pages: a result (or several merged, /result/ID1,ID2), the list/search page
// and error pages. Pure functions of stored data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "results-xml/views/viewer_options.h"
#include "server/store/storage.h"

namespace ptsn::server {

std::string HtmlEscape(const std::string& s);

// Which charts a result page shows: the `index`-th run of `size` results (0 = the first page;
// size 0 = all of them). Large results are paged so that no view renders them whole.
struct PageWindow {
  size_t index = 0;
  size_t size = 0;
};
// Throws HttpError 404 for a page past the end. The results are shared, not copied (a copy per
// view of a large comparison was most of the memory a page took). `options`: OpenBenchmarking's
// view options from the URL (results-xml/views/viewer_options.h), applied before the results are paged;
// the overview's geometric mean is over every page, its rows are this page's results.
std::string RenderResultPage(const std::vector<std::shared_ptr<const StoredResult>>& results, PageWindow window = {},
                             const results::ViewerOptions& options = {});
// export=: the view (the results with the options applied, not paged) in the format the options
// name (results-xml/views/view_export.h; the caller checks the name with FindExportFormat).
std::string RenderResultExport(const std::vector<std::shared_ptr<const StoredResult>>& results,
                               const results::ViewerOptions& options);
std::string RenderListPage(const std::vector<ListedResult>& results, const SearchQuery& query);
std::string RenderErrorPage(int status, const std::string& message);
// The pages' frame (style, title) around `body_html`, for other pages of the server (fleet_pages).
std::string HtmlPage(const std::string& title, const std::string& body_html);
// "2026-12-01 16:00 UTC" ("2026-12-01 16:00:07 UTC" with seconds)
std::string FormatUtc(std::int64_t unix_seconds, bool with_seconds = false);

}  // namespace ptsn::server
