// Who the caller and the user are is established by the server and its filters, never by a
// handler: the ServerContext a handler gets has no setter, the AdmissionContext filters get
// has them.
#include <gtest/gtest.h>

#include <type_traits>

#include "ferry/framework/filter.h"
#include "ferry/framework/server_context.h"

namespace ferry {
namespace {

template <class Context>
concept SetsIdentities = requires(Context& context) {
  context.set_verified_caller("caller");
  context.set_verified_user("user");
  context.add_verified_role("operator");
};
template <class Context>
concept Cancels = requires(Context& context) {
  context.Cancel();
};

static_assert(!SetsIdentities<ServerContext>, "a handler cannot say who the caller or user is");
static_assert(!Cancels<ServerContext>);
static_assert(!std::is_default_constructible_v<ServerContext>, "only the server makes one");
static_assert(SetsIdentities<AdmissionContext>);
static_assert(std::is_same_v<decltype(ServerAdmission::context), AdmissionContext&>);
static_assert(std::is_same_v<decltype(ServerCall::context), AdmissionContext&>);

TEST(ServerContextTest, WhatTheFiltersEstablishedIsWhatTheHandlerReads) {
  AdmissionContext admission;
  admission.set_verified_caller("billing");
  admission.set_verified_user("alice");
  admission.add_verified_role("operator");
  const ServerContext& handler_view = admission;
  EXPECT_EQ(handler_view.verified_caller(), "billing");
  EXPECT_EQ(handler_view.verified_user(), "alice");
  EXPECT_TRUE(handler_view.has_verified_role("operator"));
  EXPECT_FALSE(handler_view.has_verified_role("auditor"));
  EXPECT_FALSE(handler_view.cancelled());
  admission.Cancel();
  EXPECT_TRUE(handler_view.cancelled());
}

}  // namespace
}  // namespace ferry
