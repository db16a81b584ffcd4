#include "api/execute.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "accuracy/paired.h"
#include "api/common.h"
#include "api/file_fields.h"
#include "api/model.h"
#include "api/options.h"
#include "api/partition.h"
#include "cost/hardware.h"
#include "data/dataset.h"
#include "exec/weights.h"
#include "hybrid/evaluate.h"
#include "partition/energy.h"
#include "partition/exact.h"
#include "passes/pipeline.h"
#include "select/race.h"
#include "util/error.h"
#include "util/files.h"
#include "xbar/chips_yaml.h"
#include "xbar/model_layers.h"

namespace hetcim::api {
namespace {

// The plan's header fields (what partition_json writes beside the operators).
struct PlanHeader {
  std::string model, hardware, host, transfer_model, bus_model;
  std::optional<int64_t> crossbar_budget;
  std::optional<double> t_mvm;
  // accuracy.calibration of a plan `partition --sensitivity` chose: the images its accuracy
  // budget was measured on (data set, split, how many).
  std::string calibration_dataset, calibration_split;
  int64_t calibration_samples = 0;
};

PlanHeader read_plan_header(const std::string& path) {
  const std::string text = read_input_file(path, "plan");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw user_error(path, ": not valid JSON: ", e.what());
  }
  if (!j.is_object()) throw user_error(path, ": expected a JSON object (a partition plan)");
  PlanHeader h;
  const auto str = [&](const char* field, std::string& out) {
    if (!j.contains(field)) return;
    if (!j[field].is_string()) throw user_error(path, ": field '", field, "' must be a string");
    out = j[field].get<std::string>();
  };
  str("model", h.model);
  str("hardware", h.hardware);
  str("host", h.host);
  str("transfer_model", h.transfer_model);
  str("bus_model", h.bus_model);
  // The hardware overrides, bounded as --crossbars and --t-mvm are (api/file_fields.h).
  if (j.contains("crossbar_budget"))
    h.crossbar_budget = file_field<std::optional<int64_t>>(
        hardware_fields(), "crossbars", j["crossbar_budget"], path, "crossbar_budget");
  if (j.contains("t_mvm_s"))
    h.t_mvm = file_field<std::optional<double>>(hardware_fields(), "t_mvm", j["t_mvm_s"], path,
                                                "t_mvm_s");
  if (j.contains("accuracy") && j["accuracy"].is_object() &&
      j["accuracy"].contains("calibration")) {
    const nlohmann::json& c = j["accuracy"]["calibration"];
    if (!c.is_object() || !c.contains("dataset") || !c["dataset"].is_string() ||
        !c.contains("split") || !c["split"].is_string() || !c.contains("samples") ||
        !c["samples"].is_number_integer() || c["samples"].get<int64_t>() < 0)
      throw user_error(path,
                       ": field 'accuracy.calibration' must be {dataset, split, samples} as "
                       "`hetcim partition --json` writes it");
    h.calibration_dataset = c["dataset"].get<std::string>();
    h.calibration_split = c["split"].get<std::string>();
    h.calibration_samples = c["samples"].get<int64_t>();
  }
  return h;
}

// A zoo name or a file as a reader compares them: the file name without directory and extension.
std::string model_key(const std::string& spec) {
  return std::filesystem::path(spec).stem().string();
}

HardwareRequest hardware_of_plan(const std::string& path, const PlanHeader& h) {
  HardwareRequest hw;
  if (h.hardware.empty())
    throw user_error(path, ": field 'hardware' is missing; give the hardware (--preset or --hw)");
  const std::vector<std::string> presets = cost::hardware_preset_names();
  std::error_code ec;
  if (std::find(presets.begin(), presets.end(), h.hardware) != presets.end()) {
    hw.preset = h.hardware;
  } else if (std::filesystem::is_regular_file(h.hardware, ec)) {
    hw.file = h.hardware;
  } else {
    throw user_error(path, ": field 'hardware' is '", h.hardware,
                     "', neither a preset nor a readable file; give the hardware (--preset or "
                     "--hw)");
  }
  hw.crossbars = h.crossbar_budget;
  hw.t_mvm = h.t_mvm;
  return hw;
}

results::PathCost cost_of(const partition::Problem& p, const partition::Schedule& s) {
  return {s.makespan, partition::energy_of(p, s).total};
}

std::string seeded_text(size_t n, uint64_t seed) {
  return n == 0 ? std::string("from the model")
                : std::to_string(n) + " initializers seeded (Kaiming-uniform, weight seed " +
                      std::to_string(seed) + ")";
}

results::ExecutionCertificate certify(const ExecuteRequest& q, const hybrid::EvaluateResult& analog,
                                      const hybrid::EvaluateResult& digital,
                                      const results::PathCost& plan,
                                      const results::PathCost& host) {
  select::PoolLogits pool;
  pool.classes = analog.classes;
  pool.labels = analog.labels;
  pool.reference_logits = digital.logits;
  pool.accelerators.push_back({"plan", plan.energy_j, analog.logits, {}});
  select::RaceOptions o;
  o.risk = q.risk;
  o.certificate_delta = q.certificate_delta;
  o.design_risk = q.design_risk.value_or(0.8 * q.risk);
  o.design_delta = q.design_delta;
  o.split_seed = q.split_seed;
  const int64_t n = analog.count;
  o.splits = {n / 5, n / 5, 2 * n / 5, n - n / 5 - n / 5 - 2 * n / 5};
  // The partitioned network's energies are the plan's and the all-host path's (both modelled
  // totals, bus included): none of seed 002's per-activation extras.
  o.energy = {0.0, 0.0, 0.0, host.energy_j};
  const select::RaceResult r = select::run_race(pool, o);
  const select::AcceleratorResult& a = r.accelerators.at(0);
  results::ExecutionCertificate c;
  c.risk = o.risk;
  c.delta = o.certificate_delta;
  c.design_risk = o.design_risk;
  c.design_delta = o.design_delta;
  c.score = std::string(select::confidence_score_name(o.score));
  c.bias_correction = o.bias_correction;
  c.split_seed = o.split_seed;
  c.hardware_rows = o.splits.hardware;
  c.policy_rows = o.splits.policy;
  c.certificate_rows = o.splits.certificate;
  c.test_rows = o.splits.test;
  c.feasible = a.fit.feasible;
  c.threshold = a.fit.threshold;
  c.upper_bound = r.certificate.upper_bound;
  c.certified = r.selected.has_value() && r.certificate.certified;
  c.certificate_coverage = r.selected ? r.certificate.stats.coverage() : 0.0;
  c.test_coverage = r.selected ? a.test.coverage() : 0.0;
  c.test_selective_risk = a.test.selective_risk();
  c.hybrid_accuracy = r.hybrid_accuracy;
  c.analog_accuracy = a.test.accuracy();
  c.digital_accuracy = r.digital_accuracy;
  c.expected_energy_j = plan.energy_j + (1 - c.test_coverage) * host.energy_j;
  c.expected_latency_s = plan.latency_s + (1 - c.test_coverage) * host.latency_s;
  c.worst_latency_s = plan.latency_s + host.latency_s;
  return c;
}

}  // namespace

