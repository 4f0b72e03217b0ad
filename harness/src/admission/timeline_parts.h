// Internal to the admission analysis (timeline.cpp and its parts): when a pod let go of its GPUs, the first time
// enough pods reached a mark, the gang's size and minimum (gang_size.cpp), and the attempts of a job with the
// figures of each (attempts.cpp). Definitions: docs/admission.md, "Figures", "Gang size", "Attempts".
#pragma once
#include <set>
#include <string>
#include <vector>

#include "placebench/harness/admission/admission.h"

namespace placebench::harness::admission::detail {

// When a pod stopped holding its GPUs: gone from the listings, else its deletion, else its failure.
Time released(const PodRecord& p);

// The first time at least `need` of `pods` had reached `mark` and not yet been released (a sweep: n log n).
Time first_time_with(const std::vector<const PodRecord*>& pods, int need, Time PodRecord::*mark);

// Sets the job's scheduler, pod count and minimum (with their sources) and warns of a minimum below the count.
void size_gang(JobTimeline& job, const ClusterRecords& records, const std::set<std::string>& job_names, std::size_t names_seen);

// Splits the job's pods (sorted by creation) into attempts and derives each one's figures; `until` is the end
// of observation. The job's own figures are then those of its first attempt, with totals over all.
void derive_attempts(JobTimeline& job, double until, bool have_gang);

}  // namespace placebench::harness::admission::detail
