// SHA-256 digests (OpenSSL's libcrypto) of byte strings, as lowercase hex.
// Used for contract files, tensor outputs and per-case seeds alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace samebits {

std::string sha256_hex(const void* data, std::size_t size);

// Incremental SHA-256 for data that arrives in pieces (a header, then a tensor's bytes).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  std::string hex();  // finishes the digest

 private:
  void* ctx_;  // EVP_MD_CTX
};
inline std::string sha256_hex(const std::string& bytes) {
  return sha256_hex(bytes.data(), bytes.size());
}

// The first 8 bytes of SHA-256(text), as an integer: a stable seed from a name.
std::uint64_t sha256_prefix64(const std::string& text);

}  // namespace samebits
