// `hetcim train` and `hetcim analog ...` as command lines: each command's subcommand, help and
// flags, declared once for both programs. hetcim-torch (main_torch.cpp) gives each its run as the
// callback; hetcim (cmd_torch_forward.cpp) declares the same tree, so that --help and a bad flag
// are answered without loading libtorch, and execs hetcim-torch with the same arguments only to
// run one. The flags come from api_torch's field tables (api_torch/fields.cpp, no libtorch).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "api/analog_chip.h"
#include "api_torch/analog.h"
#include "api_torch/drift.h"
#include "api_torch/serve.h"
#include "api_torch/study.h"
#include "cli/model_source.h"
#include "report/figure_style.h"

namespace hetcim::cli {

struct TrainArgs {
  std::string model;
  api::TrainRequest request;
  bool quiet = false;
};

struct AnalogEvalArgs {
  api::AnalogEvalRequest request;
  std::string logits, json;
  bool quiet = false;
};

struct AnalogRunArgs {
  ModelSource model;
  api::AnalogRunRequest request;
  std::vector<std::string> inputs, outputs;
};

struct AnalogSelectArgs {
  api::AnalogSelectRequest request;
  std::string json, policy;
  bool quiet = false;
};

struct AnalogStudyArgs {
  api::AnalogStudyRequest request;
  std::string design_risks = "0.05,0.06,0.07,0.08,0.09,0.10";
  bool quiet = false;
  report::FigureOptions drawing;
};

struct AnalogServeArgs {
  api::AnalogServeRequest request;
  std::string json, decisions;
  bool quiet = false;
};

struct AnalogDriftArgs {
  api::AnalogDriftRequest request;
  std::string out;
  bool quiet = false;
  report::FigureOptions drawing;
};

// Each adds its subcommand with its flags bound to `a` (which must outlive the parse) and returns
// it; the caller sets the callback.
CLI::App* add_train_command(CLI::App& app, TrainArgs& a);
CLI::App* add_analog_group(CLI::App& app);  // `analog`, requiring one of the below
CLI::App* add_analog_eval(CLI::App& analog, AnalogEvalArgs& a);
CLI::App* add_analog_audit(CLI::App& analog, api::AnalogAuditRequest& q);
CLI::App* add_analog_run(CLI::App& analog, AnalogRunArgs& a);
CLI::App* add_analog_select(CLI::App& analog, AnalogSelectArgs& a);
CLI::App* add_analog_study(CLI::App& analog, AnalogStudyArgs& a);
CLI::App* add_analog_serve(CLI::App& analog, AnalogServeArgs& a);
CLI::App* add_analog_drift(CLI::App& analog, AnalogDriftArgs& a);

// `analog audit` and `analog run` need no libtorch (api/analog_chip.h): both programs run them.
void run_analog_audit(const api::AnalogAuditRequest& q);
void run_analog_run(const AnalogRunArgs& a);

}  // namespace hetcim::cli
