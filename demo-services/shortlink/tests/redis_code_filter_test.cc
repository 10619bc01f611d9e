// The Redis Bloom filter against a real Redis: unknown until built, certain about absent codes,
// its shape part of every key, built again larger when it outgrows its rate, and never trusted
// after Redis lost it (a flush, an evicted bitmap, a build Redis lost half way).
#include <gtest/gtest.h>

#include <hiredis.h>

#include <set>

#include "ferry/storage/redis_generation.h"
#include "shortlink_test_support.h"
#include "storage/redis_code_filter.h"

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
    generation_.Watch(pool_.get());
    ASSERT_TRUE(generation_.Check(*pool_).ok());
    filter_ = NewFilter(0.001);
  }
  std::unique_ptr<RedisCodeFilter> NewFilter(double rate) {
    return std::make_unique<RedisCodeFilter>(pool_.get(), &hasher_, rate,
                                             [this] { return generation_.generation(); });
  }
  FilterAnswer Check(RedisCodeFilter& filter, const std::string& code) {
    FilterAnswer answer = FilterAnswer::kMaybe;
    EXPECT_TRUE(filter.Check(code, &answer).ok());
    return answer;
  }
  // A database of `codes`, claiming `count` links.
  CodeSource Source(std::set<std::string>* codes, uint64_t count = 0) {
    return CodeSource{.count =
                          [codes, count](uint64_t* n) {
                            *n = count ? count : codes->size();
                            return Status::Ok();
                          },
                      .for_each =
                          [codes](const std::function<void(const std::string&)>& visit) {
                            for (const std::string& c : *codes) visit(c);
                            return Status::Ok();
                          }};
  }
  storage::RedisReplyPtr Run(const std::vector<std::string>& command) {
    storage::RedisReplyPtr reply;
    EXPECT_TRUE(pool_->Run(command, &reply).ok());
    return reply;
  }
  std::string Prefix() { return "shortlink:bloom:g" + std::to_string(generation_.generation()); }

  BloomHasher hasher_{"test secret"};
  storage::RedisGeneration generation_{{"shortlink:generation"}};
  std::unique_ptr<storage::RedisConnectionPool> pool_;
  std::unique_ptr<RedisCodeFilter> filter_;
};

TEST_F(RedisCodeFilterTest, UnknownUntilBuiltThenCertainAboutAbsentCodes) {
  std::set<std::string> codes = {"stored"};
  EXPECT_EQ(Check(*filter_, "stored"), FilterAnswer::kUnknown);
  ASSERT_TRUE(filter_->Maintain(Source(&codes)).ok());
  EXPECT_EQ(Check(*filter_, "stored"), FilterAnswer::kMaybe);
  ASSERT_TRUE(filter_->Add("made-later").ok());
  EXPECT_EQ(Check(*filter_, "made-later"), FilterAnswer::kMaybe);
  int absent = 0;
  for (int i = 0; i < 1000; ++i) {
    absent += Check(*filter_, "nope" + std::to_string(i)) == FilterAnswer::kNo;
  }
  EXPECT_GE(absent, 995);
  // The shape is in the key names: b20 (the smallest) for one link.
  ASSERT_TRUE(filter_->current().has_value());
  EXPECT_EQ(storage::ReplyText(Run({"GET", Prefix() + ":current"}).get()),
            filter_->current()->Name());
  EXPECT_EQ(Run({"EXISTS", Prefix() + ":" + filter_->current()->Name()})->integer, 1);

  Run({"FLUSHALL"});  // Redis lost everything: a new generation, no filter, never "no"
  ASSERT_TRUE(generation_.Check(*pool_).ok());
  EXPECT_EQ(Check(*filter_, "stored"), FilterAnswer::kUnknown);
  ASSERT_TRUE(filter_->Maintain(Source(&codes)).ok());
  EXPECT_EQ(Check(*filter_, "stored"), FilterAnswer::kMaybe);
}

// An evicted bitmap is no filter: unknown (the database answers) until it is built again.
TEST_F(RedisCodeFilterTest, AnEvictedBitmapIsNeverTrusted) {
  std::set<std::string> codes = {"a1", "b2", "c3"};
  ASSERT_TRUE(filter_->Maintain(Source(&codes)).ok());
  Run({"DEL", Prefix() + ":" + filter_->current()->Name()});
  EXPECT_EQ(Check(*filter_, "a1"), FilterAnswer::kUnknown);
  EXPECT_TRUE(filter_->Add("d4").ok());  // does not make a bitmap of one code
  EXPECT_EQ(Check(*filter_, "a1"), FilterAnswer::kUnknown);
  ASSERT_TRUE(filter_->Maintain(Source(&codes)).ok());
  EXPECT_EQ(Check(*filter_, "a1"), FilterAnswer::kMaybe);
}

