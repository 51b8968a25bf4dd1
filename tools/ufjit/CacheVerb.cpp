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

ExitCode list_entries(const CacheOptions &, const CacheStats &) {
  for (const CacheEntryInfo &e : list_cache()) {
    std::cout << e.key << "  " << e.bytes << "  " << e.label << "\n";
  }
  return ExitCode::Ok;
}

ExitCode print_stats(const CacheOptions &, const CacheStats &stats) {
  std::cout << "dir: " << stats.dir << "\n"
            << "enabled: " << (stats.enabled ? "yes" : "no") << "\n"
            << "exists: " << (stats.exists ? "yes" : "no") << "\n"
            << "writable: " << (stats.writable ? "yes" : "no") << "\n"
            << "entries: " << stats.entries << "\n"
            << "bytes: " << stats.total_bytes << "\n"
            << "max_bytes: " << stats.max_bytes << "\n";
  return ExitCode::Ok;
}

ExitCode verify_entries(const CacheOptions &options, const CacheStats &) {
  CacheVerifyReport report = verify_cache(options.remove_corrupt);
  for (const CacheEntryInfo &e : report.corrupt) {
    std::cout << "corrupt: " << e.path << " (" << e.problem << ")\n";
  }
  std::cout << report.checked << " entries checked, " << report.corrupt.size() << " corrupt";
  if (options.remove_corrupt) std::cout << ", " << report.removed << " removed";
  std::cout << "\n";
  return report.corrupt.empty() || options.remove_corrupt ? ExitCode::Ok : ExitCode::SourceError;
}

ExitCode prune_entries(const CacheOptions &options, const CacheStats &stats) {
  return report_removal(prune_cache(options.max_bytes != 0 ? options.max_bytes : stats.max_bytes));
}

ExitCode clear_entries(const CacheOptions &, const CacheStats &) { return report_removal(clear_cache()); }

/// The sub-verbs of `ufjit cache`, each with its --help example.
struct CacheVerb {
  const char *name;
  const char *description;
  const char *example;
  ExitCode (*run)(const CacheOptions &, const CacheStats &);
};

constexpr CacheVerb kCacheVerbs[] = {
    {"list", "List the entries: key, bytes and label (the ufunc and signature)", "ufjit cache list", list_entries},
    {"stats", "Show the directory, whether it is usable, the entries, their bytes and the cap", "ufjit cache stats",
     print_stats},
    {"verify", "Check every entry's checksum; exit 1 when one is corrupt (unless --remove)", "ufjit cache verify",
     verify_entries},
    {"prune", "Remove least recently used entries until the cache fits the cap (or --max-bytes)",
     "ufjit cache prune --max-bytes 100000000", prune_entries},
    {"clear", "Remove every entry", "ufjit cache clear", clear_entries},
};

ExitCode run_cache(const CacheVerb &verb, const CacheOptions &options) {
  CacheStats stats = cache_stats();
  if (!stats.problem.empty()) {
    print_error("the cache directory '" + stats.dir + "' " + stats.problem +
                ": point UFJIT_CACHE_DIR at a directory (or unset it)");
    return ExitCode::SourceError;
  }
  return verb.run(options, stats);
}

}  // namespace

void add_cache_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<CacheOptions>();
  CLI::App *cmd = app.add_subcommand("cache", "Inspect or manage the on-disk kernel cache");
  cmd->require_subcommand(1);
  cmd->footer("Example:\n  ufjit cache stats");
  for (const CacheVerb &verb : kCacheVerbs) {
    CLI::App *sub = cmd->add_subcommand(verb.name, verb.description);
    sub->footer(std::string("Example:\n  ") + verb.example);
    set_verb_callback(sub, exit_code, [options, &verb] { return run_cache(verb, *options); });
  }
  cmd->get_subcommand("prune")->add_option("--max-bytes", options->max_bytes,
                                           "the size to prune down to, in bytes (default: the cap)");
  cmd->get_subcommand("verify")->add_flag("--remove", options->remove_corrupt, "delete corrupt entries");
}

}  // namespace ufjit::tool
