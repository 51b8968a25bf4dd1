// ufjit public API: reading and writing files without losing anything.
//
// The rules every file ufjit reads or writes follows (the `ufjit` tool's
// inputs and outputs, load_npy, save_npy):
//
// Reading: a regular file only. A directory, FIFO or device is refused at
// once (never read, never waited on), and what is read is bounded by what
// the file declares or by a cap.
//
// Writing (OutputFile):
//   - a regular file, or a new path: a temporary file in the target's own
//     directory, fsync, then rename over it on commit(); an existing file
//     keeps its mode (and owner, where we may set it); a file without write
//     permission is refused (and kept), as `cp` would;
//   - a symlink: resolved, and its target written as above (the link stays
//     a link);
//   - not a regular file (/dev/stdout, /dev/full, a FIFO, a tty): opened
//     and written directly, never replaced; write errors (ENOSPC) are errors;
//   - a directory, or a path whose directory does not exist: refused before
//     anything is written.
// Nothing is renamed before commit(); an OutputFile destroyed uncommitted
// removes its temporary file, so a failure leaves no partial output.
#pragma once

#include <cstddef>
#include <string>

#include "ufjit/export.h"

namespace ufjit {

/// The largest .ufn source read (64 MiB), by the tool and Runtime::load_file:
/// far beyond any real source, and a bound on what a wrong path (a huge
/// file) can make us allocate.
constexpr std::size_t kMaxSourceBytes = std::size_t{64} << 20;

/// Reads a whole regular file of at most `max_bytes` (a .ufn source, for
/// the tool). A larger file is refused too. `what` names what the file
/// should hold in messages (".ufn sources"). Throws InputError naming the path.
UFJIT_API std::string read_regular_file(const std::string &path, std::size_t max_bytes, const std::string &what);

/// Reads a .ufn source as the tool and Runtime::load_file do: a regular file
/// of at most kMaxSourceBytes. Throws InputError naming the path.
UFJIT_API std::string read_source_file(const std::string &path);

/// One output file under the rules above.
class UFJIT_API OutputFile {
 public:
  /// Checks `path` (a directory, a missing directory, a read-only file are
  /// InputErrors); opens nothing yet.
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// Appends bytes (opening the temporary file or the stream on first use).
  /// Throws InputError naming the path and the system's reason.
  void write(const void *data, std::size_t bytes);
  /// Flushes and closes (fsync for a temporary file), but renames nothing
  /// yet: commit() does, so that a second output can still fail first.
  void finish();
  /// Renames the temporary file into place (finish() first if needed).
  void commit();

  /// True for a device, FIFO or open file written through (no rename).
  bool writes_through() const { return stream_; }

 private:
  void open();

  std::string path_;     // as given (for messages)
  std::string target_;   // the file to replace (symlinks resolved)
  bool stream_ = false;  // write through: not a regular file
  bool exists_ = false;  // target_ is an existing regular file
  unsigned mode_ = 0;    // an existing file's mode, which the result keeps
  unsigned uid_ = 0;
  unsigned gid_ = 0;
  std::string temp_;  // the temporary file, while there is one
  int fd_ = -1;
  bool finished_ = false;
};

}  // namespace ufjit
