#include "server/http/request_stream.h"

#include <gtest/gtest.h>

#include <string>

using namespace std::string_literals;

namespace ptsn::server::http {
namespace {

// Where a fresh stream refuses `bytes` (their size when it takes them all), fed whole and then
// one byte at a time: how a client splits its bytes must not matter.
size_t RefusedAt(const std::string& bytes) {
  RequestStream whole;
  const size_t at = whole.Feed(bytes);
  RequestStream bytewise;
  size_t fed = 0;
  while (fed < bytes.size() && bytewise.Feed(std::string_view(bytes).substr(fed, 1)) == 1) ++fed;
  EXPECT_EQ(fed, at) << "fed byte by byte";
  return at;
}

const std::string kGet = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
// A body full of what a head may not hold: it is data, never read as lines.
const std::string kData = "<a>\n\r\n\n\r x\0y\n</a>\n"s;

TEST(RequestStream, WellFramedRequestsPassWhole) {
  const std::string post = "POST /f/client.php HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(kData.size()) + "\r\n\r\n" + kData;
  const std::string chunked = "POST /api/v1/results HTTP/1.1\r\ntransfer-encoding:  Chunked \r\n\r\n"
                              "3\r\n" + kData.substr(0, 3) + "\r\n" +
                              "a;name=value\r\n" + kData.substr(3, 10) + "\r\n"
                              "0\r\nX-Trailer: 1\r\n\r\n";
  // Empty lines before a request line are skipped (RFC 9112 2.2), pipelined requests follow each other.
  const std::string all = "\r\n" + kGet + post + chunked + kGet;
  EXPECT_EQ(RefusedAt(all), all.size());
}

TEST(RequestStream, ABareLfOrCrInAHeadIsRefusedWhereItIs) {
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\nHost: t\r\n\r\n"), 14u);
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nHost: t\n\r\n"), 23u);
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nHost: t\r\n\n"), 25u);
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n"), 24u);  // the byte after the bare CR
  EXPECT_EQ(RefusedAt(kGet + "GET / HTTP/1.1\nHost: t\n\n"), kGet.size() + 14);  // the second request
}

TEST(RequestStream, WhatAHeadMayNotHoldIsRefused) {
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nHost: t\0x\r\n\r\n"s), 23u);
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n"), 25u);              // a folded line
  EXPECT_EQ(RefusedAt("GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\n"), 35u);  // space before the colon
  const std::string padded = "GET / HTTP/1.1\r\nContent-Length: " + std::string(300, ' ') + "5\r\n\r\n";
  EXPECT_EQ(RefusedAt(padded), padded.size() - 3);  // a framing field too long to read
  RequestStream s;
  s.Feed("GET / HTTP/1.1\nHost: t\r\n\r\n");
  EXPECT_STREQ(s.problem(), "a line ending in a bare LF, not CRLF");
  EXPECT_EQ(s.Feed(kGet), 0u) << "nothing after bad framing is taken";
}

TEST(RequestStream, BodiesAreSkippedByTheirLength) {
  // The body's own bare LF is data; the request after it is read as a head again.
  const std::string post = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab\ncd";
  EXPECT_EQ(RefusedAt(post + kGet), post.size() + kGet.size());
  EXPECT_EQ(RefusedAt(post + "GET / HTTP/1.1\nHost: t\r\n\r\n"), post.size() + 14);
}

TEST(RequestStream, ChunkLinesMustBeCrlfAndHexadecimal) {
  const std::string head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(RefusedAt(head + "3\nabc\r\n0\r\n\r\n"), head.size() + 1);
  EXPECT_EQ(RefusedAt(head + "3\r\nabc\n0\r\n\r\n"), head.size() + 6);    // the line after the data
  EXPECT_EQ(RefusedAt(head + "3\r\nabcd\r\n0\r\n\r\n"), head.size() + 6);  // data longer than its size
  EXPECT_EQ(RefusedAt(head + "3\r\nabc\r\n0\r\n\n"), head.size() + 11);   // the end of the trailers
  EXPECT_EQ(RefusedAt(head + "3x\r\nabc\r\n0\r\n\r\n"), head.size() + 3);
  EXPECT_EQ(RefusedAt(head + "-3\r\nabc\r\n0\r\n\r\n"), head.size() + 3);
  EXPECT_EQ(RefusedAt(head + "fffffffffffffffff\r\n"), head.size() + 18);
}

TEST(RequestStream, FramingCheckFramingRefusesIsNotFollowed) {
  // Refused by CheckFraming with the connection closed: what follows is never read as a request.
  for (const std::string fields : {"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                                   "Content-Length: 0\r\nContent-Length: 5\r\n", "Transfer-Encoding: identity\r\n",
                                   "Content-Length: x\r\n"}) {
    const std::string request = "POST / HTTP/1.1\r\n" + fields + "\r\nGET / HTTP/1.1\nHost: t\n\n";
    EXPECT_EQ(RefusedAt(request), request.size()) << fields;
  }
}

}  // namespace
}  // namespace ptsn::server::http