const FieldTable<ExecuteRequest>& execute_fields() {
  using R = ExecuteRequest;
  static const FieldTable<R> table = {
      field("plan", &R::plan, "Partition file (hetcim partition --json)"),
      field("chip", &R::chip, "Chip profile FILE:PROFILE, e.g. data/chips.yaml:A3"),
      field("mode", &R::mode, "Override the profile's simulation mode ('': the profile's own)")
          .one_of({"", "physical", "reference"}),
      field("host", &R::host,
            "Host of the partition problem ('': the hardware's): arm, x86, a host model or a "
            "profile file"),
      field("dataset", &R::dataset, data::kDatasetHelp),
      field("dataset_dir", &R::dataset_dir,
            "Directory of the data set's files ('': the name's own)")
          .flag("--data-dir")
          .alias("--dataset-dir"),
      field("split", &R::split, "The split").one_of({"train", "test"}),
      field("limit", &R::limit, "Evaluate the first N images (0: all)").range(0, 0x1p40),
      field("batch", &R::batch, "Images per engine run").range(1, 65536),
      field("threads", &R::threads, "CPU threads (engine and simulator)").range(1, 1024),
      field("chip_seed", &R::chip_seed, "Chip seed: the persistent programmed state")
          .alias("--seed"),
      field("read_seed", &R::read_seed, "Seed of the read noise"),
      field("weight_seed", &R::weight_seed, "Seed for weights the model does not carry"),
      field("certify", &R::certify,
            "RACE-AIMC's certified fallback: bias correction, score, Clopper-Pearson threshold "
            "and certificate on the plan's logits, the all-host run as fallback"),
      field("risk", &R::risk, "Certified selective risk target r").between(0, 1),
      field("certificate_delta", &R::certificate_delta, "Certificate confidence delta_C")
          .flag("--delta")
          .between(0, 1),
      field("design_risk", &R::design_risk, "Design risk r_d of the threshold fit (unset: 0.8 r)")
          .between(0, 1),
      field("design_delta", &R::design_delta, "delta_d of the threshold fit").between(0, 1),
      field("split_seed", &R::split_seed, "Seed of the H/P/C/T splits"),
  };
  return table;
}

