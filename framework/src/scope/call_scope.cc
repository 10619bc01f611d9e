#include "ferry/framework/call_scope.h"

namespace ferry {
namespace {

thread_local const CallScope* current_scope = nullptr;

}  // namespace

const CallScope* CurrentCallScope() { return current_scope; }

ScopedCallScope::ScopedCallScope(const CallScope* scope) : previous_(current_scope) {
  current_scope = scope;
}

ScopedCallScope::~ScopedCallScope() { current_scope = previous_; }

}  // namespace ferry
