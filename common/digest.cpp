// SHA-256 digests (OpenSSL's libcrypto) of byte strings, as lowercase hex.
// Used for contract files, tensor outputs and per-case seeds alike.
#include "common/digest.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace samebits {
namespace {

std::array<unsigned char, 32> sha256_raw(const void* data, std::size_t size) {
  std::array<unsigned char, 32> out{};
  unsigned int length = 0;
  if (EVP_Digest(data, size, out.data(), &length, EVP_sha256(), nullptr) != 1 || length != 32) {
    throw std::runtime_error("OpenSSL EVP_Digest(sha256) failed");
  }
  return out;
}

std::string to_hex(const unsigned char* raw, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    hex.push_back(digits[raw[i] >> 4]);
    hex.push_back(digits[raw[i] & 15]);
  }
  return hex;
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
    throw std::runtime_error("OpenSSL EVP_DigestInit_ex(sha256) failed");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void Sha256::update(const void* data, std::size_t size) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size) != 1) {
    throw std::runtime_error("OpenSSL EVP_DigestUpdate failed");
  }
}

std::string Sha256::hex() {
  unsigned char raw[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), raw, &length) != 1) {
    throw std::runtime_error("OpenSSL EVP_DigestFinal_ex failed");
  }
  return to_hex(raw, length);
}

std::string sha256_hex(const void* data, std::size_t size) {
  const auto raw = sha256_raw(data, size);
  return to_hex(raw.data(), raw.size());
}

std::uint64_t sha256_prefix64(const std::string& text) {
  const auto raw = sha256_raw(text.data(), text.size());
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | raw[i];
  return v;
}

}  // namespace samebits
