// Settings from the environment (the UFJIT_* variables, and Numba's
// NUMBA_BOUNDSCHECK): one parser, so that every variable accepts the same
// spellings and refuses junk with the same kind of error.
// docs/guide/caches.md lists them.
//
// Rules, for every variable:
//   - unset or empty: the default;
//   - a switch is on for 1, on, true, yes and off for 0, off, false, no, in
//     any case and with surrounding blanks;
//   - a size is a whole number of bytes, optionally with K, M, G or T
//     (binary: 1K = 1024) and an optional B; negative, fractional or
//     overflowing values are refused;
//   - a count is a whole number in the variable's range;
//   - a choice is one of its words, in any case;
//   - anything else is an InputError naming the variable, its value and what
//     it accepts. A Runtime reads every setting when it is made
//     (check_settings), so junk is reported there, whatever the machine has.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ufjit::support {

/// The variable's value with surrounding blanks removed; nullopt when unset
/// or empty.
std::optional<std::string> setting_text(const char *name);

/// An on/off switch; `fallback` when unset.
bool read_switch(const char *name, bool fallback);
/// A switch with no default (NUMBA_BOUNDSCHECK): nullopt when unset.
std::optional<bool> read_optional_switch(const char *name);

/// A number of bytes (K/M/G/T suffixes); nullopt when unset.
std::optional<uint64_t> read_size(const char *name);

/// A whole number in [lo, hi]; nullopt when unset.
std::optional<int64_t> read_count(const char *name, int64_t lo, int64_t hi);

/// One of `choices` (lower case), returned as written there; nullopt when unset.
std::optional<std::string> read_choice(const char *name, std::initializer_list<std::string_view> choices);

/// Parses the text of a switch or a size (what the readers above apply to a
/// variable's value): nullopt when it is not one. For tests and for values
/// that come from elsewhere than the environment.
std::optional<bool> parse_switch(std::string_view text);
std::optional<uint64_t> parse_size(std::string_view text);

/// Reads every setting ufjit knows, so that junk in any of them is an
/// InputError now rather than when (or whether) the feature is reached.
void check_settings();

/// UFJIT_DEBUG: how much the compile driver and the runtime log to stderr
/// (0: nothing, 1..3: more).
int debug_level();

}  // namespace ufjit::support
