// Changing a result file that other commands may change at the same moment (a run saving each
// test, an edit, a merge into it): every change takes an exclusive lock (flock on .<file>.lock
// beside the file, released by the kernel if the process dies), reads the file as it is on disk
// now, changes it and writes it atomically. So two commands changing one result both keep what
// they reported done. Temporary files a killed writer left beside the file are removed under the
// lock: every writer of a result file holds it, so none of them is in use.
//
// A run also claims each system identifier it saves as (IdentifierClaim): two runs that would
// save trials as one system of one result would replace each other's, so the second is refused.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/file_lock.h"

namespace ptsn::results {

// The lock of the result file `path` (made with its directory when missing), held for the
// object's life; leftover temporary files of `path` are removed once it is held.
class ResultFileLock {
 public:
  explicit ResultFileLock(const std::string& path);

 private:
  FileLock lock_;
};

// Under the lock: `change(file, existed)` on `path` as it is on disk (an empty file when there is
// none), then the file written atomically. Returns what was written.
ResultFile UpdateResultFile(const std::string& path, const std::function<void(ResultFile& file, bool existed)>& change,
                            const SerializeOptions& options = {});

// Under the lock: `file` written over `path` atomically (what was there is not read).
void ReplaceResultFile(const std::string& path, const ResultFile& file, const SerializeOptions& options = {});

// A claim on the systems `identifiers` of the result file `path` (a run saving as them, an edit
// renaming or removing one), held for the object's life (the kernel drops it when the process
// dies). Identifiers that differ only in case, spacing or punctuation are one claim, as they
// would read as one system.
class IdentifierClaim {
 public:
  // Throws ptsn::Error naming the file, the identifier and the holder (its pid and what it does)
  // when another process holds a claim on one of them; `what` says what this one does ("a run
  // saving as 'Box'"), for whoever finds it held.
  // No file of the claim stays, nor the file's directory when the claim made it and nothing
  // was saved in it.
  IdentifierClaim(const std::string& path, const std::vector<std::string>& identifiers, const std::string& what);
  ~IdentifierClaim();
  IdentifierClaim(const IdentifierClaim&) = delete;
  IdentifierClaim& operator=(const IdentifierClaim&) = delete;

 private:
  void Release();
  std::string dir_;
  bool made_dir_ = false;
  std::vector<FileLock> locks_;
};

}  // namespace ptsn::results
