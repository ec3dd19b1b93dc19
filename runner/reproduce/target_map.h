// `run <ID> --targets auto`: the storage set-ups a published result compared, read from its
// systems' identifiers, software strings and notes, turned into targets this machine can make:
// eCryptfs / home encryption -> eCryptfs (fscrypt, the kernel's file-system encryption that
// succeeded it, where this kernel has no eCryptfs, with the reason), dm-crypt / LUKS / LVM /
// full-disk encryption -> dm-crypt, no encryption -> plain; "Stock"/"generic" asks for the
// generic AES and "AES-NI" for the accelerated driver (impl=), each where this machine can give
// it, else the kernel's choice with a caveat; the file system from "File-System:". Systems that map to the same target share it. When no published system is
// unencrypted, a plain target comes first as the reference the others are compared with.
// Pure: what this machine can create is asked through `why_unavailable`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/targets/target_spec.h"

namespace ptsn::reproduce {

struct TargetProposal {
  std::string published;       // the published System identifier ("" for the added reference)
  targets::TargetSpec spec;    // what stands for it here
  std::string reason;          // "eCryptfs -> fscrypt", "no encryption named -> plain"
  std::string caveat;          // what the target cannot match ("" = none)
  std::string unavailable;     // why it cannot be made here ("" = it can)
};

struct TargetMapping {
  std::vector<TargetProposal> proposals;    // one per published system, plus the reference
  std::vector<targets::TargetSpec> targets;  // the distinct available targets, reference first
  std::vector<std::string> unavailable;      // distinct targets that cannot be made here, with why
};

TargetMapping ProposeTargets(const results::ResultFile& file,
                             const std::function<std::string(const targets::TargetSpec&)>& why_unavailable);

// The published systems each of `targets` stands for (the proposals made for it), in order.
std::vector<std::vector<std::string>> PublishedSystemsOf(const TargetMapping& mapping,
                                                         const std::vector<targets::TargetSpec>& targets);

// The mapping as the plan shows it.
std::string FormatTargetMapping(const TargetMapping& mapping);

}  // namespace ptsn::reproduce
