// The three backend factories behind MakeSectorCipher (internal to ptsn_workloads).
#pragma once

#include "runner/workloads/cipher.h"

namespace ptsn::workloads {

std::unique_ptr<SectorCipher> MakeOpenSslCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size);
std::unique_ptr<SectorCipher> MakeGcryptCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size);
std::unique_ptr<SectorCipher> MakeKernelCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size,
                                               const std::string& driver);

}  // namespace ptsn::workloads
