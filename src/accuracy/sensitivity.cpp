#include "accuracy/sensitivity.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include "select/logit_cache.h"
#include "util/error.h"
#include "util/hash.h"
#include "xbar/chip_profile.h"

namespace hetcim::accuracy {
namespace {

std::string hex_hash(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a:%016" PRIx64, h);
  return buf;
}

struct Hasher {
  Fnv1a f;
  void text(const std::string& s) {
    const uint64_t n = s.size();
    f.update(&n, sizeof n);
    f.update(s.data(), s.size());
  }
  void i64(int64_t v) { f.update(&v, sizeof v); }
  void f64(double v) { f.update(&v, sizeof v); }
  void texts(const std::vector<std::string>& v) {
    i64(static_cast<int64_t>(v.size()));
    for (const auto& s : v) text(s);
  }
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

std::string model_hash(const graph::Graph& g) {
  Hasher h;
  h.texts(g.inputs);
  h.texts(g.outputs);
  for (const graph::Node& n : g.nodes) {
    h.text(n.name);
    h.text(n.op_type);
    h.text(n.domain);
    h.texts(n.inputs);
    h.texts(n.outputs);
    for (const auto& [key, value] : n.attrs) {
      h.text(key);
      h.i64(static_cast<int64_t>(value.index()));
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, int64_t>) {
              h.i64(v);
            } else if constexpr (std::is_same_v<T, double>) {
              h.f64(v);
            } else if constexpr (std::is_same_v<T, std::string>) {
              h.text(v);
            } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
              h.i64(static_cast<int64_t>(v.size()));
              for (int64_t x : v) h.i64(x);
            } else if constexpr (std::is_same_v<T, std::vector<double>>) {
              h.i64(static_cast<int64_t>(v.size()));
              for (double x : v) h.f64(x);
            } else {
              h.texts(v);
            }
          },
          value);
    }
  }
  for (const auto& [name, init] : g.initializers) {
    h.text(name);
    h.i64(static_cast<int64_t>(init.info.dtype));
    if (init.info.shape)
      for (int64_t d : *init.info.shape) h.i64(d);
    h.i64(static_cast<int64_t>(init.raw.size()));
    h.f.update(init.raw.data(), init.raw.size());
  }
  return hex_hash(h.f.h);
}

std::string profile_text(const xbar::ChipProfile& p) {
  std::ostringstream s;
  s.precision(17);
  s << "name=" << p.name << ";g_min=" << p.g_min << ";g_max=" << p.g_max
    << ";device_bits=" << p.device_bits << ";write_noise=" << p.write_noise
    << ";read_noise=" << p.read_noise << ";stuck=" << p.stuck_fraction
    << ";stuck_high_share=" << p.stuck_high_share << ";dac_bits=" << p.dac_bits
    << ";adc_bits=" << p.adc_bits << ";adc_ranging=" << xbar::adc_ranging_name(p.adc_ranging)
    << ";adc_full_scale=" << p.adc_full_scale << ";array=" << p.array_rows << "x" << p.array_cols
    << ";mode=" << xbar::sim_mode_name(p.mode);
  return s.str();
}

std::string profile_hash(const xbar::ChipProfile& p) {
  return hex_hash(fnv1a(profile_text(p)));
}

