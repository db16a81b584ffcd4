#include "cli/run_app.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "dist/dist.h"
#include "util/blas_pool.h"
#include "util/error.h"
#include "util/files.h"
#include "util/interrupt_cleanup.h"

namespace hetcim::cli {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// CLI11 reports a misspelled subcommand only as "A subcommand is required": walk the words before
// the first option down the subcommand tree and name the first unknown one with the closest
// known name.
void check_subcommand_words(CLI::App& app, int argc, char** argv) {
  CLI::App* cur = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return;
    const auto subs = cur->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return;
    CLI::App* next = nullptr;
    for (CLI::App* s : subs)
      if (s->get_name() == word) next = s;
    if (next) {
      cur = next;
      continue;
    }
    if (cur->get_require_subcommand_min() == 0) return;
    std::string best, names;
    size_t best_d = std::string::npos;
    for (CLI::App* s : subs) {
      names += (names.empty() ? "" : ", ") + s->get_name();
      const size_t d = edit_distance(word, s->get_name());
      if (d < best_d) best_d = d, best = s->get_name();
    }
    std::string msg = "unknown subcommand '" + word + "'";
    if (best_d <= std::max<size_t>(2, best.size() / 3)) msg += "; did you mean '" + best + "'?";
    throw hetcim::user_error(msg, " (",
                             cur == &app ? "commands" : "subcommands of '" + cur->get_name() + "'",
                             ": ", names, ")");
  }
}

// " (rank 1 of 4)" when this process is one rank of an MPI run, else "".
std::string rank_note() {
  if (!hetcim::dist::distributed_now()) return "";
  return " (rank " + std::to_string(hetcim::dist::rank()) + " of " +
         std::to_string(hetcim::dist::size()) + ")";
}

// An error only this rank knows of: the other ranks would wait for it forever, so the whole run
// ends now (MPI_Abort) with this exit code; a run of one process just returns it.
int end_other_ranks(int code) {
  hetcim::dist::abort_all(code);
  return code;
}

}  // namespace

void check_integer_flags(CLI::App& app) {
  const auto starts = [](const std::string& t, const std::string& name) {
    return t.rfind(name, 0) == 0 && (t.size() == name.size() || t[name.size()] == ':');
  };
  for (CLI::Option* o : app.get_options()) {
    const std::string t = o->get_type_name();
    // transform() puts the check first, before a CLI::Range that would call "1e2" out of range.
    if (starts(t, "UINT"))
      o->transform(unsigned_number());
    else if (starts(t, "INT"))
      o->transform(whole_number());
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_integer_flags(*sub);
}

int run_app(CLI::App& app, int argc, char** argv) {
  try {
    // OpenBLAS's pool, started while the libraries loaded, stops busy-waiting (util/blas_pool.h).
    hetcim::park_blas_pool();
    // Before any thread exists, so that every thread inherits the blocked signals.
    hetcim::install_interrupt_cleanup();
    // Every file this command reads is remembered: no output may replace one (util/files.h).
    hetcim::track_command_inputs();
    check_subcommand_words(app, argc, argv);
    check_integer_flags(app);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const hetcim::dist::SharedFailure& e) {
    // Every rank of an MPI run knows this failure: rank 0 reports it, every rank ends with it.
    if (hetcim::dist::is_root()) std::fprintf(stderr, "hetcim: error: %s\n", e.what());
    return e.kind() == hetcim::ErrorKind::User ? 1 : 2;
  } catch (const hetcim::Error& e) {
    std::fprintf(stderr, "hetcim: error%s: %s\n", rank_note().c_str(), e.what());
    return end_other_ranks(e.kind() == hetcim::ErrorKind::User ? 1 : 2);
  } catch (const std::filesystem::filesystem_error& e) {
    // A file-system call outside the checked paths: the user's path and the system's reason.
    std::fprintf(stderr, "hetcim: error%s: %s%s%s\n", rank_note().c_str(),
                 e.path1().empty() ? "" : hetcim::shown_path(e.path1().string()).c_str(),
                 e.path1().empty() ? "" : ": ", e.code().message().c_str());
    return end_other_ranks(1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetcim: internal error%s: %s\n", rank_note().c_str(), e.what());
    return end_other_ranks(2);
  }
  return 0;
}

}  // namespace hetcim::cli
