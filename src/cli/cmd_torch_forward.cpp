// `hetcim train` and `hetcim analog` as this executable sees them: the same subcommands and flags
// as hetcim-torch's (cli/torch_flags.h), so --help and a bad flag are answered here without
// loading libtorch (about 1 s). A command that trains or simulates with libtorch is handed to
// hetcim-torch (main_torch.cpp), the only program that loads it, with execv (same arguments, same
// exit code, same output); `analog audit` and `analog run` need no libtorch and run here.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/torch_flags.h"
#include "util/error.h"

namespace hetcim::cli {
namespace {

std::filesystem::path torch_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw internal_error("cannot locate this executable (/proc/self/exe): ", ec.message());
  return self.parent_path() / "hetcim-torch";
}

[[noreturn]] void exec_torch(const std::string& command, std::vector<std::string> args) {
  const std::filesystem::path exe = torch_executable();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(exe.c_str(), argv.data());
  throw user_error("hetcim ", command, ": cannot start ", exe.string(), " (", std::strerror(errno),
                   "); this installation lacks the libtorch commands");
}

// Every command's flags, bound here only so that the parse can check them.
struct Declared {
  TrainArgs train;
  AnalogEvalArgs eval;
  api::AnalogAuditRequest audit;
  AnalogRunArgs run;
  AnalogSelectArgs select;
  AnalogStudyArgs study;
  AnalogServeArgs serve;
  AnalogDriftArgs drift;
};

}  // namespace

void register_torch_forwarders(CLI::App& app, int argc, char** argv) {
  auto d = std::make_shared<Declared>();
  std::vector<std::string> args{"hetcim"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const auto forward = [d, args](const char* command) {
    return [d, args, command] { exec_torch(command, args); };
  };
  add_train_command(app, d->train)->callback(forward("train"));
  CLI::App* analog = add_analog_group(app);
  add_analog_eval(*analog, d->eval)->callback(forward("analog eval"));
  add_analog_audit(*analog, d->audit)->callback([d] { run_analog_audit(d->audit); });
  add_analog_run(*analog, d->run)->callback([d] { run_analog_run(d->run); });
  add_analog_select(*analog, d->select)->callback(forward("analog select"));
  add_analog_study(*analog, d->study)->callback(forward("analog study"));
  add_analog_serve(*analog, d->serve)->callback(forward("analog serve"));
  add_analog_drift(*analog, d->drift)->callback(forward("analog drift"));
}

}  // namespace hetcim::cli
