#include <iostream>

#include "Verbs.h"
#include "ufjit/cache.h"

namespace ufjit::tool {
namespace {

struct CacheOptions {
  std::string action;
  uint64_t max_bytes = 0;
  bool remove_corrupt = false;
};

/// Prints what prune or clear did; an entry that could not be removed is
/// an error (exit 1), with the first reason.
ExitCode report_removal(const CacheRemoveReport &report) {
  std::cout << report.removed << " entries removed\n";
  if (report.failed == 0 && report.error.empty()) {
    return ExitCode::Ok;
  }
  std::string what = report.failed > 0 ? std::to_string(report.failed) + " entries could not be removed (" : "";
  print_error(what + report.error + (report.failed > 0 ? ")" : "") +
              ": check the directory's permissions and what else is in it");
  return ExitCode::SourceError;
}

ExitCode run_cache(const CacheOptions &options) {
  CacheStats stats = cache_stats();
  if (!stats.problem.empty()) {
    print_error("the cache directory '" + stats.dir + "' " + stats.problem +
                ": point UFJIT_CACHE_DIR at a directory (or unset it)");
    return ExitCode::SourceError;
  }
  if (options.action == "list") {
    for (const CacheEntryInfo &e : list_cache()) {
      std::cout << e.key << "  " << e.bytes << "  " << e.label << "\n";
    }
    return ExitCode::Ok;
  }
  if (options.action == "stats") {
    std::cout << "dir: " << stats.dir << "\n"
              << "enabled: " << (stats.enabled ? "yes" : "no") << "\n"
              << "exists: " << (stats.exists ? "yes" : "no") << "\n"
              << "writable: " << (stats.writable ? "yes" : "no") << "\n"
              << "entries: " << stats.entries << "\n"
              << "bytes: " << stats.total_bytes << "\n"
              << "max_bytes: " << stats.max_bytes << "\n";
    return ExitCode::Ok;
  }
  if (options.action == "verify") {
    CacheVerifyReport report = verify_cache(options.remove_corrupt);
    for (const CacheEntryInfo &e : report.corrupt) {
      std::cout << "corrupt: " << e.path << " (" << e.problem << ")\n";
    }
    std::cout << report.checked << " entries checked, " << report.corrupt.size() << " corrupt";
    if (options.remove_corrupt) std::cout << ", " << report.removed << " removed";
    std::cout << "\n";
    return report.corrupt.empty() || options.remove_corrupt ? ExitCode::Ok : ExitCode::SourceError;
  }
  if (options.action == "prune") {
    return report_removal(prune_cache(options.max_bytes != 0 ? options.max_bytes : stats.max_bytes));
  }
  return report_removal(clear_cache());
}

}  // namespace

void add_cache_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<CacheOptions>();
  CLI::App *cmd = app.add_subcommand("cache", "Inspect or manage the on-disk kernel cache");
  cmd->add_option("action", options->action, "list, stats, verify, prune or clear")
      ->required()
      ->check(CLI::IsMember({"list", "stats", "verify", "prune", "clear"}));
  cmd->add_option("--max-bytes", options->max_bytes, "prune: the size to prune down to (default: the cap)");
  cmd->add_flag("--remove", options->remove_corrupt, "verify: delete corrupt entries");
  set_verb_callback(cmd, exit_code, [options] { return run_cache(*options); });
}

}  // namespace ufjit::tool
