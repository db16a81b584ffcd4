// Each CLI command registers itself on the app: parse flags into an options struct, call the
// library, write the result. No command logic lives in main().
#pragma once

#include <CLI/CLI.hpp>

namespace hetcim::cli {

void register_models(CLI::App& app);
void register_inspect(CLI::App& app);
void register_export(CLI::App& app);
void register_run(CLI::App& app);
void register_profile(CLI::App& app);
void register_partition(CLI::App& app);
void register_dse(CLI::App& app);
void register_cluster(CLI::App& app);
// In hetcim-torch (libtorch), built with hetcim_train:
void register_train(CLI::App& app);
void register_analog(CLI::App& app);
// In hetcim when hetcim-torch is built: `train` and `analog` that exec hetcim-torch.
void register_torch_forwarders(CLI::App& app);

}  // namespace hetcim::cli
