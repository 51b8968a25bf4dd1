// The verbs of the `ufjit` tool. Each adds its subcommand to the CLI11 app;
// the subcommand's callback stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include "Tool.h"

namespace ufjit::tool {

void add_check_command(CLI::App &app, ExitCode &exit_code);
void add_compile_command(CLI::App &app, ExitCode &exit_code);
void add_run_command(CLI::App &app, ExitCode &exit_code);
void add_info_command(CLI::App &app, ExitCode &exit_code);
void add_cache_command(CLI::App &app, ExitCode &exit_code);

}  // namespace ufjit::tool
