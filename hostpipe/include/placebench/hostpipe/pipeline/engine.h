// The dataloader pipeline's engine: W worker threads take batch indexes from a shared counter, take a
// free staging buffer from the ring, run the decode stage into it and checksum it, and push it onto a
// bounded prefetch queue (depth P); the consumer -- the calling thread, playing the training loop -- pops
// a batch (wait), copies it to the device (h2d), returns the buffer to the ring, runs the consuming and
// compute kernels (compute), and checks the device's checksum against the producer's.
//
// Batches are consumed in completion order (tf.data's deterministic=False), not index order. No wait
// is unbounded: every queue and ring operation has the stall deadline, and a stall is an error that says
// which stage stalled and what every worker was doing. Shutdown (done, error, or an external stop
// request) cancels the queues, which wakes every waiter, and joins every worker before returning.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "placebench/hostpipe/pipeline/consumer.h"
#include "placebench/hostpipe/pipeline/decode.h"
#include "placebench/hostpipe/pipeline/staging_ring.h"

namespace placebench::hostpipe {

struct EngineParams {
  int workers = 1;
  int prefetch = 2;             // depth of the prefetch queue
  int warmup_steps = 0;         // run and checked, not recorded
  int steps = 1;                // recorded
  std::chrono::nanoseconds stall_timeout = std::chrono::seconds(10);
};

// One measured training step. step_ns = wait + h2d + compute + the loop's own bookkeeping.
struct StepRecord {
  std::int64_t wait_ns = 0;     // blocked on the prefetch queue
  std::int64_t h2d_ns = 0;      // copy to the device
  std::int64_t compute_ns = 0;  // consuming (checksum) kernel + compute kernel
  std::int64_t step_ns = 0;
  int queue_depth = 0;          // batches ready in the queue when the step asked for one
  int worker = 0;               // who produced the batch
  std::uint64_t batch = 0;      // its index
};

struct WorkerReport {
  std::uint64_t batches = 0;            // produced (whole run)
  std::int64_t produce_ns = 0;          // decode + checksum wall time (whole run)
  std::int64_t produce_cpu_ns = 0;      // the same, in the worker's CPU time
  std::int64_t cpu_ns = 0;              // thread CPU time during the measured steps
  std::string placement_problem;        // set by the caller's on_worker_start, if it wants
};

struct ResourceUsage {
  std::int64_t peak_rss_bytes = 0;      // getrusage ru_maxrss (whole process, whole run)
  std::int64_t minor_faults = 0;        // during the measured steps
  std::int64_t major_faults = 0;
};

struct EngineHooks {
  // Run first on each worker thread (e.g. bind it and record the placement). An exception fails the run.
  std::function<void(int worker)> on_worker_start;
  // Test-only injection: called after a batch is produced and checksummed, before it is queued
  // (corrupt it, throw, or sleep to simulate a stall).
  std::function<void(int worker, std::uint64_t batch, std::byte* data, std::size_t bytes)> after_produce;
  // Stop request from outside (SIGINT): polled by the consumer at least every 20 ms.
  const std::atomic<bool>* stop = nullptr;
};

struct EngineResult {
  std::string status = "ok";    // "ok", "interrupted" (stop request), "failed" (error says why)
  std::string error;
  std::vector<StepRecord> steps;          // measured steps completed
  std::vector<WorkerReport> workers;
  std::int64_t measured_ns = 0;           // wall time of the measured steps
  ResourceUsage resources;
};

// Runs warmup_steps + steps. Never throws for failures of the run itself (stall, checksum mismatch, a
// stage or hook that throws): those return status "failed" with the steps measured so far. Throws
// std::invalid_argument for impossible parameters (no workers, zero prefetch, a ring smaller than
// prefetch + 1, a batch larger than a ring slot).
EngineResult run_engine(const EngineParams& params, const DecodeStage& stage, StagingRing& ring,
                        StepConsumer& consumer, const EngineHooks& hooks = {});

}  // namespace placebench::hostpipe
