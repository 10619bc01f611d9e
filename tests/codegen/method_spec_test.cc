#include <gtest/gtest.h>

#include "echo.ferry.h"

namespace ferry::demo {
namespace {

// Specs are constexpr, so code can branch on them at compile time.
static_assert(EchoServiceMethods::Echo.inline_method && !EchoServiceMethods::Delay.inline_method);

// The flags come from `option (ferry.idempotent)` and `option (ferry.inline_method)` in
// echo.proto, which the plugin can only read when the options extension is linked into it.
TEST(MethodSpecTest, EchoCarriesItsProtoOptions) {
  const MethodSpec& spec = EchoServiceMethods::Echo;
  EXPECT_EQ(spec.service, "ferry.demo.EchoService");
  EXPECT_EQ(spec.method, "Echo");
  EXPECT_TRUE(spec.idempotent);
  EXPECT_TRUE(spec.inline_method);
}

TEST(MethodSpecTest, DelayHasNoOptions) {
  const MethodSpec& spec = EchoServiceMethods::Delay;
  EXPECT_EQ(spec.service, "ferry.demo.EchoService");
  EXPECT_EQ(spec.method, "Delay");
  EXPECT_FALSE(spec.idempotent);
  EXPECT_FALSE(spec.inline_method);
}

}  // namespace
}  // namespace ferry::demo
