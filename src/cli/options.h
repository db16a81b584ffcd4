// The flags several commands share, declared in one place: one name, one help text and one check
// per notion, added to a subcommand as a named group. A notion that had two spellings keeps the old
// one as a hidden alias (not in --help) bound to the same field, for scripts written against it:
//   --chip-seed   (alias --seed:        analog eval/audit/run/select/drift, execute)
//   --data-dir    (alias --dataset-dir: execute)
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>

namespace hetcim::cli::options {

// --quiet: no progress on stderr (or the command's own `help`).
void quiet(CLI::App* cmd, bool& quiet, const std::string& help = "No progress on stderr");

// A progress line printer for the api's progress callbacks: each line on stderr, or nothing with
// --quiet.
[[nodiscard]] std::function<void(const std::string&)> stderr_lines(bool quiet);

// --dataset NAME (fashion-mnist | cifar10, or `names` when a command takes others; {}: the api
// checks the name) and --data-dir DIR (hidden alias --dataset-dir).
void dataset(CLI::App* cmd, std::string& dataset, std::string& data_dir,
             const std::vector<std::string>& names = {"fashion-mnist", "cifar10"},
             const std::string& dataset_help = "fashion-mnist or cifar10",
             const std::string& dir_help = "Directory of the data set files");

// --split train|test.
void split(CLI::App* cmd, std::string& split, const std::string& help = "train or test");

// The chip instance and its reads: --chip-seed (hidden alias --seed) and --read-seed.
void chip_seeds(CLI::App* cmd, uint64_t& chip_seed, uint64_t& read_seed,
                const std::string& chip_help = "Chip seed: the persistent programmed state",
                const std::string& read_help = "Seed of the read noise");

// --mode physical|reference: overrides the chip profiles' simulation mode.
void sim_mode(CLI::App* cmd, std::string& mode,
              const std::string& help = "Override the profiles' simulation mode");

// --threads N in [lo, hi].
void threads(CLI::App* cmd, int& threads, const std::string& help, int lo = 0, int hi = 1024);

// libtorch evaluation: --batch-size (images per analog read) and --threads (libtorch threads).
void torch_eval(CLI::App* cmd, int64_t& batch_size, int& threads);

// --limit N: the first N images only (0: all).
void limit(CLI::App* cmd, int64_t& limit, const std::string& help = "First N images only (0: all)");

}  // namespace hetcim::cli::options
