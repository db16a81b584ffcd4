// The three papers hetcim implements, by title and authors, and the names a user types for what
// they describe (issue 36: "seed 000" told a reader nothing and collided with --seed).
//
// Registry names stay what they were (seed000-arm, seed001-cluster, seed001, seed000 ...): cache
// keys, result files and the shipped data/paper/seedNNN.yaml use them. Each also has a name for
// the machine or paper it describes, accepted everywhere the old one is (`preset_registry_name`),
// and shown first in --help and the README. Plain data, no dependencies.
#pragma once

#include <string>
#include <string_view>

namespace hetcim {

struct PaperName {
  std::string_view id;       // the registry's id, e.g. "seed000" (data/paper/seed000.yaml)
  std::string_view key;      // first author and year, what `hetcim reproduce` takes
  std::string_view authors;  // as the paper lists them (et al. past two)
  std::string_view title;
  std::string_view venue;       // where and when
  std::string_view short_name;  // the few words --help uses
};

inline constexpr PaperName kPapers[] = {
    {"seed000", "klein2026", "Klein, Pelke, Laudani, Joseph, Leupers",
     "Optimizing ML Workload Partitioning between CPUs and CIM Accelerators for Heterogeneous "
     "Computing",
     "2026", "CPU-CIM partitioning (Klein et al. 2026)"},
    {"seed001", "garofalo2022", "Garofalo et al.",
     "A Heterogeneous In-Memory Computing Cluster For Flexible End-to-End Inference of "
     "Real-World Deep Neural Networks",
     "IEEE JETCAS 2022", "the PULP + PCM IMA cluster (Garofalo et al. 2022)"},
    {"seed002", "yousuf2026", "Yousuf, Lueker-Boden",
     "RACE-AIMC: Selective Inference for Heterogeneous Analog In-Memory Accelerators at the Edge",
     "2026", "RACE-AIMC (Yousuf, Lueker-Boden 2026)"},
};

// Which registry a preset name is looked up in.
// (EngineCost: the cost model of one engine of a platform file, docs/platforms.md.)
enum class PresetKind { Hardware, Platform, Cluster, EngineCost };

// A descriptive name and the registry name it stands for.
struct PresetAlias {
  std::string_view name;      // what the preset describes
  std::string_view registry;  // the name the registries and files use
  PresetKind kind;
  std::string_view what;
};

inline constexpr PresetAlias kPresetAliases[] = {
    {"cortex-a72-rram", "seed000-arm", PresetKind::Hardware,
     "Cortex-A72 host + 256x256 RRAM crossbars, 10.24 GB/s bus (Klein et al. 2026)"},
    {"ryzen9-rram", "seed000-x86", PresetKind::Hardware,
     "Ryzen 9 3900X host + 256x256 RRAM crossbars, 20.48 GB/s bus (Klein et al. 2026)"},
    {"cortex-a72-rram", "seed000-arm", PresetKind::Platform,
     "Cortex-A72 host + 256x256 RRAM crossbars, 10.24 GB/s bus (Klein et al. 2026)"},
    {"ryzen9-rram", "seed000-x86", PresetKind::Platform,
     "Ryzen 9 3900X host + 256x256 RRAM crossbars, 20.48 GB/s bus (Klein et al. 2026)"},
    {"pulp-pcm-cluster", "seed001-cluster", PresetKind::Platform,
     "8 RISC-V cores + PCM IMA + depth-wise engine on a 512 kB TCDM (Garofalo et al. 2022)"},
    {"pulp-pcm-cluster", "seed001", PresetKind::Cluster,
     "8 RISC-V cores + PCM IMA + depth-wise engine on a 512 kB TCDM (Garofalo et al. 2022)"},
    {"host-cpu", "seed000-host", PresetKind::EngineCost,
     "the host CPU of Klein et al. 2026: an analytical host model or a measured profile"},
    {"rram-crossbars", "seed000-cim", PresetKind::EngineCost,
     "the RRAM crossbars of Klein et al. 2026 (eq. 1-3; every operator on its own crossbars)"},
    {"pulp-cores", "seed001-cores", PresetKind::EngineCost,
     "the 8 RISC-V cores of Garofalo et al. 2022's cluster"},
    {"pcm-ima", "seed001-ima", PresetKind::EngineCost,
     "the PCM in-memory accelerator (IMA) of Garofalo et al. 2022's cluster"},
    {"pulp-dw", "seed001-dw", PresetKind::EngineCost,
     "the depth-wise engine of Garofalo et al. 2022's cluster"},
};

// The registry name of `name` when it is a descriptive alias of that kind, else `name` itself
// (a registry name, a file, or unknown: the registry's own error names it).
[[nodiscard]] inline std::string preset_registry_name(std::string_view name, PresetKind kind) {
  for (const PresetAlias& a : kPresetAliases)
    if (a.kind == kind && a.name == name) return std::string(a.registry);
  return std::string(name);
}

// The descriptive name of a registry name ("seed000-arm" -> "cortex-a72-rram"), or "" if none.
[[nodiscard]] inline std::string_view preset_display_name(std::string_view registry) {
  for (const PresetAlias& a : kPresetAliases)
    if (a.registry == registry) return a.name;
  return {};
}

// How outputs name a preset: its descriptive name when it has one ("seed001" ->
// "pulp-pcm-cluster"), else the name itself (a file, a user's own cluster name).
[[nodiscard]] inline std::string preset_shown(std::string_view name) {
  const std::string_view shown = preset_display_name(name);
  return std::string(shown.empty() ? name : shown);
}

// The paper whose id or key is `name` ("seed000" or "klein2026"), or nullptr.
[[nodiscard]] inline const PaperName* find_paper(std::string_view name) {
  for (const PaperName& p : kPapers)
    if (p.id == name || p.key == name) return &p;
  return nullptr;
}

// "Klein, Pelke, Laudani, Joseph, Leupers: Optimizing ... (2026)": how reports cite a paper.
[[nodiscard]] inline std::string paper_citation(const PaperName& p) {
  return std::string(p.authors) + ": " + std::string(p.title) + " (" + std::string(p.venue) + ")";
}

}  // namespace hetcim
