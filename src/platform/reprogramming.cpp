#include "platform/reprogramming.h"

#include <cmath>
#include <cstdio>

#include "util/error.h"

namespace hetcim::platform {
namespace {

// The figures behind the presets. Pulse times, pulse energies and endurance ranges are review
// figures (literature); the number of program-and-verify pulses per analog weight and the
// row-parallel write are assumptions; the preset fields are derived from the two.
struct DeviceFigures {
  const char* name;
  double pulse_s;
  const char* pulse_ref;
  double pulse_j;
  const char* energy_ref;
  int pulses;
  double endurance;
  const char* endurance_ref;
};

constexpr int kPulses = 10;
constexpr const char* kPulsesRef =
    "program-and-verify of an analog (multi-level) weight: ~10 pulses assumed; a row's cells "
    "written in parallel (assumed)";

const DeviceFigures kPcm = {
    "pcm",
    100e-9,
    "SET (crystallisation) pulse ~100 ns, the slower of the two writes: Wong et al., 'Phase Change "
    "Memory', Proc. IEEE 98(12):2201-2227, 2010 (review)",
    10e-12,
    "RESET energy of the order of 10 pJ per cell: Wong et al., Proc. IEEE 98(12), 2010 (review)",
    kPulses,
    1e8,
    "endurance 1e6-1e9 cycles typical of PCM devices: Burr et al., 'Recent Progress in "
    "Phase-Change Memory Technology', IEEE JETCAS 6(2):146-162, 2016 (review); 1e8 taken inside "
    "the range"};

const DeviceFigures kRram = {
    "rram",
    10e-9,
    "switching in < 10 ns: Wong et al., 'Metal-Oxide RRAM', Proc. IEEE 100(6):1951-1970, 2012 "
    "(review)",
    1e-12,
    "switching energy of the order of 1 pJ per cell (down to 0.1 pJ): Wong et al., Proc. IEEE "
    "100(6), 2012 (review)",
    kPulses,
    1e6,
    "endurance 1e6-1e12 cycles reported for metal-oxide RRAM: Wong et al., Proc. IEEE 100(6), "
    "2012 (review); the low end taken for analog multi-level cells (endurance limits: Swaidan et "
    "al., ICECS 2019, Klein et al. 2026's [12])"};

const DeviceFigures& figures(const std::string& name) {
  if (name == "pcm") return kPcm;
  if (name == "rram") return kRram;
  throw user_error("reprogramming preset '", name, "' is unknown (expected pcm or rram)");
}

std::string num(double v, const char* unit) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g%s", v, unit);
  return b;
}

}  // namespace

WriteCost write_cost(const ReprogrammingSpec& r, const WriteFootprint& f) {
  WriteCost c;
  if (r.write_time_per_row) c.seconds = *r.write_time_per_row * static_cast<double>(f.rows);
  if (r.write_time_per_cell) c.seconds = *r.write_time_per_cell * static_cast<double>(f.cells);
  if (r.write_time_per_array) c.seconds = *r.write_time_per_array * static_cast<double>(f.arrays);
  c.joules = r.write_energy_per_cell * static_cast<double>(f.cells);
  return c;
}

std::vector<std::string> reprogramming_preset_names() {
  return {"pcm", "rram"};
}

ReprogrammingSpec reprogramming_preset(const std::string& name) {
  const DeviceFigures& d = figures(name);
  ReprogrammingSpec r;
  r.write_time_per_row = d.pulse_s * d.pulses;
  r.write_energy_per_cell = d.pulse_j * d.pulses;
  r.endurance = d.endurance;
  r.source = "literature preset '" + name + "' (platform/reprogramming.cpp; docs/platforms.md)";
  return r;
}

std::vector<ReprogrammingConstant> reprogramming_constants() {
  std::vector<ReprogrammingConstant> rows;
  for (const DeviceFigures* d : {&kPcm, &kRram}) {
    const std::string p = d->name;
    rows.push_back({p, "write pulse", num(d->pulse_s * 1e9, "ns"), "literature", d->pulse_ref});
    rows.push_back({p, "pulse energy", num(d->pulse_j * 1e12, "pJ"), "literature", d->energy_ref});
    rows.push_back({p, "pulses per weight", num(d->pulses, ""), "assumed", kPulsesRef});
    rows.push_back({p, "write_time_per_row", num(d->pulse_s * d->pulses * 1e9, "ns"), "derived",
                    "pulses per weight x write pulse"});
    rows.push_back({p, "write_energy_per_cell", num(d->pulse_j * d->pulses * 1e12, "pJ"), "derived",
                    "pulses per weight x pulse energy"});
    rows.push_back({p, "endurance", num(d->endurance, ""), "literature", d->endurance_ref});
  }
  return rows;
}

void validate(const ReprogrammingSpec& r, const std::string& field) {
  const int times = (r.write_time_per_row ? 1 : 0) + (r.write_time_per_cell ? 1 : 0) +
                    (r.write_time_per_array ? 1 : 0);
  if (times != 1)
    throw user_error(field,
                     ": expected exactly one of write_time_per_row, write_time_per_cell, "
                     "write_time_per_array, got ",
                     times);
  for (const auto& t : {r.write_time_per_row, r.write_time_per_cell, r.write_time_per_array})
    if (t && !(std::isfinite(*t) && *t >= 0))
      throw user_error(field, ": the write time must be finite and >= 0");
  if (!(std::isfinite(r.write_energy_per_cell) && r.write_energy_per_cell >= 0))
    throw user_error(field, ".write_energy_per_cell: expected a finite energy >= 0");
  if (!(std::isfinite(r.endurance) && r.endurance >= 1))
    throw user_error(field, ".endurance: expected the writes a cell survives, >= 1, got ",
                     r.endurance);
}

}  // namespace hetcim::platform
