// The disk cache's source indexes: the cubins a source ran with, as text
// that parses back, skips what it cannot read, lists each cubin once and
// keeps the newest kSourceIndexEntries (runtime/cache/SourceIndex.h).
#include <gtest/gtest.h>

#include <string>

#include "runtime/cache/SourceIndex.h"

namespace ufjit::cache {
namespace {

IndexedCubin cubin(uint64_t n, const std::string &entry = "f__float32__contig_i32") {
  return IndexedCubin{KeyHash{n, ~n}, entry};
}

TEST(SourceIndex, AddedCubinsParseBackInOrder) {
  std::string text;
  for (uint64_t n = 1; n <= 3; ++n) {
    std::optional<std::string> updated = add_to_source_index(text, cubin(n, "entry" + std::to_string(n)));
    ASSERT_TRUE(updated.has_value());
    text = *updated;
  }
  const std::vector<IndexedCubin> parsed = parse_source_index(text);
  ASSERT_EQ(parsed.size(), 3u) << text;
  for (uint64_t n = 1; n <= 3; ++n) {
    EXPECT_TRUE(parsed[n - 1].key == cubin(n).key) << "line " << n << " of\n" << text;
    EXPECT_EQ(parsed[n - 1].entry, "entry" + std::to_string(n));
  }
}

TEST(SourceIndex, ACubinAlreadyListedChangesNothing) {
  const std::string text = *add_to_source_index("", cubin(7));
  EXPECT_FALSE(add_to_source_index(text, cubin(7)).has_value());
  // The same key with another entry name is another kernel of the cubin.
  EXPECT_TRUE(add_to_source_index(text, cubin(7, "other")).has_value());
}

TEST(SourceIndex, KeepsOnlyTheNewestEntries) {
  std::string text;
  const uint64_t total = kSourceIndexEntries + 5;
  for (uint64_t n = 1; n <= total; ++n) {
    text = *add_to_source_index(text, cubin(n));
  }
  const std::vector<IndexedCubin> parsed = parse_source_index(text);
  ASSERT_EQ(parsed.size(), kSourceIndexEntries);
  EXPECT_TRUE(parsed.front().key == cubin(total - kSourceIndexEntries + 1).key);
  EXPECT_TRUE(parsed.back().key == cubin(total).key);
}

TEST(SourceIndex, LinesThatDoNotParseAreSkipped) {
  const std::string good = cubin(42).key.hex() + " kernel_a\n";
  const std::string text = "not a line\n" + good + std::string(32, 'g') + " kernel_b\n" + cubin(43).key.hex() +
                           "\n" + cubin(44).key.hex() + " two words\n" + cubin(45).key.hex().substr(1) + " short\n" +
                           cubin(46).key.hex() + " last_without_newline";
  const std::vector<IndexedCubin> parsed = parse_source_index(text);
  ASSERT_EQ(parsed.size(), 2u) << text;
  EXPECT_TRUE(parsed[0].key == cubin(42).key);
  EXPECT_EQ(parsed[0].entry, "kernel_a");
  EXPECT_TRUE(parsed[1].key == cubin(46).key);
  EXPECT_EQ(parsed[1].entry, "last_without_newline");
}

TEST(SourceIndex, BinaryGarbageParsesToNothing) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) {
    garbage += static_cast<char>((i * 131 + 17) & 0xff);
  }
  EXPECT_TRUE(parse_source_index(garbage).empty());
  EXPECT_TRUE(parse_source_index("").empty());
  // Adding to a garbage index keeps only what parses: the new cubin.
  const std::vector<IndexedCubin> parsed = parse_source_index(*add_to_source_index(garbage, cubin(9)));
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_TRUE(parsed[0].key == cubin(9).key);
}

}  // namespace
}  // namespace ufjit::cache
