// Klein et al. 2026's partitioning of one network for several crossbar budgets: the same call as
// `hetcim partition MODEL --preset PRESET --crossbars C --t-mvm 50ns`, one problem per budget.
//   partition_sweep resnet18 cortex-a72-rram 25 50 100 200
#include <hetcim/hetcim.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MODEL PRESET CROSSBARS...\n", argv[0]);
    return 2;
  }
  try {
    const hetcim::api::Model model = hetcim::api::load_model(argv[1]);
    std::printf("%-10s %12s %12s %9s  %s\n", "crossbars", "latency_ms", "cpu_only_ms", "host/cim",
                "status");
    std::string host_source;
    for (int i = 3; i < argc; ++i) {
      hetcim::api::PartitionRequest q;
      q.hardware.preset = argv[2];
      q.hardware.crossbars = std::atoll(argv[i]);
      q.hardware.t_mvm = 50e-9;
      const hetcim::api::PartitionResult plan = hetcim::api::partition(model, q);
      int cim = 0;
      for (const int mode : plan.schedule.assignment.mode) cim += mode >= 0;
      double cpu_only = 0;
      for (const double t : plan.problem.t_host) cpu_only += t;
      std::printf("%-10s %12.4f %12.4f %4zu/%-4d  %s\n", argv[i], plan.latency_s * 1e3,
                  cpu_only * 1e3, plan.schedule.assignment.mode.size() - static_cast<size_t>(cim),
                  cim, hetcim::api::status_text(plan.status).c_str());
      host_source = plan.run.host_source;
    }
    std::printf("host latencies: %s\n", host_source.c_str());
  } catch (const hetcim::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
