#include <memory>

#include <gtest/gtest.h>

#include "fake_channel.h"
#include "inventory.ferry.h"
#include "inventory.ferry_mock.h"
#include "invoke_now.h"

// Everything below lives in the proto package's namespace; the qualified names are the test.
namespace ferry::codegen_test::inventory {
namespace {

using ferry::testing::FakeChannel;

TEST(MultiServiceTest, EachServiceGetsItsOwnSpecs) {
  EXPECT_EQ(InventoryMethods::GetItem.service, "ferry.codegen_test.inventory.Inventory");
  EXPECT_TRUE(InventoryMethods::GetItem.idempotent);
  EXPECT_FALSE(InventoryMethods::GetItem.inline_method);
  EXPECT_EQ(InventoryMethods::ListItems.method, "ListItems");
  EXPECT_FALSE(InventoryMethods::ListItems.idempotent);
  EXPECT_TRUE(InventoryMethods::ListItems.inline_method);
  EXPECT_EQ(AuditMethods::Record.service, "ferry.codegen_test.inventory.Audit");
  EXPECT_FALSE(AuditMethods::Record.idempotent);
  EXPECT_FALSE(AuditMethods::Record.inline_method);
}

TEST(MultiServiceTest, ServiceBasesUseNestedAndForeignMessageTypes) {
  class Stock final : public InventoryBase {
   public:
    Status GetItem(ServerContext&, const Item_Id& id, Item* item) override {
      *item->mutable_id() = id;
      item->set_count(7);
      return Status::Ok();
    }
  } inventory;
  class Bare final : public AuditBase {
  } audit;

  EXPECT_EQ(inventory.full_name(), "ferry.codegen_test.inventory.Inventory");
  EXPECT_EQ(audit.full_name(), "ferry.codegen_test.inventory.Audit");
  ASSERT_EQ(inventory.methods().size(), 2u);
  ASSERT_EQ(audit.methods().size(), 1u);
  EXPECT_EQ(inventory.methods()[1].request_prototype,
            &::google::protobuf::Empty::default_instance());
  EXPECT_EQ(audit.methods()[0].response_prototype, &::google::protobuf::Empty::default_instance());

  AdmissionContext context;
  Item_Id id;
  id.set_sku("A-1");
  Item item;
  Status status = ferry::testing::InvokeNow(inventory.methods()[0], inventory, context, id, &item);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(item.id().sku(), "A-1");
  EXPECT_EQ(item.count(), 7u);

  ::google::protobuf::Empty empty;
  EXPECT_EQ(ferry::testing::InvokeNow(audit.methods()[0], audit, context, item, &empty).code(),
            StatusCode::UNIMPLEMENTED);
}

TEST(MultiServiceTest, ServiceWithoutMethodsHasAnEmptyTable) {
  class Bare final : public PlaceholderBase {
  } placeholder;
  EXPECT_EQ(placeholder.full_name(), "ferry.codegen_test.inventory.Placeholder");
  EXPECT_TRUE(placeholder.methods().empty());
}

TEST(MultiServiceTest, ProxiesOfBothServicesShareOneChannel) {
  auto channel = std::make_shared<FakeChannel>();
  Item reply;
  reply.set_count(3);
  reply.set_note("kept");
  channel->SetReply(Status::Ok(), &reply);
  InventoryProxy inventory(channel);
  AuditProxy audit(channel);

  Item_Id id;
  id.set_sku("B-2");
  Result<Item> item = inventory.GetItem(id);
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_EQ(item->count(), 3u);
  ASSERT_TRUE(item->has_note());
  EXPECT_EQ(item->note(), "kept");

  channel->SetReply(Status::Ok(), nullptr);
  EXPECT_TRUE(audit.RecordAsync(*item).get().ok());

  ASSERT_EQ(channel->calls().size(), 2u);
  EXPECT_EQ(channel->calls()[0].method, &InventoryMethods::GetItem);
  EXPECT_EQ(channel->calls()[1].method, &AuditMethods::Record);
}

TEST(MultiServiceTest, MockCoversEveryService) {
  MockAuditClient audit;
  EXPECT_CALL(audit, Record(::testing::Property(&Item::count, 9u), ::testing::_))
      .WillOnce(::testing::Return(Result<::google::protobuf::Empty>(::google::protobuf::Empty())));
  Item item;
  item.set_count(9);
  AuditClient& client = audit;
  EXPECT_TRUE(client.Record(item).ok());
}

}  // namespace
}  // namespace ferry::codegen_test::inventory
