// Deadline-bounded waits on a non-blocking communicator (see comm_wait.h).
#include "comm_wait.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace placebench::collectives::detail {
namespace {

// Polls `state` until it is not kInProgress or the deadline passes (then kInProgress).
template <class Poll>
CommState poll_until(Poll state, double timeout_s, const PollClock& clock) {
  double deadline = clock.now() + timeout_s;
  for (;;) {
    CommState s = state();
    if (s != CommState::kInProgress) return s;
    if (clock.now() >= deadline) return CommState::kInProgress;
    clock.pause();
  }
}

[[noreturn]] void abort_and_throw(CommHandle& comm, CommState s, double timeout_s, const std::string& what) {
  std::string nccl = comm.last_error();
  comm.abort();
  if (s == CommState::kInProgress) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", timeout_s);
    throw std::runtime_error(what + ": not complete after " + secs + " s, communicator aborted (a peer is dead or stuck)" +
                             (nccl.empty() ? "" : ": " + nccl) + "; check every rank's log");
  }
  throw std::runtime_error(what + " failed, communicator aborted: " + (nccl.empty() ? "NCCL reported an error" : nccl));
}

}  // namespace

PollClock PollClock::steady() {
  return {[] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
          [] { std::this_thread::sleep_for(std::chrono::microseconds(100)); }};
}

void wait_comm_ready(CommHandle& comm, double timeout_s, const PollClock& clock, const std::string& what) {
  CommState s = poll_until([&] { return comm.comm_state(); }, timeout_s, clock);
  if (s != CommState::kDone) abort_and_throw(comm, s, timeout_s, what);
}

void wait_stream_done(CommHandle& comm, double timeout_s, const PollClock& clock, const std::string& what) {
  CommState s = poll_until(
      [&] {
        CommState c = comm.comm_state();  // an asynchronous error ends the wait even while the stream runs
        if (c == CommState::kError) return c;
        return comm.stream_state();
      },
      timeout_s, clock);
  if (s != CommState::kDone) abort_and_throw(comm, s, timeout_s, what);
}

ReleaseOutcome release_comm(CommHandle& comm, double timeout_s, const PollClock& clock) noexcept {
  try {
    CommState s = comm.finalize();
    if (s == CommState::kInProgress) s = poll_until([&] { return comm.comm_state(); }, timeout_s, clock);
    if (s == CommState::kDone) {
      comm.destroy();
      return ReleaseOutcome::kDestroyed;
    }
    comm.abort();
    return s == CommState::kError ? ReleaseOutcome::kAbortedOnError : ReleaseOutcome::kAbortedOnTimeout;
  } catch (...) {
    try {
      comm.abort();
    } catch (...) {
    }
    return ReleaseOutcome::kAbortedOnError;
  }
}

}  // namespace placebench::collectives::detail
