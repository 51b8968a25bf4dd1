// MPI sessions, agreement on failures, and binding ranks to devices
// (ufjit/mpi.h).
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "MpiUtil.h"
#include "ufjit/mpi.h"

namespace ufjit::mpi {
namespace {

/// The kind of the exception in flight (call inside a catch block).
ErrorKind classify(const std::exception_ptr &error) {
  try {
    std::rethrow_exception(error);
  } catch (const RemoteError &e) {
    return e.kind();
  } catch (const InputError &) {
    return ErrorKind::Input;
  } catch (const ShapeError &) {
    return ErrorKind::Shape;
  } catch (const DispatchError &) {
    return ErrorKind::Dispatch;
  } catch (const DeviceError &) {
    return ErrorKind::Device;
  } catch (const KernelError &) {
    return ErrorKind::Kernel;
  } catch (const CompileError &) {
    return ErrorKind::Compile;
  } catch (const InternalError &) {
    return ErrorKind::Internal;
  } catch (const Error &) {
    return ErrorKind::Error;
  } catch (const std::bad_alloc &) {
    return ErrorKind::OutOfMemory;
  } catch (...) {
    return ErrorKind::Other;
  }
}

std::string message_of(const std::exception_ptr &error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc &) {
    return "out of memory";
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "an unknown exception";
  }
}

/// A positive integer from the environment variable `name`, or 0.
int environment_int(const char *name) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return 0;
  }
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > INT_MAX) {
    return 0;
  }
  return static_cast<int>(value);
}

/// The last error agree() threw on this thread: every rank knows of it.
thread_local std::exception_ptr last_agreed_error;

}  // namespace

void agree(MPI_Comm comm, const std::function<void()> &step) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  const int rank = comm_rank(comm);
  const int mine = error ? rank : INT_MAX;
  int first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) {
    return;
  }
  int kind = 0;
  std::string message;
  if (first == rank) {
    kind = static_cast<int>(classify(error));
    message = message_of(error);
  }
  MPI_Bcast(&kind, 1, MPI_INT, first, comm);
  broadcast_string(comm, message, first);
  if (first != rank) {
    error = std::make_exception_ptr(RemoteError(
        "rank " + std::to_string(first) + " of " + std::to_string(comm_size(comm)) + ": " + message, first,
        static_cast<ErrorKind>(kind)));
  }
  last_agreed_error = error;
  std::rethrow_exception(error);
}

void throw_agreed(const std::exception_ptr &error) {
  last_agreed_error = error;
  std::rethrow_exception(error);
}

bool agreed(const std::exception_ptr &error) {
  return error != nullptr && error == last_agreed_error;
}

Session::Session(int *argc, char ***argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw Error("MPI_Init_thread failed: MPI cannot start in this process");
    }
    owns_ = true;
  }
  rank_ = comm_rank(MPI_COMM_WORLD);
  size_ = comm_size(MPI_COMM_WORLD);
}

Session::~Session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) {
    MPI_Finalize();
  }
}

int launcher_ranks() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const int ranks = environment_int(name); ranks > 0) {
      return ranks;
    }
  }
  return 1;
}

int local_rank(MPI_Comm comm) {
  if (std::getenv("OMPI_COMM_WORLD_LOCAL_RANK") != nullptr) {
    return environment_int("OMPI_COMM_WORLD_LOCAL_RANK");
  }
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &host);
  const int rank = comm_rank(host);
  MPI_Comm_free(&host);
  return rank;
}

int cuda_device_count() {
  // The driver's own two entry points, opened as the core opens the driver:
  // no CUDA header or library at build time.
  void *driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    return 0;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  auto init = reinterpret_cast<InitFn>(::dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<CountFn>(::dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  if (init == nullptr || count == nullptr || init(0) != 0 || count(&devices) != 0) {
    devices = 0;
  }
  // The driver stays loaded: the Runtime opens it again, and unloading a
  // CUDA driver that was initialised is not supported.
  return devices;
}

RuntimeOptions rank_runtime_options(MPI_Comm comm, RuntimeOptions options) {
  const int local = local_rank(comm);
  if (options.target == TargetKind::Cpu || !options.devices.empty()) {
    return options;
  }
  const int devices = cuda_device_count();
  if (devices == 0) {
    if (!options.target) {
      options.target = TargetKind::Cpu;
    }
    return options;
  }
  options.device = local % devices;
  return options;
}

}  // namespace ufjit::mpi