std::vector<float> chip_logits(const graph::Graph& prepared, const CalibrationSet& set,
                               const SensitivityOptions& o, const std::vector<std::string>& analog,
                               bool* cached) {
  if (cached) *cached = false;
  std::string key;
  // The cache's label bytes (select/logit_cache.h) hold each label's low byte: a consistency
  // check; the key names the set, which fixes the labels.
  std::vector<uint8_t> low(set.labels.size());
  for (size_t i = 0; i < low.size(); ++i) low[i] = static_cast<uint8_t>(set.labels[i] & 0xff);
  if (!o.cache_dir.empty()) {
    std::ostringstream k;
    std::vector<std::string> sorted = analog;  // a set: the order does not change the run
    std::sort(sorted.begin(), sorted.end());
    k << "hetcim accuracy logits 1\nmodel=" << o.model_hash << "\nset=" << set.description
      << "\nsamples=" << set.count << "\nanalog=" << join(sorted);
    if (!analog.empty())
      k << "\nchip=" << profile_text(o.chip.profile) << "\nchip_seed=" << o.chip.chip_seed
        << "\nread_seed=" << o.chip.read_seed;
    key = k.str();
    if (const auto hit = select::load_logits(o.cache_dir, key)) {
      if (hit->classes != set.classes || hit->labels != low)
        throw user_error("logit cache ", o.cache_dir, "/", select::logit_file_name(key),
                         ": its labels or classes differ from the calibration set's");
      if (cached) *cached = true;
      return hit->logits;
    }
  }
  std::vector<float> logits = evaluate_on_chip(prepared, set, o.chip, analog);
  if (!key.empty()) select::store_logits(o.cache_dir, {key, set.classes, low, logits});
  return logits;
}

Sensitivity measure_sensitivity(const graph::Graph& prepared, const CalibrationSet& set,
                                const std::vector<std::string>& operators,
                                const SensitivityOptions& o) {
  if (operators.empty())
    throw user_error("sensitivity: model '", prepared.name, "' has no operator a chip can run");
  Sensitivity s;
  s.cost = o.cost;
  s.set_description = set.description;
  s.samples = set.count;
  const size_t k = operators.size();
  const size_t pairs = std::min(o.max_pairs, k * (k - 1) / 2);
  const size_t greedy = o.greedy && k >= 2 ? k - 1 : 0;
  const size_t total = 1 + k + greedy + pairs;
  const auto run = [&](const std::vector<std::string>& analog) {
    bool cached = false;
    std::vector<float> logits = chip_logits(prepared, set, o, analog, &cached);
    ++s.runs;
    s.cached_runs += cached ? 1 : 0;
    if (o.progress) o.progress(s.runs, total);
    return logits;
  };
  const std::vector<float> digital = run({});
  const std::vector<int64_t> digital_top = top1(digital, set.classes);
  const auto measure = [&](const std::vector<std::string>& analog, double* error,
                           CostEstimate* logit) {
    const std::vector<float> logits = run(analog);
    if (error) *error = relative_error(digital, logits);
    *logit = logit_cost(digital, logits, set.classes, o.level);
    return paired_drop(digital_top, top1(logits, set.classes), set.labels, o.level);
  };
  for (const std::string& name : operators) {
    OperatorSensitivity op;
    op.name = name;
    op.drop = measure({name}, &op.output_error, &op.logit);
    s.operators.push_back(op);
  }
  const auto single = [&](size_t i) {
    return o.cost == CostKind::Top1 ? s.operators[i].drop.drop() : s.operators[i].logit.value;
  };
  s.digital_accuracy = s.operators.front().drop.digital_accuracy();
  std::vector<size_t> order(k);
  for (size_t i = 0; i < k; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return single(a) < single(b); });
  if (greedy) {
    SetCheck c;
    c.operators.push_back(s.operators[order[0]].name);
    c.predicted = s.operators[order[0]].drop.drop();
    c.predicted_logit = s.operators[order[0]].logit.value;
    for (size_t i = 1; i < k; ++i) {
      c.operators.push_back(s.operators[order[i]].name);
      c.predicted += s.operators[order[i]].drop.drop();
      c.predicted_logit += s.operators[order[i]].logit.value;
      c.measured = measure(c.operators, nullptr, &c.measured_logit);
      s.greedy.push_back(c);
    }
  }
  for (size_t i = 0, done = 0; i < k && done < pairs; ++i)
    for (size_t j = i + 1; j < k && done < pairs; ++j, ++done) {
      SetCheck c;
      c.operators = {s.operators[i].name, s.operators[j].name};
      c.predicted = s.operators[i].drop.drop() + s.operators[j].drop.drop();
      c.predicted_logit = s.operators[i].logit.value + s.operators[j].logit.value;
      c.measured = measure(c.operators, nullptr, &c.measured_logit);
      s.pairs.push_back(c);
    }
  return s;
}

}  // namespace hetcim::accuracy
