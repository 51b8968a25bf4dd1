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

}  // namespace ufjit::support
