#include "runner/reproduce/target_map.h"

#include <algorithm>
#include <functional>

#include "runner/common/strings.h"
#include "runner/sysinfo/phodevi_strings.h"

namespace ptsn::reproduce {

namespace {

bool Has(const std::string& haystack, std::initializer_list<const char*> needles) {
  for (const char* n : needles)
    if (haystack.find(n) != std::string::npos) return true;
  return false;
}

using WhyUnavailable = std::function<std::string(const targets::TargetSpec&)>;

std::string Why(const WhyUnavailable& why_unavailable, const targets::TargetSpec& spec) {
  return why_unavailable ? why_unavailable(spec) : "";
}

// The kind a published system's set-up maps to; eCryptfs where this kernel has it, else fscrypt.
void ChooseKind(TargetProposal& p, const std::string& id, const std::string& text, const WhyUnavailable& why_unavailable) {
  using targets::Kind;
  if (Has(text, {"ecryptfs", "home encryption", "encrypted home"})) {
    p.spec.kind = Kind::kEcryptfs;
    p.reason = "eCryptfs";
    if (std::string why = Why(why_unavailable, p.spec); !why.empty()) {
      p.spec.kind = Kind::kFscrypt;
      p.reason = "eCryptfs -> fscrypt (the kernel's file-system encryption that succeeded it; no eCryptfs here: " +
                 why + ")";
    }
  } else if (Has(text, {"fscrypt", "file-based encryption"})) {
    p.spec.kind = Kind::kFscrypt;
    p.reason = "fscrypt";
  } else if (Has(text, {"dmcrypt", "dm-crypt", "luks", "full-disk encryption", "full disk encryption",
                        "disk encryption", "encrypted lvm", "whole-disk"})) {
    p.spec.kind = Kind::kDmCrypt;
    p.reason = "dm-crypt";
  } else {
    p.spec.kind = Kind::kPlain;
    p.reason = Has(id, {"no encryption", "unencrypted", "plain"}) ? "no encryption -> plain" : "no encryption named -> plain";
  }
}

// "Stock" asks for the generic AES, "AES-NI" for the accelerated driver, each where this
// machine can give it; where it cannot, the kernel's choice with a caveat saying so.
void ChooseImplementation(TargetProposal& p, const std::string& id, const WhyUnavailable& why_unavailable) {
  if (p.spec.kind == targets::Kind::kPlain) return;
  bool stock = Has(id, {"stock", "generic", "no aes-ni", "without aes-ni", "aes-ni off"});
  bool aesni = !stock && Has(id, {"aes-ni", "aesni"});
  if (!stock && !aesni) return;
  targets::TargetSpec chosen = p.spec;
  chosen.impl = stock ? "generic" : "aesni";
  // (A kind that cannot be made at all keeps the choice: the plan marks it unavailable.)
  if (std::string why = Why(why_unavailable, chosen); !why.empty() && Why(why_unavailable, p.spec).empty()) {
    p.caveat = std::string(stock ? "stock" : "AES-NI") + " cannot be chosen here (" + why + "): runs with the kernel's choice";
    return;
  }
  p.spec = chosen;
  if (p.spec.kind == targets::Kind::kDmCrypt)
    p.reason += stock ? ", stock -> the generic AES (capi:xts(ecb(aes-generic)))" : ", AES-NI -> capi:xts-aes-aesni";
  else
    p.reason += stock ? ", stock -> the generic AES (the AES-NI drivers lowered while its trials run)"
                      : ", AES-NI -> the kernel's AES-NI driver, checked before each trial";
}

TargetProposal Propose(const results::System& s, const WhyUnavailable& why_unavailable) {
  TargetProposal p;
  p.published = s.identifier;
  std::string id = ToLower(s.identifier);
  ChooseKind(p, id, id + " " + ToLower(s.software) + " " + ToLower(s.notes.value_or("")), why_unavailable);
  std::string fs = ToLower(sysinfo::ComponentValue(s.software, "File-System"));
  fs = fs.substr(0, fs.find(' '));
  if (fs == "xfs" || fs == "btrfs") {
    if (p.spec.kind == targets::Kind::kFscrypt) p.caveat = fs + " -> ext4 (fscrypt)";
    else p.spec.fs = fs;
  } else if (!fs.empty() && fs != "ext4" && fs != "ecryptfs") {
    p.caveat = "file system " + fs + " -> ext4";
  }
  std::string fs_caveat = p.caveat;
  p.caveat.clear();
  ChooseImplementation(p, id, why_unavailable);
  if (!fs_caveat.empty()) p.caveat += std::string(p.caveat.empty() ? "" : "; ") + fs_caveat;
  return p;
}

}  // namespace

TargetMapping ProposeTargets(const results::ResultFile& file,
                             const std::function<std::string(const targets::TargetSpec&)>& why_unavailable) {
  TargetMapping m;
  for (const auto& s : file.systems) m.proposals.push_back(Propose(s, why_unavailable));
  bool has_plain = std::any_of(m.proposals.begin(), m.proposals.end(),
                               [](const TargetProposal& p) { return p.spec.kind == targets::Kind::kPlain; });
  if (!has_plain) {
    TargetProposal reference;
    reference.reason = "added: the unencrypted reference the others are compared with";
    m.proposals.insert(m.proposals.begin(), reference);
  }
  std::vector<std::string> seen;
  for (auto& p : m.proposals) {
    p.unavailable = why_unavailable ? why_unavailable(p.spec) : "";
    std::string id = p.spec.Identifier();
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    if (p.unavailable.empty()) m.targets.push_back(p.spec);
    else m.unavailable.push_back(id + ": " + p.unavailable);
  }
  // The reference first: a plain target mapped from a published system moves to the front.
  std::stable_partition(m.targets.begin(), m.targets.end(),
                        [](const targets::TargetSpec& t) { return t.kind == targets::Kind::kPlain; });
  return m;
}

std::vector<std::vector<std::string>> PublishedSystemsOf(const TargetMapping& mapping,
                                                         const std::vector<targets::TargetSpec>& targets) {
  std::vector<std::vector<std::string>> out;
  for (const auto& t : targets) {
    out.emplace_back();
    for (const auto& p : mapping.proposals)
      if (!p.published.empty() && p.spec.Identifier() == t.Identifier()) out.back().push_back(p.published);
  }
  return out;
}

std::string FormatTargetMapping(const TargetMapping& m) {
  size_t width = 0;
  for (const auto& p : m.proposals) width = std::max(width, p.published.size());
  std::string out = "Targets (--targets auto), from the published systems:\n";
  for (const auto& p : m.proposals) {
    std::string name = p.published.empty() ? "(reference)" : p.published;
    name.resize(std::max(width, name.size()), ' ');
    out += "  " + name + "  ->  " + p.spec.Identifier() + "  (" + p.reason + ")";
    if (!p.caveat.empty()) out += "; " + p.caveat;
    if (!p.unavailable.empty()) out += "; NOT AVAILABLE HERE: " + p.unavailable;
    out += "\n";
  }
  std::vector<std::string> ids;
  for (const auto& t : m.targets) ids.push_back(t.Identifier());
  out += "Will create " + std::to_string(m.targets.size()) + " target" + (m.targets.size() == 1 ? "" : "s") +
         (ids.empty() ? "" : ": " + Join(ids, ", ")) + "\n";
  return out;
}

}  // namespace ptsn::reproduce
