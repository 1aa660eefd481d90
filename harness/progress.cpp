// A run's progress on stderr: a one-line bar redrawn in place on a terminal, and elsewhere (CI
// logs, TERM=dumb, a redirected stdout) plain lines with the time left, every 10 % or 10 s.
#include "harness/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>

namespace samebits {
namespace {

constexpr auto kRedraw = std::chrono::milliseconds(100);  // the bar, at most this often
constexpr auto kLineEvery = std::chrono::seconds(10);     // a line at least this often

// "42s", "25m10s", "1h02m".
std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

ProgressStyle progress_style() {
  const char* term = std::getenv("TERM");
  const bool dumb = term == nullptr || *term == '\0' || std::strcmp(term, "dumb") == 0;
  const bool terminals = ::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1;
  return terminals && !dumb ? ProgressStyle::bar : ProgressStyle::lines;
}

Progress::Progress(std::int64_t total, bool enabled)
    : Progress(total, enabled ? progress_style() : ProgressStyle::none, stderr, &Clock::now) {}

Progress::Progress(std::int64_t total, ProgressStyle style, std::FILE* out,
                   std::function<Clock::time_point()> now)
    : total_(total), style_(style), out_(out), now_(std::move(now)), start_(now_()) {
  last_draw_ = start_;
}

void Progress::step(const std::string& label, bool surprising) {
  ++ran_;
  if (surprising) ++surprises_;
  advance(label);
}

void Progress::taken(const std::string& label) {
  // Taken cases cost nothing: they neither set the pace nor make a line of their own.
  ++done_;
  if (total_ > 0) last_tenth_ = 10 * done_ / total_;
  const auto now = now_();
  if (style_ == ProgressStyle::bar && (done_ == total_ || now - last_draw_ > kRedraw)) {
    last_draw_ = now;
    draw(label);
  }
}

void Progress::advance(const std::string& label) {
  ++done_;
  const auto now = now_();
  if (style_ == ProgressStyle::bar && (done_ == total_ || now - last_draw_ > kRedraw)) {
    last_draw_ = now;
    draw(label);
  }
  if (style_ == ProgressStyle::lines) {
    const std::int64_t tenth = total_ > 0 ? 10 * done_ / total_ : 10;
    if (tenth > last_tenth_ || now - last_draw_ >= kLineEvery) {
      last_tenth_ = tenth;
      last_draw_ = now;
      line();
    }
  }
}

// Printing must never end a run: a stderr that fails (a full disk, a closed pipe) loses the
// progress, not the cases.
void Progress::draw(const std::string& label) {
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * done_ / total_) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '=');
  bar.resize(kWidth, ' ');
  const std::string shown = label.size() > 60 ? "..." + label.substr(label.size() - 57) : label;
  try {
    fmt::print(out_, "\r\033[K[{}] {}/{} unexpected {} {}", bar, done_, total_, surprises_, shown);
    std::fflush(out_);
  } catch (const std::exception&) {
  }
}

void Progress::line() {
  const double elapsed = std::chrono::duration<double>(now_() - start_).count();
  std::string left;
  if (ran_ > 0 && done_ < total_) {
    left =
        ", about " +
        duration_text(elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_)) +
        " left";
  }
  try {
    fmt::print(out_, "samebits: {} of {} cases ({} %), {} unexpected, {} so far{}\n", done_, total_,
               total_ > 0 ? 100 * done_ / total_ : 100, surprises_, duration_text(elapsed), left);
    std::fflush(out_);
  } catch (const std::exception&) {
  }
}

void Progress::finish() {
  if (style_ != ProgressStyle::bar) return;
  try {
    fmt::print(out_, "\r\033[K");
    std::fflush(out_);
  } catch (const std::exception&) {
  }
}

}  // namespace samebits
