// ufjit: compile `.ufn` files to PTX and run them (ufuncs, kernels) on `.npy` files.
//
//   ufjit check FILE.ufn
//   ufjit compile FILE.ufn [-o OUT] [--arch sm_90] [--emit ...] [--func NAME] [--target cuda|cpu]
//   ufjit run FILE.ufn FUNC --in a.npy --in 2.5 [--out out.npy] [--target cuda|cpu]
//   ufjit launch FILE.ufn KERNEL --grid G[,G,G] --block B[,B,B] --arg x.npy --arg 2 --out-dir DIR
//   ufjit info
//   ufjit cache list|stats|verify|prune|clear
//   ufjit --man, ufjit --bash-completion   (hidden: the build writes ufjit.1 and the completion script)
#include <iostream>

#include "CliDocs.h"
#include "Verbs.h"
#include "ufjit/runtime.h"

int main(int argc, char **argv) {
  using ufjit::tool::ExitCode;
  CLI::App app{
      "ufjit: a JIT compiler for scalar-function ufuncs and explicit kernels (Numba @vectorize and @cuda.jit for "
      "C++ and the shell)"};
  app.set_version_flag("--version", "ufjit " + ufjit::version());
  app.require_subcommand(1);
  app.footer(
      "'ufjit VERB --help' shows a verb's options and examples; 'man ufjit' all of them.\n\n"
      "Example (prints 5):\n"
      "  ufjit run examples/add_ufunc.ufn add_ufunc --in 2 --in 3");
  ufjit::tool::add_doc_flags(app);
  ExitCode exit_code = ExitCode::Ok;
  ufjit::tool::add_check_command(app, exit_code);
  ufjit::tool::add_compile_command(app, exit_code);
  ufjit::tool::add_run_command(app, exit_code);
  ufjit::tool::add_launch_command(app, exit_code);
  ufjit::tool::add_info_command(app, exit_code);
  ufjit::tool::add_cache_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return static_cast<int>(ExitCode::UsageError);
  } catch (...) {
    return static_cast<int>(ufjit::tool::report_current_exception());
  }
  return static_cast<int>(ufjit::tool::flush_stdout(exit_code));
}
