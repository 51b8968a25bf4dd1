#include <iostream>

#include "Verbs.h"
#include "VerifyDiagnostics.h"
#include "ufjit/compiler.h"
#include "ufjit/files.h"

namespace ufjit::tool {
namespace {

struct CheckOptions {
  std::string file;
  bool verify = false;
};

ExitCode run_check(const CheckOptions &options) {
  std::string source = read_source_file(options.file);
  if (options.verify) {
    return verify_diagnostics(source, options.file) ? ExitCode::Ok : ExitCode::SourceError;
  }
  CompileResult result = check(source, options.file);
  std::cerr << result.rendered_diagnostics;
  return result.ok ? ExitCode::Ok : ExitCode::SourceError;
}

}  // namespace

void add_check_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App *cmd = app.add_subcommand("check", "Parse and type-check a .ufn file; exit 1 on any error");
  cmd->add_option("file", options->file, "the .ufn source")->required()->type_name(kUfnFile);
  cmd->add_flag("--verify-diagnostics", options->verify,
                "check the diagnostics against `# expected-error {{...}}` annotations in the source");
  cmd->footer("Example:\n  ufjit check examples/gaussian_pdf.ufn && echo no errors");
  set_verb_callback(cmd, exit_code, [options] { return run_check(*options); });
}

}  // namespace ufjit::tool
