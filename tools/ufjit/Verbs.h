// The verbs of the `ufjit` tool. Each adds its subcommand to the CLI11 app;
// the subcommand's callback stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>
#include <utility>

#include "CliDocs.h"
#include "Tool.h"

namespace ufjit::tool {

/// Makes `run` the callback of `cmd`: its exit code, or that of the exception
/// it throws (printed by report_current_exception), goes to `exit_code`.
template <typename Run>
void set_verb_callback(CLI::App *cmd, ExitCode &exit_code, Run run) {
  cmd->callback([run = std::move(run), &exit_code] {
    try {
      exit_code = run();
    } catch (...) {
      exit_code = report_current_exception();
    }
  });
}

void add_check_command(CLI::App &app, ExitCode &exit_code);
void add_compile_command(CLI::App &app, ExitCode &exit_code);
void add_run_command(CLI::App &app, ExitCode &exit_code);
void add_launch_command(CLI::App &app, ExitCode &exit_code);
void add_info_command(CLI::App &app, ExitCode &exit_code);
void add_cache_command(CLI::App &app, ExitCode &exit_code);

}  // namespace ufjit::tool
