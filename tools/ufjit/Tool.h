// Shared pieces of the `ufjit` command-line tool: exit codes and the one
// diagnostic printer. Only tools/ may exit the process.
#pragma once

#include <string>

namespace ufjit::tool {

/// DESIGN.md "The ufjit tool": 0 ok, 1 a source or input error, 2 a usage
/// error, 3 a device error.
enum class ExitCode : int { Ok = 0, SourceError = 1, UsageError = 2, DeviceError = 3 };

/// Prints "ufjit: error: <message>" to stderr.
void print_error(const std::string &message);

/// Reads a whole file; throws ufjit::InputError naming the path on failure.
std::string read_file(const std::string &path);

/// Writes `bytes` to `path` atomically (temp file in the same directory, then
/// rename), so a failure never leaves a partial file. Throws ufjit::InputError.
void write_file_atomically(const std::string &path, const std::string &bytes);

/// Maps the exception in flight to an exit code and prints it. Call inside a
/// catch(...) block.
ExitCode report_current_exception();

}  // namespace ufjit::tool
