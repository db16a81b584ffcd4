#include "cli/options.h"

#include <cctype>
#include <cstdio>

#include "util/error.h"

namespace hetcim::cli::options {

void quiet(CLI::App* cmd, bool& quiet, const std::string& help) {
  cmd->add_flag("--quiet", quiet, help);
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

void dataset(CLI::App* cmd, std::string& dataset, std::string& data_dir,
             const std::vector<std::string>& names, const std::string& dataset_help,
             const std::string& dir_help) {
  CLI::Option* name = cmd->add_option("--dataset", dataset, dataset_help)->capture_default_str();
  if (!names.empty()) name->check(CLI::IsMember(names));
  CLI::Option* dir = cmd->add_option("--data-dir", data_dir, dir_help);
  hidden_alias(cmd->add_option("--dataset-dir", data_dir, dir_help), dir);
}

void split(CLI::App* cmd, std::string& split, const std::string& help) {
  cmd->add_option("--split", split, help)
      ->check(CLI::IsMember({"train", "test"}))
      ->capture_default_str();
}

void chip_seeds(CLI::App* cmd, uint64_t& chip_seed, uint64_t& read_seed,
                const std::string& chip_help, const std::string& read_help) {
  CLI::Option* seed = cmd->add_option("--chip-seed", chip_seed, chip_help)->capture_default_str();
  hidden_alias(cmd->add_option("--seed", chip_seed, chip_help), seed);
  cmd->add_option("--read-seed", read_seed, read_help)->capture_default_str();
}

void sim_mode(CLI::App* cmd, std::string& mode, const std::string& help) {
  cmd->add_option("--mode", mode, help)->check(CLI::IsMember({"physical", "reference"}));
}

void threads(CLI::App* cmd, int& threads, const std::string& help, int lo, int hi) {
  cmd->add_option("--threads", threads, help)->check(CLI::Range(lo, hi))->capture_default_str();
}

void torch_eval(CLI::App* cmd, int64_t& batch_size, int& threads) {
  cmd->add_option("--batch-size", batch_size,
                  "Images per analog read (reference mode shares noise per batch)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  options::threads(cmd, threads, "libtorch threads (0: libtorch's default)");
}

void limit(CLI::App* cmd, int64_t& limit, const std::string& help) {
  cmd->add_option("--limit", limit, help)->check(CLI::NonNegativeNumber);
}

std::string type_name(const api::FieldSpec& f, const api::FieldRef& kind) {
  if (!f.choices.empty()) {
    std::string s = "{";
    for (size_t i = 0; i < f.choices.size(); ++i)
      s += (i == 0 ? "" : ",") + (f.choices[i].empty() ? "''" : f.choices[i]);
    return s + "}";
  }
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
