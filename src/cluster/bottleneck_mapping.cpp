#include "cluster/bottleneck_mapping.h"

#include <algorithm>
#include <cmath>

#include "cluster/area.h"
#include "cluster/dw_engine.h"
#include "cluster/ima_model.h"
#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::cluster {
namespace {

struct Context {
  const ClusterConfig& config;
  ImaConfig ima;  // config.ima with the TCDM's stream efficiency
  double f;
  double p_cores, p_ima, p_dw, p_base;
};

LayerCost on_cores(const Context& cx, const std::string& layer, int64_t work, double per_cycle) {
  LayerCost c{layer, "cores", cores_cycles(work, per_cycle), work, 0, 0.0};
  c.energy = cx.p_cores * static_cast<double>(c.cycles) / cx.f;
  return c;
}

LayerCost on_ima(const Context& cx, const std::string& layer, const ImaLayer& l, int64_t& devices) {
  const ImaLayerCost k = ima_layer_cost(cx.ima, cx.f, l);
  LayerCost c{layer, "ima", k.cycles, l.macs, k.jobs, 0.0};
  c.energy = cx.p_ima * static_cast<double>(k.cycles) / cx.f +
             ima_job_energy(cx.config) * static_cast<double>(k.jobs);
  devices += l.devices;
  return c;
}

}  // namespace

int64_t cores_cycles(int64_t work, double per_cycle) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(work) / per_cycle - 1e-9));
}

Mapping parse_mapping(const std::string& name) {
  if (name == "cores") return {Mapping::Kind::Cores, 0};
  if (name == "hybrid") return {Mapping::Kind::Hybrid, 0};
  if (name == "ima+dw") return {Mapping::Kind::ImaDw, 0};
  const std::string prefix = "ima-cjob";
  if (name.starts_with(prefix)) {
    const std::optional<int64_t> c = parse_integer(name.substr(prefix.size()));
    if (c && *c >= 1) return {Mapping::Kind::ImaOnly, *c};
  }
  throw user_error("unknown mapping '", name,
                   "' (expected cores, ima-cjob<N> such as ima-cjob8, hybrid or ima+dw)");
}

std::string mapping_name(const Mapping& m) {
  switch (m.kind) {
    case Mapping::Kind::Cores:
      return "cores";
    case Mapping::Kind::ImaOnly:
      return "ima-cjob" + std::to_string(m.c_job);
    case Mapping::Kind::Hybrid:
      return "hybrid";
    case Mapping::Kind::ImaDw:
      return "ima+dw";
  }
  throw internal_error("mapping kind");
}

std::vector<Mapping> paper_mappings() {
  return {{Mapping::Kind::Cores, 0},
          {Mapping::Kind::ImaOnly, 8},
          {Mapping::Kind::ImaOnly, 16},
          {Mapping::Kind::Hybrid, 0},
          {Mapping::Kind::ImaDw, 0}};
}

