// Shared pieces of the `ufjit` command-line tool: exit codes and the one
// diagnostic printer. Only tools/ may exit the process.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ufjit::tool {

/// DESIGN.md "The ufjit tool": 0 ok, 1 a source or input error, 2 a usage
/// error, 3 a device error.
enum class ExitCode : int { Ok = 0, SourceError = 1, UsageError = 2, DeviceError = 3 };

/// Prints "ufjit: error: <message>" to stderr.
void print_error(const std::string &message);

/// A command line that asks for something impossible (an output that is one
/// of the inputs): exit 2, like CLI11's own parse errors.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Refuses, before anything runs, an output path that is the same file as
/// one of `inputs` (device + inode, so through symlinks and hard links too):
/// `ufjit compile g.ufn -o g.ufn` would destroy its own source. Throws
/// UsageError. Paths that do not exist are skipped.
void check_not_an_input(const std::string &output, const std::vector<std::string> &inputs);

/// Flushes standard output before exit: a write error there (`> /dev/full`,
/// a closed pipe) is an error (exit 1), not a silently lost result.
ExitCode flush_stdout(ExitCode code);

/// Maps the exception in flight to an exit code and prints it. Call inside a
/// catch(...) block.
ExitCode report_current_exception();

}  // namespace ufjit::tool
