#include "cli/options.h"

#include <cctype>
#include <cstdio>

#include "util/error.h"

namespace hetcim::cli::options {

void quiet(CLI::App* cmd, bool& quiet, const std::string& help) {
  cmd->add_flag("--quiet", quiet, help);
}

void figure_flags(CLI::App* cmd, report::FigureOptions& figures) {
  cmd->add_flag("--provenance-on-image", figures.draw_footnote,
                "Also draw each figure's provenance footnote (where its numbers come from) on "
                "the image; it is in the SVG/PNG metadata and the caption either way");
}

std::function<void(const std::string&)> stderr_lines(bool quiet) {
  if (quiet) return {};
  return [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };
}

CLI::Option* hidden_alias(CLI::Option* alias, const CLI::Option* main) {
  const std::string message = alias->get_name(false, true) + " is the old spelling of " +
                              main->get_name(false, true) + "; give only " +
                              main->get_name(false, true);
  // Validators run once parsing is over, when main's count is final; a UserError passes through
  // CLI11 to run_app, which prints it as every other bad input ("hetcim: error: ...", exit 1).
  alias->check(CLI::Validator(
      [main, message](const std::string&) {
        if (main->count() > 0) throw UserError(message);
        return std::string();
      },
      ""));
  return alias->group("");
}

std::string type_name(const api::FieldSpec& f, const api::FieldRef& kind) {
  if (!f.choices.empty()) {
    std::string s = "{";
    for (size_t i = 0; i < f.choices.size(); ++i)
      s += (i == 0 ? "" : ",") + (f.choices[i].empty() ? "''" : f.choices[i]);
    return s + "}";
  }
  if (f.percent) return "PERCENT";
  if (f.unit) {
    std::string s(quantity_name(*f.unit));
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }
  if (std::holds_alternative<uint64_t*>(kind) ||
      std::holds_alternative<std::optional<uint64_t>*>(kind))
    return "UINT";
  if (std::holds_alternative<int*>(kind) || std::holds_alternative<int64_t*>(kind) ||
      std::holds_alternative<std::optional<int64_t>*>(kind))
    return "INT";
  if (std::holds_alternative<double*>(kind) || std::holds_alternative<std::optional<double>*>(kind))
    return "FLOAT";
  return "TEXT";
}

}  // namespace hetcim::cli::options
