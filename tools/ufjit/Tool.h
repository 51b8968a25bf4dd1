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

/// What each exit code means, for the man page's EXIT STATUS section (one
/// table, so a new code is documented where it is declared).
struct ExitCodeDoc {
  ExitCode code;
  const char *meaning;
};
inline constexpr ExitCodeDoc kExitCodes[] = {
    {ExitCode::Ok, "success"},
    {ExitCode::SourceError,
     "a source, shape, dtype or input error (diagnostics on standard error), an unreadable or unwritable file"},
    {ExitCode::UsageError, "a usage error: an unknown verb or option, a missing or malformed argument"},
    {ExitCode::DeviceError, "a device error: no GPU for --target cuda, a failing driver call"},
};

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

/// The --link files of compile and run as the library wants them: a path on
/// the command line is relative to the current folder, as every path there
/// is, while the library finds relative link paths in the source's folder.
std::vector<std::string> link_paths_from_cwd(const std::vector<std::string> &paths);

/// The help of the --link option of compile and run (repeatable).
inline constexpr const char *kLinkHelp =
    "a CUDA C++ file (.cu, .ptx, .cubin, .ltoir, .fatbin) defining declare_device functions, linked as if named "
    "in every @vectorize's link=[...] (relative to the current folder); repeatable";
/// The help of the --devices option of run and launch.
inline constexpr const char *kDevicesHelp =
    "the CUDA devices to compute on: 'all' or ordinals '0,1' (default: one device). A run of host arrays of "
    "2^20 elements or more is split across them (UFJIT_DEVICES, when set, wins)";
/// The help of the --nvrtc-option option of compile and run (repeatable).
inline constexpr const char *kNvrtcOptionHelp =
    "an option for NVRTC when it compiles .cu link files, as it is (--nvrtc-option=-DN=4); repeatable";

/// Flushes standard output before exit: a write error there (`> /dev/full`,
/// a closed pipe) is an error (exit 1), not a silently lost result.
ExitCode flush_stdout(ExitCode code);

/// Maps the exception in flight to an exit code and prints it. Call inside a
/// catch(...) block.
ExitCode report_current_exception();

}  // namespace ufjit::tool