BottleneckStudy bottleneck_study(const ClusterConfig& config, const zoo::BottleneckShape& s,
                                 const std::vector<Mapping>& mappings) {
  zoo::check_bottleneck_shape(s);
  if (mappings.empty()) throw user_error("bottleneck: no mapping to evaluate");
  validate(config, config.name);

  const int64_t hidden = s.c_in * s.expansion;
  const bool expand = s.expansion > 1;
  const DwLayer dw_layer{s.height, s.width, hidden, 3, s.stride, 1};
  const int64_t ho = (s.height + 2 - 3) / s.stride + 1, wo = (s.width + 2 - 3) / s.stride + 1;
  const int64_t in_px = s.height * s.width, out_px = ho * wo;
  const bool residual = s.stride == 1 && s.c_in == s.c_out;
  const int64_t pw1_macs = expand ? in_px * s.c_in * hidden : 0;
  const int64_t dw_macs = 9 * hidden * out_px;
  const int64_t pw2_macs = out_px * hidden * s.c_out;
  const int64_t res_adds = residual ? out_px * s.c_out : 0;

  BottleneckStudy study;
  study.shape = s;
  study.weights = (expand ? s.c_in * hidden : 0) + 9 * hidden + hidden * s.c_out;
  study.activation_bytes =
      in_px * s.c_in + (expand ? in_px * hidden : 0) + out_px * hidden + out_px * s.c_out;
  study.fits_tcdm = study.weights + study.activation_bytes <= config.tcdm_bytes;
  const zoo::BottleneckShape d;
  study.default_shape = s.height == d.height && s.width == d.width && s.c_in == d.c_in &&
                        s.expansion == d.expansion && s.c_out == d.c_out && s.stride == d.stride;
  auto footprint = [&](const std::string& name, int64_t rows, int64_t cols) {
    const int64_t tiles = ((rows + config.ima.rows - 1) / config.ima.rows) *
                          ((cols + config.ima.cols - 1) / config.ima.cols);
    study.pointwise.push_back({name, rows, cols, tiles, rows * cols,
                               static_cast<double>(rows * cols) /
                                   static_cast<double>(config.ima.rows * config.ima.cols)});
  };
  if (expand) footprint("pw_expand", s.c_in, hidden);
  footprint("pw_project", hidden, s.c_out);

  const Context cx{config,
                   ima_with_tcdm(config, config.ima),
                   config.clock.frequency,
                   scale_power(config.cores.power, config, config.clock),
                   scale_power(config.ima.power, config, config.clock),
                   scale_power(config.dw.power, config, config.clock),
                   scale_power(config.base_power, config, config.clock)};
  const double cells = static_cast<double>(config.ima.rows * config.ima.cols);
  const AreaBreakdown area = cluster_area(config);
  const double ops =
      2.0 * static_cast<double>(pw1_macs + dw_macs + pw2_macs) + static_cast<double>(res_adds);

  for (const Mapping& m : mappings) {
    MappingResult r;
    r.mapping = m;
    int64_t devices = 0;
    const bool pw_on_ima = m.kind != Mapping::Kind::Cores;
    auto pointwise = [&](const std::string& name, int64_t rows, int64_t cols, int64_t vectors) {
      if (!pw_on_ima) {
        r.layers.push_back(
            on_cores(cx, name, rows * cols * vectors, config.cores.pointwise_mac_per_cycle));
        return;
      }
      const ImaLayer l = dense_ima_layer(cx.ima, rows, cols, vectors);
      r.layers.push_back(on_ima(cx, name, l, devices));
      if (l.partial_sum_adds > 0)
        r.layers.push_back(on_cores(cx, name + "_partial_sums", l.partial_sum_adds,
                                    config.cores.eltwise_per_cycle));
    };
    if (expand) pointwise("pw_expand", s.c_in, hidden, in_px);
    switch (m.kind) {
      case Mapping::Kind::Cores:
        r.layers.push_back(on_cores(cx, "dw", dw_macs, config.cores.depthwise_mac_per_cycle));
        break;
      case Mapping::Kind::Hybrid:
        // The IMA writes HWC; the software kernel reads CHW: the cores re-lay the input out.
        r.layers.push_back(
            on_cores(cx, "dw_marshal", in_px * hidden, config.cores.marshal_bytes_per_cycle));
        r.layers.push_back(on_cores(cx, "dw", dw_macs, config.cores.depthwise_mac_per_cycle));
        break;
      case Mapping::Kind::ImaOnly: {
        const ImaLayer l = depthwise_ima_layer(cx.ima, hidden, 3, m.c_job, out_px);
        r.layers.push_back(on_ima(cx, "dw", l, devices));
        break;
      }
      case Mapping::Kind::ImaDw: {
        const DwCost d = dw_engine_cost(config.dw, dw_layer);
        LayerCost c{"dw",   "dw", d.cycles,
                    d.macs, 0,    cx.p_dw * static_cast<double>(d.cycles) / cx.f};
        r.layers.push_back(c);
        break;
      }
    }
    pointwise("pw_project", hidden, s.c_out, out_px);
    if (residual)
      r.layers.push_back(on_cores(cx, "residual", res_adds, config.cores.eltwise_per_cycle));

    double dynamic = 0;
    for (const LayerCost& l : r.layers) {
      r.cycles += l.cycles;
      dynamic += l.energy;
    }
    r.seconds = static_cast<double>(r.cycles) / cx.f;
    r.ops = ops;
    r.gops = ops / r.seconds / 1e9;
    r.energy = dynamic + cx.p_base * r.seconds;
    r.gops_per_watt = ops / r.energy / 1e9;
    r.ima_devices = devices;
    r.ima_crossbars = static_cast<double>(devices) / cells;
    r.area = area.total + area.ima * std::max(0.0, r.ima_crossbars - 1.0);
    r.gops_per_mm2 = r.gops / (r.area * 1e6);
    study.results.push_back(std::move(r));
  }
  const MappingResult& base = study.results.front();
  for (MappingResult& r : study.results) {
    r.speedup = static_cast<double>(base.cycles) / static_cast<double>(r.cycles);
    r.energy_gain = r.gops_per_watt / base.gops_per_watt;
    r.area_gain = r.gops_per_mm2 / base.gops_per_mm2;
  }
  return study;
}

}  // namespace hetcim::cluster
