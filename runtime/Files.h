// Reading input files safely (the implementation side of ufjit/files.h).
#pragma once

#include <cstddef>
#include <string>

namespace ufjit::runtime {

/// An open regular file, for reading. Anything else (a directory, FIFO,
/// device) is an InputError at once: O_NONBLOCK keeps the open of a FIFO
/// without a writer from blocking before fstat can refuse it. `what` names
/// what the file should hold, for the message: ".npy arrays".
class RegularFile {
 public:
  RegularFile(const std::string &path, const std::string &what);
  ~RegularFile();
  RegularFile(const RegularFile &) = delete;
  RegularFile &operator=(const RegularFile &) = delete;
  int fd() const { return fd_; }
  std::size_t size() const { return size_; }

 private:
  int fd_ = -1;
  std::size_t size_ = 0;
};

}  // namespace ufjit::runtime
