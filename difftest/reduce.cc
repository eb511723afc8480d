#include "difftest/reduce.h"

#include <regex>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kir::difftest {
namespace {

absl::string_view Trimmed(const std::string& s) { return absl::StripAsciiWhitespace(s); }

bool Protected(const std::string& line) {
  absl::string_view t = Trimmed(line);
  return absl::StartsWith(t, "kernel ") || absl::StartsWith(t, "target ") || absl::StartsWith(t, "workgroup ") ||
         absl::StartsWith(t, "grid ") || t == "end" || t == "}" || t.empty();
}

// Removable units: [first, last] line ranges; a line opening a `{` block
// takes the block through its closing `}`.
std::vector<std::pair<int, int>> Units(const std::vector<std::string>& lines) {
  std::vector<std::pair<int, int>> u;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    if (Protected(lines[i])) continue;
    if (absl::EndsWith(Trimmed(lines[i]), "{")) {
      int depth = 0, j = i;
      for (; j < static_cast<int>(lines.size()); ++j) {
        absl::string_view t = Trimmed(lines[j]);
        if (absl::EndsWith(t, "{")) ++depth;
        if (t == "}" && --depth == 0) break;
      }
      u.push_back({i, j});
    } else {
      u.push_back({i, i});
    }
  }
  return u;
}

std::string Join(const std::vector<std::string>& lines) { return absl::StrJoin(lines, "\n") + "\n"; }

}  // namespace

std::string ReduceKernel(const std::string& text, const std::function<bool(const std::string&)>& still_fails,
                         int max_tests) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  int tests = 0;
  auto test = [&](const std::vector<std::string>& cand) {
    if (tests >= max_tests) return false;
    ++tests;
    return still_fails(Join(cand));
  };
  bool changed = true;
  while (changed && tests < max_tests) {
    changed = false;
    // Remove runs of units, halving the run length.
    for (size_t chunk = std::max<size_t>(1, Units(lines).size() / 2); chunk >= 1; chunk /= 2) {
      for (size_t start = 0;;) {
        std::vector<std::pair<int, int>> u = Units(lines);
        if (start >= u.size() || tests >= max_tests) break;
        size_t end = std::min(u.size(), start + chunk);
        std::vector<bool> drop(lines.size(), false);
        for (size_t i = start; i < end; ++i)
          for (int l = u[i].first; l <= u[i].second; ++l) drop[l] = true;
        std::vector<std::string> cand;
        for (size_t l = 0; l < lines.size(); ++l)
          if (!drop[l]) cand.push_back(lines[l]);
        if (test(cand)) {
          lines = std::move(cand);
          changed = true;
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    // Local simplifications, line by line.
    static const std::regex kFor(R"(for (%\w+) = (-?\d+) to (-?\d+))");
    for (size_t i = 0; i < lines.size() && tests < max_tests; ++i) {
      std::vector<std::string> rewrites;
      absl::string_view t = Trimmed(lines[i]);
      if (absl::StartsWith(t, "grid ") && t != "grid 1 1 1") rewrites.push_back("grid 1 1 1");
      if (absl::StartsWith(t, "workgroup ") && t != "workgroup 64 1 1" && t != "workgroup auto")
        rewrites.push_back("workgroup 64 1 1");
      if (absl::StrContains(lines[i], " guarded ")) {
        std::string s = lines[i];
        s.replace(s.find(" guarded "), 9, " ");
        rewrites.push_back(s);
      }
      std::smatch m;
      if (std::regex_search(lines[i], m, kFor)) {
        long lo = std::stol(m[2].str());
        std::string repl = "for " + m[1].str() + " = " + m[2].str() + " to " + std::to_string(lo + 1);
        if (repl != m[0].str()) rewrites.push_back(std::string(m.prefix()) + repl + std::string(m.suffix()));
      }
      for (const std::string& r : rewrites) {
        std::vector<std::string> cand = lines;
        cand[i] = r;
        if (test(cand)) {
          lines = std::move(cand);
          changed = true;
          break;
        }
      }
    }
  }
  return Join(lines);
}

}  // namespace kir::difftest
