#include "Tool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ufjit/errors.h"

namespace ufjit::tool {

void print_error(const std::string &message) { std::cerr << "ufjit: error: " << message << "\n"; }

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw InputError("cannot read '" + path + "'");
  return bytes.str();
}

void write_file_atomically(const std::string &path, const std::string &bytes) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw InputError("cannot write '" + path + "': " + std::strerror(errno));
  const char *p = bytes.data();
  std::size_t left = bytes.size();
  bool ok = true;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  int saved = errno;
  ok = ok && ::fsync(fd) == 0;
  ::fchmod(fd, 0644);
  ::close(fd);
  if (!ok || std::rename(tmpl.c_str(), path.c_str()) != 0) {
    saved = saved ? saved : errno;
    std::remove(tmpl.c_str());
    throw InputError("cannot write '" + path + "': " + std::strerror(saved));
  }
}

ExitCode report_current_exception() {
  try {
    throw;
  } catch (const CompileError &e) {
    std::cerr << e.what();
    return ExitCode::SourceError;
  } catch (const DeviceError &e) {
    print_error(e.what());
    return ExitCode::DeviceError;
  } catch (const InternalError &e) {
    print_error(e.what());
    std::cerr << "ufjit: this is a bug in ufjit; please report it with the input that caused it\n";
    return ExitCode::SourceError;
  } catch (const Error &e) {
    print_error(e.what());
    return ExitCode::SourceError;
  } catch (const std::exception &e) {
    print_error(e.what());
    return ExitCode::SourceError;
  }
}

}  // namespace ufjit::tool
