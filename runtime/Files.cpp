// Reading and writing files without losing anything (ufjit/files.h).
#include "ufjit/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "runtime/Files.h"
#include "ufjit/errors.h"

namespace ufjit {
namespace runtime {
namespace {

[[noreturn]] void fail(const std::string &name, const std::string &what) {
  throw InputError(name + ": " + what);
}

/// What a file that is not a regular file is, for messages.
const char *file_kind(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO (named pipe)";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "not a regular file";
  }
}

constexpr int kMaxLinks = 40;  // as the kernel's ELOOP limit

std::string dir_of(const std::string &path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string &path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

[[noreturn]] void cannot_write(const std::string &path, const std::string &why) {
  throw InputError("cannot write '" + path + "': " + why);
}

/// The file a chain of symlinks ends at (which need not exist yet). Sets
/// `magic` when the chain passes through /proc (such as /dev/stdout ->
/// /proc/self/fd/1): such a link names an open file, not a place to rename to.
std::string resolve_links(const std::string &path, bool &magic) {
  std::string current = path;
  for (int i = 0; i < kMaxLinks; ++i) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      return current;
    }
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    const ssize_t n = ::readlink(current.c_str(), target.data(), target.size());
    if (n < 0) {
      cannot_write(path, std::string("cannot read the symlink '") + current + "': " + std::strerror(errno));
    }
    target.resize(static_cast<std::size_t>(n));
    current = target.rfind('/', 0) == 0 ? target : dir_of(current) + "/" + target;
    if (current.rfind("/proc/", 0) == 0) {
      magic = true;
    }
  }
  cannot_write(path, "too many levels of symbolic links");
}

/// Creates a new file `<dir>/.<base>.tmp-NNNNNN` with mode 0666 less the
/// umask, as open(2) applies it (reading the umask with umask(2) would race
/// with other threads of the process). Returns the descriptor, or -1.
int create_temp(const std::string &dir, const std::string &base, std::string &temp) {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "%06x%04x", random() & 0xffffffu, counter++ & 0xffffu);
    temp = dir + "/." + base + ".tmp-" + suffix;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  return -1;
}

}  // namespace

RegularFile::RegularFile(const std::string &path, const std::string &what) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail(path, std::string("cannot stat: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(path, std::string("is ") + file_kind(st.st_mode) + ", not a regular file: ufjit reads " + what +
                   " from regular files only");
  }
  size_ = static_cast<std::size_t>(st.st_size);
}

RegularFile::~RegularFile() { ::close(fd_); }

}  // namespace runtime

using runtime::base_of;
using runtime::cannot_write;
using runtime::create_temp;
using runtime::dir_of;
using runtime::resolve_links;

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) {
    throw InputError("an empty output path: give a file name");
  }
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      cannot_write(path_, "it is a directory; give a file name");
    }
    bool magic = path_.rfind("/dev/", 0) == 0 || path_.rfind("/proc/", 0) == 0;
    target_ = resolve_links(path_, magic);
    if (!S_ISREG(st.st_mode) || magic) {
      stream_ = true;  // a device, FIFO or an open file: write through it
      return;
    }
    if ((st.st_mode & 0222) == 0 || ::access(target_.c_str(), W_OK) != 0) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      cannot_write(path_,
                   std::string("the file is read-only (mode ") + mode +
                       "); ufjit does not replace a file it may not write: make it writable (chmod u+w) or "
                       "choose another output path");
    }
    exists_ = true;
    mode_ = st.st_mode & 07777;
    uid_ = st.st_uid;
    gid_ = st.st_gid;
  } else if (errno == ENOENT) {
    bool magic = false;
    target_ = resolve_links(path_, magic);  // a dangling symlink creates its target
  } else {
    cannot_write(path_, std::strerror(errno));
  }
  const std::string dir = dir_of(target_);
  struct stat dst;
  if (::stat(dir.c_str(), &dst) != 0) {
    cannot_write(path_, "the directory '" + dir + "' " +
                            (errno == ENOENT ? std::string("does not exist; create it first")
                                             : std::string("cannot be reached: ") + std::strerror(errno)));
  }
  if (!S_ISDIR(dst.st_mode)) {
    cannot_write(path_, "'" + dir + "' is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    cannot_write(path_, "cannot create files in the directory '" + dir + "': " + std::strerror(errno));
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
  }
}

void OutputFile::open() {
  if (stream_) {
    // O_APPEND: /dev/stdout redirected to a file opens a new description at
    // offset 0; appending keeps what the shell and we wrote before.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) {
      cannot_write(path_, std::strerror(errno));
    }
    return;
  }
  std::string temp;
  fd_ = create_temp(dir_of(target_), base_of(target_), temp);
  if (fd_ < 0) {
    cannot_write(path_,
                 "cannot create a temporary file in '" + dir_of(target_) + "': " + std::strerror(errno));
  }
  temp_ = temp;
}

void OutputFile::write(const void *data, std::size_t bytes) {
  if (fd_ < 0) {
    open();
  }
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, bytes);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      cannot_write(path_, n < 0 ? std::strerror(errno) : "the device accepted no more bytes");
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void OutputFile::finish() {
  if (finished_) {
    return;
  }
  if (fd_ < 0) {
    open();  // an empty output is still an output
  }
  if (!stream_) {
    if (::fsync(fd_) != 0) {
      cannot_write(path_, std::string("fsync failed: ") + std::strerror(errno));
    }
    if (exists_) {
      // The replacement keeps the file's owner (where we may give it away)
      // and mode; set-id bits only with the owner. A new file has 0666 less
      // the umask from its creation.
      const bool owned = ::fchown(fd_, uid_, gid_) == 0;
      ::fchmod(fd_, owned ? mode_ : mode_ & 0777);
    }
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) {
    cannot_write(path_, std::strerror(errno));
  }
  finished_ = true;
}

void OutputFile::commit() {
  finish();
  if (temp_.empty()) {
    return;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    cannot_write(path_, std::string("cannot rename the temporary file into place: ") + std::strerror(errno));
  }
  temp_.clear();
}

std::string read_regular_file(const std::string &path, std::size_t max_bytes, const std::string &what) {
  const runtime::RegularFile file(path, what);
  if (file.size() > max_bytes) {
    runtime::fail(path, "has " + std::to_string(file.size()) + " bytes, more than the " + std::to_string(max_bytes) +
                   " ufjit reads for " + what + ": is it the right file?");
  }
  // One byte more than the size: a file that grows meanwhile stays bounded.
  std::string bytes(file.size() + 1, '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.fd(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      runtime::fail(path, std::string("read error: ") + std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (done > max_bytes) {
    runtime::fail(path, "grew past " + std::to_string(max_bytes) + " bytes while it was read");
  }
  bytes.resize(done);
  return bytes;
}

std::string read_source_file(const std::string &path) {
  return read_regular_file(path, kMaxSourceBytes, ".ufn sources (64 MiB at most)");
}

}  // namespace ufjit
