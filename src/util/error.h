// Project error type. A UserError is the caller's fault (bad file, bad flag, unsupported op) and
// carries a message meant for the user; an InternalError is a bug in hetcim. The library never
// exits or prints: it throws one of these and the CLI turns it into a message and an exit code.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace hetcim {

enum class ErrorKind { User, Internal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

class UserError : public Error {
 public:
  explicit UserError(const std::string& message) : Error(ErrorKind::User, message) {}
};

class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message)
      : Error(ErrorKind::Internal, "internal error (a bug in hetcim): " + message) {}
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

// user_error("node '", name, "': expected 4-D input, got ", rank) builds the message in place.
template <typename... Args>
[[nodiscard]] UserError user_error(const Args&... args) {
  return UserError(detail::concat(args...));
}
template <typename... Args>
[[nodiscard]] InternalError internal_error(const Args&... args) {
  return InternalError(detail::concat(args...));
}

}  // namespace hetcim

// Checks an invariant of hetcim itself (never user input).
#define HETCIM_ASSERT(cond, ...)                                                                \
  do {                                                                                          \
    if (!(cond))                                                                                \
      throw ::hetcim::internal_error(__FILE__, ":", __LINE__, ": ", #cond, " ", ##__VA_ARGS__); \
  } while (0)
