// The disk cache's source indexes (runtime/cache/SourceIndex.h).
#include "runtime/cache/SourceIndex.h"

#include <optional>

namespace ufjit::cache {

namespace {

constexpr std::size_t kKeyDigits = 32;

std::optional<uint64_t> parse_hex_word(std::string_view digits) {
  uint64_t value = 0;
  for (char c : digits) {
    int v = 0;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    value = (value << 4) | static_cast<uint64_t>(v);
  }
  return value;
}

/// "<32 hex digits> <entry>", the format KeyHash::hex() writes.
std::optional<IndexedCubin> parse_line(std::string_view line) {
  if (line.size() < kKeyDigits + 2 || line[kKeyDigits] != ' ') {
    return std::nullopt;
  }
  std::optional<uint64_t> high = parse_hex_word(line.substr(0, kKeyDigits / 2));
  std::optional<uint64_t> low = parse_hex_word(line.substr(kKeyDigits / 2, kKeyDigits / 2));
  std::string_view entry = line.substr(kKeyDigits + 1);
  if (!high || !low || entry.find_first_of(" \t\r") != std::string_view::npos) {
    return std::nullopt;
  }
  return IndexedCubin{KeyHash{*low, *high}, std::string(entry)};
}

std::string line_of(const IndexedCubin &cubin) { return cubin.key.hex() + " " + cubin.entry + "\n"; }

}  // namespace

std::vector<IndexedCubin> parse_source_index(std::string_view text) {
  std::vector<IndexedCubin> cubins;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (std::optional<IndexedCubin> cubin = parse_line(line)) {
      cubins.push_back(std::move(*cubin));
    }
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return cubins;
}

std::optional<std::string> add_to_source_index(std::string_view text, const IndexedCubin &cubin) {
  std::vector<IndexedCubin> cubins = parse_source_index(text);
  for (const IndexedCubin &listed : cubins) {
    if (listed.key == cubin.key && listed.entry == cubin.entry) {
      return std::nullopt;
    }
  }
  cubins.push_back(cubin);
  const std::size_t first = cubins.size() > kSourceIndexEntries ? cubins.size() - kSourceIndexEntries : 0;
  std::string out;
  for (std::size_t i = first; i < cubins.size(); ++i) {
    out += line_of(cubins[i]);
  }
  return out;
}

}  // namespace ufjit::cache
