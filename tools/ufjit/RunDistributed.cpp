// `ufjit run` under mpirun (RunVerb.h): the call split across the ranks
// through ufjit_mpi (ufjit/mpi.h), each rank reading and writing its slab of
// the .npy files. Compiled twice: into ufjit-mpi with UFJIT_TOOL_MPI (the
// work), and into ufjit without it (which executes ufjit-mpi instead).
// Every step that may fail on one rank is agreed on by all (mpi::agree), so
// that all leave together: the rank that failed prints its error, the
// others stop quietly with the same exit code.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "Operands.h"
#include "Repr.h"
#include "RunVerb.h"

#if UFJIT_TOOL_MPI
#include "ufjit/mpi.h"
#include "ufjit/npy.h"
#endif

namespace ufjit::tool {

#if UFJIT_TOOL_MPI
namespace {

/// What every rank loaded before the split: the ufunc and each input
/// (a scalar, or a file mapped whole by load_npy).
struct Loaded {
  std::unique_ptr<Runtime> runtime;
  Ufunc ufunc;
  std::vector<std::optional<Operand>> scalars;
  std::vector<Array> files;
  std::vector<std::optional<Dims>> shapes;
};

/// One rank's results: split over the ranks, or whole (on every rank, or
/// on rank 0 alone for a call with no loop dimension to split).
struct Results {
  std::vector<mpi::DistArray> split;
  std::vector<Array> whole;
  int64_t begin = 0;  // the elements this rank computed (-v): of the first
  int64_t end = 0;    // output, or of the input of a method
};

/// Records the elements of `a` that this rank holds as those it computed.
void set_elements(Results &results, const mpi::DistArray &a) {
  int64_t per_row = 1;
  for (std::size_t i = 1; i < a.shape().size(); ++i) {
    per_row *= a.shape()[i];
  }
  results.begin = a.rows().begin * per_row;
  results.end = a.rows().end * per_row;
}

void check_mpi_options(const RunOptions &options) {
  check_method_options(options.method);
  if (options.method.method == "outer" || !options.method.where.empty()) {
    throw UsageError("--method outer and --where are not split across ranks: run them without mpirun");
  }
  if (!options.method.method.empty() && options.inputs.size() != 1) {
    throw UsageError("--method " + options.method.method + " takes 1 --in, got " +
                     std::to_string(options.inputs.size()));
  }
}

Loaded load(const RunOptions &options, const RuntimeOptions &runtime_options) {
  Loaded loaded;
  VectorizeOptions load_options;
  load_options.link = link_paths_from_cwd(options.link);
  load_options.nvrtc_options = options.nvrtc_options;
  open_run_outputs(options, load_options.link);  // the checks; the files are written through MPI-IO
  loaded.runtime = std::make_unique<Runtime>(runtime_options);
  loaded.ufunc = loaded.runtime->load_file(options.file, load_options)[options.function];
  check_call_options(loaded.ufunc, options, options.outputs.size());
  for (const std::string &input : options.inputs) {
    loaded.scalars.push_back(parse_scalar(input));
    loaded.files.push_back(loaded.scalars.back() ? Array() : load_npy(input));
    loaded.shapes.push_back(loaded.scalars.back() ? std::nullopt
                                                  : std::optional<Dims>(loaded.files.back().shape()));
  }
  return loaded;
}

/// The inputs' dtypes and shapes, which every rank must see alike.
std::string fingerprint(const Loaded &loaded) {
  std::string text;
  for (std::size_t k = 0; k < loaded.files.size(); ++k) {
    text += loaded.scalars[k] ? "scalar " : loaded.files[k].view().describe() + " ";
  }
  return text;
}

bool reduces_outer_axis(const ReduceOptions &reduce, std::size_t ndim) {
  if (reduce.all_axes || reduce.axes.empty()) {
    return true;
  }
  for (const int axis : reduce.axes) {
    if (axis == 0 || axis == -static_cast<int>(ndim)) {
      return true;
    }
  }
  return false;
}

/// A ufunc method on the one input, split on its outer dimension.
Results run_split_method(const RunOptions &options, const Loaded &loaded, MPI_Comm comm) {
  Results results;
  const mpi::DistArray a = mpi::DistArray::read_npy(comm, options.inputs[0]);
  set_elements(results, a);
  if (options.method.method == "accumulate") {
    results.split.push_back(mpi::accumulate(loaded.ufunc, a, accumulate_options(options.method)));
    return results;
  }
  const ReduceOptions reduce = reduce_options(options.method, Array());
  if (reduces_outer_axis(reduce, a.shape().size())) {
    results.whole.push_back(mpi::reduce(loaded.ufunc, a, reduce));
  } else {
    results.split.push_back(mpi::reduce_local(loaded.ufunc, a, reduce));
  }
  return results;
}

/// The call: split inputs read in slabs, the others whole; or, with no loop
/// dimension to split, the whole call on rank 0.
Results run_split_call(const RunOptions &options, const Loaded &loaded, const mpi::CallSplit &plan,
                       MPI_Comm comm, int rank) {
  Results results;
  std::vector<Operand> whole;
  for (std::size_t k = 0; k < loaded.files.size(); ++k) {
    whole.push_back(loaded.scalars[k] ? *loaded.scalars[k] : Operand(loaded.files[k].view()));
  }
  if (plan.rows < 0) {
    mpi::agree(comm, [&] {
      if (rank == 0) {
        results.whole = loaded.ufunc.call_all(whole);
        results.end = results.whole.empty() ? 0 : results.whole[0].size();
      }
    });
    return results;
  }
  std::vector<mpi::DistArray> split(loaded.files.size());
  std::vector<mpi::DistOperand> operands;
  for (std::size_t k = 0; k < loaded.files.size(); ++k) {
    if (plan.split[k]) {
      split[k] = mpi::DistArray::read_npy(comm, options.inputs[k]);
      operands.emplace_back(split[k]);
    } else {
      operands.emplace_back(whole[k]);
    }
  }
  results.split = mpi::apply(loaded.ufunc, operands);
  if (!results.split.empty()) {
    set_elements(results, results.split[0]);
  }
  return results;
}

void emit(const RunOptions &options, const Results &results, MPI_Comm comm, int rank) {
  if (!options.outputs.empty()) {
    std::vector<mpi::NpyOutput> outputs;
    for (std::size_t k = 0; k < options.outputs.size(); ++k) {
      mpi::NpyOutput output{options.outputs[k], nullptr, {}};
      if (k < results.split.size()) {
        output.split = &results.split[k];
      } else if (k < results.whole.size()) {
        output.whole = results.whole[k].view();
      }
      outputs.push_back(output);
    }
    mpi::write_npy(comm, outputs);
    return;
  }
  for (const mpi::DistArray &result : results.split) {
    const Array whole = result.gather(0);
    if (rank == 0) {
      print_numpy_repr(std::cout, whole.view());
      std::cout << "\n";
    }
  }
  for (const Array &result : results.whole) {
    if (rank == 0) {
      print_numpy_repr(std::cout, result.view());
      std::cout << "\n";
    }
  }
}

void run_ranks(const RunOptions &options, const mpi::Session &session) {
  const MPI_Comm comm = session.comm();
  RuntimeOptions runtime_options;
  Loaded loaded;
  mpi::agree(comm, [&] {
    check_mpi_options(options);
    if (!options.target.empty()) runtime_options.target = parse_target_name(options.target);
  });
  runtime_options = mpi::rank_runtime_options(comm, runtime_options);
  mpi::agree(comm, [&] { loaded = load(options, runtime_options); });
  mpi::check_same_on_every_rank(comm, fingerprint(loaded), "the inputs");
  Results results;
  if (options.method.method.empty()) {
    mpi::CallSplit plan;
    mpi::agree(comm, [&] { plan = mpi::plan_split(loaded.ufunc, loaded.shapes); });
    results = run_split_call(options, loaded, plan, comm, session.rank());
  } else {
    results = run_split_method(options, loaded, comm);
  }
  if (options.verbose) {
    std::cerr << "rank " + std::to_string(session.rank()) + " of " + std::to_string(session.size()) +
                     ": elements [" + std::to_string(results.begin) + ", " + std::to_string(results.end) +
                     ")\n";
  }
  emit(options, results, comm, session.rank());
}

/// Prints `error` and returns its exit code.
int report(const std::exception_ptr &error, const mpi::Session &session) {
  try {
    std::rethrow_exception(error);
  } catch (...) {
    const ExitCode code = report_current_exception();
    std::cerr << "ufjit: note: rank " << session.rank() << " of " << session.size()
              << " failed; every rank stopped, and no output file was written\n";
    return static_cast<int>(code);
  }
}

/// The exit code of an error every rank knows of (agreed), printed by one
/// rank: the lowest that holds it as its own (not as a RemoteError; a check
/// that fails alike on every rank is every rank's own). 0 on the others.
int report_agreed(const std::exception_ptr &error, const mpi::Session &session) {
  bool remote = false;
  try {
    std::rethrow_exception(error);
  } catch (const mpi::RemoteError &) {
    remote = true;
  } catch (...) {
  }
  const int mine = remote ? INT_MAX : session.rank();
  int reporter = INT_MAX;
  MPI_Allreduce(&mine, &reporter, 1, MPI_INT, MPI_MIN, session.comm());
  return reporter == session.rank() ? report(error, session) : 0;
}

}  // namespace

bool under_mpi_launcher() {
  return mpi::launcher_ranks() > 1;
}

ExitCode run_distributed(const RunOptions &options) {
  mpi::Session session(nullptr, nullptr);
  int code = 0;
  try {
    run_ranks(options, session);
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    if (!mpi::agreed(error)) {
      // This rank's alone: the others cannot learn of it, so end them all.
      MPI_Abort(session.comm(), report(error, session));
    }
    code = report_agreed(error, session);
  }
  // Every rank leaves with the exit code of the rank that reported the error.
  int all = 0;
  MPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MAX, session.comm());
  return static_cast<ExitCode>(all);
}

