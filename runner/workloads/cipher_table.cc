#include "runner/workloads/cipher_table.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::workloads {

namespace {
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::string ImplementationOf(const std::string& driver) {
  std::string inner = driver;
  if (size_t open = inner.rfind('('); open != std::string::npos) inner = inner.substr(open + 1);
  if (size_t close = inner.find(')'); close != std::string::npos) inner.resize(close);
  static const char* kNotImplementations[] = {"cbc", "xts", "ecb", "ctr", "aes", "serpent", "twofish"};
  std::vector<std::string> kept;
  for (const auto& part : Split(inner, '-'))
    if (std::find(std::begin(kNotImplementations), std::end(kNotImplementations), part) == std::end(kNotImplementations))
      kept.push_back(part);
  return kept.empty() ? inner : Join(kept, "-");
}

results::ResultFile CipherTableFile(const std::vector<CipherTableRow>& rows, const results::System& base,
                                    size_t block_size, std::vector<std::string>* skipped) {
  results::ResultFile file;
  file.generated.title = "Kernel cipher implementations";
  file.generated.description = "pts-native workload cipher-table: each cipher through each kernel driver (AF_ALG), " +
                     std::to_string(block_size) + "-byte requests.";
  std::map<std::string, std::vector<std::string>> notes;  // implementation -> "aes-128-cbc: cbc(aes-generic)"
  std::map<std::pair<std::string, std::string>, const CipherTableRow*> kept;  // (implementation, cipher)
  // An implementation's own driver (xts-aes-aesni) before a template over it (xts(ecb(aes-aesni)):
  // fewer layers of templates first, then the order listed.
  auto layers = [](const CipherTableRow& r) { return std::count(r.driver.begin(), r.driver.end(), '('); };
  std::vector<std::string> impl_of;  // by row
  for (const auto& row : rows) impl_of.push_back(ImplementationOf(row.driver));
  for (size_t i = 0; i < rows.size(); ++i) {
    auto [it, made] = kept.emplace(std::pair(impl_of[i], rows[i].cipher), &rows[i]);
    if (!made && layers(rows[i]) < layers(*it->second)) it->second = &rows[i];
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const CipherTableRow& row = rows[i];
    const std::string& impl = impl_of[i];
    if (const CipherTableRow* chosen = kept[{impl, row.cipher}]; chosen != &row) {
      if (skipped) skipped->push_back(row.cipher + " " + row.driver + " (" + impl + ": " + chosen->driver + ")");
      continue;
    }
    if (!notes.count(impl)) {
      results::System s = base;
      s.identifier = impl;
      file.systems.push_back(s);
    }
    notes[impl].push_back(row.cipher + ": " + row.driver);
  }
  for (auto& s : file.systems) s.notes = "Kernel cipher drivers (AF_ALG): " + Join(notes[s.identifier], ", ") + ".";
  for (const char* direction : {"encrypt", "decrypt"}) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const CipherTableRow& row = rows[i];
      if (kept.at({impl_of[i], row.cipher}) != &row) continue;
      const auto& trials = std::string(direction) == "encrypt" ? row.encrypt : row.decrypt;
      const std::string args = "--cipher " + row.cipher + " --direction " + direction + " --block-size " +
                               std::to_string(block_size) + " --backend kernel";
      auto result = std::find_if(file.results.begin(), file.results.end(),
                                 [&](const results::Result& r) { return r.arguments == args; });
      if (result == file.results.end()) {
        results::Result r;
        r.identifier = "native/cipher-1.0.0";
        r.title = "Native Cipher Throughput";
        r.app_version = "1.0";
        r.arguments = args;
        r.description = "Cipher: " + Upper(row.cipher) + " - Direction: " + (direction[0] == 'e' ? "Encrypt" : "Decrypt") +
                        " - Block Size: " + std::to_string(block_size) + " Bytes - Backend: Kernel Crypto API (AF_ALG)";
        r.scale = "MiB/s";
        r.proportion = "HIB";
        file.results.push_back(r);
        result = file.results.end() - 1;
      }
      std::string raw;
      for (double t : trials) raw += (raw.empty() ? "" : ":") + results::PhpNumberFormat(t, 2);
      result->entries.push_back({impl_of[i], results::PhpNumberFormat(results::Mean(trials), 2), raw,
                                 std::nullopt});
    }
  }
  return file;
}

}  // namespace ptsn::workloads
