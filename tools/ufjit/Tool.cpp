#include "Tool.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>

#include "ufjit/errors.h"
#include "ufjit/files.h"

namespace ufjit::tool {

void print_error(const std::string &message) { std::cerr << "ufjit: error: " << message << "\n"; }

void check_not_an_input(const std::string &output, const std::vector<std::string> &inputs) {
  struct stat out;
  if (::stat(output.c_str(), &out) != 0) {
    return;
  }
  for (const std::string &input : inputs) {
    struct stat in;
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      throw UsageError("the output '" + output + "' is the same file as the input '" + input +
                       "': writing it would destroy the input; choose another output path");
    }
  }
}

std::vector<std::string> link_paths_from_cwd(const std::vector<std::string> &paths) {
  std::vector<std::string> out;
  for (const std::string &path : paths) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    out.push_back(ec ? path : absolute.string());
  }
  return out;
}

ExitCode flush_stdout(ExitCode code) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0) {
    return code;
  }
  print_error(std::string("cannot write to standard output: ") + (errno != 0 ? std::strerror(errno) : "write error") +
              ": redirect it to a file with space left, or use -o/--out");
  return code == ExitCode::Ok ? ExitCode::SourceError : code;
}

ExitCode report_current_exception() {
  try {
    throw;
  } catch (const CompileError &e) {
    std::cerr << e.what();
    return ExitCode::SourceError;
  } catch (const UsageError &e) {
    print_error(e.what());
    return ExitCode::UsageError;
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
  } catch (const std::bad_alloc &) {
    print_error(
        "out of memory: this command's source or arrays do not fit in memory (or under the process's limit); "
        "use smaller inputs");
    return ExitCode::SourceError;
  } catch (const std::exception &e) {
    print_error(e.what());
    return ExitCode::SourceError;
  }
}

}  // namespace ufjit::tool
