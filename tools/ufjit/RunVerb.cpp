#include <sys/stat.h>

#include <iostream>
#include <memory>
#include <optional>

#include "Operands.h"
#include "Progress.h"
#include "Repr.h"
#include "RunMethod.h"
#include "RunVerb.h"
#include "Verbs.h"
#include "ufjit/files.h"
#include "ufjit/npy.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {
namespace {

/// Numbers win over files (Operands.h); say so when a file of that name
/// exists, so that `--in 2` beside a file named 2 surprises nobody.
void note_shadowed_file(const std::string &input) {
  struct stat st;
  if (::stat(input.c_str(), &st) == 0) {
    std::cerr << "ufjit: note: --in " << input << " is read as a number; write ./" << input
              << " for the file of that name\n";
  }
}

/// Prints the results as NumPy's repr does, or writes one per --out file.
ExitCode emit_results(const std::vector<Array> &results, const RunOptions &options,
                      std::vector<std::unique_ptr<OutputFile>> &outputs, Progress &progress) {
  if (outputs.empty()) {
    progress.finish();  // stdout may be the same terminal
    for (const Array &result : results) {
      print_numpy_repr(std::cout, result.view());
      std::cout << "\n";
    }
    return ExitCode::Ok;
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    OutputFile &file = *outputs[k];
    progress.stage("writing " + options.outputs[k]);
    write_npy(results[k].view(), [&file](const void *data, std::size_t bytes) { file.write(data, bytes); });
  }
  for (const std::unique_ptr<OutputFile> &file : outputs) {
    file->commit();
  }
  return ExitCode::Ok;
}

ExitCode run_run(const RunOptions &options) {
  if (under_mpi_launcher()) {
    return run_distributed(options);
  }
  // Every file the command reads, so that the output is checked against
  // them (and its directory and permissions) before anything is computed.
  check_method_options(options.method);
  VectorizeOptions load_options;
  load_options.link = link_paths_from_cwd(options.link);
  load_options.nvrtc_options = options.nvrtc_options;
  std::vector<std::unique_ptr<OutputFile>> outputs = open_run_outputs(options, load_options.link);
  Progress progress(!options.no_progress);

  progress.stage("loading " + options.file);
  RuntimeOptions runtime_options;
  if (!options.target.empty()) runtime_options.target = parse_target_name(options.target);
  if (!options.devices.empty()) runtime_options.devices = parse_device_set(options.devices, "--devices");
  Runtime runtime(runtime_options);
  UfuncSet ufuncs = runtime.load_file(options.file, load_options);
  const Ufunc &ufunc = ufuncs[options.function];

  std::vector<Array> arrays;  // keep loaded inputs alive during the call
  arrays.reserve(options.inputs.size());
  std::vector<Operand> operands;
  progress.stage("reading inputs");
  for (const std::string &input : options.inputs) {
    if (std::optional<Operand> scalar = parse_scalar(input)) {
      operands.push_back(*scalar);
      continue;
    }
    arrays.push_back(load_npy(input));
    operands.emplace_back(arrays.back().view());
  }
  check_call_options(ufunc, options, outputs.size());
  std::vector<Array> results;
  progress.stage("running " + options.function);
  if (options.method.method.empty()) {
    results = ufunc.call_all(operands);
  } else {
    const Array where = options.method.where.empty() ? Array() : load_npy(options.method.where);
    results.push_back(run_method(ufunc, options.method, operands, where));
  }
  return emit_results(results, options, outputs, progress);
}

}  // namespace

std::vector<std::unique_ptr<OutputFile>> open_run_outputs(const RunOptions &options,
                                                          const std::vector<std::string> &link) {
  std::vector<std::string> files = link;
  files.push_back(options.file);
  for (const std::string &input : options.inputs) {
    if (parse_scalar(input)) {
      note_shadowed_file(input);
    } else {
      files.push_back(input);
    }
  }
  if (!options.method.where.empty()) {
    files.push_back(options.method.where);
  }
  std::vector<std::unique_ptr<OutputFile>> outputs;
  for (std::size_t k = 0; k < options.outputs.size(); ++k) {
    const std::string &path = options.outputs[k];
    for (std::size_t j = 0; j < k; ++j) {
      if (options.outputs[j] == path) {
        throw UsageError("--out " + path + " is given twice");
      }
    }
    check_not_an_input(path, files);
    outputs.push_back(std::make_unique<OutputFile>(path));
  }
  return outputs;
}

