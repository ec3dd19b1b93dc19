// An in-process results server on a free loopback port, for tests of the HTTP surface.
#pragma once

#include <httplib.h>

#include <filesystem>
#include <random>
#include <thread>

#include "server/app.h"
#include "server/auth.h"
#include "server/http_server.h"

namespace ptsn::server::testing {

class TestServer {
 public:
  explicit TestServer(ServerOptions options = {}) {
    std::random_device rd;
    dir_ = (std::filesystem::temp_directory_path() / ("ptsn_app_" + std::to_string(rd()))).string();
    std::filesystem::create_directories(dir_);
    storage_ = OpenSqliteStorage(dir_ + "/results.db");
    app_ = std::make_unique<App>(*storage_, std::move(options));
    app_->Install(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    server_.WidenBacklog();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~TestServer() {
    server_.stop();
    thread_.join();
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
  HttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace ptsn::server::testing
