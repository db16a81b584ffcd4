// The parameters of a platform that `hetcim dse --platform P --sweep KEY=v1,v2` varies: each key
// names one field of platform.h (or of the cluster it uses) and how a value text becomes it.
//   imas            crossbars of every seed001-ima engine (1..4096), as --imas
//   crossbars       crossbars of every crossbar engine (1..4096)
//   bus_width       the cluster's IMA data interface in bit ("128" or "128bit"; a whole number of
//                   bytes), seed 001's Fig. 7 axis; only on a platform with seed001 costs
//   link_bandwidth  bandwidth of every link ("4GB/s")
//   link_latency    latency of every link ("50ns")
//   serial          whether every link carries one transfer at a time (true / false)
//   t_mvm           seconds per MVM of every seed000-cim engine ("100ns"), seed 000's T_mvm axis;
//                   only on a platform with a seed000-cim engine
//   host            the host of every seed000-host engine: arm, x86, a host model or a profile
//                   file (cost/host_choice.h), seed 000's --host; only with a seed000-host engine
//   replicas        up to R weight copies per operator on every seed000-cim engine (1..64), seed
//                   000's --replicas; only on a platform with a seed000-cim engine
// A grid is the product of its axes, the first axis varying slowest.
#pragma once

#include <string>
#include <vector>

#include "platform/platform.h"

namespace hetcim::platform {

struct SweepKey {
  std::string name;
  std::string what;  // one line for the help text and errors
};

[[nodiscard]] const std::vector<SweepKey>& sweep_keys();

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;  // as typed, each checked against the key
};

// "KEY=v1,v2,...": UserError naming the key (an unknown key lists the known ones) or the value.
[[nodiscard]] SweepAxis parse_sweep(const std::string& text);

// Sets `key` to `value` in `p`; UserError naming the key and the value when the value is not one
// of the key's, or the key does not apply to the platform (no engine or link it would change).
void apply_sweep(Platform& p, const std::string& key, const std::string& value);
// The t_mvm key's value as a number of seconds (a request's typed field): UserError as above.
void apply_t_mvm(Platform& p, double seconds);

// Every point of the grid over `axes` (first axis slowest): the values, one per axis.
[[nodiscard]] std::vector<std::vector<std::string>> sweep_grid(const std::vector<SweepAxis>& axes);

}  // namespace hetcim::platform