void check_call_options(const Ufunc &ufunc, const RunOptions &options, std::size_t outputs) {
  if (outputs != 0 && ufunc.is_generalized()) {
    const int wanted = ufunc.nout();
    if (outputs != static_cast<std::size_t>(wanted)) {
      throw UsageError("'" + ufunc.name() + "' has " + std::to_string(wanted) + " outputs (layout '" +
                       ufunc.layout() + "'): give one --out per output, or none to print them");
    }
  } else if (outputs > 1) {
    throw UsageError("'" + ufunc.name() + "' has one output: give at most one --out");
  }
  if (!options.method.method.empty() && ufunc.is_generalized()) {
    throw UsageError("--method applies to ufuncs (@vectorize); '" + ufunc.name() + "' is a generalized ufunc");
  }
}

void add_run_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App *cmd = app.add_subcommand("run", "Apply a ufunc of a .ufn file to .npy files and numbers");
  cmd->add_option("file", options->file, "the .ufn source")->required()->type_name(kUfnFile);
  cmd->add_option("func", options->function, "the ufunc to run")->required()->type_name("FUNC");
  // One --in is one operand: no splitting of "[1,2]" or "a b" into several
  // (CLI11 splits bracketed lists of vector options unless told not to).
  cmd->add_option("--in", options->inputs,
                  "an input: a .npy file or a number (2, 2.5, nan, -inf, 1+2j, True); ./2 is the file named 2")
      ->required()
      ->allow_extra_args(false)
      ->delimiter('\0')
      ->type_name(kNpyOrNumber);
  cmd->add_option("--out", options->outputs,
                  "write the result here (.npy); a gufunc with several outputs takes one --out per output, in "
                  "order; default: print them")
      ->allow_extra_args(false)
      ->delimiter('\0')
      ->type_name(kNpyFile);
  cmd->add_option("--link", options->link, kLinkHelp)->allow_extra_args(false)->delimiter('\0')->type_name(kAnyFile);
  cmd->add_option("--nvrtc-option", options->nvrtc_options, kNvrtcOptionHelp)
      ->allow_extra_args(false)
      ->delimiter('\0');
  cmd->add_option("--target", options->target, "cuda or cpu (default: cuda where a GPU is present)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--devices", options->devices, kDevicesHelp)->type_name("all|K,L,...");
  cmd->add_option("--method", options->method.method, "apply a ufunc method instead of the ufunc")
      ->check(CLI::IsMember({"reduce", "accumulate", "outer"}));
  cmd->add_option("--axis", options->method.axis, "reduce/accumulate: K, K,L,... or none (default 0)");
  cmd->add_option("--initial", options->method.initial, "reduce: the initial value (a number)");
  cmd->add_flag("--keepdims", options->method.keepdims, "reduce: keep reduced axes with size 1");
  cmd->add_option("--dtype", options->method.dtype,
                  "reduce/accumulate: the loop's and the result's dtype (NumPy's dtype=), e.g. float64");
  cmd->add_option("--where", options->method.where,
                  "reduce: a .npy of bools broadcast to the input; only its true elements are reduced")
      ->type_name(kNpyFile);
  cmd->add_flag("--no-progress", options->no_progress, kNoProgressHelp);
  cmd->add_flag("-v,--verbose", options->verbose,
                "under mpirun, each rank reports the elements it computes on stderr");
  cmd->footer(
      "Examples (prints 5; then the Gaussian density of the float32 array in x.npy, on the CPU, into y.npy):\n"
      "  ufjit run examples/add_ufunc.ufn add_ufunc --in 2 --in 3\n"
      "  ufjit run examples/gaussian_pdf.ufn gaussian_pdf --in x.npy --in 0.0 --in 1.0 --out y.npy --target cpu");
  set_verb_callback(cmd, exit_code, [options] { return run_run(*options); });
}

}  // namespace ufjit::tool
