#include "server/http/http.h"

#include <gtest/gtest.h>

namespace ptsn::server::http {
namespace {

std::string TokenOf(const std::string& authorization) {
  Request req;
  req.headers.emplace("Authorization", authorization);
  return BearerToken(req);
}

TEST(BearerToken, TheSchemeInAnyCaseWithSpacesAround) {
  EXPECT_EQ(TokenOf("Bearer abc123"), "abc123");
  EXPECT_EQ(TokenOf("  bearer\tabc123  "), "abc123");
  EXPECT_EQ(TokenOf("BEARER  abc123"), "abc123");
  EXPECT_EQ(BearerToken(Request{}), "");
}

TEST(BearerToken, AnythingElseIsNoToken) {
  EXPECT_EQ(TokenOf("Basic YWxpY2U6cHc="), "");
  EXPECT_EQ(TokenOf("Bearer"), "");
  EXPECT_EQ(TokenOf("Bearer   "), "");
  EXPECT_EQ(TokenOf("Bearerabc"), "");
  EXPECT_EQ(TokenOf(""), "");
}

}  // namespace
}  // namespace ptsn::server::http
