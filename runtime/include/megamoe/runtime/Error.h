//===- Error.h - errors of the megamoe runtime ------------------*- C++ -*-===//
//
// The C++ runtime reports every failure as an exception carrying a message in
// the user's terms and a category; the C API (runtime.h) catches them and turns
// them into a status code plus a thread-local message.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_ERROR_H
#define MEGAMOE_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace megamoe::rt {

/// Error categories; the values match `megamoe_status` in runtime.h.
enum class ErrorKind {
  InvalidArgument = 1, ///< a caller's value breaks the contract
  Manifest = 2,        ///< the manifest is malformed or inconsistent
  Cuda = 3,            ///< a CUDA driver/runtime call failed
  Nccl = 4,            ///< an NCCL call failed
  Unsupported = 5,     ///< the GPU, chip or option is not supported
  NotAvailable = 6,    ///< the capability is not built yet
  Io = 7,              ///< a file could not be read
};

class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, const std::string &message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string &message) {
  throw Error(kind, message);
}

/// Throws InvalidArgument with `message` unless `cond` holds.
inline void require(bool cond, const std::string &message) {
  if (!cond)
    fail(ErrorKind::InvalidArgument, message);
}

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_ERROR_H
