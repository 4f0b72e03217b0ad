// Waiting on a non-blocking NCCL communicator without ever waiting forever (issue 16 defects 5 and 6),
// written against a small interface so the sequences are tested on a CPU with a fake communicator and
// clock. As nccl-tests' -T: poll the stream (cudaStreamQuery) and the communicator's asynchronous error
// (ncclCommGetAsyncError) until done, an error, or the deadline; on an error or the deadline, abort the
// communicator (ncclCommAbort returns without waiting for peers) and fail with NCCL's message.
// Release: ncclCommFinalize (non-blocking), poll the communicator until it is no longer in progress
// within the deadline, then ncclCommDestroy; abort instead when finalising fails or does not finish.
#pragma once
#include <functional>
#include <string>

namespace placebench::collectives::detail {

enum class CommState { kDone, kInProgress, kError };

// What the sequences need from one communicator (and the stream its calls run on).
class CommHandle {
 public:
  virtual ~CommHandle() = default;
  virtual CommState comm_state() = 0;    // ncclCommGetAsyncError
  virtual CommState stream_state() = 0;  // cudaStreamQuery (kError: the stream failed)
  virtual CommState finalize() = 0;      // ncclCommFinalize: kInProgress when started (non-blocking)
  virtual void destroy() = 0;            // ncclCommDestroy
  virtual void abort() = 0;              // ncclCommAbort
  virtual std::string last_error() = 0;  // ncclGetErrorString + ncclGetLastError, for messages
};

// Monotonic seconds and a short pause between polls; the real one uses steady_clock and sleeps 100 us.
struct PollClock {
  std::function<double()> now;
  std::function<void()> pause;
  static PollClock steady();
};

// Polls until the communicator is initialised (after a non-blocking ncclCommInitRankConfig). On an
// error or past timeout_s: aborts it and throws std::runtime_error naming `what`, the timeout and NCCL's
// message.
void wait_comm_ready(CommHandle& comm, double timeout_s, const PollClock& clock, const std::string& what);

// Polls until every call issued on the stream is complete and the communicator reports no error; else
// as wait_comm_ready.
void wait_stream_done(CommHandle& comm, double timeout_s, const PollClock& clock, const std::string& what);

enum class ReleaseOutcome { kDestroyed, kAbortedOnError, kAbortedOnTimeout };

// Finalise, poll until quiescent, destroy; abort on an error or past timeout_s. Never throws (used on
// the way out, where an earlier failure may already be propagating).
ReleaseOutcome release_comm(CommHandle& comm, double timeout_s, const PollClock& clock) noexcept;

}  // namespace placebench::collectives::detail
