// Progress of a long `ufjit run` or `ufjit compile` on a terminal: the
// current stage ("loading f.ufn", "running f", "writing out.npy", "compiling")
// and the time so far, on one line of stderr overwritten with '\r' and erased
// at the end. Nothing at all when stderr is not a terminal, with
// --no-progress, UFJIT_PROGRESS=0 or UFJIT_DEBUG (whose log it would
// garble), so that output read by programs and tests never changes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ufjit::tool {

/// The help of the --no-progress flag of compile and run.
inline constexpr const char *kNoProgressHelp =
    "show no progress line on a terminal (also UFJIT_PROGRESS=0); without a terminal there is none";

/// Shows stages once the command has taken longer than a threshold (1 s,
/// UFJIT_PROGRESS_AFTER_MS to change it): a command that ends sooner prints
/// nothing. A stage that takes long is shown by a thread that refreshes the
/// elapsed time; it exists only while a progress line can be shown.
class Progress {
 public:
  /// `requested`: false for --no-progress. Shows nothing unless stderr is a
  /// terminal, UFJIT_PROGRESS is not 0 and UFJIT_DEBUG is unset or 0.
  explicit Progress(bool requested);
  /// Erases the line (as finish() does).
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// The work now under way, e.g. "running add_ufunc".
  void stage(const std::string &text);
  /// Erases the line and stops the thread; call before printing anything
  /// else on stderr (diagnostics), so that no progress text is left in it.
  void finish();

 private:
  void refresh_loop();
  void draw_locked();

  bool enabled_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds after_{1000};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string stage_;
  std::size_t drawn_ = 0;  // characters on the line now (to erase them)
  bool done_ = false;
  std::thread refresher_;
};

}  // namespace ufjit::tool