#else  // the tool without MPI: ufjit-mpi, built beside it, does the work

namespace {

/// This process's command line, from /proc/self/cmdline.
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) {
    args.push_back(arg);
  }
  return args;
}

}  // namespace

bool under_mpi_launcher() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char *ranks = std::getenv(name);
    if (ranks != nullptr && std::atoi(ranks) > 1) {
      return true;
    }
  }
  return false;
}

ExitCode run_distributed(const RunOptions &) {
  // ufjit itself loads no MPI library (Open MPI's libraries would slow every
  // start): under mpirun it becomes ufjit-mpi, the same tool linked with
  // ufjit_mpi, with the same command line.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path mpi_tool = self.parent_path() / "ufjit-mpi";
  std::vector<std::string> args = own_command_line();
  if (!ec && !args.empty() && ::access(mpi_tool.c_str(), X_OK) == 0) {
    args[0] = mpi_tool.string();
    std::vector<char *> argv;
    for (std::string &arg : args) {
      argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(argv[0], argv.data());
  }
  throw UsageError(
      "ufjit run is under mpirun with several ranks, but this ufjit has no MPI (ufjit-mpi, built "
      "where Open MPI is found, is not beside it), so each rank would do the whole call: install "
      "libopenmpi-dev and build with UFJIT_BUILD_MPI=ON, or run without mpirun");
}

#endif

}  // namespace ufjit::tool
