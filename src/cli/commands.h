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
// Built with hetcim_train (libtorch), HETCIM_WITH_TRAIN:
void register_train(CLI::App& app);
void register_analog(CLI::App& app);
void register_analog_study(CLI::App& analog);  // under `analog`, from register_analog
void register_analog_serve(CLI::App& analog);

}  // namespace hetcim::cli
