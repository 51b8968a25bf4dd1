// What a `--in` argument of `ufjit run` (or an `--arg` of `ufjit launch`)
// is: a weak scalar or a .npy file.
//
// The rule: a Python number literal is a number, anything else a path.
// Numbers are Python's: `2`, `-3`, `+7` (int64), `2.5`, `1e3`, `.5`, `nan`,
// `inf`, `-inf`, `+inf`, `infinity` (float, any case), `2j`, `1+2j`, `nanj`,
// `(1-2j)` (complex), `True`/`False` (bool). Numbers win over files: to
// read a file named `2` or `nan`, write `./2`; anything with a '/' is a
// path. A list or tuple literal (`[1,2]`) is a usage error pointing to .npy
// files: one --in is one operand, never split.
#pragma once

#include <optional>
#include <string>

#include "ufjit/runtime.h"

namespace ufjit::tool {

/// The scalar `text` denotes, or nothing when it is not a number literal
/// (then it is a path). Throws UsageError for a list or tuple literal and
/// ufjit::InputError for an integer beyond int64; `option` names the
/// option in those messages.
std::optional<Operand> parse_scalar(const std::string &text, const std::string &option = "--in");

}  // namespace ufjit::tool
