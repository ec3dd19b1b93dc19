// What a results server takes as an uploaded result file, shared by the server (its upload gate,
// server/store/upload_check.h) and by `upload-result`, which checks a file the same way before it
// sends or queues it, so what the server would refuse is never sent or kept for a retry:
//  1. at most kMaxUploadXmlBytes (the server's default --max-xml);
//  2. the result-file reader (result_xml.h: UTF-8, no DOCTYPE or entity, no attribute, strict
//     element structure) with hard bounds checked in its own SAX callbacks (ReadLimits: depth,
//     node count, text size), so hostile input stops early;
//  3. ValidateResultFile (validate.h: the XSD's rules and more); any error refuses;
//  4. the saved result's name it is sent with (local_file_name): at most 256 bytes of UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "results-xml/model/result_xml.h"

namespace ptsn::results {

constexpr size_t kMaxUploadXmlBytes = 8 << 20;

// Attributes need no bound of their own: a result file has none and the reader refuses any.
struct UploadLimits {
  size_t max_depth = 16;             // composite.xml is 4 deep
  size_t max_value_bytes = 8 << 20;  // one text node (monitor line graphs are long)
  size_t max_nodes = 2'000'000;
};

// A one-line reason naming the element at fault ("composite.xml: line 1: ...").
struct UploadRejected {
  std::string message;
};

// "" when a file of `bytes` bytes is within `max_bytes`, else the reason (the server answers 413).
std::string UploadSizeProblem(size_t bytes, size_t max_bytes = kMaxUploadXmlBytes);

// Checks 2 and 3 in ONE parse; `also` (may be null) sees the head and each result as the check
// reads them (the server summarises the file with it). Throws UploadRejected. Returns the whole
// file when a <Generated> or <System> follows a <Result> (legal, never written by PTS), which the
// streaming pass cannot take (result_xml.h: StreamResultFile): `also` then saw only part of the
// file, to be discarded, and the caller uses the file returned.
std::optional<ResultFile> CheckUploadedResultFile(std::string_view xml, const UploadLimits& limits = {},
                                                  ResultVisitor* also = nullptr);

// "" when `local_file_name` may go with an upload, else the reason.
std::string UploadNameProblem(std::string_view local_file_name);

}  // namespace ptsn::results
