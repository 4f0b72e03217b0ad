// Deadline-bounded NCCL waits and the release sequence against a fake communicator and clock (issue 16
// defects 5 and 6): a dead peer ends in an abort at the deadline, never a hang; a finalise that does
// not finish is aborted, not destroyed.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/comm_wait.h"

using namespace placebench::collectives::detail;

namespace {

// Reports kInProgress for `busy_polls` polls, then `final_state`; records the calls made on it.
class FakeComm : public CommHandle {
 public:
  int busy_polls = 0;
  CommState final_state = CommState::kDone;
  CommState stream = CommState::kDone;
  CommState finalize_result = CommState::kInProgress;
  std::vector<std::string> calls;

  CommState comm_state() override {
    calls.push_back("state");
    if (busy_polls > 0) {
      --busy_polls;
      return CommState::kInProgress;
    }
    return final_state;
  }
  CommState stream_state() override { return stream; }
  CommState finalize() override {
    calls.push_back("finalize");
    return finalize_result;
  }
  void destroy() override { calls.push_back("destroy"); }
  void abort() override { calls.push_back("abort"); }
  std::string last_error() override { return "remote process exited"; }
  bool called(const std::string& c) const { return std::find(calls.begin(), calls.end(), c) != calls.end(); }
};

// Each pause advances the fake time by 1 s.
struct FakeClock {
  double t = 0;
  PollClock clock() {
    return {[this] { return t; }, [this] { t += 1; }};
  }
};

}  // namespace

TEST(CommWait, InitThatCompletesIsNotAborted) {
  FakeComm comm;
  comm.busy_polls = 3;
  FakeClock fc;
  EXPECT_NO_THROW(wait_comm_ready(comm, 10, fc.clock(), "ncclCommInitRankConfig"));
  EXPECT_FALSE(comm.called("abort"));
  EXPECT_EQ(fc.t, 3);
}

TEST(CommWait, DeadPeerAtInitIsAbortedAtTheDeadline) {
  FakeComm comm;
  comm.busy_polls = 1 << 30;  // never completes
  FakeClock fc;
  try {
    wait_comm_ready(comm, 5, fc.clock(), "ncclCommInitRankConfig");
    FAIL() << "expected a timeout";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not complete after 5 s"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("remote process exited"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(comm.called("abort"));
  EXPECT_LE(fc.t, 6);
}

TEST(CommWait, StreamStuckBehindADeadPeerIsAborted) {
  FakeComm comm;
  comm.stream = CommState::kInProgress;  // the collective never finishes
  FakeClock fc;
  EXPECT_THROW(wait_stream_done(comm, 3, fc.clock(), "ncclAllReduce"), std::runtime_error);
  EXPECT_TRUE(comm.called("abort"));
  EXPECT_LE(fc.t, 4);
}

TEST(CommWait, AsyncErrorEndsTheWaitWhileTheStreamRuns) {
  FakeComm comm;
  comm.stream = CommState::kInProgress;
  comm.final_state = CommState::kError;
  FakeClock fc;
  try {
    wait_stream_done(comm, 100, fc.clock(), "ncclAllReduce");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("failed, communicator aborted"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fc.t, 0);
  EXPECT_TRUE(comm.called("abort"));
}

TEST(CommWait, ReleaseDestroysOnlyOnceQuiescent) {
  FakeComm comm;
  comm.busy_polls = 2;
  FakeClock fc;
  EXPECT_EQ(release_comm(comm, 10, fc.clock()), ReleaseOutcome::kDestroyed);
  EXPECT_EQ(comm.calls, (std::vector<std::string>{"finalize", "state", "state", "state", "destroy"}));
}

TEST(CommWait, ReleaseAbortsAFinaliseThatDoesNotFinish) {
  FakeComm comm;
  comm.busy_polls = 1 << 30;
  FakeClock fc;
  EXPECT_EQ(release_comm(comm, 4, fc.clock()), ReleaseOutcome::kAbortedOnTimeout);
  EXPECT_TRUE(comm.called("abort"));
  EXPECT_FALSE(comm.called("destroy"));
  EXPECT_LE(fc.t, 5);
}

TEST(CommWait, ReleaseAbortsOnError) {
  FakeComm comm;
  comm.finalize_result = CommState::kError;
  FakeClock fc;
  EXPECT_EQ(release_comm(comm, 4, fc.clock()), ReleaseOutcome::kAbortedOnError);
  EXPECT_EQ(comm.calls, (std::vector<std::string>{"finalize", "abort"}));
}
