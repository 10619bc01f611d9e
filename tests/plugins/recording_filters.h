#pragma once

#include <string>
#include <vector>

namespace ferry::plugins_test {

// The `test_recorder` client and server filters, registered for every test of this binary:
// `{name: test_recorder, tag: a}` records "client a call" on OnCall and "client a done OK" on
// OnDone (the status code's name); with `reject: true` its OnCall answers PERMISSION_DENIED;
// with `observes_done: false` it says its OnDone does nothing (and still records if called);
// with `throw_on_call: true` its OnCall records and then throws std::runtime_error("<tag> threw
// in OnCall"), and with `throw_on_done: true` its OnDone does the same.
// It checks that every call brings the method state it made for the call's method and, when it
// observes completions, that OnDone gets back the call state its OnCall set, recording
// "<side> <tag> lost its method state" (or "call state") if not.
std::vector<std::string> RecordedEvents();
// "<side> <tag> <service>/<method>" for each method state the recorders made, in order.
std::vector<std::string> RecordedMethodStates();
void ClearRecordedEvents();

}  // namespace ferry::plugins_test
