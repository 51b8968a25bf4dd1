#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "Verbs.h"
#include "ufjit/compiler.h"
#include "ufjit/files.h"

namespace ufjit::tool {
namespace {

struct CompileOptions {
  std::string file;
  std::string output;
  std::string arch = "sm_90";
  std::string emit = "ptx";
  std::string function;
  std::string target = "cuda";
};

// The manifest sits beside the module: kernels.ptx -> kernels.json.
std::string manifest_path(const std::string &output) {
  return std::filesystem::path(output).replace_extension(".json").string();
}

ExitCode run_compile(const CompileOptions &options) {
  static const std::map<std::string, EmitKind> kEmit = {
      {"tokens", EmitKind::Tokens}, {"ast", EmitKind::Ast}, {"ir", EmitKind::Ir},
      {"llvm", EmitKind::Llvm},     {"ptx", EmitKind::Ptx}, {"cubin", EmitKind::Cubin}};
  CompileRequest request;
  request.emit = kEmit.at(options.emit);
  if (request.emit == EmitKind::Cubin && options.output.empty()) {
    print_error("--emit cubin writes a binary file: give -o OUT");
    return ExitCode::UsageError;
  }
  // Both outputs are checked (not one of the inputs, a writable place)
  // before the source is even read, and renamed into place only when both
  // are written: a failure leaves neither.
  std::optional<OutputFile> module;
  std::optional<OutputFile> manifest;
  if (!options.output.empty()) {
    check_not_an_input(options.output, {options.file});
    module.emplace(options.output);
    // A module written through a device or pipe (-o /dev/stdout) has no
    // "beside" to put a manifest in: /dev/stdout.json would land in /dev.
    if ((request.emit == EmitKind::Ptx || request.emit == EmitKind::Cubin) && !module->writes_through()) {
      std::string manifest_name = manifest_path(options.output);
      if (manifest_name == options.output) manifest_name += ".json";
      check_not_an_input(manifest_name, {options.file, options.output});
      manifest.emplace(manifest_name);
    }
  }
  request.source = read_source_file(options.file);
  request.source_name = options.file;
  request.arch = options.arch;
  request.function = options.function;
  request.target = options.target;
  CompileResult result = compile(request);
  std::cerr << result.rendered_diagnostics;
  if (!result.ok) return ExitCode::SourceError;
  if (!module) {
    std::cout << result.output;
    return ExitCode::Ok;
  }
  module->write(result.output.data(), result.output.size());
  if (manifest) {
    manifest->write(result.manifest_json.data(), result.manifest_json.size());
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
      "compile", "Compile every ufunc of a .ufn file into one module (PTX by default) plus a JSON manifest");
  cmd->add_option("file", options->file, "the .ufn source")->required();
  cmd->add_option("-o,--output", options->output, "output file (default: stdout); the manifest goes beside it as .json");
  cmd->add_option("--arch", options->arch, "GPU architecture, e.g. sm_80, sm_90")->capture_default_str();
  cmd->add_option("--emit", options->emit, "stage to emit")
      ->check(CLI::IsMember({"tokens", "ast", "ir", "llvm", "ptx", "cubin"}))
      ->capture_default_str();
  cmd->add_option("--func", options->function, "only this ufunc");
  cmd->add_option("--target", options->target, "cuda or cpu (cpu: up to --emit llvm)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    try {
      exit_code = run_compile(*options);
    } catch (...) {
      exit_code = report_current_exception();
    }
  });
}

}  // namespace ufjit::tool
