#include "cluster/request_hash_key.h"

#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/type.pb.h>
#include <gtest/gtest.h>

#include "echo.pb.h"
#include "ferry/framework/hash_key.h"

namespace ferry::cluster {
namespace {

TEST(RequestHashKeyTest, StringAndBytesFieldsHashTheirBytes) {
  demo::EchoRequest echo;
  echo.set_payload("user-42");
  EXPECT_EQ(RequestHashKey("payload").Of(echo), HashKey("user-42"));
  demo::DelayRequest delay;
  delay.set_fail_message("m");
  EXPECT_EQ(RequestHashKey("fail_message").Of(delay), HashKey("m"));
}

TEST(RequestHashKeyTest, IntegersHashTheirDecimalTextSoTheyAgreeWithStrings) {
  demo::DelayRequest delay;
  delay.set_sleep_ms(42);
  EXPECT_EQ(RequestHashKey("sleep_ms").Of(delay), HashKey("42"));
  google::protobuf::Field field;
  field.set_number(-7);
  EXPECT_EQ(RequestHashKey("number").Of(field), HashKey("-7"));
  field.set_kind(google::protobuf::Field::TYPE_STRING);
  EXPECT_EQ(RequestHashKey("kind").Of(field), HashKey("9"));
}

TEST(RequestHashKeyTest, MissingRepeatedOrUnsupportedFieldsGiveNoKey) {
  demo::EchoRequest echo;
  EXPECT_EQ(RequestHashKey("user_id").Of(echo), std::nullopt);
  google::protobuf::FieldMask mask;
  mask.add_paths("a");
  EXPECT_EQ(RequestHashKey("paths").Of(mask), std::nullopt);
  demo::DelayRequest delay;
  EXPECT_EQ(RequestHashKey("throw_exception").Of(delay), std::nullopt);
}

TEST(RequestHashKeyTest, UnsetFieldsHashTheirDefault) {
  demo::EchoRequest echo;
  EXPECT_EQ(RequestHashKey("payload").Of(echo), HashKey(""));
}

TEST(RequestHashKeyTest, NotConfiguredWithoutAField) {
  EXPECT_FALSE(RequestHashKey("").configured());
  EXPECT_TRUE(RequestHashKey("payload").configured());
}

}  // namespace
}  // namespace ferry::cluster
