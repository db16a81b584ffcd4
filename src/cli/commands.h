// Each CLI command registers itself on the app: parse flags into an options struct, call the
// library, write the result. No command logic lives in main().
#pragma once

#include <CLI/CLI.hpp>

#include "util/provenance.h"

namespace hetcim::cli {

void register_models(CLI::App& app);
void register_inspect(CLI::App& app);
void register_export(CLI::App& app);
void register_run(CLI::App& app);
// Commands whose outputs carry the provenance of the run (command line, version, date, machine)
// get it from main(); it outlives the parse.
void register_profile(CLI::App& app, const Provenance& provenance);
void register_partition(CLI::App& app, const Provenance& provenance);
void register_execute(CLI::App& app, const Provenance& provenance);
void register_sensitivity(CLI::App& app, const Provenance& provenance);
void register_dse(CLI::App& app, const Provenance& provenance);
void register_cluster(CLI::App& app, const Provenance& provenance);
void register_reproduce(CLI::App& app, const Provenance& provenance);
// In hetcim-torch (libtorch), built with hetcim_train:
void register_train(CLI::App& app, const Provenance& provenance);
void register_analog(CLI::App& app, const Provenance& provenance);
void register_analog_study(CLI::App& analog);  // under `analog`, from register_analog
void register_analog_serve(CLI::App& analog);
void register_analog_drift(CLI::App& analog, const Provenance& provenance);
// In hetcim when hetcim-torch is built: `train` and `analog` with their flags and help
// (cli/torch_flags.h), which exec hetcim-torch with this command line (argc, argv) to run.
void register_torch_forwarders(CLI::App& app, int argc, char** argv);

}  // namespace hetcim::cli
