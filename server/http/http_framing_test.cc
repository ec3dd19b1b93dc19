#include "server/http/http_framing.h"

#include <gtest/gtest.h>

namespace ptsn::server::http {
namespace {

int StatusFor(const Headers& h) {
  auto problem = CheckFraming(h);
  return problem ? problem->status : 0;
}

TEST(HttpFraming, OneWayOfFramingPasses) {
  EXPECT_EQ(StatusFor({}), 0);
  EXPECT_EQ(StatusFor({{"Content-Length", "56"}}), 0);
  EXPECT_EQ(StatusFor({{"Transfer-Encoding", "chunked"}}), 0);
  EXPECT_EQ(StatusFor({{"transfer-encoding", "Chunked"}}), 0);  // names and codings in any case
}

// The requests issue 31 sent: each was read one way by libmicrohttpd and could be read another
// way by a proxy in front of it.
TEST(HttpFraming, AmbiguousFramingIsRefused) {
  EXPECT_EQ(StatusFor({{"Content-Length", "0"}, {"Content-Length", "56"}}), 400);
  EXPECT_EQ(StatusFor({{"Content-Length", "5"}, {"content-length", "5"}}), 400);
  EXPECT_EQ(StatusFor({{"Content-Length", "10"}, {"Transfer-Encoding", "chunked"}}), 400);
  EXPECT_EQ(StatusFor({{"Transfer-Encoding", "identity"}}), 501);
  EXPECT_EQ(StatusFor({{"Transfer-Encoding", "gzip, chunked"}}), 501);
  EXPECT_EQ(StatusFor({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}}), 501);
  EXPECT_EQ(StatusFor({{"Content-Length", "+5"}}), 400);
  EXPECT_EQ(StatusFor({{"Content-Length", "5, 5"}}), 400);
  EXPECT_EQ(StatusFor({{"Content-Length", ""}}), 400);
}

}  // namespace
}  // namespace ptsn::server::http
