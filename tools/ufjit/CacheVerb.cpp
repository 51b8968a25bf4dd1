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

ExitCode run_cache(const CacheOptions &options) {
  if (options.action == "list") {
    for (const CacheEntryInfo &e : list_cache()) {
      std::cout << e.key << "  " << e.bytes << "  " << e.label << "\n";
    }
    return ExitCode::Ok;
  }
  if (options.action == "stats") {
    CacheStats s = cache_stats();
    std::cout << "dir: " << s.dir << "\n"
              << "enabled: " << (s.enabled ? "yes" : "no") << "\n"
              << "exists: " << (s.exists ? "yes" : "no") << "\n"
              << "writable: " << (s.writable ? "yes" : "no") << "\n"
              << "entries: " << s.entries << "\n"
              << "bytes: " << s.total_bytes << "\n"
              << "max_bytes: " << s.max_bytes << "\n";
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
    uint64_t limit = options.max_bytes != 0 ? options.max_bytes : cache_stats().max_bytes;
    std::cout << prune_cache(limit) << " entries removed\n";
    return ExitCode::Ok;
  }
  std::cout << clear_cache() << " entries removed\n";
  return ExitCode::Ok;
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
  cmd->callback([options, &exit_code] {
    try {
      exit_code = run_cache(*options);
    } catch (...) {
      exit_code = report_current_exception();
    }
  });
}

}  // namespace ufjit::tool
