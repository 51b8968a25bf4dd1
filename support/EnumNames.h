// Names of enumerators as data: a table of {enumerator, name} rows, looked
// up by one helper, in place of a switch whose every case only returns a
// string (STYLE.md: prefer tables to ladders).
#pragma once

#include <cstddef>

namespace ufjit::support {

/// One row of a name table.
template <typename Enum>
struct EnumName {
  Enum value;
  const char *name;
};

/// The name of `value` in `table`, or `fallback` for a value the table
/// lacks (one cast from an out-of-range integer).
template <typename Enum, std::size_t N>
constexpr const char *enum_name(Enum value, const EnumName<Enum> (&table)[N], const char *fallback) {
  for (const EnumName<Enum> &row : table) {
    if (row.value == value) {
      return row.name;
    }
  }
  return fallback;
}

/// The name of `value` in `names`, a table indexed by the enum (made from
/// its X-macro list with UFJIT_ENUM_NAME_STRING), or `fallback` for a value
/// past its end.
template <typename Enum, std::size_t N>
constexpr const char *indexed_name(Enum value, const char *const (&names)[N], const char *fallback) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : fallback;
}

}  // namespace ufjit::support

/// An X-macro callback spelling each enumerator as a string, for the tables
/// of indexed_name: `{UFJIT_FOR_EACH_TOKEN_KIND(UFJIT_ENUM_NAME_STRING)}`.
#define UFJIT_ENUM_NAME_STRING(name, ...) #name,
