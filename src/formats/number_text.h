// A number as text that reads back exactly enough (%.9g): in gnuplot scripts and data, CSV cells,
// and the provenance lines of study.json and drift figures.
#pragma once

#include <string>

namespace hetcim::formats {

[[nodiscard]] std::string number_g9(double v);

}  // namespace hetcim::formats
