// Writing .npy files from every rank at once (ufjit/mpi.h, write_npy): rank
// 0 writes the headers, each rank its slab, into temporary files that rank 0
// renames into place once every rank has written.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "MpiUtil.h"
#include "ufjit/files.h"
#include "ufjit/mpi.h"
#include "ufjit/npy.h"

namespace ufjit::mpi {
namespace {

constexpr int64_t kIoChunkBytes = int64_t{1} << 30;

/// What one rank writes of one file.
struct FilePlan {
  std::string path;    // as given, for messages
  std::string target;  // the file to replace (symlinks followed)
  std::string temp;    // the temporary file next to it
  std::string header;  // the .npy preamble and header
  const void *data = nullptr;
  int64_t bytes = 0;   // this rank's bytes
  int64_t offset = 0;  // where they go, from the start of the file
};

struct HeaderWritten {};

/// The preamble and header ufjit::write_npy writes for a C-ordered array of
/// `dtype` and `shape`, byte for byte (what one process's `ufjit run` writes):
/// its first piece, after which the sink stops it.
std::string npy_header(DType dtype, const Dims &shape) {
  std::string header;
  try {
    ufjit::write_npy(c_view(nullptr, dtype, shape), [&header](const void *data, std::size_t bytes) {
      header.assign(static_cast<const char *>(data), bytes);
      throw HeaderWritten{};
    });
  } catch (const HeaderWritten &) {
  }
  return header;
}

/// This rank's part of `output`: the slab of a DistArray, or rank 0's whole
/// array.
FilePlan plan_file(const NpyOutput &output, int rank) {
  FilePlan plan;
  plan.path = output.path;
  if (output.split != nullptr) {
    const DistArray &a = *output.split;
    plan.header = npy_header(a.dtype(), a.shape());
    const int64_t row = row_bytes(a.dtype(), a.shape());
    plan.data = a.local().data();
    plan.bytes = a.rows().count() * row;
    plan.offset = static_cast<int64_t>(plan.header.size()) + a.rows().begin * row;
    return plan;
  }
  if (output.whole.residence != Residence::Host || !output.whole.is_c_contiguous()) {
    throw InputError("write_npy takes whole arrays that are C-contiguous host arrays; '" + output.path +
                     "' was given " + output.whole.describe());
  }
  plan.header = npy_header(output.whole.dtype, output.whole.shape);
  plan.offset = static_cast<int64_t>(plan.header.size());
  if (rank == 0) {
    plan.data = output.whole.data;
    plan.bytes = output.whole.size() * static_cast<int64_t>(dtype_size(output.whole.dtype));
  }
  return plan;
}

/// Rank 0: checks the target as OutputFile does (a directory, a missing
/// folder, a read-only file), follows a symlink, refuses what is not a
/// regular file, and names a temporary file in the target's folder.
void choose_target(FilePlan &plan, int index) {
  OutputFile check(plan.path);
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path(plan.path);
  const fs::path target = fs::is_symlink(path, ec) ? fs::canonical(path) : path;
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) {
    throw InputError("'" + plan.path +
                     "' is not a regular file: under MPI the output is written in slabs and " +
                     "renamed into place, so it must be a regular file or a new path");
  }
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  plan.target = target.string();
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string name = ".";
  name += target.filename().string();
  name += ".ufjit-" + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" + std::to_string(index) +
          ".tmp";
  plan.temp = (folder / name).string();
}

/// Writes `bytes` at `offset` of the open file (in pieces: MPI counts are ints).
void write_at(MPI_File file, int64_t offset, const void *data, int64_t bytes, const std::string &path) {
  const char *from = static_cast<const char *>(data);
  for (int64_t done = 0; done < bytes;) {
    const int count = static_cast<int>(std::min(kIoChunkBytes, bytes - done));
    MPI_Status status;
    check_io(MPI_File_write_at(file, offset + done, from + done, count, MPI_BYTE, &status), "write", path);
    done += count;
  }
}

/// Opens the temporary file (rank 0 creates it), writes this rank's part
/// (rank 0 the header too) and closes it.
void write_part(const FilePlan &plan, int rank, bool create) {
  if (!create && plan.bytes == 0) {
    return;
  }
  const int mode = create ? MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL : MPI_MODE_WRONLY;
  MPI_File file = MPI_FILE_NULL;
  check_io(MPI_File_open(MPI_COMM_SELF, plan.temp.c_str(), mode, MPI_INFO_NULL, &file), "create", plan.path);
  try {
    if (create) {
      write_at(file, 0, plan.header.data(), static_cast<int64_t>(plan.header.size()), plan.path);
    } else {
      write_at(file, plan.offset, plan.data, plan.bytes, plan.path);
    }
  } catch (...) {
    MPI_File_close(&file);
    throw;
  }
  check_io(MPI_File_close(&file), "write", plan.path);
}

/// Rank 0: gives each temporary file the mode of the file it replaces, and
/// renames it into place.
void commit(const std::vector<FilePlan> &plans) {
  for (const FilePlan &plan : plans) {
    struct stat st;
    if (::stat(plan.target.c_str(), &st) == 0) {
      ::chmod(plan.temp.c_str(), st.st_mode & 07777);
    }
  }
  for (const FilePlan &plan : plans) {
    if (std::rename(plan.temp.c_str(), plan.target.c_str()) != 0) {
      throw InputError("cannot rename the written '" + plan.path + "' into place");
    }
  }
}

}  // namespace

void write_npy(MPI_Comm comm, const std::vector<NpyOutput> &outputs) {
  const int rank = comm_rank(comm);
  std::vector<FilePlan> plans;
  agree(comm, [&] {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      plans.push_back(plan_file(outputs[k], rank));
      if (rank == 0) {
        choose_target(plans.back(), static_cast<int>(k));
      }
    }
  });
  for (FilePlan &plan : plans) {
    broadcast_string(comm, plan.temp, 0);
    broadcast_string(comm, plan.target, 0);
  }
  bool created = false;
  try {
    agree(comm, [&] {
      if (rank == 0) {
        created = true;
        for (const FilePlan &plan : plans) {
          write_part(plan, rank, true);
        }
      }
    });
    agree(comm, [&] {
      for (const FilePlan &plan : plans) {
        write_part(plan, rank, false);
      }
    });
    agree(comm, [&] {
      if (rank == 0) {
        commit(plans);
      }
    });
  } catch (...) {
    if (created) {
      for (const FilePlan &plan : plans) {
        std::remove(plan.temp.c_str());
      }
    }
    throw;
  }
}

}  // namespace ufjit::mpi
