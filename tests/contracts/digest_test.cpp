// SHA-256 digests against the FIPS 180-2 test vectors, whole and in pieces, and the 64-bit seed
// prefix that case seeds come from.
#include "common/digest.h"

#include <gtest/gtest.h>

#include <string>

namespace samebits {
namespace {

struct Vector {
  std::string name;
  std::string message;
  std::string digest;
};
void PrintTo(const Vector& p, std::ostream* os) {
  *os << p.name;
}

class Sha256Test : public ::testing::TestWithParam<Vector> {};

TEST_P(Sha256Test, Whole) {
  EXPECT_EQ(sha256_hex(GetParam().message), GetParam().digest);
}

TEST_P(Sha256Test, InPieces) {
  const std::string& m = GetParam().message;
  Sha256 h;
  const std::size_t half = m.size() / 2;
  h.update(m.data(), half);
  h.update(m.data() + half, m.size() - half);
  EXPECT_EQ(h.hex(), GetParam().digest);
}

const Vector kVectors[] = {
    {"Empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"Abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"TwoBlocks", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

INSTANTIATE_TEST_SUITE_P(Fips180, Sha256Test, ::testing::ValuesIn(kVectors),
                         [](const ::testing::TestParamInfo<Vector>& info) {
                           return info.param.name;
                         });

TEST(Sha256Prefix, IsTheFirstEightBytesBigEndian) {
  EXPECT_EQ(sha256_prefix64("abc"), 0xba7816bf8f01cfeaULL);
}

TEST(Sha256Prefix, BinaryBytesCount) {
  const std::string with_nul("a\0b", 3);
  EXPECT_NE(sha256_hex(with_nul), sha256_hex(std::string("a")));
  EXPECT_EQ(sha256_hex(with_nul.data(), with_nul.size()), sha256_hex(with_nul));
}

}  // namespace
}  // namespace samebits
