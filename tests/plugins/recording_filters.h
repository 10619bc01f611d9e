#pragma once

#include <string>
#include <vector>

namespace ferry::plugins_test {

// The `test_recorder` client and server filters, registered for every test of this binary:
// `{name: test_recorder, tag: a}` records "client a call" on OnCall and "client a done OK" on
// OnDone (the status code's name); with `reject: true` its OnCall answers PERMISSION_DENIED;
// with `observes_done: false` it says its OnDone does nothing (and still records if called).
std::vector<std::string> RecordedEvents();
void ClearRecordedEvents();

}  // namespace ferry::plugins_test
