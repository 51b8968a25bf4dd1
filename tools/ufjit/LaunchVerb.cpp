// `ufjit launch`: one launch of an explicit kernel (@cuda.jit, LANGUAGE.md
// section 9) on .npy files and numbers, the arrays saved after it.
//
// The steps, every check before the launch so that a failure writes
// nothing: the configuration's syntax -> the --arg kinds -> the --out-dir ->
// the kernel and its parameter count -> the output paths (never an input) ->
// the arrays -> the launch -> the outputs, each through a temporary file,
// renamed only when all are written.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "Operands.h"
#include "Verbs.h"
#include "ufjit/errors.h"
#include "ufjit/files.h"
#include "ufjit/kernel.h"
#include "ufjit/npy.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {
namespace {

struct LaunchOptions {
  std::string file;
  std::string kernel;
  std::string grid;
  std::string block;
  int64_t shared_bytes = 0;
  std::string target;
  std::string devices;  // --devices: parse_device_set
  std::vector<std::string> args;
  std::string out_dir;
  bool check = false;
  bool verbose = false;
};

/// An --arg: a .npy path (`path` set) or a number (`scalar` set).
struct LaunchArg {
  std::string path;
  std::optional<Operand> scalar;
};

bool is_npy_path(const std::string &text) {
  return text.size() > 4 && text.compare(text.size() - 4, 4, ".npy") == 0;
}

/// "G", "G,G" or "G,G,G", decimal; the extents' range is the library's
/// check (Kernel::launch), which names CUDA's limits.
Dim3 parse_dim3(const std::string &option, const std::string &text) {
  const std::string usage = option + " " + text + ": expected 1 to 3 whole numbers separated by commas, x first (" +
                            option + " 256, " + option + " 16,16, " + option + " 8,8,4)";
  std::vector<int64_t> extents;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw UsageError(usage);
    }
    extents.push_back(std::stoll(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (extents.size() > 3) throw UsageError(usage);
  extents.resize(3, 1);
  return Dim3(extents[0], extents[1], extents[2]);
}

std::string dim3_text(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::vector<LaunchArg> classify_args(const std::vector<std::string> &args) {
  std::vector<LaunchArg> out;
  for (const std::string &text : args) {
    LaunchArg arg;
    if (is_npy_path(text)) {
      arg.path = text;
    } else {
      arg.scalar = parse_scalar(text, "--arg");
      if (!arg.scalar) {
        throw UsageError("--arg " + text + ": neither a number (2, -1.5, inf, nan, 1+2j, True) nor a .npy file "
                         "(an array's path ends in .npy)");
      }
    }
    out.push_back(std::move(arg));
  }
  return out;
}

/// Whether --out-dir exists already; refuses a path that is not a
/// directory, or one that cannot be made because what lies above it is not
/// a directory.
bool check_out_dir(const std::string &dir) {
  std::error_code ec;
  const std::filesystem::path path(dir);
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)) && !std::filesystem::exists(path, ec)) {
    throw UsageError("--out-dir " + dir + " is a symbolic link to nothing: name a directory");
  }
  if (std::filesystem::exists(path, ec)) {
    if (!std::filesystem::is_directory(path, ec)) {
      throw UsageError("--out-dir " + dir + " is not a directory: the arrays are saved as DIR/<parameter>.npy; "
                       "name a directory (it is created if missing)");
    }
    return true;
  }
  std::filesystem::path above = std::filesystem::absolute(path, ec).parent_path();
  while (!above.empty() && !std::filesystem::exists(above, ec) && above != above.parent_path()) {
    above = above.parent_path();
  }
  if (!std::filesystem::is_directory(above, ec)) {
    throw UsageError("--out-dir " + dir + " cannot be created: " + above.string() + " is not a directory");
  }
  if (::access(above.c_str(), W_OK | X_OK) != 0) {
    throw InputError("--out-dir " + dir + " cannot be created: no permission to write in " + above.string());
  }
  return false;
}

std::string joined(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

void check_count(const Kernel &kernel, const std::vector<std::string> &args) {
  const std::vector<std::string> &params = kernel.parameters();
  if (args.size() == params.size()) return;
  throw UsageError("kernel '" + kernel.name() + "' takes " + std::to_string(params.size()) + " arguments (" +
                   joined(params) + "), " + std::to_string(args.size()) + " --arg given" +
                   (args.empty() ? "" : " (" + joined(args) + ")") + ": give one --arg per parameter, in order");
}

/// DIR/<parameter>.npy for each array argument (empty for a scalar), none of
/// them a file the command reads.
std::vector<std::string> output_paths(const LaunchOptions &options, const Kernel &kernel,
                                      const std::vector<LaunchArg> &args) {
  std::vector<std::string> inputs = {options.file};
  for (const LaunchArg &arg : args) {
    if (!arg.scalar) inputs.push_back(arg.path);
  }
  std::vector<std::string> paths;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k].scalar) {
      paths.emplace_back();
      continue;
    }
    paths.push_back((std::filesystem::path(options.out_dir) / (kernel.parameters()[k] + ".npy")).string());
    check_not_an_input(paths.back(), inputs);
  }
  return paths;
}

