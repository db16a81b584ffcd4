#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "util/error.h"
#include "xbar/chip_profile.h"
#include "xbar/chips_yaml.h"

namespace hetcim::xbar {
namespace {

const std::string kChips = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << text << "' lacks '" << part << "'";
}

// Seed 002, Table I (columns per seeds/README.md) and Sec. IV-B.
TEST(ChipsYaml, ShippedProfilesMatchSeed002TableOne) {
  const auto profiles = load_chip_profiles(kChips);
  ASSERT_EQ(profiles.size(), 7u);
  const double read[] = {1.0, 2.8, 4.6, 6.4, 8.2, 10.0};
  const double write[] = {2.0, 7.6, 13.2, 18.8, 24.4, 30.0};
  const double stuck[] = {0.020, 0.116, 0.212, 0.308, 0.404, 0.500};
  const double energy[] = {0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
  const double latency[] = {0.090, 0.105, 0.120, 0.135, 0.150, 0.165};
  for (int i = 0; i < 6; ++i) {
    const ChipProfile& p = profiles[static_cast<size_t>(i)];
    EXPECT_EQ(p.name, "A" + std::to_string(i));
    EXPECT_NEAR(p.read_noise, read[i] * 1e-6, 1e-15);
    EXPECT_NEAR(p.write_noise, write[i] * 1e-6, 1e-15);
    EXPECT_NEAR(p.stuck_fraction, stuck[i] / 100, 1e-15);
    ASSERT_TRUE(p.energy && p.latency);
    EXPECT_NEAR(*p.energy, energy[i] * 1e-6, 1e-18);
    EXPECT_NEAR(*p.latency, latency[i] * 1e-3, 1e-15);
    EXPECT_NEAR(p.g_min, 133e-6, 1e-15);
    EXPECT_NEAR(p.g_max, 233e-6, 1e-15);
    EXPECT_EQ(p.device_bits, 8);
    EXPECT_EQ(p.dac_bits, 8);
    EXPECT_EQ(p.adc_bits, 8);
    EXPECT_EQ(p.array_rows, 2500);
    EXPECT_EQ(p.array_cols, 2500);
    EXPECT_EQ(p.mode, SimMode::Physical);
  }
  // Seed 001's PCM IMA: 256x256, 4-bit signed weights (-7..7 = 3 magnitude bits), 8-bit DAC/ADC.
  const ChipProfile& pcm = profiles[6];
  EXPECT_EQ(pcm.name, "pcm_ima");
  EXPECT_EQ(pcm.array_rows, 256);
  EXPECT_EQ(pcm.array_cols, 256);
  EXPECT_EQ((1 << pcm.device_bits) - 1, 7);
  EXPECT_EQ(pcm.dac_bits, 8);
  EXPECT_EQ(pcm.adc_bits, 8);
  EXPECT_NEAR(*pcm.latency, 130e-9, 1e-18);
  EXPECT_FALSE(pcm.energy.has_value());
}

TEST(ChipsYaml, SpecSelectsOneProfile) {
  const ChipProfile a3 = load_chip_profile(kChips + ":A3");
  EXPECT_EQ(a3.name, "A3");
  EXPECT_NEAR(a3.write_noise, 18.8e-6, 1e-15);
  const std::string e = error_of([&] { (void)load_chip_profile(kChips + ":A9"); });
  expect_contains(e, "no chip profile 'A9'");
  expect_contains(e, "A0, A1");
  expect_contains(error_of([] { (void)load_chip_profile("chips.yaml"); }), "FILE:PROFILE");
  expect_contains(error_of([] { (void)load_chip_profiles("/nonexistent/chips.yaml"); }),
                  "/nonexistent/chips.yaml");
}

TEST(ChipsYaml, ModeAndRangingFields) {
  const auto p = parse_chip_profiles(
      "profiles:\n  r:\n    mode: reference\n  f:\n    adc_ranging: fixed\n    adc_full_scale: 12\n"
      "    array: 128x64\n",
      "t.yaml");
  EXPECT_EQ(p[0].mode, SimMode::Reference);
  EXPECT_EQ(p[1].adc_ranging, AdcRanging::Fixed);
  EXPECT_DOUBLE_EQ(p[1].adc_full_scale, 12.0);
  EXPECT_EQ(p[1].array_rows, 128);
  EXPECT_EQ(p[1].array_cols, 64);
}

TEST(ChipsYaml, ErrorsNameFileProfileAndField) {
  auto parse = [](const std::string& body) {
    return error_of([&] { (void)parse_chip_profiles("profiles:\n  X1:\n" + body, "my.yaml"); });
  };
  std::string e = parse("    g_min: 233uS\n    g_max: 133uS\n");
  expect_contains(e, "my.yaml");
  expect_contains(e, "'X1'");
  expect_contains(e, "g_min");
  e = parse("    read_noise: -1uS\n");
  expect_contains(e, "'X1'");
  expect_contains(e, "read_noise");
  e = parse("    adc_bits: 17\n");
  expect_contains(e, "adc_bits");
  expect_contains(e, "[2, 16]");
  e = parse("    device_bits: 0\n");
  expect_contains(e, "device_bits");
  e = parse("    stuck: 0.5\n");
  expect_contains(e, "stuck");
  expect_contains(e, "percentage");
  e = parse("    stuck: 150%\n");
  expect_contains(e, "stuck");
  e = parse("    g_min: 133\n");
  expect_contains(e, "g_min");
  e = parse("    read_nois: 1uS\n");
  expect_contains(e, "unknown field 'read_nois'");
  e = parse("    write_noise: 2uJ\n");
  expect_contains(e, "write_noise");
  e = parse("    array: 256\n");
  expect_contains(e, "256x256");
  e = parse("    adc_ranging: fixed\n");
  expect_contains(e, "adc_full_scale");
  e = parse("    mode: reference\n    adc_ranging: fixed\n    adc_full_scale: 4\n");
  expect_contains(e, "max_abs");
  e = parse("    mode: fast\n");
  expect_contains(e, "'physical' or 'reference'");
  expect_contains(error_of([] { (void)parse_chip_profiles("profiles: [1, 2", "bad.yaml"); }),
                  "bad.yaml");
  expect_contains(error_of([] { (void)parse_chip_profiles("chips: {}\n", "k.yaml"); }),
                  "unknown top-level key 'chips'");
}

TEST(ChipProfile, ValidateDirectly) {
  ChipProfile p;
  p.name = "P";
  EXPECT_NO_THROW(validate_profile(p));
  p.g_max = p.g_min;
  expect_contains(error_of([&] { validate_profile(p, "f.yaml"); }), "f.yaml: chip profile 'P'");
  p = ChipProfile{};
  p.name = "P";
  p.dac_bits = 1;
  expect_contains(error_of([&] { validate_profile(p); }), "dac_bits");
  p.dac_bits = 0;  // ideal DAC is allowed
  EXPECT_NO_THROW(validate_profile(p));
  p.write_noise = std::nan("");
  expect_contains(error_of([&] { validate_profile(p); }), "write_noise");
}

}  // namespace
}  // namespace hetcim::xbar
