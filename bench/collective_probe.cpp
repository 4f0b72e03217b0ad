// The experiment behind docs/performance.md "Collective timing: why the pipelined average was unstable":
// plain MPI (no placebench code), float sum allreduce, out-of-place. For each size it shows
//   first   the first call of the process at that size (lazy connection and protocol set-up),
//   loops   five timed loops of ITERS back-to-back calls, each loop's mean (what the old `time` was),
//           the median and the largest single call inside it (a preemption shows as one huge call),
//   block   the median over 9 such loops and their max/min (the method placebench now uses),
//   iter    the median of ITERS single calls, each after a barrier (rank mean and slowest rank).
// Every figure is the slowest rank's except `iter mean`. Run:
//   mpirun --oversubscribe --bind-to none -np 2 build/placebench-collective-probe [ITERS]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double max_over_ranks(double v) {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

double mean_over_ranks(double v) {
  double out = 0;
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out / n;
}

struct Loop {
  double mean_us, median_us, max_us;
};

// One loop of `iters` back-to-back calls after a barrier, every call's duration kept.
Loop timed_loop(std::vector<float>& in, std::vector<float>& out, int iters) {
  std::vector<double> calls(static_cast<std::size_t>(iters));
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now_s(), prev = t0;
  for (auto& c : calls) {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = now_s();
    c = t - prev;
    prev = t;
  }
  double mean = (prev - t0) / iters;
  return {max_over_ranks(mean) * 1e6, max_over_ranks(median(calls)) * 1e6,
          max_over_ranks(*std::max_element(calls.begin(), calls.end())) * 1e6};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int iters = argc > 1 ? std::atoi(argv[1]) : 20;
  if (iters < 1) iters = 20;
  for (std::size_t bytes : {8u, 1024u, 65536u, 1048576u}) {
    std::vector<float> in(bytes / sizeof(float), 1.0f), out(in.size());
    double t = now_s();
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double first_us = max_over_ranks(now_s() - t) * 1e6;
    for (int i = 0; i < 5; ++i)  // warm-up
      MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%8zu B  first call %9.2f us\n", bytes, first_us);
    std::vector<double> means;
    for (int l = 0; l < 9; ++l) {
      Loop lp = timed_loop(in, out, iters);
      means.push_back(lp.mean_us);
      if (rank == 0 && l < 5)
        std::printf("          loop %d: mean %8.2f  median call %8.2f  max call %9.2f us\n", l, lp.mean_us, lp.median_us,
                    lp.max_us);
    }
    std::vector<double> single(static_cast<std::size_t>(iters));
    for (auto& s : single) {
      MPI_Barrier(MPI_COMM_WORLD);
      double s0 = now_s();
      MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      s = now_s() - s0;
    }
    double iter_mean = mean_over_ranks(median(single)) * 1e6, iter_slow = max_over_ranks(median(single)) * 1e6;
    if (rank == 0)
      std::printf("          block median %8.2f us (max/min %.2f)   iter median: mean %8.2f, slowest %8.2f us\n",
                  median(means), *std::max_element(means.begin(), means.end()) / *std::min_element(means.begin(), means.end()),
                  iter_mean, iter_slow);
  }
  MPI_Finalize();
  return 0;
}
