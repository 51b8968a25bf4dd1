#include "VerifyDiagnostics.h"

#include <charconv>
#include <cstdint>
#include <iostream>
#include <regex>
#include <sstream>
#include <vector>

#include "ufjit/compiler.h"

namespace ufjit::tool {
namespace {

struct Expectation {
  std::string severity;
  int line = 0;
  std::string text;
  bool matched = false;
};

std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

/// The expectations of lines [begin, end). An annotation whose line is not a
/// line of the file (`@+99999999999`) is reported and clears `well_formed`.
std::vector<Expectation> parse_expectations(const std::vector<std::string> &lines, std::size_t begin,
                                            std::size_t end, const std::string &source_name,
                                            bool &well_formed) {
  static const std::regex kPattern(R"(expected-(error|warning|note)(@([+-]?)(\d+))?\s*\{\{(.*?)\}\})");
  std::vector<Expectation> result;
  for (std::size_t i = begin; i < end; ++i) {
    const std::string &line = lines[i];
    auto hash = line.find('#');
    if (hash == std::string::npos) continue;
    std::string comment = line.substr(hash);
    for (std::sregex_iterator it(comment.begin(), comment.end(), kPattern), stop; it != stop; ++it) {
      const std::smatch &m = *it;
      Expectation e;
      e.severity = m[1].str();
      int64_t line_number = static_cast<int64_t>(i) + 1;
      if (m[2].matched) {
        const std::string digits = m[4].str();
        int64_t offset = 0;
        const auto [rest, failure] = std::from_chars(digits.data(), digits.data() + digits.size(), offset);
        const std::string sign = m[3].str();
        if (failure != std::errc() || rest != digits.data() + digits.size()) {
          line_number = 0;  // more digits than any line number has
        } else if (offset > int64_t{1} << 40) {
          line_number = 0;  // past any file, and the sums below cannot overflow
        } else if (sign == "+") {
          line_number += offset;
        } else if (sign == "-") {
          line_number -= offset;
        } else {
          line_number = offset;
        }
      }
      if (line_number < 1 || line_number > static_cast<int64_t>(lines.size())) {
        std::cerr << source_name << ":" << i + 1 << ": error: expected-" << e.severity << m[2].str()
                  << " names no line of the file (it has " << lines.size() << ")\n";
        well_formed = false;
        continue;
      }
      e.line = static_cast<int>(line_number);
      e.text = m[5].str();
      result.push_back(std::move(e));
    }
  }
  return result;
}

bool verify_case(const std::vector<std::string> &lines, std::size_t begin, std::size_t end,
                 const std::string &source_name) {
  // Keep line numbers: lines outside the case become empty.
  std::string source;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i >= begin && i < end) source += lines[i];
    source += '\n';
  }
  bool ok = true;
  std::vector<Expectation> expected = parse_expectations(lines, begin, end, source_name, ok);
  CompileResult result = check(source, source_name);
  for (const DiagnosticMessage &d : result.diagnostics) {
    bool found = false;
    for (Expectation &e : expected) {
      if (!e.matched && e.severity == d.severity && e.line == d.line &&
          d.message.find(e.text) != std::string::npos) {
        e.matched = true;
        found = true;
        break;
      }
    }
    if (!found) {
      std::cerr << source_name << ":" << d.line << ":" << d.column << ": unexpected " << d.severity << ": "
                << d.message << "\n";
      ok = false;
    }
  }
  for (const Expectation &e : expected) {
    if (!e.matched) {
      std::cerr << source_name << ":" << e.line << ": expected " << e.severity << " not reported: {{" << e.text
                << "}}\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace

bool verify_diagnostics(const std::string &source, const std::string &source_name) {
  std::vector<std::string> lines = split_lines(source);
  static const std::regex kSplit(R"(^\s*#\s*-----\s*$)");
  bool ok = true;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= lines.size(); ++i) {
    if (i == lines.size() || std::regex_match(lines[i], kSplit)) {
      ok = verify_case(lines, begin, i, source_name) && ok;
      begin = i + 1;
    }
  }
  return ok;
}

}  // namespace ufjit::tool
