// An in-process results server on a free loopback port, for tests of the HTTP surface.
#pragma once

#include <filesystem>
#include <random>
#include <thread>

#include "server/app.h"
#include "server/store/auth.h"
#include "server/http/http_server.h"

namespace ptsn::server::testing {

class TestServer {
 public:
  explicit TestServer(ServerOptions options = {}) {
    std::random_device rd;
    dir_ = (std::filesystem::temp_directory_path() / ("ptsn_app_" + std::to_string(rd()))).string();
    std::filesystem::create_directories(dir_);
    storage_ = OpenSqliteStorage(dir_ + "/results.db");
    http::ServerLimits limits;
    limits.max_body_bytes = options.max_body_bytes;
    app_ = std::make_unique<App>(*storage_, std::move(options));
    app_->Install(router_);
    server_ = std::make_unique<http::HttpServer>(router_, limits);
    port_ = server_->Start("127.0.0.1", 0);
  }
  ~TestServer() {
    app_->fleet().waiters().Shutdown();  // parked long-polls answered: Stop need not wait them out
    server_.reset();
    app_.reset();
    storage_.reset();
    std::filesystem::remove_all(dir_);
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  Storage& storage() { return *storage_; }
  std::string Token(const std::string& user) { return CreateToken(*storage_, user); }

 private:
  std::string dir_;
  std::unique_ptr<Storage> storage_;
  std::unique_ptr<App> app_;
  http::Router router_;
  std::unique_ptr<http::HttpServer> server_;
  int port_ = 0;
};

}  // namespace ptsn::server::testing
