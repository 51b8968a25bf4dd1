#include "support/Settings.h"

#include <cctype>
#include <cstdlib>
#include <limits>

#include "ufjit/errors.h"

namespace ufjit::support {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char &c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

[[noreturn]] void refuse(const char *name, const std::string &value, const std::string &accepted) {
  throw InputError(std::string(name) + "='" + value + "' is not valid: " + name + " takes " + accepted +
                   " (unset it for the default)");
}

/// A whole decimal number without sign, or nullopt (also on overflow).
std::optional<uint64_t> parse_whole(std::string_view digits) {
  if (digits.empty()) {
    return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

constexpr const char *kSwitchWords = "1, on, true or yes (on) or 0, off, false or no (off), in any case";

}  // namespace

std::optional<std::string> setting_text(const char *name) {
  const char *env = std::getenv(name);
  if (env == nullptr) {
    return std::nullopt;
  }
  const std::string_view text = trimmed(env);
  if (text.empty()) {
    return std::nullopt;
  }
  return std::string(text);
}

std::optional<bool> parse_switch(std::string_view text) {
  const std::string word = lower(trimmed(text));
  if (word == "1" || word == "on" || word == "true" || word == "yes") {
    return true;
  }
  if (word == "0" || word == "off" || word == "false" || word == "no") {
    return false;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_size(std::string_view text) {
  std::string number = lower(trimmed(text));
  if (!number.empty() && number.back() == 'b') {
    number.pop_back();
  }
  unsigned shift = 0;
  if (!number.empty()) {
    switch (number.back()) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      default: break;
    }
  }
  if (shift != 0) {
    number.pop_back();
  }
  const std::optional<uint64_t> value = parse_whole(number);
  if (!value || *value > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return std::nullopt;
  }
  return *value << shift;
}

namespace {

/// The setting `name` as `parse` reads it: nothing when unset; a refusal
/// that names what is `accepted` when `parse` rejects the text.
template <typename T>
std::optional<T> read_parsed(const char *name, std::optional<T> (*parse)(std::string_view),
                             const char *accepted) {
  const std::optional<std::string> text = setting_text(name);
  if (!text) {
    return std::nullopt;
  }
  const std::optional<T> value = parse(*text);
  if (!value) {
    refuse(name, *text, accepted);
  }
  return value;
}

}  // namespace

std::optional<bool> read_optional_switch(const char *name) {
  return read_parsed(name, parse_switch, kSwitchWords);
}

bool read_switch(const char *name, bool fallback) { return read_optional_switch(name).value_or(fallback); }

std::optional<uint64_t> read_size(const char *name) {
  return read_parsed(
      name, parse_size,
      "a whole number of bytes, not negative, optionally with K, M, G or T (1K = 1024), below 2^64");
}

std::optional<int64_t> read_count(const char *name, int64_t lo, int64_t hi) {
  const std::optional<std::string> text = setting_text(name);
  if (!text) {
    return std::nullopt;
  }
  const std::optional<uint64_t> value = parse_whole(*text);
  if (!value || *value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
      static_cast<int64_t>(*value) < lo || static_cast<int64_t>(*value) > hi) {
    refuse(name, *text, "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return static_cast<int64_t>(*value);
}

std::optional<std::string> read_choice(const char *name, std::initializer_list<std::string_view> choices) {
  const std::optional<std::string> text = setting_text(name);
  if (!text) {
    return std::nullopt;
  }
  const std::string word = lower(*text);
  std::string accepted;
  for (std::string_view choice : choices) {
    if (word == choice) {
      return std::string(choice);
    }
    accepted += accepted.empty() ? "" : ", ";
    accepted += choice;
  }
  refuse(name, *text, "one of " + accepted + " (any case)");
}

int debug_level() {
  return static_cast<int>(read_count("UFJIT_DEBUG", 0, 3).value_or(0));
}

void check_settings() {
  for (const char *name : {"UFJIT_CACHE", "UFJIT_TIERING", "UFJIT_WARMUP", "UFJIT_PREFETCH", "UFJIT_DONE_FLAGS",
                           "UFJIT_LIBDEVICE_SLICES", "NUMBA_BOUNDSCHECK", "UFJIT_CHECK"}) {
    (void)read_optional_switch(name);
  }
  for (const char *name : {"UFJIT_CACHE_MAX_BYTES", "UFJIT_CPU_STREAM_BYTES"}) {
    (void)read_size(name);
  }
  (void)read_count("UFJIT_DEVICE", 0, std::numeric_limits<int>::max());
  (void)debug_level();
  (void)read_choice("UFJIT_TARGET", {"cpu", "cuda"});
  (void)read_choice("UFJIT_CPU_VECTOR_MATH", {"auto", "none", "sleef", "libmvec"});
}

}  // namespace ufjit::support
