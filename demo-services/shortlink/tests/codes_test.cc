#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "service/code_generator.h"
#include "service/code_rules.h"
#include "shortlink_test_support.h"

namespace ferry::shortlink::testing {
namespace {

TEST(CodeRulesTest, Base62GrowsAndIsNeverTruncated) {
  EXPECT_EQ(Base62(1), "1");
  EXPECT_EQ(Base62(61), "Z");
  EXPECT_EQ(Base62(62), "10");
  EXPECT_EQ(Base62(62 * 62 * 62 * 62 * 62 * 62LL), "1000000");  // 7 characters past 62^6
  EXPECT_EQ(Base62(INT64_MAX).size(), 11u);
  std::set<std::string> seen;
  for (int64_t id = 1; id < 20000; ++id) EXPECT_TRUE(seen.insert(Base62(id)).second) << id;
}

TEST(CodeRulesTest, CustomCodesAreValidated) {
  EXPECT_TRUE(ValidateCustomCode("spring-sale_2026").ok());
  EXPECT_EQ(ValidateCustomCode("ab").code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ValidateCustomCode(std::string(65, 'a')).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ValidateCustomCode("a/b").code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ValidateCustomCode("caf\xc3\xa9").code(), StatusCode::INVALID_ARGUMENT);
  for (const char* word : {"health", "Metrics", "STATUS", "api", "ready", "admin"}) {
    Status s = ValidateCustomCode(word);
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << word;
    EXPECT_NE(s.message().find("reserved"), std::string::npos) << s;
  }
}

TEST(CodeRulesTest, RandomCodesHaveTheirLengthAndAlphabet) {
  RandomCodeGenerator codes(10);
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    std::string code;
    ASSERT_TRUE(codes.Next(&code).ok());
    ASSERT_EQ(code.size(), 10u);
    EXPECT_TRUE(std::all_of(code.begin(), code.end(), [](char c) {
      return kBase62Alphabet.find(c) != std::string_view::npos;
    })) << code;
    EXPECT_TRUE(seen.insert(code).second);
  }
}

class SegmentAllocatorTest : public ::testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<LinkStore> OpenStore(const ShortLinkConfig& config) {
    auto store = std::make_unique<LinkStore>(config.backend == "embedded"
                                                 ? SqliteLinkDatabase(config.sqlite_path, 4)
                                                 : MariaDbLinkDatabase(config.mariadb, 8));
    EXPECT_TRUE(store->Initialize().ok());
    return store;
  }
  TempDir dir_;
};

// Two providers' allocators drawing at once: every id once, none shared; after a "restart"
// (new allocators on the same database) every id is above all the earlier ones.
TEST_P(SegmentAllocatorTest, RangesNeverOverlapAndNeverGoBackwards) {
  const ShortLinkConfig config = ConfigFor(GetParam(), dir_.path());
  std::unique_ptr<LinkStore> store = OpenStore(config);
  std::vector<int64_t> ids[4];
  {
    SegmentIdAllocator a(store.get(), "test", 10);
    SegmentIdAllocator b(store.get(), "test", 10);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        SegmentIdAllocator& mine = t % 2 == 0 ? a : b;
        for (int i = 0; i < 250; ++i) {
          int64_t id = 0;
          ASSERT_TRUE(mine.Next(&id).ok());
          ids[t].push_back(id);
        }
      });
    }
    for (auto& t : threads) t.join();
    // Prefetching: 1000 ids from ranges of 10 took about 100 leases, not one per id.
    EXPECT_LE(a.leases() + b.leases(), 110);
  }
  std::set<int64_t> all;
  for (auto& v : ids) {
    for (int64_t id : v) EXPECT_TRUE(all.insert(id).second) << "id " << id << " twice";
  }
  EXPECT_EQ(all.size(), 1000u);
  EXPECT_GE(*all.begin(), 1);

  std::unique_ptr<LinkStore> reopened = OpenStore(config);
  SegmentIdAllocator after(reopened.get(), "test", 10);
  int64_t id = 0;
  ASSERT_TRUE(after.Next(&id).ok());
  EXPECT_GT(id, *all.rbegin());
}

INSTANTIATE_TEST_SUITE_P(Backends, SegmentAllocatorTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

}  // namespace
}  // namespace ferry::shortlink::testing
