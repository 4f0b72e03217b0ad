// An Event object (either API) read into an EventRecord.
#include <algorithm>
#include <string>

#include "k8s_object_reader.h"

namespace placebench::harness::admission::k8s {

// core/v1 Event (involvedObject, firstTimestamp, lastTimestamp, count, eventTime, series) or events.k8s.io/v1
// (regarding, note, eventTime, deprecatedFirstTimestamp, deprecatedLastTimestamp, deprecatedCount, series).
EventRecord read_event(const ObjectReader& r) {
  EventRecord e;
  std::string name = r.name();
  e.ns = r.text({"metadata", "namespace"});
  e.key = r.text({"metadata", "uid"});
  if (e.key.empty()) e.key = e.ns + "/" + name;
  const bool events_api = r.at({"regarding"}) != nullptr;
  const char* obj = events_api ? "regarding" : "involvedObject";
  e.kind = r.text({obj, "kind"});
  e.object = r.text({obj, "name"});
  if (e.object.empty()) r.fail(std::string(obj) + ".name is missing");
  e.reason = r.text({"reason"});
  e.message = r.text({events_api ? "note" : "message"});
  e.type = r.text({"type"});
  Time first = r.time({events_api ? "deprecatedFirstTimestamp" : "firstTimestamp"}, events_api ? "deprecatedFirstTimestamp" : "firstTimestamp");
  Time event_time = r.time({"eventTime"}, "eventTime");
  Time last = r.time({events_api ? "deprecatedLastTimestamp" : "lastTimestamp"}, events_api ? "deprecatedLastTimestamp" : "lastTimestamp");
  Time series_last = r.time({"series", "lastObservedTime"}, "series.lastObservedTime");
  if (!first) first = event_time;
  if (!first) first = r.time({"metadata", "creationTimestamp"}, "metadata.creationTimestamp");
  if (!first) r.fail("no firstTimestamp, eventTime or metadata.creationTimestamp");
  e.first = *first;
  e.last = series_last ? *series_last : last ? *last : e.first;
  for (const json* c : {r.at({"series", "count"}), r.at({events_api ? "deprecatedCount" : "count"})})
    if (c && c->is_number_integer()) e.count = std::max(e.count, c->get<int>());
  return e;
}

}  // namespace placebench::harness::admission::k8s
