#include "runner/targets/crypto_info.h"

#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::targets {

std::vector<CryptoAlgorithm> ParseProcCrypto(std::string_view text) {
  std::vector<CryptoAlgorithm> out;
  CryptoAlgorithm current;
  bool open = false;
  auto flush = [&] {
    if (open && !current.name.empty()) out.push_back(current);
    current = CryptoAlgorithm{};
    open = false;
  };
  for (const auto& raw : Split(text, '\n')) {
    std::string line = Trim(raw);
    if (line.empty()) {
      flush();
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    open = true;
    if (key == "name") current.name = value;
    else if (key == "driver") current.driver = value;
    else if (key == "module") current.module = value;
    else if (key == "type") current.type = value;
    else if (key == "priority") current.priority = std::atoi(value.c_str());
    else if (key == "selftest") current.selftest_passed = value == "passed";
  }
  flush();
  return out;
}

const CryptoAlgorithm* PreferredDriver(const std::vector<CryptoAlgorithm>& all, std::string_view name) {
  const CryptoAlgorithm* best = nullptr;
  for (const auto& a : all)
    if (a.name == name && a.selftest_passed && (!best || a.priority > best->priority)) best = &a;
  return best;
}

const CryptoAlgorithm* DriverInUse(const std::vector<CryptoAlgorithm>& all, std::string_view name,
                                   std::string_view hint) {
  if (!hint.empty())
    for (const auto& a : all)
      if (a.name == name && a.driver.find(hint) != std::string::npos) return &a;
  return PreferredDriver(all, name);
}

std::string AesCipherDrivers(const std::vector<CryptoAlgorithm>& all) {
  std::vector<std::string> names;
  for (const auto& a : all)
    if (a.name == "aes" && a.type == "cipher") names.push_back(a.driver);
  return names.empty() ? "none" : Join(names, ", ");
}

Implementation ResolveImplementation(const std::vector<CryptoAlgorithm>& all, const std::string& impl) {
  Implementation r;
  if (impl.empty()) return r;
  auto find = [&](std::string_view name, std::string_view driver) -> const CryptoAlgorithm* {
    for (const auto& a : all)
      if (a.name == name && a.driver == driver) return &a;
    return nullptr;
  };
  std::string word = impl == "generic" ? "aes-generic" : impl;
  if (impl == "aesni") {
    if (find("xts(aes)", "xts-aes-aesni")) return {"xts-aes-aesni", "xts-aes-aesni", ""};
    word = "aes-aesni";
  }
  if (find("xts(aes)", word)) return {word, word, ""};
  if (find("aes", word)) return {"xts(" + word + ")", word, ""};
  r.error = "no AES driver " + word + " in /proc/crypto (aes cipher drivers here: " + AesCipherDrivers(all) + ")";
  if (impl == "aesni") r.error += "; the aesni_intel module is not loaded or not built";
  return r;
}

}  // namespace ptsn::targets