TEST_F(RedisCodeFilterTest, ABuildRedisLostHalfWayIsNotUsed) {
  std::set<std::string> codes = {"first"};
  CodeSource source = Source(&codes);
  source.for_each = [this](const std::function<void(const std::string&)>& visit) {
    visit("first");
    Run({"FLUSHALL"});
    return Status::Ok();
  };
  Status s = filter_->Maintain(source);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(Check(*filter_, "first"), FilterAnswer::kUnknown);
}

// A filter holding more codes than its shape keeps under the rate is built again larger; the
// codes of the old one, and one created meanwhile, are in the new one; a provider still on the
// old shape notices the switch and reads the new one.
TEST_F(RedisCodeFilterTest, AFilterThatOutgrewItsRateIsBuiltAgainLarger) {
  std::set<std::string> codes;
  for (int i = 0; i < 100; ++i) codes.insert("code" + std::to_string(i));
  ASSERT_TRUE(filter_->Maintain(Source(&codes)).ok());
  const BloomShape small = *filter_->current();
  auto other = NewFilter(0.001);
  EXPECT_EQ(Check(*other, "code7"), FilterAnswer::kMaybe);
  // As if three million links had been added.
  Run({"SET", Prefix() + ":" + small.Name() + ":count", "3000000"});
  CodeSource grown = Source(&codes, 3'000'000);
  grown.for_each = [&](const std::function<void(const std::string&)>& visit) {
    EXPECT_TRUE(other->Add("created-meanwhile").ok());  // goes to both filters
    for (const std::string& c : codes) visit(c);
    return Status::Ok();
  };
  ASSERT_TRUE(filter_->Maintain(grown).ok());
  const BloomShape large = *filter_->current();
  EXPECT_GT(large.bits_log2, small.bits_log2);
  EXPECT_EQ(large, ShapeFor(3'000'000, 0.001));
  EXPECT_EQ(Check(*other, "code7"), FilterAnswer::kMaybe);  // `other` still had the small one
  EXPECT_EQ(*other->current(), large);
  EXPECT_EQ(Check(*filter_, "created-meanwhile"), FilterAnswer::kMaybe);
  EXPECT_GT(Run({"PTTL", Prefix() + ":" + small.Name()})->integer, 0);  // the old one expires
}

// The filter's purpose at scale: with 3 million links, 1000 random unknown codes cost fewer than
// 10 database queries (each kMaybe is one). Real codes are all found.
TEST_F(RedisCodeFilterTest, ThreeMillionLinksLetFewerThanTenInAThousandUnknownCodesThrough) {
  constexpr uint64_t kLinks = 3'000'000;
  auto code = [](uint64_t i) { return "L" + std::to_string(i * 2654435761u % 9'999'999'967u); };
  CodeSource source{.count =
                        [](uint64_t* n) {
                          *n = kLinks;
                          return Status::Ok();
                        },
                    .for_each =
                        [&](const std::function<void(const std::string&)>& visit) {
                          for (uint64_t i = 0; i < kLinks; ++i) visit(code(i));
                          return Status::Ok();
                        }};
  ASSERT_TRUE(filter_->Maintain(source).ok());
  int passed = 0;
  for (int i = 0; i < 1000; ++i) {
    passed += Check(*filter_, "unknown-" + std::to_string(i)) != FilterAnswer::kNo;
  }
  RecordProperty("unknown_codes_through_per_1000", passed);
  EXPECT_LT(passed, 10);
  for (uint64_t i = 0; i < kLinks; i += 100'003)
    EXPECT_EQ(Check(*filter_, code(i)), FilterAnswer::kMaybe);
}

TEST(BloomShapeTest, SizedForTwiceTheLinksAndHoldingThemUnderTheRate) {
  for (uint64_t links : {1'000ull, 1'700'000ull, 3'000'000ull, 50'000'000ull}) {
    const BloomShape shape = ShapeFor(links, 0.001);
    EXPECT_GE(CapacityOf(shape, 0.001), 2 * links) << links;
    BloomShape parsed;
    ASSERT_TRUE(BloomShape::Parse(shape.Name(), &parsed));
    EXPECT_EQ(parsed, shape);
  }
  EXPECT_EQ(ShapeFor(1, 0.001).bits_log2, 20u);
  BloomShape parsed;
  EXPECT_FALSE(BloomShape::Parse("b99k7", &parsed));
  EXPECT_FALSE(BloomShape::Parse("b24", &parsed));
}

}  // namespace
}  // namespace ferry::shortlink::testing
