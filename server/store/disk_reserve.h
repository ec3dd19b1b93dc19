// Room kept on the database's file system for when it fills up: a file of `bytes` allocated
// beside the database, given up when a write fails for lack of space. SQLite's WAL holds
// acknowledged writes that must be copied into the database file (which grows) before the WAL
// can be cut back; with the disk full that copy fails too, and then recovery needed the WAL's
// size freed, not what the next write needs (issue 31, finding 6). Giving up the reserve lets
// the copy finish at once, and cutting the WAL frees at least what the copy took, so the reserve
// can be taken back straight after.
#pragma once

#include <cstdint>
#include <string>

namespace ptsn::server {

class DiskReserve {
 public:
  // bytes == 0: no reserve (Hold always succeeds, GiveUp does nothing).
  DiskReserve(std::string path, std::uint64_t bytes) : path_(std::move(path)), bytes_(bytes) {}
  // Allocates the file (posix_fallocate); false, with nothing left behind, when there is no room.
  bool Hold();
  void GiveUp();
  bool held() const { return held_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::uint64_t bytes_;
  bool held_ = false;
};

}  // namespace ptsn::server
