// `ufjit run`: what the one-process run (RunVerb.cpp) and the run split
// across the ranks of mpirun (RunDistributed.cpp) share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "RunMethod.h"
#include "Tool.h"
#include "ufjit/files.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {

/// The command line of `ufjit run`.
struct RunOptions {
  std::string file;
  std::string function;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;  // one per output of a gufunc, else at most one
  std::string target;
  std::string devices;  // --devices: parse_device_set
  std::vector<std::string> link;  // --link files
  std::vector<std::string> nvrtc_options;
  MethodOptions method;  // --method and its options (RunMethod.h)
  bool no_progress = false;
  bool verbose = false;  // -v: under mpirun, each rank reports its elements
};

/// The --out files, opened after checking that none is given twice or is
/// one of the files the command reads (`link`, the source, the inputs).
std::vector<std::unique_ptr<OutputFile>> open_run_outputs(const RunOptions &options,
                                                          const std::vector<std::string> &link);

/// Refuses, before the call, --out files that do not name every output
/// and a --method of a gufunc.
void check_call_options(const Ufunc &ufunc, const RunOptions &options, std::size_t outputs);

/// Whether this process is one of several ranks started by mpirun (Open
/// MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE, above 1).
bool under_mpi_launcher();

/// `ufjit run` split across the ranks (RunDistributed.cpp): each rank reads
/// its slab of the inputs and writes its slab of the outputs. Without MPI
/// in this build, a usage error saying so.
ExitCode run_distributed(const RunOptions &options);

}  // namespace ufjit::tool
