#include "runner/targets/crypto_info.h"

#include <algorithm>
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
    else if (key == "internal") current.internal = value == "yes";
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

std::vector<std::string> KernelImplementations(const std::vector<CryptoAlgorithm>& all, const std::string& algorithm) {
  const size_t open = algorithm.find('(');
  if (open == std::string::npos || algorithm.back() != ')') return {};
  const std::string mode = algorithm.substr(0, open), cipher = algorithm.substr(open + 1, algorithm.size() - open - 2);
  std::vector<std::string> out;
  auto add = [&](const std::string& driver) {
    if (std::find(out.begin(), out.end(), driver) == out.end()) out.push_back(driver);
  };
  auto usable = [](const CryptoAlgorithm& a) { return a.selftest_passed && !a.internal; };
  for (const auto& a : all)
    if (a.name == algorithm && a.type == "skcipher" && usable(a)) add(a.driver);
  for (const auto& a : all)
    if (a.name == cipher && a.type == "cipher" && usable(a))
      add(mode == "xts" ? "xts(ecb(" + a.driver + "))" : mode + "(" + a.driver + ")");
  if (mode == "xts")
    for (const auto& a : all)
      if (a.name == "ecb(" + cipher + ")" && a.type == "skcipher" && usable(a) && a.driver.find('(') == std::string::npos)
        add("xts(" + a.driver + ")");
  return out;
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
  // A cipher driver goes under the templates as the kernel composes them: since Linux 4.10 xts
  // wraps an ECB skcipher, and "xts(aes-generic)" is refused (dm-crypt: "Error allocating crypto
  // tfm (-ENOENT)", measured on Debian 12's 6.1); /proc/crypto then lists the instance under
  // the driver name "xts(ecb(aes-generic))".
  if (find("aes", word)) return {"xts(ecb(" + word + "))", word, ""};
  r.error = "no AES driver " + word + " in /proc/crypto (aes cipher drivers here: " + AesCipherDrivers(all) + ")";
  if (impl == "aesni") r.error += "; the aesni_intel module is not loaded or not built";
  return r;
}

std::vector<std::string> AesAlgorithmsOf(bool fscrypt) {
  if (fscrypt) return {"xts(aes)", "cts(cbc(aes))", "aes"};
  return {"cbc(aes)", "ecb(aes)", "aes"};
}

std::string GenericInstanceOf(const std::string& algorithm) {
  if (algorithm == "aes") return "aes-generic";
  if (algorithm == "xts(aes)") return "xts(ecb(aes-generic))";  // xts wraps an ECB skcipher
  std::string out = algorithm;
  out.replace(out.find("(aes)"), 5, "(aes-generic)");
  return out;
}

std::vector<PriorityChange> LowerForGeneric(const std::vector<CryptoAlgorithm>& all,
                                            const std::vector<std::string>& algorithms) {
  std::vector<PriorityChange> out;
  for (const auto& name : algorithms) {
    std::string generic = GenericInstanceOf(name);
    int floor = 100;  // aes-generic's priority, inherited by its instances
    for (const auto& a : all)
      if (a.driver == generic) floor = a.priority;
    for (const auto& a : all) {
      if (a.name != name || a.internal || a.driver == generic || a.priority < floor) continue;
      if (a.driver.find("aes-generic") != std::string::npos) continue;  // another generic instance
      out.push_back({a.driver, a.priority, std::max(0, floor - 90)});
    }
  }
  return out;
}

std::string CheckChosenDrivers(const std::vector<CryptoAlgorithm>& all, const std::vector<std::string>& algorithms,
                               const std::string& family) {
  std::vector<std::string> wrong;
  for (const auto& name : algorithms) {
    const CryptoAlgorithm* a = PreferredDriver(all, name);
    if (!a) wrong.push_back(name + ": no driver");
    else if (a->driver.find(family) == std::string::npos) wrong.push_back(name + ": " + a->driver);
  }
  return wrong.empty() ? "" : "the kernel hands out " + Join(wrong, ", ") + " instead of " + family;
}

}  // namespace ptsn::targets
