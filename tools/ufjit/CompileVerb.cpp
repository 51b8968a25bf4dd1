#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "Progress.h"
#include "Verbs.h"
#include "ufjit/compiler.h"
#include "ufjit/files.h"

namespace ufjit::tool {
namespace {

struct CompileOptions {
  std::string file;
  std::string output;
  std::string emit = "ptx";
  /// What the flags set as they are (--arch, --target, --func, --abi,
  /// --signature, --symbol, --nvrtc-option), with the library's defaults.
  CompileRequest request;
  std::vector<std::string> link;
  bool no_progress = false;
};

bool is_device_emit(EmitKind emit) { return emit == EmitKind::DevicePtx || emit == EmitKind::DeviceLtoIr; }

// The header of --emit device-ptx sits beside the PTX: cube.ptx -> cube.h.
std::string header_path(const std::string &output) {
  return std::filesystem::path(output).replace_extension(".h").string();
}

// The manifest sits beside the module: kernels.ptx -> kernels.json.
std::string manifest_path(const std::string &output) {
  return std::filesystem::path(output).replace_extension(".json").string();
}

ExitCode run_compile(const CompileOptions &options) {
  static const std::map<std::string, EmitKind> kEmit = {
      {"tokens", EmitKind::Tokens}, {"ast", EmitKind::Ast}, {"ir", EmitKind::Ir},
      {"llvm", EmitKind::Llvm},     {"ptx", EmitKind::Ptx}, {"cubin", EmitKind::Cubin},
      {"device-ptx", EmitKind::DevicePtx}, {"device-ltoir", EmitKind::DeviceLtoIr}};
  CompileRequest request = options.request;
  request.emit = kEmit.at(options.emit);
  if (request.emit == EmitKind::Cubin && options.output.empty()) {
    print_error("--emit cubin writes a binary file: give -o OUT");
    return ExitCode::UsageError;
  }
  if (is_device_emit(request.emit) && options.output.empty()) {
    print_error("--emit " + options.emit + " writes the device code and a C header beside it: give -o OUT");
    return ExitCode::UsageError;
  }
  // Both outputs are checked (not one of the inputs, a writable place)
  // before the source is even read, and renamed into place only when both
  // are written: a failure leaves neither.
  std::optional<OutputFile> module;
  std::optional<OutputFile> manifest;
  request.link = link_paths_from_cwd(options.link);
  std::vector<std::string> inputs = request.link;
  inputs.push_back(options.file);
  if (!options.output.empty()) {
    check_not_an_input(options.output, inputs);
    module.emplace(options.output);
    inputs.push_back(options.output);  // nor may the manifest or header be the module
    // A module written through a device or pipe (-o /dev/stdout) has no
    // "beside" to put a manifest in: /dev/stdout.json would land in /dev.
    if ((request.emit == EmitKind::Ptx || request.emit == EmitKind::Cubin) && !module->writes_through()) {
      std::string manifest_name = manifest_path(options.output);
      if (manifest_name == options.output) manifest_name += ".json";
      check_not_an_input(manifest_name, inputs);
      manifest.emplace(manifest_name);
    }
    if (is_device_emit(request.emit)) {
      std::string header_name = header_path(options.output);
      if (header_name == options.output || module->writes_through()) {
        print_error("--emit " + options.emit + " needs -o OUT naming a regular file without the .h extension");
        return ExitCode::UsageError;
      }
      check_not_an_input(header_name, inputs);
      manifest.emplace(header_name);  // the header takes the manifest's place
    }
  }
  Progress progress(!options.no_progress);
  progress.stage("reading " + options.file);
  request.source = read_source_file(options.file);
  request.source_name = options.file;
  progress.stage("compiling " + options.file + " (--emit " + options.emit + ", " +
                 (request.target == "cpu" ? request.target : request.arch) + ")");
  CompileResult result = compile(request);
  progress.finish();  // before the diagnostics, and stdout may be the same terminal
  std::cerr << result.rendered_diagnostics;
  if (!result.ok) return ExitCode::SourceError;
  if (!module) {
    std::cout << result.output;
    return ExitCode::Ok;
  }
  module->write(result.output.data(), result.output.size());
  if (manifest) {
    const std::string &beside = is_device_emit(request.emit) ? result.header : result.manifest_json;
    manifest->write(beside.data(), beside.size());
    manifest->finish();
  }
  module->commit();
  if (manifest) manifest->commit();
  return ExitCode::Ok;
}

}  // namespace

void add_compile_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App *cmd = app.add_subcommand(
      "compile",
      "Compile every ufunc and kernel of a .ufn file into one module (PTX by default) plus a JSON manifest");
  cmd->add_option("file", options->file, "the .ufn source")->required()->type_name(kUfnFile);
  cmd->add_option("-o,--output", options->output, "output file (default: stdout); the manifest goes beside it as .json")
      ->type_name(kAnyFile);
  cmd->add_option("--arch", options->request.arch, "GPU architecture, e.g. sm_80, sm_90")
      ->capture_default_str();
  cmd->add_option("--emit", options->emit, "stage to emit")
      ->check(CLI::IsMember({"tokens", "ast", "ir", "llvm", "ptx", "cubin", "device-ptx", "device-ltoir"}))
      ->capture_default_str();
  cmd->add_option("--func", options->request.function, "only this ufunc (device-ptx: the one to export)");
  cmd->add_option("--abi", options->request.abi,
                  "device-ptx: c (float f(float)) or numba (int f(float *ret, float))")
      ->check(CLI::IsMember({"c", "numba"}))
      ->capture_default_str();
  cmd->add_option("--signature", options->request.signature,
                  "device-ptx: the signature, when the ufunc has several");
  cmd->add_option("--symbol", options->request.symbol,
                  "device-ptx: the exported name (default: the ufunc's)");
  cmd->add_option("--link", options->link, kLinkHelp)->allow_extra_args(false)->delimiter('\0')->type_name(kAnyFile);
  cmd->add_option("--nvrtc-option", options->request.nvrtc_options, kNvrtcOptionHelp)
      ->allow_extra_args(false)
      ->delimiter('\0');
  cmd->add_option("--target", options->request.target, "cuda or cpu (cpu: up to --emit llvm)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  cmd->add_flag("--no-progress", options->no_progress, kNoProgressHelp);
  cmd->footer(
      "Examples (PTX and its manifest gauss.json, no GPU needed; the CPU target's LLVM IR on stdout):\n"
      "  ufjit compile examples/gaussian_pdf.ufn -o gauss.ptx\n"
      "  ufjit compile examples/gaussian_pdf.ufn --target cpu --emit llvm");
  set_verb_callback(cmd, exit_code, [options] { return run_compile(*options); });
}

}  // namespace ufjit::tool
