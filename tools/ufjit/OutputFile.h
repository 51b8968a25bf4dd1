// Every file the `ufjit` tool writes (compile's module and manifest, run's
// .npy result) goes through OutputFile, so that no verb can replace what it
// should write through, or lose what it should keep:
//
//   - a regular file, or a new path: a temporary file in the target's own
//     directory, fsync, then rename over it on commit(); an existing file
//     keeps its mode (and owner, where we may set it); a file without write
//     permission is refused, as `cp` would;
//   - a symlink: resolved, and its target is written as above (the link
//     stays a link);
//   - not a regular file (/dev/stdout, /dev/full, a FIFO, a tty): opened and
//     written directly, never replaced; write errors (ENOSPC) are errors;
//   - the same file as an input (device + inode, so through links too), a
//     directory, or a path whose directory does not exist: refused before
//     anything is computed or written.
//
// Nothing is renamed before commit(); an OutputFile destroyed uncommitted
// removes its temporary file, so a failed command leaves no partial output.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ufjit::tool {

class OutputFile {
 public:
  /// Checks `path` against the rules above and against every file in
  /// `inputs` (paths that do not exist are skipped). Throws UsageError
  /// (same file as an input) or ufjit::InputError (directory, missing
  /// directory, read-only file). Opens nothing yet.
  OutputFile(std::string path, const std::vector<std::string> &inputs);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// Appends bytes (opening the temporary file or the stream on first use).
  /// Throws ufjit::InputError naming the path and the system's reason.
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

  std::string path_;     // as the user gave it (for messages)
  std::string target_;   // the file to replace (symlinks resolved)
  bool stream_ = false;  // write through: not a regular file
  bool exists_ = false;  // target_ is an existing regular file
  unsigned mode_ = 0;    // the mode the result gets
  unsigned uid_ = 0;
  unsigned gid_ = 0;
  std::string temp_;  // the temporary file, while there is one
  int fd_ = -1;
  bool finished_ = false;
};

}  // namespace ufjit::tool