std::vector<std::unique_ptr<OutputFile>> open_outputs(const std::vector<std::string> &paths) {
  std::vector<std::unique_ptr<OutputFile>> files;
  for (const std::string &path : paths) {
    files.push_back(path.empty() ? nullptr : std::make_unique<OutputFile>(path));
  }
  return files;
}

void save_arrays(const std::vector<Operand> &operands, std::vector<std::unique_ptr<OutputFile>> &files) {
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (!files[k]) continue;
    OutputFile &file = *files[k];
    write_npy(operands[k].array, [&file](const void *data, std::size_t bytes) { file.write(data, bytes); });
    file.finish();
  }
  for (const std::unique_ptr<OutputFile> &file : files) {
    if (file) file->commit();
  }
}

ExitCode run_launch(const LaunchOptions &options) {
  LaunchConfig config;
  config.grid = parse_dim3("--grid", options.grid);
  config.block = parse_dim3("--block", options.block);
  config.shared_bytes = options.shared_bytes;
  config.check = options.check;
  const std::vector<LaunchArg> args = classify_args(options.args);
  const bool dir_exists = check_out_dir(options.out_dir);

  RuntimeOptions runtime_options;
  if (!options.target.empty()) runtime_options.target = parse_target_name(options.target);
  if (!options.devices.empty()) runtime_options.devices = parse_device_set(options.devices, "--devices");
  Runtime runtime(runtime_options);
  const Kernel kernel = runtime.kernel_file(options.file, options.kernel);
  check_count(kernel, options.args);
  const std::vector<std::string> paths = output_paths(options, kernel, args);
  std::vector<std::unique_ptr<OutputFile>> files;
  if (dir_exists) files = open_outputs(paths);  // a read-only file is refused before the launch

  std::vector<Array> arrays;  // the loaded inputs: private copy-on-write mappings, so the files stay as they are
  arrays.reserve(args.size());
  std::vector<Operand> operands;
  for (const LaunchArg &arg : args) {
    if (arg.scalar) {
      operands.push_back(*arg.scalar);
      continue;
    }
    arrays.push_back(load_npy(arg.path));
    operands.emplace_back(arrays.back().view());
  }
  const auto start = std::chrono::steady_clock::now();
  kernel.launch_operands(config, operands);
  const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
  if (options.verbose) {
    std::fprintf(stderr, "ufjit: kernel '%s' %s on %s, grid %s, block %s, %lld shared bytes: %.3f ms (compilation "
                 "included)\n", kernel.name().c_str(), kernel.signature_for(operands).c_str(),
                 target_name(runtime.target()), dim3_text(config.grid).c_str(), dim3_text(config.block).c_str(),
                 static_cast<long long>(config.shared_bytes), elapsed.count());
  }
  if (!dir_exists) {
    std::filesystem::create_directories(options.out_dir);
    files = open_outputs(paths);
  }
  save_arrays(operands, files);
  return ExitCode::Ok;
}

}  // namespace

void add_launch_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<LaunchOptions>();
  CLI::App *cmd = app.add_subcommand(
      "launch", "Launch a @cuda.jit kernel of a .ufn file over a grid on .npy files and numbers; save its arrays");
  cmd->add_option("file", options->file, "the .ufn source")->required()->type_name(kUfnFile);
  cmd->add_option("kernel", options->kernel, "the @cuda.jit kernel to launch")->required()->type_name("KERNEL");
  cmd->add_option("--grid", options->grid, "blocks in the grid: G, G,G or G,G,G (x first)")
      ->required()
      ->type_name("G[,G[,G]]");
  cmd->add_option("--block", options->block, "threads per block: B, B,B or B,B,B (x first; at most 1024 in all)")
      ->required()
      ->type_name("B[,B[,B]]");
  cmd->add_option("--shared", options->shared_bytes, "bytes of dynamic shared memory per block (default 0)");
  cmd->add_option("--target", options->target, "cuda or cpu (default: cuda where a GPU is present)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--devices", options->devices, kDevicesHelp)->type_name("all|K,L,...");
  // One --arg is one argument: never split at commas or spaces.
  cmd->add_option("--arg", options->args,
                  "one per kernel parameter, in order: a .npy file (an array, passed by reference) or a number "
                  "(2, 2.5, nan, -inf, 1+2j, True)")
      ->allow_extra_args(false)
      ->delimiter('\0')
      ->type_name(kNpyOrNumber);
  cmd->add_option("--out-dir", options->out_dir,
                  "save every array argument after the launch as DIR/<parameter name>.npy (DIR is created if "
                  "missing; the input files are never modified)")
      ->required()
      ->type_name(kDirectory);
  cmd->add_flag("--check", options->check,
                "the checking mode: an index out of bounds is an IndexError naming the line, the array and the "
                "thread; on the CPU a data race on shared memory is an error naming both threads and lines (slow)");
  cmd->add_flag("-v,--verbose", options->verbose, "print the signature used, the target and the launch's time");
  cmd->footer(
      "Example (the grid-stride add of examples/kernels.ufn on three float32 arrays of 1000 elements, on the "
      "CPU; writes out/x.npy, out/y.npy, out/out.npy):\n"
      "  ufjit launch examples/kernels.ufn add --grid 4 --block 256 --arg x.npy --arg y.npy --arg out.npy "
      "--out-dir out --target cpu");
  set_verb_callback(cmd, exit_code, [options] { return run_launch(*options); });
}

}  // namespace ufjit::tool