void ExecuteRequest::validate() const {
  if (plan.empty()) throw user_error("plan: a partition file is required");
  if (chip.empty()) throw user_error("chip: expected FILE:PROFILE, got nothing");
  check_fields(*this, execute_fields());
  data::check_dataset_name("dataset", dataset);
  if (hardware) hardware->validate();
}

ExecuteResult execute(const std::string& model_spec, const ExecuteRequest& q) {
  q.validate();
  ExecuteResult out;
  results::Execution& e = out.execution;
  e.plan = q.plan;
  e.model = model_spec;
  e.chip = q.chip;
  e.chip_seed = q.chip_seed;
  e.read_seed = q.read_seed;
  e.weight_seed = q.weight_seed;
  e.threads = q.threads;

  // 1. The plan against the model and its partition problem: modelled latency and energy.
  const PlanHeader header = read_plan_header(q.plan);
  if (!header.model.empty() && model_key(header.model) != model_key(model_spec))
    throw user_error(q.plan, ": field 'model' is '", header.model,
                     "', a plan for another model than '", model_spec, "'");
  PartitionRequest pr;
  pr.hardware = q.hardware ? *q.hardware : hardware_of_plan(q.plan, header);
  if (!q.host.empty()) pr.hardware.host = q.host;
  if (header.transfer_model == "per-tensor-direction") pr.transfers = "per-tensor";
  if (header.bus_model == "serial") pr.bus_model = "serial";
  pr.replay = q.plan;
  const Model one = load_model(model_spec, 1);
  const PartitionProblem pp = build_partition_problem(one, pr);
  if (!header.host.empty() && header.host != pp.host_source)
    throw user_error(q.plan, ": field 'host' is '", header.host, "', but the hardware gives '",
                     pp.host_source, "' (give the plan's host with --host)");
  const PartitionResult replay = partition(pp, pr);
  const partition::Problem& p = replay.problem;
  e.hardware = pp.hardware;
  e.host_source = pp.host_source;
  e.plan_cost = cost_of(p, replay.schedule);
  e.host_only_cost = cost_of(p, partition::simulate_best(p, partition::all_host(p)));
  for (size_t v = 0; v < p.size(); ++v) {
    if (replay.schedule.assignment.mode[v] == partition::kHost)
      ++e.host_operators;
    else
      e.cim_operators.push_back(p.names[v]);
  }

  if (q.certify && e.cim_operators.empty())
    throw user_error(q.plan, ": --certify: the plan puts no operator on the CIM accelerator, so ",
                     "there is no analog output to certify (the plan is the all-host fallback)");

  // 2. The chip holds every CIM operator of the plan (checked on the graph the engine runs).
  xbar::ChipProfile chip = xbar::load_chip_profile(q.chip);
  if (q.mode == "physical") chip.mode = xbar::SimMode::Physical;
  if (q.mode == "reference") chip.mode = xbar::SimMode::Reference;
  Model batched = load_model(model_spec, q.batch);
  const size_t seeded = exec::materialize_weights(batched.graph, q.weight_seed);
  e.weights = seeded_text(seeded, q.weight_seed);
  {
    passes::PipelineOptions lowering;
    lowering.precision = passes::Precision::Fp32;
    const graph::Graph g = passes::lower(batched.graph, lowering);
    const xbar::ModelLayers layers = xbar::crossbar_layers(g);
    for (const std::string& name : e.cim_operators) {
      const bool held = std::any_of(layers.mapped.begin(), layers.mapped.end(),
                                    [&](const xbar::CrossbarMatrix& m) { return m.node == name; });
      if (!held)
        throw user_error(q.plan, ": field 'operators': operator '", name,
                         "' is on the CIM accelerator, but chip ", q.chip,
                         " cannot hold it (the crossbar simulator takes a Conv with groups = 1, "
                         "a Gemm or a MatMul with constant weights",
                         g.node_index(name) < 0 ? "; the fp32 graph has no such node" : "", ")");
    }
  }

  // 3. The data set, then the network on the chip and all on the host.
  const data::ImageDataset d =
      data::load_dataset(q.dataset, data::parse_split(q.split), q.dataset_dir);
  hybrid::EvaluateOptions eo;
  eo.chip = chip;
  eo.analog_nodes = e.cim_operators;
  eo.chip_seed = q.chip_seed;
  eo.read_seed = q.read_seed;
  eo.weight_seed = q.weight_seed;
  eo.limit = q.limit;
  eo.threads = q.threads;
  const hybrid::EvaluateResult analog =
      with_model_named(model_spec, [&] { return hybrid::evaluate(batched.graph, d, eo); });
  hybrid::EvaluateOptions digital_options = eo;
  digital_options.chip.reset();
  const hybrid::EvaluateResult digital = hybrid::evaluate(batched.graph, d, digital_options);
  e.dataset = d.name;
  e.images = analog.count;
  // A plan chosen with sensitivities measured on the first test images, evaluated here on the
  // first test images: those images are in-sample for the plan's accuracy. A warning, not an
  // error: the run is still correct, only its accuracy is optimistic for them; the sensitivity
  // default (held-out training images) avoids it.
  if (header.calibration_split == "test" && q.split == "test" &&
      header.calibration_dataset == q.dataset) {
    const int64_t shared = std::min(header.calibration_samples, analog.count);
    if (shared > 0)
      e.warnings.push_back(
          "the plan's accuracy budget was measured on the first " +
          std::to_string(header.calibration_samples) + " test images of " + q.dataset + " (" +
          q.plan + ": accuracy.calibration), and " + std::to_string(shared) + " of the " +
          std::to_string(analog.count) +
          " images evaluated here are among them: the measured accuracy is partly in-sample "
          "(measure the sensitivities on held-out training images: hetcim sensitivity "
          "--calibration holdout)");
  }
  e.batch = analog.batch;
  e.classes = analog.classes;
  e.correct = analog.correct;
  e.accuracy = analog.accuracy;
  e.digital_correct = digital.correct;
  e.digital_accuracy = digital.accuracy;
  {
    const auto as_int = [](const std::vector<uint8_t>& v) {
      return std::vector<int64_t>(v.begin(), v.end());
    };
    e.paired = accuracy::paired_drop(as_int(digital.prediction), as_int(analog.prediction),
                                     as_int(analog.labels), 0.95);
  }
  e.simulator_seconds = analog.run_seconds;
  e.simulator_build_seconds = analog.build_seconds;
  e.digital_seconds = digital.run_seconds;
  e.simulator_cpu_seconds = analog.run_cpu_seconds;
  e.digital_cpu_seconds = digital.run_cpu_seconds;
  e.dac_conversions = analog.conversions.dac_conversions;
  e.adc_conversions = analog.conversions.adc_conversions;
  e.adc_clipped = analog.conversions.adc_clipped;

  // 4. The certified fallback around the plan's analog part.
  if (q.certify) e.certificate = certify(q, analog, digital, e.plan_cost, e.host_only_cost);

  out.status.origin = Origin::Measured;
  out.provenance = library_provenance();
  out.provenance.set("plan", q.plan + " (replayed: " + e.hardware + ")");
  out.provenance.set("host source", e.host_source);
  out.provenance.set(
      "chip", xbar::resolve_chip_spec(q.chip) + (q.mode.empty() ? "" : " (mode " + q.mode + ")"));
  out.provenance.set("weights", e.weights);
  out.provenance.set("seeds", "chip " + std::to_string(q.chip_seed) + ", read " +
                                  std::to_string(q.read_seed) +
                                  (q.certify ? ", split " + std::to_string(q.split_seed) : ""));
  e.provenance = out.provenance;
  return out;
}

}  // namespace hetcim::api
