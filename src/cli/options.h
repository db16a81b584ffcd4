// How a command declares its flags: an api request's field table becomes the command's flags
// (add_fields below: one name, help, unit, range and default per field, checked by the api with
// the message Python raises); what is not a request field (output paths, --quiet, renderings) the
// command adds itself. A notion that had two spellings keeps the old one as a hidden alias (not in
// --help) bound to the same field, for scripts written against it (`--seed` for `--chip-seed`,
// `--dataset-dir` for `--data-dir`): a field's .alias() in its table, or hidden_alias by hand.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "api/options.h"
#include "report/figure_style.h"

namespace hetcim::cli::options {

// --quiet: no progress on stderr (or the command's own `help`).
void quiet(CLI::App* cmd, bool& quiet, const std::string& help = "No progress on stderr");

// --provenance-on-image: every figure the command writes also shows its footnote (where its
// numbers come from: report::Chart::footnote) on the image; it is in the files' metadata and the
// captions either way. The one flag of every command that draws figures.
void figure_flags(CLI::App* cmd, report::FigureOptions& figures);

// A progress line printer for the api's progress callbacks: each line on stderr, or nothing with
// --quiet.
[[nodiscard]] std::function<void(const std::string&)> stderr_lines(bool quiet);

// Makes `alias` the hidden old spelling of `main`: not in --help, and refused together with it
// (CLI11's excludes() would print "Excludes:" with the hidden name blank in main's help).
CLI::Option* hidden_alias(CLI::Option* alias, const CLI::Option* main);

// INT, UINT, FLOAT, TEXT, PERCENT, or the unit (TIME, ...), as --help shows the value.
[[nodiscard]] std::string type_name(const api::FieldSpec& f, const api::FieldRef& kind);

// The flags of an api request's field table (api/options.h): each field `--flag` set through
// api::set_from_text (so a bad value gets the api's message, the one Python raises), its help
// composed with unit, choices or range and the default of a default-constructed R; a bool field is
// a flag that flips its default (--name when false, --no-name when true); a field's aliases are
// hidden options that exclude its flag (not in --help, but named in its flag's help when
// deprecated: run's --seed); bool fields take none. `skip`: fields the command declares itself
// (other spelling or type). Returns the options, by field name order.
template <typename R>
std::vector<CLI::Option*> add_fields(CLI::App* cmd, const api::FieldTable<R>& table, R& target,
                                     const std::vector<std::string>& skip = {}) {
  std::vector<CLI::Option*> added;
  R defaults{};
  for (const api::Field<R>& f : table) {
    if (std::find(skip.begin(), skip.end(), f.name) != skip.end()) continue;
    const api::FieldRef def = f.ref(defaults);
    const auto set = [&target, f](const std::string& text) {
      api::set_from_text(f, f.ref(target), text);
    };
    if (std::holds_alternative<bool*>(def)) {
      const bool on = !*std::get<bool*>(def);
      added.push_back(cmd->add_flag_callback(
          on ? f.flag() : "--no-" + f.flag().substr(2),
          [&target, f, on] { *std::get<bool*>(f.ref(target)) = on; }, f.help));
      continue;
    }
    std::string default_text = api::value_text(f, def);  // "600 s" shown as "600s", as typed
    if (f.unit) std::erase(default_text, ' ');
    std::string help = api::full_help(f, false, "");  // CLI11 shows choices and default
    if (f.aliases_in_help)
      for (const std::string& alias : f.aliases)
        help += ". " + alias + " is a deprecated spelling of this flag";
    CLI::Option* o = cmd->add_option_function<std::string>(f.flag(), set, help);
    o->type_name(type_name(f, def));
    if (!default_text.empty()) o->default_str(default_text);
    for (const std::string& alias : f.aliases)  // hidden; one spelling per command line
      hidden_alias(cmd->add_option_function<std::string>(alias, set, f.help), o);
    added.push_back(o);
  }
  return added;
}

}  // namespace hetcim::cli::options
