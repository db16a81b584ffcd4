// Chip profiles from YAML with human units. Layout (data/chips.yaml is the shipped example):
//
//   defaults:            # optional; every profile starts from these fields
//     g_min: 133uS
//     g_max: 233uS
//   profiles:
//     A0:                # the profile name
//       write_noise: 2uS
//       read_noise: 1uS
//       stuck: 0.020%    # a percentage; a bare number is rejected as ambiguous
//       energy: 0.7uJ
//       latency: 0.090ms
//
// Fields: g_min, g_max, write_noise, read_noise (conductances); device_bits, dac_bits, adc_bits
// (integers); stuck (percent), stuck_high_share (a plain fraction in [0, 1]); adc_ranging
// (max_abs | fixed), adc_full_scale (a plain number, see AdcRanging); array ("256x256", rows x
// cols); energy (J), latency (s); mode (physical | reference); drift_nu, drift_nu_sd (plain
// numbers: the drift exponent's mean and device-to-device sd), drift_t0 (a time, e.g. "20s"),
// read_noise_growth (true | false, default false), read_noise_t_read (a time, default 250ns).
// Unknown fields are errors, and every profile is checked with validate_profile().
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xbar/chip_profile.h"

namespace hetcim::xbar {

// `source` names the text in error messages (normally the file name).
[[nodiscard]] std::vector<ChipProfile> parse_chip_profiles(std::string_view yaml_text,
                                                           std::string_view source);
[[nodiscard]] std::vector<ChipProfile> load_chip_profiles(const std::string& path);

// The chips file shipped with hetcim: $HETCIM_CHIPS_FILE when set; else
// shipped_data_path("chips.yaml") (util/shipped_data.h: the installed <prefix>/share/hetcim copy,
// else the source tree's data/chips.yaml).
[[nodiscard]] std::string shipped_chips_file();

// A chip spec as a file and profile: a bare profile name ("A3": no ':', letters, digits, '_' and
// '-' only, and no such file) -> "<shipped_chips_file()>:A3"; any other spec unchanged. Every
// loader below resolves through it, so the CLI and Python accept the same specs; callers that
// record the chip record the resolved spec (where the profile was found).
[[nodiscard]] std::string resolve_chip_spec(std::string_view spec);

// "path/chips.yaml:A0" (or a bare "A0", resolve_chip_spec) -> the profile A0 of that file
// (UserError listing the names it has).
[[nodiscard]] ChipProfile load_chip_profile(std::string_view spec);

}  // namespace hetcim::xbar
