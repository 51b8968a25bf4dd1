#include <iostream>

#include "Verbs.h"
#include "ufjit/cache.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {
namespace {

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

ExitCode run_info() {
  std::cout << "ufjit " << version() << "\n";
  DriverInfo driver = device_info();
  if (!driver.available) {
    std::cout << "cuda: not available (" << driver.reason << "); the cpu target works\n";
  } else {
    std::cout << "cuda driver: " << driver.driver_version_string << "\n";
    for (const DeviceInfo &d : driver.devices) {
      std::cout << "device " << d.ordinal << ": " << d.name << ", " << d.arch << " (compute capability "
                << d.cc_major << "." << d.cc_minor << "), " << d.sm_count << " SMs, " << gib(d.total_memory)
                << "\n";
    }
  }
  CacheStats cache = cache_stats();
  std::cout << "cache: " << cache.dir;
  if (!cache.enabled) {
    std::cout << " (disabled by UFJIT_CACHE=off)\n";
  } else if (!cache.problem.empty()) {
    std::cout << " (unusable: it " << cache.problem << "; point UFJIT_CACHE_DIR at a directory)\n";
  } else {
    std::cout << " (" << cache.entries << " entries, " << cache.total_bytes << " bytes of at most " << cache.max_bytes
              << (cache.exists ? "" : ", not created yet") << (cache.exists && !cache.writable ? ", read-only" : "")
              << ")\n";
  }
  return ExitCode::Ok;
}

}  // namespace

void add_info_command(CLI::App &app, ExitCode &exit_code) {
  CLI::App *cmd = app.add_subcommand("info", "Show devices, driver, LLVM and the cache directory");
  cmd->footer("Example:\n  ufjit info");
  set_verb_callback(cmd, exit_code, [] { return run_info(); });
}

}  // namespace ufjit::tool
