#include "Progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ufjit::tool {
namespace {

/// How often the elapsed time of a long stage is redrawn.
constexpr std::chrono::milliseconds kRefresh{250};
/// Progress lines are cut to this width so that they never wrap (a wrapped
/// line cannot be overwritten with '\r').
constexpr std::size_t kMaxWidth = 79;

bool set_and_not_zero(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

/// UFJIT_DEBUG's log lines go to stderr too, and a progress line drawn
/// between them would garble both.
bool progress_wanted(bool requested) {
  if (!requested || ::isatty(STDERR_FILENO) == 0 || set_and_not_zero("UFJIT_DEBUG")) return false;
  const char *env = std::getenv("UFJIT_PROGRESS");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

/// UFJIT_PROGRESS_AFTER_MS, a whole number of milliseconds; anything else
/// keeps the default.
std::chrono::milliseconds threshold(std::chrono::milliseconds fallback) {
  const char *env = std::getenv("UFJIT_PROGRESS_AFTER_MS");
  if (env == nullptr || *env == '\0') return fallback;
  char *end = nullptr;
  const long long ms = std::strtoll(env, &end, 10);
  if (*end != '\0' || ms < 0) return fallback;
  return std::chrono::milliseconds(ms);
}

/// Writes straight to the descriptor: std::cerr's buffer is shared with
/// the diagnostics, and a line drawn from the refresh thread must not mix
/// into them.
void write_stderr(const std::string &text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a progress line is never worth an error
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

Progress::Progress(bool requested)
    : enabled_(progress_wanted(requested)), start_(std::chrono::steady_clock::now()) {
  if (!enabled_) return;
  after_ = threshold(after_);
  refresher_ = std::thread([this] { refresh_loop(); });
}

Progress::~Progress() {
  finish();
}

void Progress::stage(const std::string &text) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  stage_ = text;
  if (std::chrono::steady_clock::now() - start_ >= after_) draw_locked();
}

void Progress::finish() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    if (drawn_ > 0) {
      std::string blank(drawn_ + 2, ' ');  // '\r', spaces over the line, '\r'
      blank.front() = '\r';
      blank.back() = '\r';
      write_stderr(blank);
    }
    drawn_ = 0;
  }
  wake_.notify_all();
  if (refresher_.joinable()) refresher_.join();
  enabled_ = false;
}

void Progress::refresh_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_until(lock, start_ + after_, [this] { return done_; })) return;
  while (true) {
    draw_locked();
    if (wake_.wait_for(lock, kRefresh, [this] { return done_; })) return;
  }
}

void Progress::draw_locked() {
  if (done_ || stage_.empty()) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), " (%.1f s)", seconds);
  std::string line = "\rufjit: ";
  line += stage_;
  line += elapsed;
  if (line.size() > kMaxWidth + 1) line = line.substr(0, kMaxWidth - 2) + "...";
  const std::size_t width = line.size() - 1;
  if (width < drawn_) line.append(drawn_ - width, ' ');  // cover a longer previous line
  write_stderr(line);
  drawn_ = width > drawn_ ? width : drawn_;
}

}  // namespace ufjit::tool
