#include <gtest/gtest.h>

#include <hiredis.h>

#include "shortlink_test_support.h"
#include "storage/redis_link_cache.h"

namespace ferry::shortlink::testing {
namespace {

class RedisCodeFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TempDir dir;
    ConfigFor(Backend::kRedisMariaDb, dir.path());  // starts the servers, flushes Redis
    storage::RedisOptions options;
    options.host = SharedServers::redis().host();
    options.port = SharedServers::redis().port();
    options.timeout_ms = 5000;
    pool_ = std::make_unique<storage::RedisConnectionPool>(options);
    filter_ = std::make_unique<RedisCodeFilter>(pool_.get(), 1 << 16, 5);
  }
  FilterAnswer Check(const std::string& code) {
    FilterAnswer answer = FilterAnswer::kMaybe;
    EXPECT_TRUE(filter_->Check(code, &answer).ok());
    return answer;
  }
  void Flush() {
    storage::RedisReplyPtr reply;
    ASSERT_TRUE(pool_->Run({"FLUSHALL"}, &reply).ok());
  }

  std::unique_ptr<storage::RedisConnectionPool> pool_;
  std::unique_ptr<RedisCodeFilter> filter_;
};

TEST_F(RedisCodeFilterTest, UnknownUntilLoadedThenCertainAboutAbsentCodes) {
  ASSERT_TRUE(filter_->Add("made-while-loading").ok());
  EXPECT_EQ(Check("stored"), FilterAnswer::kUnknown);
  ASSERT_TRUE(filter_
                  ->LoadIfNeeded([](const std::function<void(const std::string&)>& visit) {
                    visit("stored");
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_EQ(Check("stored"), FilterAnswer::kMaybe);
  EXPECT_EQ(Check("made-while-loading"), FilterAnswer::kMaybe);
  int absent = 0;
  for (int i = 0; i < 100; ++i) absent += Check("nope" + std::to_string(i)) == FilterAnswer::kNo;
  EXPECT_GE(absent, 95);
  Flush();  // Redis restarted empty: unknown again, never "no"
  EXPECT_EQ(Check("stored"), FilterAnswer::kUnknown);
}

TEST_F(RedisCodeFilterTest, ALoadThatRedisLostHalfWayIsNotMarkedLoaded) {
  Status s = filter_->LoadIfNeeded([this](const std::function<void(const std::string&)>& visit) {
    visit("first");
    Flush();
    visit("second");
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(Check("first"), FilterAnswer::kUnknown) << "its bits were lost with the flush";
}

}  // namespace
}  // namespace ferry::shortlink::testing
