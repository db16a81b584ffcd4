// `hetcim train` and `hetcim analog` as this executable sees them: the commands live in
// hetcim-torch (main_torch.cpp), the only program that loads libtorch. They are listed here for
// --help and handed over with execv (same arguments, same exit code, same output).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/error.h"

namespace hetcim::cli {
namespace {

std::filesystem::path torch_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw internal_error("cannot locate this executable (/proc/self/exe): ", ec.message());
  return self.parent_path() / "hetcim-torch";
}

[[noreturn]] void exec_torch(const std::string& command, const std::vector<std::string>& rest) {
  const std::filesystem::path exe = torch_executable();
  std::vector<std::string> args{"hetcim", command};
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(exe.c_str(), argv.data());
  throw user_error("hetcim ", command, ": cannot start ", exe.string(), " (", std::strerror(errno),
                   "); this installation lacks the libtorch commands");
}

}  // namespace

void register_torch_forwarders(CLI::App& app) {
  const std::pair<const char*, const char*> commands[] = {
      {"train",
       "Train RACE-AIMC's CNN (race-cnn) with libtorch and write it as ONNX (see hetcim train "
       "--help)"},
      {"analog",
       "Simulated analog in-memory accelerators (RACE-AIMC: Yousuf, Lueker-Boden 2026, "
       "'RACE-AIMC: Selective Inference for Heterogeneous Analog In-Memory Accelerators "
       "at the Edge'; see hetcim analog --help)"}};
  for (const auto& [name, help] : commands) {
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->prefix_command();
    cmd->allow_extras();
    cmd->set_help_flag();
    const std::string command = name;
    cmd->callback([cmd, command] { exec_torch(command, cmd->remaining()); });
  }
}

}  // namespace hetcim::cli
